/**
 * Runtime configuration from the environment (docs/decisions/0017-configuration-parsed-once.md): every variable the server reads is
 * parsed and checked here, once, at start-up, so a bad value stops the start with a message naming
 * the variable instead of surfacing at the first request that needs it. Every value has a default
 * that runs the sample catalog locally. Features receive their part through AppContext.config.
 */
import { isIP } from 'node:net';
import { createPrivateKey } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  CONTRIBUTION_BODY_LIMIT,
  CORRECTION_BODY_LIMIT,
  DEFAULT_RATE_LIMIT as DEFAULT_LIMIT,
  RATE_LIMIT_VARIABLES,
} from '../src/domain/contributions/policy.ts';
import {
  DEFAULT_ENGRAVE_MEMORY_MB,
  DEFAULT_ENGRAVE_CPU_MS,
  DEFAULT_ENGRAVE_TIMEOUT_MS,
  defaultEngravePoolOptions,
  type EngravePoolOptions,
} from '../src/lib/site/engrave-pool.ts';
import { DEFAULT_FETCH_MAX_BYTES, DEFAULT_FETCH_TIMEOUT_MS, normalizeAllowEntry } from './review/fetch.ts';
import { defaultWarmBuilderMaxRssBytes, settingValue } from './config-table.ts';
import { parseReconcileSchedule, type ReconcileSchedule } from '../src/domain/reconcile-schedule.ts';
import { layerMaxPathsFrom } from '../src/domain/site-layers.ts';
import { DEFAULT_CACHE_BUDGETS, MIB, type CacheBudgets } from './site/cache-budgets.ts';
import {
  ENGRAVE_MIN_MB,
  ENGRAVING_SHARE,
  memoryPlan,
  memoryPlanWords,
  SERVER_START_MIN_MIB,
  WARM_BUILDER_SHARE,
  type MemoryPlan,
} from './site/memory-plan.ts';

export interface RateLimitSetting {
  /** Requests allowed in a burst, and per window on average. */
  limit: number;
  windowSeconds: number;
}

/** Public submission endpoints: ARCHIVE_CONTRIBUTION_RATE_LIMIT, ARCHIVE_CORRECTION_RATE_LIMIT ("<requests>/<seconds>"). */
export interface IntakeConfig {
  contributionRateLimit: RateLimitSetting;
  correctionRateLimit: RateLimitSetting;
  /** Largest accepted body, bytes. */
  contributionBodyLimit: number;
  correctionBodyLimit: number;
}

/** Limits of the review fetcher: ARCHIVE_FETCH_MAX_BYTES, ARCHIVE_FETCH_TIMEOUT_MS, ARCHIVE_FETCH_ALLOW_HOSTS. */
export interface FetchSettings {
  maxBytes: number;
  timeoutMs: number;
  allowHosts: string[];
}

/**
 * Reader sign-in through GitHub OAuth (docs/reader-sign-in.md): GITHUB_OAUTH_CLIENT_ID + GITHUB_OAUTH_CLIENT_SECRET
 * (both, or neither), the provider's web origin GITHUB_OAUTH_BASE_URL (authorize and access_token
 * endpoints) and GITHUB_API_URL for `GET /user`. Null: this archive offers no reader sign-in.
 */
export interface ReaderSignInSettings {
  provider: 'github';
  clientId: string;
  clientSecret: string;
  /** Origin of /login/oauth/authorize and /login/oauth/access_token (https://github.com). */
  oauthBaseUrl: string;
  /** Base of the REST API for GET /user (https://api.github.com). */
  apiUrl: string;
}

/**
 * Review on GitHub: GITHUB_REPOSITORY with either GITHUB_TOKEN or a GitHub App (GITHUB_APP_ID,
 * GITHUB_APP_INSTALLATION_ID, GITHUB_APP_PRIVATE_KEY_FILE); GITHUB_API_URL.
 */
export interface GitHubSettings {
  /** A token (fine-grained or classic); absent when a GitHub App authenticates. */
  token?: string;
  /** GitHub App credentials (api/forge/github-app-auth.ts); absent with a token. */
  app?: { appId: string; installationId: string; privateKey: string };
  repository: string;
  apiUrl?: string;
}

