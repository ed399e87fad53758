/**
 * The shared state of several processes (api/session/state-backend.ts) against a real Redis
 * (Debian's redis-server): two backends connected to one Redis are two processes. A session made
 * through one is found, bounded and revoked through the other; a token bucket taken through one
 * is empty for the other, and refills by Redis's clock. The memory backend gives the same
 * decisions as the one-process limiter it wraps.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MemoryStateBackend, RedisStateBackend, type StateBackend } from '../../api/session/state-backend.ts';
import { SessionStore } from '../../api/session/sessions.ts';
import { CredentialLimiter } from '../../api/http/credential-limiter.ts';
import { startRedis, type TestRedis } from '../helpers/redis.ts';

let redis: TestRedis;
let a: StateBackend;
let b: StateBackend;

beforeAll(async () => {
  redis = await startRedis();
  a = await RedisStateBackend.connect(redis.url);
  b = await RedisStateBackend.connect(redis.url);
}, 60_000);

afterAll(async () => {
  await a?.close();
  await b?.close();
  await redis?.stop();
});

const admin = { kind: 'admin' as const, label: 'ed' };
const limits = {
  failuresPerAddress: { limit: 3, windowSeconds: 60 },
  requestsPerKeyLabel: { limit: 5, windowSeconds: 60 },
};

describe('sessions in Redis', () => {
  it('a session made through one process is found, then revoked, through another', async () => {
    const one = new SessionStore({ lifetimeMs: 60_000, backend: a.sessions });
    const two = new SessionStore({ lifetimeMs: 60_000, backend: b.sessions });
    const { token, session } = await one.create(admin);
    expect(await two.get(token)).toEqual(session);
    await two.revoke(token);
    expect(await one.get(token)).toBeNull();
  });

  it('expires with its lifetime and keeps at most maxSessions, oldest first', async () => {
    const short = new SessionStore({ lifetimeMs: 300, backend: a.sessions });
    const { token } = await short.create(admin);
    expect(await short.get(token)).not.toBeNull();
    await new Promise((r) => setTimeout(r, 400));
    expect(await new SessionStore({ lifetimeMs: 300, backend: b.sessions }).get(token)).toBeNull();
    const bounded = new SessionStore({ lifetimeMs: 60_000, maxSessions: 3, backend: a.sessions });
    const tokens: string[] = [];
    for (let i = 0; i < 5; i++) tokens.push((await bounded.create(admin)).token);
    const other = new SessionStore({ lifetimeMs: 60_000, maxSessions: 3, backend: b.sessions });
    expect(await other.get(tokens[0])).toBeNull();
    expect(await other.get(tokens[1])).toBeNull();
    for (const t of tokens.slice(2)) expect(await other.get(t)).not.toBeNull();
    expect(await b.sessions.size()).toBeLessThanOrEqual(3);
  });
});

describe('limits in Redis', () => {
  it('failed credential checks through one process limit the address on the other', async () => {
    const one = new CredentialLimiter(limits, { buckets: a.buckets });
    const two = new CredentialLimiter(limits, { buckets: b.buckets });
    for (let i = 0; i < 3; i++) {
      expect(await two.beforeCheck('203.0.113.7')).toBeNull();
      await one.failed('203.0.113.7');
    }
    const refused = await two.beforeCheck('203.0.113.7');
    expect(refused?.detail).toMatch(/Too many failed credential checks/);
    expect(refused!.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    // Another address, and the same /64 of IPv6, count on their own bucket and on a shared one.
    expect(await two.beforeCheck('203.0.113.8')).toBeNull();
  });

  it('a key label is counted across processes, and a bucket refills by the window', async () => {
    const one = new CredentialLimiter(limits, { buckets: a.buckets });
    const two = new CredentialLimiter(limits, { buckets: b.buckets });
    for (let i = 0; i < 5; i++) expect(await (i % 2 ? one : two).admit('curator-1')).toBeNull();
    expect((await one.admit('curator-1'))?.detail).toMatch(/more than 5 requests in 60 s/);
    // 5 per 60 s: one token back every 12 s. A fast window shows the refill.
    const fast = { limit: 2, windowSeconds: 1 };
    expect((await a.buckets.decide('t', fast, 'k', true)).allowed).toBe(true);
    expect((await b.buckets.decide('t', fast, 'k', true)).allowed).toBe(true);
    const empty = await a.buckets.decide('t', fast, 'k', true);
    expect(empty.allowed).toBe(false);
    expect(empty.retryAfterSeconds).toBe(1);
    await new Promise((r) => setTimeout(r, 600));
    expect((await b.buckets.decide('t', fast, 'k', false)).allowed).toBe(true);
  });

  it('gives the decisions of the one-process limiter it replaces', async () => {
    const setting = { limit: 4, windowSeconds: 60 };
    const memory = new MemoryStateBackend();
    for (let i = 0; i < 6; i++) {
      const m = await memory.buckets.decide('same', setting, 'c', true);
      const r = await a.buckets.decide('same', setting, 'c', true);
      expect({ allowed: r.allowed, remaining: r.remaining, limit: r.limit }).toEqual({
        allowed: m.allowed,
        remaining: m.remaining,
        limit: m.limit,
      });
    }
  });

  it('reports itself ready', async () => {
    expect(await a.check()).toMatch(/Redis at redis:\/\/127\.0\.0\.1/);
  });
});
