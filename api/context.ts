/**
 * What every feature's routes and services are given: the configuration, the served build, the
 * rebuilder and the shared stores and key ring, each built once in createApp and passed down. Kept apart from app.ts so features
 * depend on this small type, not on the module that wires them (no import circle through app.ts).
 */
import type { Config } from './config.ts';
import type { SiteHandle } from './site/site-handle.ts';
import type { SiteRebuilder } from './site/builds.ts';
import type { BlobStore } from './blobs/blob-store.ts';
import type { IntakeStore } from './contributions/store.ts';
import type { KeyRing } from './http/auth.ts';
import type { CredentialLimiter } from './http/credential-limiter.ts';
import type { ArchiveMetrics } from './observability/metrics.ts';
import type { SessionStore } from './session/sessions.ts';
import type { StateBackend } from './session/state-backend.ts';

export interface AppContext {
  config: Config;
  handle: SiteHandle;
  /** Rebuild the content repository's HEAD and swap the served build (publish, apply). */
  rebuilder: SiteRebuilder;
  /** Content-addressed files (library files, verified contributions): ARCHIVE_DATA_DIR/blobs or an S3 bucket. */
  blobs: BlobStore;
  /** Contributions, correction reports and their idempotency records (intake and review share it, and its locks). */
  intake: IntakeStore;
  /** The configured library, curator and admin keys. */
  keys: KeyRing;
  /** Consulted before every credential check: failed checks per address, requests per key label. */
  credentials: CredentialLimiter;
  /** Prometheus metrics of this app (api/observability/metrics.ts). */
  metrics: ArchiveMetrics;
  /** Browser sessions: the desk's admin sign-in and readers' sign-in (api/session/). */
  sessions: SessionStore;
  /** Where sessions and limits live: this process's memory, or Redis (ARCHIVE_REDIS_URL) shared by every process. */
  state: StateBackend;
  /** Whether this process owns the write path, or is one of the read processes (api/site/read-processes.ts). */
  role: 'writer' | 'reader';
  /**
   * A start that found no complete build of the content repository's HEAD serves the last
   * complete build and builds HEAD meanwhile (scripts/serve.ts): what it builds, for /readyz.
   */
  startup: StartupBuild;
}

export interface StartupBuild {
  /** The commit being built while an older build serves; null once served (or when none was needed). */
  building: string | null;
  startedAtUtc: string | null;
  /** Why the start's build failed (the older build keeps serving); null when it did not. */
  failed: string | null;
}
