/**
 * Browser sessions (the review desk's sign-in and reader sign-in): one store, two kinds of
 * subject.
 *
 *   admin  — an editor signed in to /admin/ with an admin key. The session carries the key's
 *            label (the accountable actor) and grants the `admin` role only (see ADMIN_SESSION_ROLES).
 *   reader — a reader signed in through an identity provider (GitHub OAuth). It grants reading
 *            signed-in assets and nothing else: never admin, curator, library or metrics rights.
 *
 * The token given to the browser is 32 random bytes (base64url); the store keeps only its SHA-256,
 * so a memory dump or a log line with a stored key does not give a usable cookie. Each session has
 * its own CSRF token (a second random value, sent by pages in a form field or header; see
 * api/session/cookies.ts). Sessions expire (absolute lifetime, ARCHIVE_SESSION_HOURS) and the
 * store is bounded (oldest evicted first). They live in this process's memory by default (a
 * restart signs everybody out, which is also how a removed key loses its sessions; a decision,
 * docs/decisions/0032-browser-sessions.md), or in Redis with ARCHIVE_REDIS_URL, so every process and machine
 * serving the archive knows every session (api/session/state-backend.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Role } from '../http/roles.ts';
import type { Session, SessionSubject } from './session.ts';
import { MemoryStateBackend, type SessionBackend } from './state-backend.ts';

export type { AdminSubject, ReaderSubject, Session, SessionSubject } from './session.ts';

/** The only role an admin session grants (a key's other roles still need the key itself). */
export const ADMIN_SESSION_ROLES: readonly Role[] = ['admin'];

/** Default absolute lifetime of a session. */
export const DEFAULT_SESSION_HOURS = 12;
/** At most this many live sessions; the oldest is dropped first. */
export const MAX_SESSIONS = 10_000;

export interface SessionStoreOptions {
  lifetimeMs: number;
  maxSessions?: number;
  now?: () => number;
  /** Where sessions live (api/session/state-backend.ts): this process's memory by default, Redis when configured. */
  backend?: SessionBackend;
}

function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

const TOKEN_PATTERN = /^[A-Za-z0-9_-]{43}$/;

export class SessionStore {
  private readonly backend: SessionBackend;
  private readonly lifetimeMs: number;
  private readonly maxSessions: number;
  private readonly now: () => number;

  constructor(options: SessionStoreOptions) {
    this.lifetimeMs = options.lifetimeMs;
    this.maxSessions = options.maxSessions ?? MAX_SESSIONS;
    this.now = options.now ?? Date.now;
    this.backend = options.backend ?? new MemoryStateBackend({ now: this.now }).sessions;
  }

  /** Start a session; returns the token for the cookie (shown once, never stored). */
  async create(subject: SessionSubject): Promise<{ token: string; session: Session }> {
    const token = randomBytes(32).toString('base64url');
    const now = this.now();
    const session: Session = {
      subject,
      csrf: randomBytes(32).toString('base64url'),
      createdAtMs: now,
      expiresAtMs: now + this.lifetimeMs,
    };
    await this.backend.put(hashToken(token), session, this.maxSessions);
    return { token, session };
  }

  /** The live session a token names, or null (unknown, malformed or expired). */
  async get(token: string | undefined): Promise<Session | null> {
    if (!token || !TOKEN_PATTERN.test(token)) return null;
    const key = hashToken(token);
    const session = await this.backend.get(key);
    if (!session) return null;
    if (session.expiresAtMs <= this.now()) {
      await this.backend.delete(key);
      return null;
    }
    return session;
  }

  /** End a session (sign-out). Unknown tokens are ignored. */
  async revoke(token: string | undefined): Promise<void> {
    if (token && TOKEN_PATTERN.test(token)) await this.backend.delete(hashToken(token));
  }

  /** Seconds a new session lives (the cookie's Max-Age). */
  get lifetimeSeconds(): number {
    return Math.floor(this.lifetimeMs / 1000);
  }

  /** Live sessions (expired ones not yet swept may count). */
  size(): Promise<number> {
    return this.backend.size();
  }
}