export interface Config {
  port: number;
  host: string;
  /** Origin of every absolute link, without a trailing slash. */
  publicBaseUrl: string;
  dataDir: string;
  /** The content repository the service builds and reviews. */
  contentRepo: string;
  /** The shipped seed catalog, copied into contentRepo on first start. */
  seedContentDir: string;
  libraryKeys: string[];
  curatorKeys: string[];
  adminKeys: string[];
  logLevel: string;
  /** Largest file a library import may declare, in bytes (ARCHIVE_LIBRARY_MAX_FILE_BYTES). */
  libraryMaxFileBytes: number;
  intake: IntakeConfig;
  fetch: FetchSettings;
  /** null: review runs on local branches. */
  github: GitHubSettings | null;
  /** Reader sign-in (GITHUB_OAUTH_CLIENT_ID/SECRET); null when none is configured. */
  readerSignIn: ReaderSignInSettings | null;
  /** Verifies X-Hub-Signature-256 of webhook deliveries (GITHUB_WEBHOOK_SECRET); null refuses every delivery. */
  githubWebhookSecret: string | null;
  /** Test hook (ARCHIVE_LIBRARY_FAILPOINTS): crash points of the library's reliability tests; empty in production. */
  libraryFailpoints: string[];
  /** ARCHIVE_TRUSTED_PROXIES: addresses/CIDRs whose X-Forwarded-For is believed (rate limits, logs); empty trusts none. */
  trustedProxies: string[];
  /**
   * ARCHIVE_MCP_ALLOWED_ORIGINS: origins (besides the service's own) whose browser pages may call
   * /mcp; a request with any other Origin is refused with 403 (MCP transport security). `*` allows any.
   */
  mcpAllowedOrigins: string[];
  /**
   * ARCHIVE_ALLOWED_HOSTS: host names (besides PUBLIC_BASE_URL's and the loopback names) requests
   * may be addressed to (api/http/hosts.ts); `*` allows any.
   */
  allowedHosts: string[];
  /**
   * ARCHIVE_DOWNLOAD_OFFLOAD: "nginx" hands the bytes of library files and published blobs to a
   * fronting nginx (X-Accel-Redirect to the build's nginx.conf internal location) after the key
   * check; "none" (default) sends them from Node.
   */
  downloadOffload: 'none' | 'nginx';
  /** ARCHIVE_METRICS_KEYS: keys that may read GET /metrics on the main port (`label=secret`, comma-separated). */
  metricsKeys: string[];
  /** ARCHIVE_METRICS_PORT: a separate loopback listener that serves /metrics without a key; null for none. */
  metricsPort: number | null;
  /** ARCHIVE_*_TIMEOUT_MS: the HTTP server's timeouts (see ServerTimeouts). */
  serverTimeouts: ServerTimeouts;
  /** ARCHIVE_DRAIN_TIMEOUT_MS: how long SIGTERM waits for in-flight requests before closing their connections. */
  drainTimeoutMs: number;
  /** Absolute lifetime of a browser session (desk or reader sign-in), from ARCHIVE_SESSION_HOURS (default 12). */
  sessionLifetimeMs: number;
  /** ARCHIVE_FAST_PATH_LOG_SAMPLE: share (0..1) of answers of the in-memory fast path that are logged. */
  fastPathLogSample: number;
  /**
   * Credential checks (sign-in, Bearer, X-Archive-Import-Key): ARCHIVE_CREDENTIAL_FAILURE_LIMIT, the
   * failed checks one client address may make ("<failures>/<seconds>"), and ARCHIVE_KEY_RATE_LIMIT,
   * the requests one key label may authenticate ("<requests>/<seconds>").
   */
  credentialLimits: CredentialLimits;
  /** ARCHIVE_BACKUP_WRITE_PAUSE_MS: the longest `npm run backup` may pause state writes to finish its snapshot (0: never). */
  backupWritePauseMs: number;
  /** Where blobs live: ARCHIVE_BLOB_STORE and the ARCHIVE_S3_* bucket settings. */
  blobStore: BlobStoreSettings;
  /** How to reach an S3-compatible service (ARCHIVE_S3_*): the blob store, publish:static, backup. */
  s3: S3Settings;
  /** ARCHIVE_INCREMENTAL_BUILDS: rebuilds (and the start-up build) build only what a change touches when they can. */
  incrementalBuilds: boolean;
  /** ARCHIVE_RECONCILE_DELAY_MS: quiet time after an incremental swap before the full build that replaces it; null: never (default). */
  reconcileDelayMs: number | null;
  /** ARCHIVE_RECONCILE_SCHEDULE: when a served incremental build is reconciled on a schedule (default off). */
  reconcileSchedule: ReconcileSchedule;
  /** ARCHIVE_WARM_BUILDER: the rebuilds an apply waits for run in one long-lived build process (default on). */
  warmBuilder: boolean;
  /**
   * ARCHIVE_WARM_BUILDER_WARM_UP: with the warm build process, it renders the served build's pages
   * once at start (discarded), so the first apply finds the catalog loaded and Astro compiled (default on).
   */
  warmBuilderWarmUp: boolean;
  /**
   * ARCHIVE_WARM_BUILDER_MAX_RSS_MB: the warm build process is replaced once its resident memory
   * reached this many bytes after a build (default: api/config-table.ts,
   * `defaultWarmBuilderMaxRssBytes`).
   */
  warmBuilderMaxRssBytes: number;
  /** ARCHIVE_LAYER_MAX_PATHS: a layer's bound (the builds read it too); the server compacts a served layer from half of it (0: layers off). */
  layerMaxPaths: number;
  /**
   * The engraving pool (ARCHIVE_ENGRAVE_WORKERS, ARCHIVE_ENGRAVE_CPU_MS, ARCHIVE_ENGRAVE_TIMEOUT_MS,
   * ARCHIVE_ENGRAVE_MEMORY_MB): worker threads, each score's CPU time and memory budget and the
   * wall-clock backstop, for builds, review checks and the desk.
   */
  engrave: EngravePoolOptions;
  /** The in-memory caches of a served build, each bounded by bytes (ARCHIVE_*_CACHE_MB, ARCHIVE_STATIC_FACTS_MB). */
  cacheBudgets: CacheBudgets;
  /**
   * ARCHIVE_MEMORY_LIMIT_MB: the most the service's process tree may hold, MiB (api/site/memory-plan.ts);
   * the memory settings not set by hand take their share of it. Null when not set.
   */
  memoryLimitMiB: number | null;
  /** ARCHIVE_READ_PROCESSES: read processes `npm start` runs beside the write process (1: one process does both). */
  readProcesses: number;
  /** ARCHIVE_REDIS_URL: where sessions and limits live for every process; null: this process's memory. */
  redisUrl: string | null;
  /** ARCHIVE_WRITER_URL: this process is a read process of the write process at this URL; null: it is not. */
  writerUrl: string | null;
}

/** ARCHIVE_READ_PROCESSES, ARCHIVE_REDIS_URL and ARCHIVE_WRITER_URL (docs/operations.md, "Several processes"). */
export function processSettingsFromEnv(
  env: NodeJS.ProcessEnv,
): Pick<Config, 'readProcesses' | 'redisUrl' | 'writerUrl'> {
  const raw = (settingValue(env, 'ARCHIVE_READ_PROCESSES') ?? '1').trim() || '1';
  const readProcesses = Number(raw);
  if (!/^\d+$/.test(raw) || readProcesses < 1 || readProcesses > 64)
    throw new ConfigError(`ARCHIVE_READ_PROCESSES must be a whole number from 1 to 64 (got "${raw}")`);
  const redis = settingValue(env, 'ARCHIVE_REDIS_URL')?.trim() || null;
  if (redis !== null) {
    const u = URL.parse(redis);
    if (!u || (u.protocol !== 'redis:' && u.protocol !== 'rediss:') || !u.hostname)
      throw new ConfigError(
        `ARCHIVE_REDIS_URL must be a redis:// or rediss:// URL such as redis://127.0.0.1:6379/0 (got "${redis.replace(/:[^:@/]*@/, ':***@')}")`,
      );
  }
  const writer = settingValue(env, 'ARCHIVE_WRITER_URL')?.trim().replace(/\/+$/, '') || null;
  if (writer !== null) {
    const u = URL.parse(writer);
    if (!u || (u.protocol !== 'http:' && u.protocol !== 'https:') || (u.pathname !== '/' && u.pathname !== ''))
      throw new ConfigError(
        `ARCHIVE_WRITER_URL must be an http(s) origin such as http://10.0.0.5:4321 (got "${writer}")`,
      );
  }
  // Sessions and limits held in one process's memory would differ from process to process.
  if ((readProcesses > 1 || writer !== null) && redis === null)
    throw new ConfigError(
      `${writer !== null ? 'ARCHIVE_WRITER_URL' : `ARCHIVE_READ_PROCESSES=${readProcesses}`} needs ARCHIVE_REDIS_URL: sessions, credential limits and rate limits must be shared by every process (docs/operations.md, "Several processes")`,
    );
  if (writer !== null && readProcesses > 1)
    throw new ConfigError(
      'ARCHIVE_WRITER_URL (a read process of another machine) and ARCHIVE_READ_PROCESSES > 1 cannot be combined: run one process per ARCHIVE_WRITER_URL reader',
    );
  return { readProcesses, redisUrl: redis, writerUrl: writer };
}

