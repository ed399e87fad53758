/** SessionStore (api/session/sessions.ts) on its in-memory backend: tokens, expiry, revocation and the bound. */
import { describe, expect, it } from 'vitest';
import { SessionStore } from '../../api/session/sessions.ts';

const admin = { kind: 'admin' as const, label: 'ed' };

describe('SessionStore', () => {
  it('finds a session by its token until it expires, then forgets it', async () => {
    let now = 1_000_000;
    const store = new SessionStore({ lifetimeMs: 60_000, now: () => now });
    const { token, session } = await store.create(admin);
    expect(token).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(session.csrf).not.toBe(token);
    expect(await store.get(token)).toEqual(session);
    now += 59_999;
    expect(await store.get(token)).toEqual(session);
    now += 1;
    expect(await store.get(token)).toBeNull();
    expect(await store.size()).toBe(0);
  });

  it('never matches an unknown, malformed or revoked token', async () => {
    const store = new SessionStore({ lifetimeMs: 60_000 });
    const { token } = await store.create(admin);
    expect(await store.get(undefined)).toBeNull();
    expect(await store.get('')).toBeNull();
    expect(await store.get(`${token}x`)).toBeNull();
    expect(await store.get(token.replace(/^./, (c: string) => (c === 'A' ? 'B' : 'A')))).toBeNull();
    await store.revoke(token);
    expect(await store.get(token)).toBeNull();
  });

  it('holds at most maxSessions, dropping the oldest first', async () => {
    const store = new SessionStore({ lifetimeMs: 60_000, maxSessions: 3 });
    const tokens: string[] = [];
    for (let i = 0; i < 4; i++) tokens.push((await store.create(admin)).token);
    expect(await store.size()).toBe(3);
    expect(await store.get(tokens[0])).toBeNull();
    for (const t of tokens.slice(1)) expect(await store.get(t)).not.toBeNull();
  });
});
