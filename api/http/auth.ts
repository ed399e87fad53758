/**
 * Key authentication for protected routes (spec Part 5). A key arrives in `X-Archive-Import-Key`
 * or as `Authorization: Bearer <key>`, never in a URL. Keys come from configuration per role:
 *
 *   ARCHIVE_LIBRARY_KEYS  -> role `library`   (import, list, read, download)
 *   ARCHIVE_CURATOR_KEYS  -> role `curator`   (everything `library` may do, plus publish)
 *   ARCHIVE_ADMIN_KEYS    -> role `admin`     (the review API)
 *   ARCHIVE_METRICS_KEYS  -> role `metrics`   (GET /metrics only)
 *
 * The import-key header carries library and curator keys only; an admin or metrics key is
 * accepted only as Bearer, so a key sent in the wrong header is refused rather than honored.
 *
 * Each comma-separated entry is either `secret` or `label=secret`. The label names the key holder
 * in commits and records without revealing the key; a plain secret gets `key-<6 hex of its
 * SHA-256>`. `label=secret` is recognized only when the label is a short name (a letter, then
 * letters, digits, ".", "_", "-"; at most 64) and the secret is at least 8 characters, so a
 * base64 key ending in "=" is still read as one secret.
 *
 * Comparison is constant-time: both sides are hashed to SHA-256 and compared with
 * `timingSafeEqual`, against every configured key. Nothing here logs a header or a key.
 *
 * Use: `app.addHook('onRequest', requireRole(ctx, ['curator']))` or as a route's `onRequest` /
 * `preHandler`. onRequest is preferred: it refuses before any body (an upload) is read.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { KEY_LABEL_PATTERN, MIN_KEY_SECRET_LENGTH, type Config } from '../config.ts';
import { sendProblem } from './problem.ts';
import type { Role } from './roles.ts';
import type { SessionStore } from '../session/sessions.ts';
import type { CredentialLimiter } from './credential-limiter.ts';
import { ADMIN_SESSION_ROLES } from '../session/sessions.ts';
import { csrfRefusal, sessionOf } from '../session/cookies.ts';

export type { Role };

/** Which variable configures each role (named in the 401 answer when none is set). */
export const ROLE_ENV: Record<Role, string> = {
  library: 'ARCHIVE_LIBRARY_KEYS',
  curator: 'ARCHIVE_CURATOR_KEYS',
  admin: 'ARCHIVE_ADMIN_KEYS',
  metrics: 'ARCHIVE_METRICS_KEYS',
};

/** Query parameter names that look like credentials (compared lower-case, without "-" and "_"). */
const KEY_LIKE_PARAMS = new Set([
  'key',
  'apikey',
  'token',
  'accesstoken',
  'importkey',
  'xarchiveimportkey',
  'authorization',
  'bearer',
  'librarykey',
  'curatorkey',
  'adminkey',
  'secret',
  'password',
]);

const LABEL_PATTERN = KEY_LABEL_PATTERN;
const MIN_LABELED_SECRET_LENGTH = MIN_KEY_SECRET_LENGTH;

export interface KeyEntry {
  label: string;
  secret: string;
}

/** Read one configured entry: `label=secret` or a plain secret (see the file comment). */
export function parseKeyEntry(entry: string): KeyEntry {
  const eq = entry.indexOf('=');
  if (eq > 0) {
    const label = entry.slice(0, eq).trim();
    const secret = entry.slice(eq + 1).trim();
    if (LABEL_PATTERN.test(label) && secret.length >= MIN_LABELED_SECRET_LENGTH) return { label, secret };
  }
  return { label: `key-${digest(entry).toString('hex').slice(0, 6)}`, secret: entry };
}

/** The form of a generated label (`key-` and 6 hex digits), given to a key configured without one. */
const GENERATED_LABEL = /^key-[0-9a-f]{6}$/;

/**
 * True when `label` was given by the operator (`label=secret`) and so names an accountable key
 * holder; false for a generated `key-<hex>` label (a label written in that form counts as
 * generated too). Listening approval needs such a labeled key, so the approval names who gave it.
 */
export function isOperatorLabel(label: string): boolean {
  return LABEL_PATTERN.test(label) && !GENERATED_LABEL.test(label);
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value, 'utf8').digest();
}

interface RingEntry {
  role: Role;
  label: string;
  digest: Buffer;
}

export interface Principal {
  /** Label of the key that matched (safe to log and record). */
  label: string;
  /** Every role this key holds. */
  roles: Role[];
}