/** ARCHIVE_MEMORY_LIMIT_MB in MiB (1024-1048576), or null when unset. */
export function memoryLimitFromEnv(env: NodeJS.ProcessEnv): number | null {
  const raw = settingValue(env, 'ARCHIVE_MEMORY_LIMIT_MB');
  if (raw === undefined || raw.trim() === '') return null;
  const n = Number(raw);
  if (!/^\s*\d+\s*$/.test(raw) || n < 1024 || n > 1_048_576)
    throw new ConfigError(`ARCHIVE_MEMORY_LIMIT_MB must be a whole number of MiB from 1024 to 1048576 (got "${raw}")`);
  return n;
}

/** A setting in whole MiB (`min` to 65536), as bytes; `fallback` (bytes) when unset or empty. */
function mibSetting(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = settingValue(env, name);
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!/^\s*\d+\s*$/.test(raw) || n < min || n > 65536)
    throw new ConfigError(`${name} must be a whole number of MiB from ${min} to 65536 (got "${raw}")`);
  return n * MIB;
}

export function cacheBudgetsFromEnv(env: NodeJS.ProcessEnv): CacheBudgets {
  const mib = (name: string, fallback: number, min: number): number => mibSetting(env, name, fallback, min);
  return {
    staticBytes: mib('ARCHIVE_STATIC_CACHE_MB', DEFAULT_CACHE_BUDGETS.staticBytes, 0),
    staticFactBytes: mib('ARCHIVE_STATIC_FACTS_MB', DEFAULT_CACHE_BUDGETS.staticFactBytes, 1),
    recordBytes: mib('ARCHIVE_RECORD_CACHE_MB', DEFAULT_CACHE_BUDGETS.recordBytes, 0),
    answerBytes: mib('ARCHIVE_ANSWER_CACHE_MB', DEFAULT_CACHE_BUDGETS.answerBytes, 0),
  };
}

export interface CredentialLimits {
  failuresPerAddress: RateLimitSetting;
  requestsPerKeyLabel: RateLimitSetting;
}

export const DEFAULT_CREDENTIAL_FAILURE_LIMIT = '10/60';
export const DEFAULT_BACKUP_WRITE_PAUSE_MS = 10_000;
export const DEFAULT_KEY_RATE_LIMIT = '6000/60';

function credentialLimitsFromEnv(env: NodeJS.ProcessEnv): CredentialLimits {
  return {
    failuresPerAddress: parseRateLimit(
      'ARCHIVE_CREDENTIAL_FAILURE_LIMIT',
      settingValue(env, 'ARCHIVE_CREDENTIAL_FAILURE_LIMIT') ?? DEFAULT_CREDENTIAL_FAILURE_LIMIT,
    ),
    requestsPerKeyLabel: parseRateLimit(
      'ARCHIVE_KEY_RATE_LIMIT',
      settingValue(env, 'ARCHIVE_KEY_RATE_LIMIT') ?? DEFAULT_KEY_RATE_LIMIT,
    ),
  };
}

/** Timeouts of the HTTP server, milliseconds (documented in README and docs/decisions/0021-untrusted-json-is-bounded.md). */
export interface ServerTimeouts {
  /** Headers must arrive within this (ARCHIVE_HEADERS_TIMEOUT_MS). */
  headersTimeout: number;
  /** A whole request must arrive within this (ARCHIVE_REQUEST_TIMEOUT_MS); uploads resume. */
  requestTimeout: number;
  /** An idle keep-alive connection is closed after this (ARCHIVE_KEEP_ALIVE_TIMEOUT_MS). */
  keepAliveTimeout: number;
  /** Any socket with no traffic for this long is closed (ARCHIVE_IDLE_TIMEOUT_MS). */
  idleTimeoutMs: number;
}

export const DEFAULT_SERVER_TIMEOUTS: ServerTimeouts = {
  headersTimeout: 20_000,
  requestTimeout: 300_000,
  keepAliveTimeout: 5_000,
  idleTimeoutMs: 60_000,
};
export const DEFAULT_DRAIN_TIMEOUT_MS = 10_000;
export const DEFAULT_FAST_PATH_LOG_SAMPLE = 0.01;

/** A whole number of milliseconds from `name`, or the default; anything else stops the start. */
/**
 * ARCHIVE_ENGRAVE_WORKERS (1-64, default the number of cores), ARCHIVE_ENGRAVE_CPU_MS (CPU time
 * per score, default 300000), ARCHIVE_ENGRAVE_TIMEOUT_MS (the wall-clock backstop per score on an
 * idle machine, times the load per core, default 1200000), ARCHIVE_ENGRAVE_MEMORY_MB (per worker,
 * 64-65536, default 2048).
 */
export function engraveSettingsFromEnv(env: NodeJS.ProcessEnv): EngravePoolOptions {
  const whole = (name: string, fallback: number, min: number, max: number, unit: string): number => {
    const raw = settingValue(env, name);
    if (raw === undefined || raw.trim() === '') return fallback;
    const n = Number(raw);
    if (!Number.isSafeInteger(n) || n < min || n > max)
      throw new ConfigError(`${name} must be a whole number of ${unit} from ${min} to ${max} (got "${raw}")`);
    return n;
  };
  const size = whole('ARCHIVE_ENGRAVE_WORKERS', defaultEngravePoolOptions().size, 1, 64, 'worker threads');
  // Under ARCHIVE_MEMORY_LIMIT_MB the workers share their part of it (api/site/memory-plan.ts).
  const limit = memoryLimitFromEnv(env);
  const memoryDefault =
    limit === null
      ? DEFAULT_ENGRAVE_MEMORY_MB
      : Math.min(DEFAULT_ENGRAVE_MEMORY_MB, Math.max(ENGRAVE_MIN_MB, Math.floor((limit * ENGRAVING_SHARE) / size)));
  return {
    size,
    cpuMs: millis(env, 'ARCHIVE_ENGRAVE_CPU_MS', DEFAULT_ENGRAVE_CPU_MS),
    timeoutMs: millis(env, 'ARCHIVE_ENGRAVE_TIMEOUT_MS', DEFAULT_ENGRAVE_TIMEOUT_MS),
    memoryMb: whole('ARCHIVE_ENGRAVE_MEMORY_MB', memoryDefault, 64, 65536, 'MiB'),
  };
}

