/** The token-bucket limiter (with an injected clock), client keys, and the rate-limit settings. */
import { describe, expect, it } from 'vitest';
import { RateLimiter, clientKey } from '../../api/contributions/rate-limiter.ts';
import { loadIntakeConfig, parseRateLimit } from '../../api/config.ts';

function clock(start = 1_000_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

describe('RateLimiter', () => {
  it('allows a burst up to the limit, then refuses with the wait until one more fits', () => {
    const c = clock();
    const limiter = new RateLimiter({ limit: 3, windowSeconds: 60 }, { now: c.now });
    const first = limiter.take('a');
    expect(first).toEqual({ allowed: true, limit: 3, remaining: 2, resetSeconds: 20, retryAfterSeconds: 0 });
    expect(limiter.take('a').remaining).toBe(1);
    expect(limiter.take('a').remaining).toBe(0);
    const refused = limiter.take('a');
    expect(refused).toMatchObject({ allowed: false, remaining: 0, retryAfterSeconds: 20, resetSeconds: 60 });
    expect(limiter.take('b').allowed).toBe(true); // clients are counted apart
    c.advance(19_999);
    expect(limiter.take('a').allowed).toBe(false);
    c.advance(1);
    expect(limiter.take('a')).toMatchObject({ allowed: true, remaining: 0 });
  });

  it('refills at limit per window and never above the limit', () => {
    const c = clock();
    const limiter = new RateLimiter({ limit: 2, windowSeconds: 10 }, { now: c.now });
    limiter.take('a');
    limiter.take('a');
    c.advance(3_600_000);
    expect(limiter.take('a').remaining).toBe(1);
  });

  it('stays bounded: idle clients are swept and the least recently seen go first', () => {
    const c = clock();
    const limiter = new RateLimiter({ limit: 5, windowSeconds: 1 }, { now: c.now, maxClients: 100, sweepEvery: 50 });
    for (let i = 0; i < 1000; i++) limiter.take(`client-${i}`);
    expect(limiter.size).toBe(100);
    c.advance(2_000);
    limiter.sweep();
    expect(limiter.size).toBe(0);
  });

  it('counts IPv4 addresses alone and IPv6 addresses by /64', () => {
    expect(clientKey('203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(clientKey('2001:db8:1:2:aaaa::1')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:0db8:0001:0002:bbbb:cccc:dddd:eeee')).toBe('2001:db8:1:2::/64');
    expect(clientKey('2001:db8::1')).toBe('2001:db8:0:0::/64');
    expect(clientKey('::1')).toBe('0:0:0:0::/64');
  });
});

describe('rate-limit settings', () => {
  it('default to 20 per 60 s and read "<requests>/<seconds>"', () => {
    expect(loadIntakeConfig({})).toMatchObject({
      contributionRateLimit: { limit: 20, windowSeconds: 60 },
      correctionRateLimit: { limit: 20, windowSeconds: 60 },
    });
    expect(loadIntakeConfig({ ARCHIVE_CONTRIBUTION_RATE_LIMIT: '5 / 10' }).contributionRateLimit).toEqual({
      limit: 5,
      windowSeconds: 10,
    });
  });

  it('refuse a bad value, naming the variable', () => {
    expect(() => parseRateLimit('ARCHIVE_CORRECTION_RATE_LIMIT', '0/60')).toThrow(
      /ARCHIVE_CORRECTION_RATE_LIMIT must be/,
    );
    expect(() => loadIntakeConfig({ ARCHIVE_CONTRIBUTION_RATE_LIMIT: 'lots' })).toThrow(
      /ARCHIVE_CONTRIBUTION_RATE_LIMIT must be "<requests>\/<seconds>"/,
    );
  });
});
