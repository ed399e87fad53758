/**
 * A small in-memory rate limiter for the public submission endpoints: one token bucket per
 * client address. A bucket holds `limit` tokens and refills at `limit` per window, so a client
 * may burst up to the limit and then sustain limit/window. Memory stays bounded: idle clients
 * (whose bucket has refilled) are swept, and past `maxClients` the least recently seen is
 * dropped (which only ever lets that client start afresh).
 */
import { isIPv6 } from 'node:net';
import type { RateLimitSetting } from '../config.ts';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  /** Whole requests left right now (after this one, when allowed). */
  remaining: number;
  /** Seconds until the bucket is full again. */
  resetSeconds: number;
  /** Seconds to wait before the next request can pass; 0 when allowed. */
  retryAfterSeconds: number;
}

interface Bucket {
  tokens: number;
  atMs: number;
}

export interface RateLimiterOptions {
  now?: () => number;
  maxClients?: number;
  /** Sweep idle clients every this many decisions. */
  sweepEvery?: number;
}

/**
 * The key a client is counted under: its IPv4 address, or the /64 prefix of an IPv6 address
 * (one host usually holds a whole /64, so counting single addresses would not limit it).
 */
export function clientKey(ip: string): string {
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip);
  if (v4) return v4[1]!;
  if (!isIPv6(ip)) return ip;
  const [head = '', tail = ''] = ip.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const groups = ip.includes('::') ? [...left, ...Array(8 - left.length - right.length).fill('0'), ...right] : left;
  return `${groups
    .slice(0, 4)
    .map((g) => (g || '0').toLowerCase().replace(/^0+(?=.)/, ''))
    .join(':')}::/64`;
}

export class RateLimiter {
  readonly setting: RateLimitSetting;
  private readonly buckets = new Map<string, Bucket>();
  private readonly now: () => number;
  private readonly maxClients: number;
  private readonly sweepEvery: number;
  /** Tokens regained per millisecond. */
  private readonly rate: number;
  private decisions = 0;

  constructor(setting: RateLimitSetting, options: RateLimiterOptions = {}) {
    this.setting = setting;
    this.now = options.now ?? Date.now;
    this.maxClients = options.maxClients ?? 50_000;
    this.sweepEvery = options.sweepEvery ?? 1_000;
    this.rate = setting.limit / (setting.windowSeconds * 1000);
  }

  /** Clients currently tracked. */
  get size(): number {
    return this.buckets.size;
  }

  /** Whether `client` has a whole token left, without counting anything. */
  peek(client: string): RateDecision {
    const tokens = this.tokensAt(client, this.now());
    return this.decision(tokens >= 1, tokens);
  }

  /** The tokens `client` has at `now`: its bucket refilled since last seen, or a full one. */
  private tokensAt(client: string, now: number): number {
    const cap = this.setting.limit;
    const old = this.buckets.get(client);
    return old ? Math.min(cap, old.tokens + Math.max(0, now - old.atMs) * this.rate) : cap;
  }

  /** The answer when `tokens` are left after the decision. */
  private decision(allowed: boolean, tokens: number): RateDecision {
    const cap = this.setting.limit;
    return {
      allowed,
      limit: cap,
      remaining: Math.floor(tokens),
      resetSeconds: Math.ceil((cap - tokens) / this.rate / 1000),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / this.rate / 1000)),
    };
  }

  /** Count one request of `client`; it passes when a whole token is left. */
  take(client: string): RateDecision {
    const now = this.now();
    const tokens = this.tokensAt(client, now);
    const allowed = tokens >= 1;
    const left = allowed ? tokens - 1 : tokens;
    // Re-insert so the map's order is least recently seen first.
    this.buckets.delete(client);
    this.buckets.set(client, { tokens: left, atMs: now });
    if (++this.decisions % this.sweepEvery === 0) this.sweep(now);
    while (this.buckets.size > this.maxClients) {
      const oldest = this.buckets.keys().next().value as string;
      this.buckets.delete(oldest);
    }
    return this.decision(allowed, left);
  }

  /** Forget clients whose bucket has refilled: they are indistinguishable from new ones. */
  sweep(now = this.now()): void {
    for (const [client, b] of this.buckets) {
      if (b.tokens + (now - b.atMs) * this.rate >= this.setting.limit) this.buckets.delete(client);
      else break; // the rest were seen more recently
    }
  }
}
