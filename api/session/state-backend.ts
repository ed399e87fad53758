/**
 * Where the state that must be the same in every process lives: browser sessions (desk and
 * reader sign-in), the credential limiter's buckets and the intake rate limits
 * (docs/operations.md, "Several processes"). Two backends behind one interface:
 *
 *   memory  the embedded default: a Map of sessions and a token bucket map per limit, in this
 *           process. Right for one process (ARCHIVE_READ_PROCESSES=1); several processes would
 *           each count on their own, so the server refuses to start several without Redis.
 *   redis   ARCHIVE_REDIS_URL: every process (and every machine) reads and writes the same keys.
 *           A session is one key with the session's lifetime as its expiry, plus a sorted set
 *           that bounds their number; a token bucket is one hash updated by a Lua script, which
 *           Redis runs atomically, with Redis's own clock (TIME), so machines whose clocks differ
 *           still count one bucket. No replication of our own: Redis is the one copy.
 *
 * Idempotency of intake needs neither: every submission is written by the one write process,
 * whose record store claims a key by an exclusive create in the data folder
 * (api/contributions/store.ts), and readers forward submissions to it.
 */
import { createClient } from 'redis';
import type { RateLimitSetting } from '../config.ts';
import { RateLimiter, type RateDecision } from '../contributions/rate-limiter.ts';
import type { Session } from './session.ts';

/** Token buckets by name (a limit) and key (a client address, a key label). */
export interface BucketBackend {
  /** Count one request of `key` against `setting` (`take`), or only look (`peek`). */
  decide(limit: string, setting: RateLimitSetting, key: string, take: boolean): Promise<RateDecision>;
}

/** Sessions by the SHA-256 of their token. */
export interface SessionBackend {
  /** Store a new session; the oldest are dropped past `maxSessions`. */
  put(hash: string, session: Session, maxSessions: number): Promise<void>;
  /** The stored session (expired ones may still be returned: the caller checks `expiresAtMs`). */
  get(hash: string): Promise<Session | null>;
  delete(hash: string): Promise<void>;
  /** Live sessions (tests, metrics). */
  size(): Promise<number>;
}

export interface StateBackend {
  readonly kind: 'memory' | 'redis';
  readonly sessions: SessionBackend;
  readonly buckets: BucketBackend;
  /** A readiness line ("Redis at ... answers"), or a throw. */
  check(): Promise<string>;
  close(): Promise<void>;
}

/** The decision a bucket holding `tokens` (after this request, when it was counted) gives. */
export function decisionOf(setting: RateLimitSetting, tokens: number, allowed: boolean): RateDecision {
  const cap = setting.limit;
  const rate = cap / (setting.windowSeconds * 1000);
  return {
    allowed,
    limit: cap,
    remaining: Math.floor(tokens),
    resetSeconds: Math.ceil((cap - tokens) / rate / 1000),
    retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((1 - tokens) / rate / 1000)),
  };
}

/** The embedded default: everything in this process. */
export class MemoryStateBackend implements StateBackend {
  readonly kind = 'memory' as const;
  private readonly limiters = new Map<string, RateLimiter>();
  private readonly now: () => number;
  readonly sessions: SessionBackend;
  readonly buckets: BucketBackend;

  constructor(options: { now?: () => number } = {}) {
    this.now = options.now ?? Date.now;
    const now = this.now;
    /** Keyed by the token's SHA-256; a Map keeps insertion order, so the first entry is the oldest. */
    const map = new Map<string, Session>();
    this.sessions = {
      async put(hash, session, maxSessions) {
        const t = now();
        for (const [key, s] of map) if (s.expiresAtMs <= t) map.delete(key);
        while (map.size >= maxSessions) {
          const oldest = map.keys().next().value;
          if (oldest === undefined) break;
          map.delete(oldest);
        }
        map.set(hash, session);
      },
      async get(hash) {
        const s = map.get(hash) ?? null;
        if (s && s.expiresAtMs <= now()) {
          map.delete(hash);
          return null;
        }
        return s;
      },
      async delete(hash) {
        map.delete(hash);
      },
      async size() {
        return map.size;
      },
    };
    this.buckets = {
      decide: async (limit, setting, key, take) => {
        let limiter = this.limiters.get(limit);
        if (!limiter) this.limiters.set(limit, (limiter = new RateLimiter(setting, { now: this.now })));
        return take ? limiter.take(key) : limiter.peek(key);
      },
    };
  }

  async check(): Promise<string> {
    return 'sessions and limits in this process';
  }

  async close(): Promise<void> {}
}

/**
 * A token bucket in one hash (tokens, at): refilled by elapsed time at `rate` tokens per ms up to
 * `limit`, one token taken when `take` is 1 and one is there. Redis's TIME is the clock. Returns
 * {allowed, tokens as text} (Lua numbers become integers in replies, so the fraction travels as text).
 */
const BUCKET_SCRIPT = `
local limit = tonumber(ARGV[1])
local rate = tonumber(ARGV[2])
local take = tonumber(ARGV[3])
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local b = redis.call('HMGET', KEYS[1], 'tokens', 'at')
local tokens = limit
if b[1] then
  tokens = math.min(limit, tonumber(b[1]) + math.max(0, now - tonumber(b[2])) * rate)
end
local allowed = 0
if tokens >= 1 then allowed = 1 end
if take == 1 then
  if allowed == 1 then tokens = tokens - 1 end
  redis.call('HSET', KEYS[1], 'tokens', tostring(tokens), 'at', tostring(now))
  redis.call('PEXPIRE', KEYS[1], math.ceil(limit / rate) + 1000)
end
return {allowed, tostring(tokens)}
`;