function millis(env: NodeJS.ProcessEnv, name: string, fallback: number, min = 1): number {
  const raw = settingValue(env, name);
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min || n > 2_147_483_647)
    throw new ConfigError(`${name} must be a whole number of milliseconds from ${min} to 2147483647 (got "${raw}")`);
  return n;
}

/** ARCHIVE_SESSION_HOURS: a whole number of hours from 1 to 720 (30 days); default 12. */
function sessionHoursFromEnv(env: NodeJS.ProcessEnv): number {
  const raw = settingValue(env, 'ARCHIVE_SESSION_HOURS');
  if (raw === undefined || raw.trim() === '') return 12 * 3600_000;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < 1 || n > 720)
    throw new ConfigError(`ARCHIVE_SESSION_HOURS must be a whole number of hours from 1 to 720 (got "${raw}")`);
  return n * 3600_000;
}

export function serverTimeoutsFromEnv(env: NodeJS.ProcessEnv): ServerTimeouts {
  const t: ServerTimeouts = {
    headersTimeout: millis(env, 'ARCHIVE_HEADERS_TIMEOUT_MS', DEFAULT_SERVER_TIMEOUTS.headersTimeout),
    requestTimeout: millis(env, 'ARCHIVE_REQUEST_TIMEOUT_MS', DEFAULT_SERVER_TIMEOUTS.requestTimeout),
    keepAliveTimeout: millis(env, 'ARCHIVE_KEEP_ALIVE_TIMEOUT_MS', DEFAULT_SERVER_TIMEOUTS.keepAliveTimeout),
    idleTimeoutMs: millis(env, 'ARCHIVE_IDLE_TIMEOUT_MS', DEFAULT_SERVER_TIMEOUTS.idleTimeoutMs),
  };
  // Node refuses a headers timeout longer than the request timeout.
  if (t.headersTimeout > t.requestTimeout) {
    throw new ConfigError(
      `ARCHIVE_HEADERS_TIMEOUT_MS (${t.headersTimeout}) must not exceed ARCHIVE_REQUEST_TIMEOUT_MS (${t.requestTimeout})`,
    );
  }
  return t;
}

function metricsPortFromEnv(env: NodeJS.ProcessEnv, port: number): number | null {
  const raw = settingValue(env, 'ARCHIVE_METRICS_PORT')?.trim();
  if (raw === undefined || raw === '') return null;
  const n = Number(raw);
  if (!/^\d{1,5}$/.test(raw) || n > 65535)
    throw new ConfigError(
      `ARCHIVE_METRICS_PORT must be a port from 0 to 65535 (got "${settingValue(env, 'ARCHIVE_METRICS_PORT')}")`,
    );
  if (n !== 0 && n === port)
    throw new ConfigError(
      `ARCHIVE_METRICS_PORT must differ from PORT (${port}): metrics get their own loopback listener`,
    );
  return n;
}

function sampleFromEnv(env: NodeJS.ProcessEnv): number {
  const raw = settingValue(env, 'ARCHIVE_FAST_PATH_LOG_SAMPLE')?.trim();
  if (raw === undefined || raw === '') return DEFAULT_FAST_PATH_LOG_SAMPLE;
  const n = Number(raw);
  if (!Number.isFinite(n) || n < 0 || n > 1)
    throw new ConfigError(
      `ARCHIVE_FAST_PATH_LOG_SAMPLE must be a number from 0 (log none) to 1 (log every answer) (got "${raw}")`,
    );
  return n;
}

/** Connection to an S3-compatible service: ARCHIVE_S3_ENDPOINT, _REGION, _ACCESS_KEY_ID, _SECRET_ACCESS_KEY, _FORCE_PATH_STYLE. */
export interface S3Settings {
  /** null: AWS's own endpoint for the region. */
  endpoint: string | null;
  region: string;
  /** Both or neither; neither leaves credentials to the AWS SDK's default chain. */
  credentials: { accessKeyId: string; secretAccessKey: string } | null;
  /** Bucket in the path (`endpoint/bucket/key`), as MinIO and most self-hosted servers want. */
  forcePathStyle: boolean;
}

/** ARCHIVE_BLOB_STORE (`local` | `s3`), ARCHIVE_S3_BUCKET, ARCHIVE_S3_PREFIX, ARCHIVE_S3_PRESIGN_SECONDS. */
export interface BlobStoreSettings {
  backend: 'local' | 's3';
  /** Required when backend is `s3`. */
  bucket: string | null;
  /** Key prefix of blobs in the bucket (empty or ending in `/`). */
  prefix: string;
  /** 0: downloads stream through the server; otherwise a 307 to a presigned URL valid this long. */
  presignSeconds: number;
}

export class ConfigError extends Error {}

function keys(value: string | undefined): string[] {
  return (value ?? '')
    .split(',')
    .map((k) => k.trim())
    .filter((k) => k.length > 0);
}

/** A key label: a letter, then up to 63 letters, digits, `.`, `_` or `-` (names the holder in commits). */
export const KEY_LABEL_PATTERN = /^[A-Za-z][A-Za-z0-9._-]{0,63}$/;
/** The shortest secret a key may have. */
export const MIN_KEY_SECRET_LENGTH = 8;

/**
 * The entries of a key variable (`secret` or `label=secret`, comma-separated), refused at start
 * when one breaks the rules: `alice=secret` would otherwise be taken silently as one whole key
 * whose holder is not named, and a short secret is guessable. An entry whose part after the
 * first `=` is only `=` signs is base64 padding of one plain secret, not a label.
 */