/** The configured keys of every role, hashed once. */
export class KeyRing {
  private readonly entries: RingEntry[];

  constructor(keys: Partial<Record<Role, string[]>>) {
    this.entries = (Object.keys(keys) as Role[]).flatMap((role) =>
      (keys[role] ?? []).map((raw) => {
        const { label, secret } = parseKeyEntry(raw);
        return { role, label, digest: digest(secret) };
      }),
    );
  }

  static fromConfig(
    config: Pick<Config, 'libraryKeys' | 'curatorKeys' | 'adminKeys'> & Partial<Pick<Config, 'metricsKeys'>>,
  ): KeyRing {
    return new KeyRing({
      library: config.libraryKeys,
      curator: config.curatorKeys,
      admin: config.adminKeys,
      metrics: config.metricsKeys ?? [],
    });
  }

  /** True when at least one key is configured for one of `roles`. */
  configuredFor(roles: readonly Role[]): boolean {
    return this.entries.some((e) => roles.includes(e.role));
  }

  /** The principal a presented secret belongs to, or null. Compares against every key. */
  identify(secret: string): Principal | null {
    const presented = digest(secret);
    let label: string | null = null;
    const roles: Role[] = [];
    for (const e of this.entries) {
      if (timingSafeEqual(presented, e.digest)) {
        label ??= e.label;
        if (!roles.includes(e.role)) roles.push(e.role);
      }
    }
    return label === null ? null : { label, roles };
  }
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by `requireRole` on the requests it admits. */
    principal?: Principal;
  }
}