/**
 * A new session: its key with the lifetime as expiry, its place in the sorted set by creation
 * time; expired members leave the set, then the oldest past the bound go (set and keys).
 * KEYS: session key, set key. ARGV: hash, JSON, lifetime ms, max sessions, now ms, key prefix.
 */
const PUT_SESSION_SCRIPT = `
redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
local now = tonumber(ARGV[5])
local expired = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now - tonumber(ARGV[3]))
for _, h in ipairs(expired) do redis.call('ZREM', KEYS[2], h) end
redis.call('ZADD', KEYS[2], now, ARGV[1])
local over = redis.call('ZCARD', KEYS[2]) - tonumber(ARGV[4])
if over > 0 then
  local oldest = redis.call('ZPOPMIN', KEYS[2], over)
  for i = 1, #oldest, 2 do redis.call('DEL', ARGV[6] .. oldest[i]) end
end
return 1
`;

/** Keys of this archive in the Redis database (one database per archive: the URL's /<db>). */
const PREFIX = 'archive:';

export class RedisStateBackend implements StateBackend {
  readonly kind = 'redis' as const;
  private readonly client: ReturnType<typeof createClient>;
  private readonly url: string;
  private bucketSha: string | null = null;
  private sessionSha: string | null = null;
  readonly sessions: SessionBackend;
  readonly buckets: BucketBackend;

  private constructor(url: string, client: ReturnType<typeof createClient>) {
    this.url = url;
    this.client = client;
    const sessionKey = (hash: string) => `${PREFIX}session:${hash}`;
    const setKey = `${PREFIX}sessions`;
    this.sessions = {
      put: async (hash, session, maxSessions) => {
        const lifetime = Math.max(1, session.expiresAtMs - session.createdAtMs);
        await this.script(
          'session',
          PUT_SESSION_SCRIPT,
          [sessionKey(hash), setKey],
          [
            hash,
            JSON.stringify(session),
            String(lifetime),
            String(maxSessions),
            String(session.createdAtMs),
            `${PREFIX}session:`,
          ],
        );
      },
      get: async (hash) => {
        const text = await this.client.get(sessionKey(hash));
        return text ? (JSON.parse(text) as Session) : null;
      },
      delete: async (hash) => {
        await this.client.multi().del(sessionKey(hash)).zRem(setKey, hash).exec();
      },
      size: async () => Number(await this.client.zCard(setKey)),
    };
    this.buckets = {
      decide: async (limit, setting, key, take) => {
        const rate = setting.limit / (setting.windowSeconds * 1000);
        const reply = (await this.script(
          'bucket',
          BUCKET_SCRIPT,
          [`${PREFIX}bucket:${limit}:${key}`],
          [String(setting.limit), String(rate), take ? '1' : '0'],
        )) as [number, string];
        return decisionOf(setting, Number(reply[1]), Number(reply[0]) === 1);
      },
    };
  }

  /** Connect (bounded: a Redis that does not answer in 5 s stops the start with its URL). */
  static async connect(url: string): Promise<RedisStateBackend> {
    const client = createClient({
      url,
      socket: { connectTimeout: 5_000, reconnectStrategy: (retries) => Math.min(100 * 2 ** retries, 2_000) },
    });
    // Errors between commands (a restart of Redis) are retried by the client; each command that
    // fails on its own is the caller's error, answered as a problem.
    client.on('error', () => undefined);
    await client.connect();
    return new RedisStateBackend(url, client);
  }

  /** EVALSHA, loading the script on first use or after Redis forgot it (NOSCRIPT). */
  private async script(which: 'bucket' | 'session', body: string, keys: string[], args: string[]): Promise<unknown> {
    const field = which === 'bucket' ? 'bucketSha' : 'sessionSha';
    for (let attempt = 0; ; attempt++) {
      const sha = (this[field] ??= await this.client.scriptLoad(body));
      try {
        return await this.client.evalSha(sha, { keys, arguments: args });
      } catch (err) {
        if (attempt === 0 && /NOSCRIPT/.test((err as Error).message)) {
          this[field] = null;
          continue;
        }
        throw err;
      }
    }
  }

  async check(): Promise<string> {
    const pong = await this.client.ping();
    if (pong !== 'PONG') throw new Error(`Redis at ${redactedUrl(this.url)} answered ${pong}`);
    return `sessions and limits in Redis at ${redactedUrl(this.url)}`;
  }

  async close(): Promise<void> {
    await this.client.quit().catch(() => this.client.disconnect());
  }
}

/** The URL without its password (for logs and readiness). */
export function redactedUrl(url: string): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return 'redis';
  }
}

/** The configured backend: Redis when ARCHIVE_REDIS_URL is set, else this process's memory. */
export async function openStateBackend(
  redisUrl: string | null,
  memory: { now?: () => number } = {},
): Promise<StateBackend> {
  // Redis keeps its own clock (TIME); `memory.now` is the in-process backend's (a test's clock).
  return redisUrl ? RedisStateBackend.connect(redisUrl) : new MemoryStateBackend(memory);
}