export function keyEntries(name: string, value: string | undefined): string[] {
  const entries = keys(value);
  entries.forEach((entry, i) => {
    const eq = entry.indexOf('=');
    const label = eq > 0 ? entry.slice(0, eq).trim() : '';
    const secret = eq > 0 ? entry.slice(eq + 1).trim() : entry;
    const labeled = eq > 0 && KEY_LABEL_PATTERN.test(label) && /[^=]/.test(secret);
    const secretLength = labeled ? secret.length : entry.length;
    if (secretLength < MIN_KEY_SECRET_LENGTH)
      throw new ConfigError(
        `${name}: entry ${i + 1}${labeled ? ` (label "${label}")` : ''} has a secret of ${secretLength} characters; ` +
          `a secret needs at least ${MIN_KEY_SECRET_LENGTH} (an entry is "secret" or "label=secret"; make one with openssl rand -base64 32)`,
      );
  });
  return entries;
}

/** Comma-separated IP addresses or CIDRs (`10.0.0.0/8`, `::1`); anything else stops the start. */
export function parseTrustedProxies(value: string | undefined): string[] {
  const entries = keys(value);
  for (const entry of entries) {
    const [addr, bits, ...rest] = entry.split('/');
    const version = isIP(addr ?? '');
    const maxBits = version === 6 ? 128 : 32;
    const bitsOk = bits === undefined || (/^\d{1,3}$/.test(bits) && Number(bits) <= maxBits);
    if (version === 0 || !bitsOk || rest.length > 0) {
      throw new ConfigError(
        `ARCHIVE_TRUSTED_PROXIES: "${entry}" is not an IP address or CIDR (e.g. 127.0.0.1, 10.0.0.0/8, ::1)`,
      );
    }
  }
  return entries;
}

/** Comma-separated origins ("https://app.example.org", no path) or `*`; anything else stops the start. */
export function parseAllowedOrigins(value: string | undefined): string[] {
  return keys(value).map((entry) => {
    if (entry === '*') return entry;
    let url: URL;
    try {
      url = new URL(entry);
    } catch {
      throw new ConfigError(
        `ARCHIVE_MCP_ALLOWED_ORIGINS: "${entry}" is not an origin (e.g. https://app.example.org) or *`,
      );
    }
    if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== entry.replace(/\/+$/, ''))
      throw new ConfigError(
        `ARCHIVE_MCP_ALLOWED_ORIGINS: "${entry}" is not an origin (scheme, host and port only, e.g. https://app.example.org) or *`,
      );
    return url.origin;
  });
}

/** Comma-separated host names (`archive.example.org`, `.example.org`, an address) or `*`; anything else stops the start. */
export function parseAllowedHosts(value: string | undefined): string[] {
  return keys(value).map((entry) => {
    const name = entry.toLowerCase();
    if (name === '*') return name;
    if (!/^(\.?[a-z0-9-]+(\.[a-z0-9-]+)*|\[[0-9a-f:.]+\]|[0-9a-f:.]+)$/.test(name))
      throw new ConfigError(
        `ARCHIVE_ALLOWED_HOSTS: "${entry}" is not a host name (e.g. archive.example.org or .example.org) or *`,
      );
    return name;
  });
}

/** S3 bucket names: 3-63 lowercase letters, digits, dots and hyphens, starting and ending with a letter or digit. */
export const S3_BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;

export function s3SettingsFromEnv(env: NodeJS.ProcessEnv): S3Settings {
  const endpoint = settingValue(env, 'ARCHIVE_S3_ENDPOINT')?.trim().replace(/\/+$/, '') || null;
  if (endpoint) {
    const url = URL.parse(endpoint);
    if (!url || !['http:', 'https:'].includes(url.protocol))
      throw new ConfigError(
        `ARCHIVE_S3_ENDPOINT must be an http(s) URL such as http://127.0.0.1:9000 (got "${settingValue(env, 'ARCHIVE_S3_ENDPOINT')}")`,
      );
  }
  const accessKeyId = settingValue(env, 'ARCHIVE_S3_ACCESS_KEY_ID')?.trim() || '';
  const secretAccessKey = settingValue(env, 'ARCHIVE_S3_SECRET_ACCESS_KEY')?.trim() || '';
  if (Boolean(accessKeyId) !== Boolean(secretAccessKey)) {
    throw new ConfigError(
      "ARCHIVE_S3_ACCESS_KEY_ID and ARCHIVE_S3_SECRET_ACCESS_KEY must be set together (or neither, for the AWS SDK's default credentials)",
    );
  }
  const pathStyle = (settingValue(env, 'ARCHIVE_S3_FORCE_PATH_STYLE') ?? '').trim().toLowerCase();
  if (!['', '0', '1', 'true', 'false'].includes(pathStyle))
    throw new ConfigError(
      `ARCHIVE_S3_FORCE_PATH_STYLE must be true or false (got "${settingValue(env, 'ARCHIVE_S3_FORCE_PATH_STYLE')}")`,
    );
  return {
    endpoint,
    region: settingValue(env, 'ARCHIVE_S3_REGION')?.trim() || 'us-east-1',
    credentials: accessKeyId ? { accessKeyId, secretAccessKey } : null,
    forcePathStyle: pathStyle === '1' || pathStyle === 'true',
  };
}

export function blobStoreSettingsFromEnv(
  env: NodeJS.ProcessEnv,
  downloadOffload: 'none' | 'nginx' = 'none',
): BlobStoreSettings {
  const backend = (settingValue(env, 'ARCHIVE_BLOB_STORE') ?? 'local').trim() || 'local';
  if (backend !== 'local' && backend !== 's3')
    throw new ConfigError(
      `ARCHIVE_BLOB_STORE must be "local" or "s3" (got "${settingValue(env, 'ARCHIVE_BLOB_STORE')}")`,
    );
  const bucket = settingValue(env, 'ARCHIVE_S3_BUCKET')?.trim() || null;
  if (bucket !== null && !S3_BUCKET_NAME.test(bucket))
    throw new ConfigError(
      `ARCHIVE_S3_BUCKET must be a bucket name of 3-63 lowercase letters, digits, dots and hyphens (got "${bucket}")`,
    );
  if (backend === 's3' && bucket === null) throw new ConfigError('ARCHIVE_BLOB_STORE=s3 needs ARCHIVE_S3_BUCKET');
  const prefix = (settingValue(env, 'ARCHIVE_S3_PREFIX') ?? '').trim().replace(/^\/+/, '');
  if (prefix.length > 512 || /[\0\r\n]/.test(prefix) || prefix.split('/').some((s) => s === '..'))
    throw new ConfigError(
      `ARCHIVE_S3_PREFIX must be a plain key prefix such as "archive/blobs/" (got "${settingValue(env, 'ARCHIVE_S3_PREFIX')}")`,
    );
  const rawPresign = (settingValue(env, 'ARCHIVE_S3_PRESIGN_SECONDS') ?? '').trim();
  const presignSeconds = rawPresign === '' ? 0 : Number(rawPresign);
  if (!Number.isSafeInteger(presignSeconds) || presignSeconds < 0 || presignSeconds > 604_800) {
    throw new ConfigError(
      `ARCHIVE_S3_PRESIGN_SECONDS must be a whole number of seconds from 0 (off) to 604800 (got "${settingValue(env, 'ARCHIVE_S3_PRESIGN_SECONDS')}")`,
    );
  }
  if (backend === 's3' && downloadOffload === 'nginx')
    throw new ConfigError(
      'ARCHIVE_DOWNLOAD_OFFLOAD=nginx sends files from the local blob folder; with ARCHIVE_BLOB_STORE=s3 use ARCHIVE_S3_PRESIGN_SECONDS instead',
    );
  if (presignSeconds > 0 && backend !== 's3')
    throw new ConfigError('ARCHIVE_S3_PRESIGN_SECONDS needs ARCHIVE_BLOB_STORE=s3');
  return { backend, bucket, prefix: prefix === '' || prefix.endsWith('/') ? prefix : `${prefix}/`, presignSeconds };
}

