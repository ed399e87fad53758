/** SessionStore (api/session/sessions.ts): tokens, expiry, revocation and the bound. */
import { describe, expect, it } from 'vitest';
import { SessionStore } from '../../api/session/sessions.ts';

const admin = { kind: 'admin' as const, label: 'ed' };

describe('SessionStore', () => {
  it('finds a session by its token until it expires, then forgets it', () => {
    let now = 1_000_000;
    const store = new SessionStore({ lifetimeMs: 60_000, now: () => now });
    const { token, session } = store.create(admin);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(session.csrf).not.toBe(token);
    expect(store.get(token)).toBe(session);
    now += 59_999;
    expect(store.get(token)).toBe(session);
    now += 1;
    expect(store.get(token)).toBeNull();
    expect(store.size).toBe(0);
  });

  it('never matches an unknown, malformed or revoked token', () => {
    const store = new SessionStore({ lifetimeMs: 60_000 });
    const { token } = store.create(admin);
    expect(store.get(undefined)).toBeNull();
    expect(store.get('')).toBeNull();
    expect(store.get(`${token}x`)).toBeNull();
    expect(store.get(token.replace(/^./, (c) => (c === 'A' ? 'B' : 'A')))).toBeNull();
    store.revoke(token);
    expect(store.get(token)).toBeNull();
  });

  it('holds at most maxSessions, dropping the oldest first', () => {
    const store = new SessionStore({ lifetimeMs: 60_000, maxSessions: 3 });
    const tokens = [1, 2, 3, 4].map(() => store.create(admin).token);
    expect(store.size).toBe(3);
    expect(store.get(tokens[0])).toBeNull();
    for (const t of tokens.slice(1)) expect(store.get(t)).not.toBeNull();
  });
});