/** The principal `requireRole` accepted for this request (throws when the route is unprotected). */
export function principalOf(request: FastifyRequest): Principal {
  const p = request.principal;
  if (!p) throw new Error('principalOf() on a request that did not pass requireRole');
  return p;
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/** The roles a key may hold when it arrives in the import-key header (Bearer carries any role). */
const IMPORT_KEY_HEADER_ROLES: readonly Role[] = ['library', 'curator'];

export interface PresentedKey {
  secret: string;
  /** Where it was sent, for messages. */
  via: 'X-Archive-Import-Key' | 'Authorization: Bearer';
  /** The roles a key sent this way may use. */
  roles: readonly Role[] | 'any';
}

/** Keys the request presents in its headers (the import-key header first). */
export function presentedKeys(request: FastifyRequest): PresentedKey[] {
  const out: PresentedKey[] = [];
  const header = headerValue(request.headers['x-archive-import-key'])?.trim();
  if (header) out.push({ secret: header, via: 'X-Archive-Import-Key', roles: IMPORT_KEY_HEADER_ROLES });
  const auth = headerValue(request.headers.authorization);
  const m = auth ? /^Bearer[ \t]+(\S+)[ \t]*$/i.exec(auth) : null;
  if (m?.[1]) out.push({ secret: m[1], via: 'Authorization: Bearer', roles: 'any' });
  return out;
}

/** The principal a presented key stands for, limited to the roles its header may carry. */
function identifyPresented(ring: KeyRing, key: PresentedKey): { principal: Principal | null; misplaced: boolean } {
  const found = ring.identify(key.secret);
  if (!found || key.roles === 'any') return { principal: found, misplaced: false };
  const allowed = key.roles;
  const roles = found.roles.filter((r) => allowed.includes(r));
  return roles.length > 0 ? { principal: { ...found, roles }, misplaced: false } : { principal: null, misplaced: true };
}

/**
 * The first query parameter that carries a key, or null: a key-like name, or a value equal to
 * any configured key. Only the parameter name is ever reported.
 */
export function keyInQuery(url: string, ring: KeyRing): string | null {
  const q = url.indexOf('?');
  if (q < 0) return null;
  const params = new URLSearchParams(url.slice(q + 1));
  for (const [name, value] of params) {
    if (KEY_LIKE_PARAMS.has(name.toLowerCase().replace(/[-_]/g, ''))) return name;
    if (value.length > 0 && ring.identify(value)) return name;
  }
  return null;
}

const REALM = 'Bearer realm="archive"';

/**
 * A hook that admits only keys holding one of `roles`: 400 for a key in the URL, 401 for a
 * missing or wrong key (with `WWW-Authenticate: Bearer`), 403 for a valid key of another role.
 *
 * Without a key in the headers, a session cookie (api/session/) is considered when the context has
 * a session store: an admin session admits routes open to `admin` (its only role); a state-changing
 * request with it must pass the CSRF rule, with the token in the X-CSRF-Token header (this hook
 * runs before the body is read). A reader session never admits a protected route (403).
 */
export function requireRole(
  ctx: { config: Config; keys: KeyRing; credentials: CredentialLimiter; sessions?: SessionStore },
  roles: readonly Role[],
) {
  const base = ctx.config.publicBaseUrl;
  const envNames = roles.map((r) => ROLE_ENV[r]).join(' or ');
  return async function checkKey(request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply | undefined> {
    const ring = ctx.keys;
    const inQuery = keyInQuery(request.url, ring);
    if (inQuery !== null) {
      await sendProblem(
        reply,
        request,
        base,
        'key-in-url',
        `The query parameter "${inQuery}" carries a key, or looks like it. Keys are never sent in a URL: send it in the X-Archive-Import-Key header or as Authorization: Bearer <key>, and rotate a key that was exposed.`,
        { errors: [{ parameter: inQuery, detail: 'must not carry a key' }] },
      );
      return reply;
    }
    const presented = presentedKeys(request);
    // The limiter speaks before any key is compared: while this address is limited, the right
    // key is refused like a wrong one, so the answers are no oracle.
    if (presented.length > 0) {
      const limited = await ctx.credentials.beforeCheck(request.ip);
      if (limited) {
        await sendProblem(reply, request, base, 'rate-limited', limited.detail, {
          headers: { 'Retry-After': String(limited.retryAfterSeconds) },
        });
        return reply;
      }
    }
    let principal: Principal | null = null;
    let misplaced: PresentedKey | null = null;
    for (const key of presented) {
      const found = identifyPresented(ring, key);
      if (found.misplaced) misplaced ??= key;
      principal = found.principal;
      if (principal) break;
    }
    if (!principal && presented.length > 0) await ctx.credentials.failed(request.ip);
    if (principal && !principal.roles.some((r) => roles.includes(r))) {
      await sendProblem(
        reply,
        request,
        base,
        'forbidden',
        `The key "${principal.label}" has the role ${principal.roles.join(', ')}; this action needs ${roles.join(' or ')}.`,
      );
      return reply;
    }
    if (!principal && presented.length === 0 && ctx.sessions) {
      const session = await sessionOf({ config: ctx.config, sessions: ctx.sessions }, request);
      if (session?.subject.kind === 'reader') {
        await sendProblem(
          reply,
          request,
          base,
          'forbidden',
          `A reader sign-in (${session.subject.provider} user "${session.subject.login}") does not grant this route; it needs a key with the role ${roles.join(' or ')}.`,
        );
        return reply;
      }
      if (session?.subject.kind === 'admin') {
        if (!ADMIN_SESSION_ROLES.some((r) => roles.includes(r))) {
          await sendProblem(
            reply,
            request,
            base,
            'forbidden',
            `A desk sign-in grants the admin role only; this action needs a key with the role ${roles.join(' or ')}.`,
          );
          return reply;
        }
        const refusal = csrfRefusal(ctx.config, request, session);
        if (refusal !== null) {
          await sendProblem(reply, request, base, 'forbidden', refusal);
          return reply;
        }
        request.principal = { label: session.subject.label, roles: [...ADMIN_SESSION_ROLES] };
        return undefined;
      }
    }
    if (!principal) {
      const [detail, header] = !ring.configuredFor(roles)
        ? [
            `No key is configured for this route, so it refuses every request. The operator sets ${envNames} (comma-separated keys) and restarts the service.`,
            REALM,
          ]
        : presented.length === 0
          ? ['This route needs a key in the X-Archive-Import-Key header or as Authorization: Bearer <key>.', REALM]
          : misplaced
            ? [
                `The key sent in ${misplaced.via} is not accepted there: that header carries library and curator keys only; send other keys as Authorization: Bearer <key>.`,
                `${REALM}, error="invalid_token"`,
              ]
            : ['The key sent is not valid for this service.', `${REALM}, error="invalid_token"`];
      await sendProblem(reply, request, base, 'unauthorized', detail, { headers: { 'WWW-Authenticate': header } });
      return reply;
    }
    const overused = await ctx.credentials.admit(principal.label);
    if (overused) {
      await sendProblem(reply, request, base, 'rate-limited', overused.detail, {
        headers: { 'Retry-After': String(overused.retryAfterSeconds) },
      });
      return reply;
    }
    request.principal = principal;
    return undefined;
  };
}