export const DEFAULT_RATE_LIMIT = `${DEFAULT_LIMIT.limit}/${DEFAULT_LIMIT.windowSeconds}`;

export function parseRateLimit(name: string, value: string | undefined): RateLimitSetting {
  const raw = (value ?? DEFAULT_RATE_LIMIT).trim();
  const m = /^(\d{1,9})\s*\/\s*(\d{1,7})$/.exec(raw);
  const limit = m ? Number(m[1]) : NaN;
  const windowSeconds = m ? Number(m[2]) : NaN;
  if (!m || limit < 1 || windowSeconds < 1) {
    throw new ConfigError(
      `${name} must be "<requests>/<seconds>" with both at least 1, e.g. "${DEFAULT_RATE_LIMIT}" (got "${value}")`,
    );
  }
  return { limit, windowSeconds };
}

export function loadIntakeConfig(env: NodeJS.ProcessEnv): IntakeConfig {
  return {
    contributionRateLimit: parseRateLimit(
      RATE_LIMIT_VARIABLES.contributions,
      settingValue(env, RATE_LIMIT_VARIABLES.contributions),
    ),
    correctionRateLimit: parseRateLimit(
      RATE_LIMIT_VARIABLES.correctionReports,
      settingValue(env, RATE_LIMIT_VARIABLES.correctionReports),
    ),
    contributionBodyLimit: CONTRIBUTION_BODY_LIMIT,
    correctionBodyLimit: CORRECTION_BODY_LIMIT,
  };
}

/** Fetch limits; a bad number stops the start with the variable's name. */
export function fetchOptionsFromEnv(env: NodeJS.ProcessEnv): FetchSettings {
  const positive = (name: string, fallback: number): number => {
    const raw = settingValue(env, name);
    if (raw === undefined || raw.trim() === '') return fallback;
    const n = Number(raw);
    if (!Number.isSafeInteger(n) || n <= 0) throw new ConfigError(`${name} must be a positive integer (got "${raw}")`);
    return n;
  };
  return {
    maxBytes: positive('ARCHIVE_FETCH_MAX_BYTES', DEFAULT_FETCH_MAX_BYTES),
    timeoutMs: positive('ARCHIVE_FETCH_TIMEOUT_MS', DEFAULT_FETCH_TIMEOUT_MS),
    allowHosts: (settingValue(env, 'ARCHIVE_FETCH_ALLOW_HOSTS') ?? '')
      .split(',')
      .map((h) => normalizeAllowEntry(h))
      .filter((h) => h.length > 0),
  };
}

/** The GitHub App credentials from the environment, or null when none of its variables is set. */
function gitHubAppFromEnv(env: NodeJS.ProcessEnv): GitHubSettings['app'] | null {
  const names = ['GITHUB_APP_ID', 'GITHUB_APP_INSTALLATION_ID', 'GITHUB_APP_PRIVATE_KEY_FILE'] as const;
  const values = names.map((n) => settingValue(env, n)?.trim() ?? '');
  if (values.every((v) => v === '')) return null;
  const missing = names.filter((_n, i) => values[i] === '');
  if (missing.length > 0)
    throw new ConfigError(`a GitHub App needs ${names.join(', ')}; missing: ${missing.join(', ')}`);
  const [appId, installationId, keyFile] = values as [string, string, string];
  for (const [name, v] of [
    ['GITHUB_APP_ID', appId],
    ['GITHUB_APP_INSTALLATION_ID', installationId],
  ] as const) {
    if (!/^[1-9][0-9]{0,18}$/.test(v)) throw new ConfigError(`${name} must be the app's numeric id (got "${v}")`);
  }
  let privateKey: string;
  try {
    privateKey = readFileSync(keyFile, 'utf8');
    createPrivateKey(privateKey);
  } catch (err) {
    throw new ConfigError(
      `GITHUB_APP_PRIVATE_KEY_FILE must name the app's private key (.pem) file: ${(err as Error).message}`,
    );
  }
  return { appId, installationId, privateKey };
}

export function gitHubSettingsFromEnv(env: NodeJS.ProcessEnv): GitHubSettings | null {
  const token = settingValue(env, 'GITHUB_TOKEN')?.trim();
  const repository = settingValue(env, 'GITHUB_REPOSITORY')?.trim();
  const app = gitHubAppFromEnv(env);
  if (app && token) throw new ConfigError('set GITHUB_TOKEN or the GitHub App variables (GITHUB_APP_ID ...), not both');
  if (app && !repository)
    throw new ConfigError('a GitHub App needs GITHUB_REPOSITORY ("owner/name" of the content repository)');
  if ((!token && !app) || !repository) return null;
  if (!/^[\w.-]+\/[\w.-]+$/.test(repository))
    throw new ConfigError(`GITHUB_REPOSITORY must be "owner/name" (got "${repository}")`);
  const apiUrl = settingValue(env, 'GITHUB_API_URL')?.trim().replace(/\/+$/, '');
  if (apiUrl) {
    try {
      new URL(apiUrl);
    } catch {
      throw new ConfigError(`GITHUB_API_URL must be an absolute URL (got "${settingValue(env, 'GITHUB_API_URL')}")`);
    }
  }
  return { ...(app ? { app } : { token }), repository, ...(apiUrl ? { apiUrl } : {}) };
}

function absoluteUrlSetting(env: NodeJS.ProcessEnv, name: string, fallback: string): string {
  const value = settingValue(env, name)?.trim().replace(/\/+$/, '') || fallback;
  let parsed: URL;
  try {
    parsed = new URL(value);
  } catch {
    throw new ConfigError(`${name} must be an absolute http(s) URL (got "${settingValue(env, name)}")`);
  }
  if (parsed.protocol !== 'https:' && parsed.protocol !== 'http:')
    throw new ConfigError(`${name} must be an absolute http(s) URL (got "${settingValue(env, name)}")`);
  return value;
}

export function readerSignInFromEnv(env: NodeJS.ProcessEnv): ReaderSignInSettings | null {
  const clientId = settingValue(env, 'GITHUB_OAUTH_CLIENT_ID')?.trim();
  const clientSecret = settingValue(env, 'GITHUB_OAUTH_CLIENT_SECRET')?.trim();
  if (!clientId && !clientSecret) return null;
  if (!clientId || !clientSecret)
    throw new ConfigError(
      'GITHUB_OAUTH_CLIENT_ID and GITHUB_OAUTH_CLIENT_SECRET must be set together (reader sign-in needs both, or neither)',
    );
  return {
    provider: 'github',
    clientId,
    clientSecret,
    oauthBaseUrl: absoluteUrlSetting(env, 'GITHUB_OAUTH_BASE_URL', 'https://github.com'),
    apiUrl: absoluteUrlSetting(env, 'GITHUB_API_URL', 'https://api.github.com'),
  };
}

export function loadConfig(env: NodeJS.ProcessEnv, projectRoot: string): Config {
  const port = Number(settingValue(env, 'PORT') ?? '4321');
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new ConfigError(`PORT must be an integer from 0 to 65535 (got "${settingValue(env, 'PORT')}")`);
  const publicBaseUrl = (settingValue(env, 'PUBLIC_BASE_URL') ?? 'http://localhost:4321').replace(/\/+$/, '');
  let parsed: URL;
  try {
    parsed = new URL(publicBaseUrl);
  } catch {
    throw new ConfigError(
      `PUBLIC_BASE_URL must be an absolute http(s) URL (got "${settingValue(env, 'PUBLIC_BASE_URL')}")`,
    );
  }
  if (
    !['http:', 'https:'].includes(parsed.protocol) ||
    (parsed.pathname !== '/' && parsed.pathname !== '') ||
    parsed.search ||
    parsed.hash
  ) {
    throw new ConfigError(
      `PUBLIC_BASE_URL must be an origin such as https://archive.example.org, without a path (got "${settingValue(env, 'PUBLIC_BASE_URL')}")`,
    );
  }
  const dataDir = path.resolve(projectRoot, settingValue(env, 'ARCHIVE_DATA_DIR') ?? 'data');
  const maxFile =
    settingValue(env, 'ARCHIVE_LIBRARY_MAX_FILE_BYTES') === undefined
      ? 4 * 1024 ** 3
      : Number(settingValue(env, 'ARCHIVE_LIBRARY_MAX_FILE_BYTES'));
  if (!Number.isSafeInteger(maxFile) || maxFile < 0) {
    throw new ConfigError(
      `ARCHIVE_LIBRARY_MAX_FILE_BYTES must be a whole number of bytes (got "${settingValue(env, 'ARCHIVE_LIBRARY_MAX_FILE_BYTES')}")`,
    );
  }
  const config: Config = {
    port,
    host: settingValue(env, 'HOST') ?? '127.0.0.1',
    publicBaseUrl,
    dataDir,
    contentRepo: path.resolve(projectRoot, settingValue(env, 'ARCHIVE_CONTENT_REPO') ?? path.join(dataDir, 'content')),
    seedContentDir: path.join(projectRoot, 'content'),
    libraryKeys: keyEntries('ARCHIVE_LIBRARY_KEYS', settingValue(env, 'ARCHIVE_LIBRARY_KEYS')),
    curatorKeys: keyEntries('ARCHIVE_CURATOR_KEYS', settingValue(env, 'ARCHIVE_CURATOR_KEYS')),
    adminKeys: keyEntries('ARCHIVE_ADMIN_KEYS', settingValue(env, 'ARCHIVE_ADMIN_KEYS')),
    logLevel: settingValue(env, 'LOG_LEVEL') ?? 'info',
    libraryMaxFileBytes: maxFile,
    intake: loadIntakeConfig(env),
    fetch: fetchOptionsFromEnv(env),
    github: gitHubSettingsFromEnv(env),
    githubWebhookSecret: settingValue(env, 'GITHUB_WEBHOOK_SECRET')?.trim() || null,
    readerSignIn: readerSignInFromEnv(env),
    libraryFailpoints: keys(settingValue(env, 'ARCHIVE_LIBRARY_FAILPOINTS')),
    trustedProxies: parseTrustedProxies(settingValue(env, 'ARCHIVE_TRUSTED_PROXIES')),
    mcpAllowedOrigins: parseAllowedOrigins(settingValue(env, 'ARCHIVE_MCP_ALLOWED_ORIGINS')),
    allowedHosts: parseAllowedHosts(settingValue(env, 'ARCHIVE_ALLOWED_HOSTS')),
    downloadOffload: parseDownloadOffload(settingValue(env, 'ARCHIVE_DOWNLOAD_OFFLOAD')),
    metricsKeys: keyEntries('ARCHIVE_METRICS_KEYS', settingValue(env, 'ARCHIVE_METRICS_KEYS')),
    metricsPort: metricsPortFromEnv(env, port),
    serverTimeouts: serverTimeoutsFromEnv(env),
    drainTimeoutMs: millis(env, 'ARCHIVE_DRAIN_TIMEOUT_MS', DEFAULT_DRAIN_TIMEOUT_MS, 0),
    sessionLifetimeMs: sessionHoursFromEnv(env),
    fastPathLogSample: sampleFromEnv(env),
    credentialLimits: credentialLimitsFromEnv(env),
    backupWritePauseMs: millis(env, 'ARCHIVE_BACKUP_WRITE_PAUSE_MS', DEFAULT_BACKUP_WRITE_PAUSE_MS, 0),
    blobStore: blobStoreSettingsFromEnv(env, parseDownloadOffload(settingValue(env, 'ARCHIVE_DOWNLOAD_OFFLOAD'))),
    s3: s3SettingsFromEnv(env),
    ...rebuildSettingsFromEnv(env),
    engrave: engraveSettingsFromEnv(env),
    cacheBudgets: cacheBudgetsFromEnv(env),
    memoryLimitMiB: memoryLimitFromEnv(env),
    ...processSettingsFromEnv(env),
  };
  checkMemoryLimit(config);
  return config;
}

/**
 * Under ARCHIVE_MEMORY_LIMIT_MB, the parts must fit before the server has even started (its
 * resident memory after start counted at its least, SERVER_START_MIN_MIB); else the start stops
 * with each part and the setting that sets it. The server checks again with its real size once
 * started (api/lifecycle.ts).
 */
function checkMemoryLimit(config: Config): void {
  if (config.memoryLimitMiB === null) return;
  const plan = memoryPlanOf(config, SERVER_START_MIN_MIB);
  if (plan.totalMiB > config.memoryLimitMiB)
    throw new ConfigError(
      `ARCHIVE_MEMORY_LIMIT_MB (${config.memoryLimitMiB}) is less than the parts it must hold: ${memoryPlanWords(plan)}. Raise it, or lower ARCHIVE_ENGRAVE_WORKERS, ARCHIVE_ENGRAVE_MEMORY_MB, ARCHIVE_WARM_BUILDER_MAX_RSS_MB or the cache budgets (ARCHIVE_*_CACHE_MB).`,
    );
}

/** The service's memory plan (api/site/memory-plan.ts) for a server of `serverStartMiB` after start. */
export function memoryPlanOf(config: Config, serverStartMiB: number): MemoryPlan {
  const mib = (bytes: number) => bytes / MIB;
  return memoryPlan({
    limitMiB: config.memoryLimitMiB,
    serverStartMiB,
    cacheBudgetsMiB: {
      staticBytes: mib(config.cacheBudgets.staticBytes),
      staticFactBytes: mib(config.cacheBudgets.staticFactBytes),
      recordBytes: mib(config.cacheBudgets.recordBytes),
      answerBytes: mib(config.cacheBudgets.answerBytes),
    },
    engrave: config.engrave,
    warmBuilderMiB: Math.ceil(mib(config.warmBuilderMaxRssBytes)),
    readProcesses: config.readProcesses > 1 ? config.readProcesses : 0,
  });
}

/**
 * ARCHIVE_INCREMENTAL_BUILDS (1/0, default 1), ARCHIVE_RECONCILE_DELAY_MS (milliseconds or "off",
 * default off), ARCHIVE_RECONCILE_SCHEDULE (src/domain/reconcile-schedule.ts, default off) and
 * ARCHIVE_WARM_BUILDER (1/0, default 1), ARCHIVE_WARM_BUILDER_WARM_UP (1/0, default 1), ARCHIVE_WARM_BUILDER_MAX_RSS_MB (256-65536, default a
 * quarter of the memory, at least 1536) and ARCHIVE_LAYER_MAX_PATHS (src/domain/site-layers.ts).
 */
export function rebuildSettingsFromEnv(
  env: NodeJS.ProcessEnv,
): Pick<
  Config,
  | 'incrementalBuilds'
  | 'reconcileDelayMs'
  | 'reconcileSchedule'
  | 'warmBuilder'
  | 'warmBuilderWarmUp'
  | 'warmBuilderMaxRssBytes'
  | 'layerMaxPaths'
> {
  const incremental = settingValue(env, 'ARCHIVE_INCREMENTAL_BUILDS') ?? '1';
  if (incremental !== '0' && incremental !== '1')
    throw new ConfigError(`ARCHIVE_INCREMENTAL_BUILDS must be 0 or 1 (got "${incremental}")`);
  // A full build after every apply costs close to an hour at 100,000 works: opt-in only.
  const delay = settingValue(env, 'ARCHIVE_RECONCILE_DELAY_MS') ?? 'off';
  let reconcileDelayMs: number | null = null;
  if (delay !== 'off') {
    if (!/^\d{1,9}$/.test(delay))
      throw new ConfigError(`ARCHIVE_RECONCILE_DELAY_MS must be a number of milliseconds or "off" (got "${delay}")`);
    reconcileDelayMs = Number(delay);
  }
  const parsed = parseReconcileSchedule(settingValue(env, 'ARCHIVE_RECONCILE_SCHEDULE') ?? 'off');
  if (!parsed.ok) throw new ConfigError(`ARCHIVE_RECONCILE_SCHEDULE ${parsed.problem}`);
  const warm = settingValue(env, 'ARCHIVE_WARM_BUILDER') ?? '1';
  if (warm !== '0' && warm !== '1') throw new ConfigError(`ARCHIVE_WARM_BUILDER must be 0 or 1 (got "${warm}")`);
  const warmUp = settingValue(env, 'ARCHIVE_WARM_BUILDER_WARM_UP') ?? '1';
  if (warmUp !== '0' && warmUp !== '1')
    throw new ConfigError(`ARCHIVE_WARM_BUILDER_WARM_UP must be 0 or 1 (got "${warmUp}")`);
  const limit = memoryLimitFromEnv(env);
  const warmBuilderMaxRssBytes = mibSetting(
    env,
    'ARCHIVE_WARM_BUILDER_MAX_RSS_MB',
    // Under ARCHIVE_MEMORY_LIMIT_MB: its share of it (api/site/memory-plan.ts).
    limit === null ? defaultWarmBuilderMaxRssBytes() : Math.max(256, Math.floor(limit * WARM_BUILDER_SHARE)) * MIB,
    256,
  );
  let layerMaxPaths: number;
  try {
    layerMaxPaths = layerMaxPathsFrom(settingValue(env, 'ARCHIVE_LAYER_MAX_PATHS'));
  } catch (err) {
    throw new ConfigError((err as Error).message);
  }
  return {
    incrementalBuilds: incremental === '1',
    reconcileDelayMs,
    reconcileSchedule: parsed.schedule,
    warmBuilder: warm === '1',
    warmBuilderWarmUp: warmUp === '1',
    warmBuilderMaxRssBytes,
    layerMaxPaths,
  };
}

function parseDownloadOffload(value: string | undefined): 'none' | 'nginx' {
  const v = (value ?? '').trim().toLowerCase();
  if (v === '' || v === 'none') return 'none';
  if (v === 'nginx') return 'nginx';
  throw new ConfigError(`ARCHIVE_DOWNLOAD_OFFLOAD must be "nginx" or "none" (got "${value}")`);
}
