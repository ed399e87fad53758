/**
 * The session cookie and the CSRF rule (api/session/sessions.ts holds the sessions).
 *
 * Cookie: `HttpOnly; Path=/; SameSite=Strict` (Lax only where a cross-site redirect must carry it,
 * e.g. an OAuth callback's state cookie), `Max-Age` = the session lifetime, and `Secure` with the
 * `__Host-` name prefix when the public origin is https (PUBLIC_BASE_URL), so the cookie cannot be
 * set by a sibling host nor sent over plain HTTP. Over plain-http loopback the name has no prefix.
 *
 * CSRF: a request that changes state (anything but GET, HEAD, OPTIONS) and is authenticated by the
 * cookie must (1) not come from another site (`Sec-Fetch-Site: cross-site` is refused; an `Origin`
 * header, when sent, must be the public origin or the origin the request was addressed to) and
 * (2) carry the session's CSRF token in the `X-CSRF-Token` header or the `_csrf` form field.
 * SameSite=Strict already keeps the cookie off cross-site requests in current browsers; the token
 * and origin checks are the defense that does not depend on that.
 */
import { timingSafeEqual } from 'node:crypto';
import { parseCookie, stringifySetCookie } from 'cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Config } from '../config.ts';
import type { Session, SessionStore } from './sessions.ts';
import { ProblemError } from '../http/problem.ts';

export const CSRF_HEADER = 'x-csrf-token';
export const CSRF_FIELD = '_csrf';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** True when the public origin is https (cookies get `Secure` and the `__Host-` prefix). */
export function secureCookies(config: Pick<Config, 'publicBaseUrl'>): boolean {
  return config.publicBaseUrl.startsWith('https:');
}

/** The name of a cookie of this archive, prefixed `__Host-` on an https origin. */
export function cookieName(config: Pick<Config, 'publicBaseUrl'>, base: string): string {
  return secureCookies(config) ? `__Host-${base}` : base;
}

export function sessionCookieName(config: Pick<Config, 'publicBaseUrl'>): string {
  return cookieName(config, 'archive-session');
}

/** One cookie's value from the request, or undefined. */
export function readCookie(request: FastifyRequest, name: string): string | undefined {
  const header = request.headers.cookie;
  if (!header || header.length > 8192) return undefined;
  return parseCookie(header)[name];
}

export interface SetCookieOptions {
  maxAgeSeconds: number;
  sameSite?: 'strict' | 'lax';
}

/** Append a Set-Cookie header (keeps any already set on the reply). */
export function setCookie(
  config: Pick<Config, 'publicBaseUrl'>,
  reply: FastifyReply,
  name: string,
  value: string,
  options: SetCookieOptions,
): void {
  const line = stringifySetCookie({
    name,
    value,
    httpOnly: true,
    secure: secureCookies(config),
    sameSite: options.sameSite ?? 'strict',
    path: '/',
    maxAge: options.maxAgeSeconds,
  });
  const existing = reply.getHeader('set-cookie');
  const lines = existing === undefined ? [] : Array.isArray(existing) ? existing.map(String) : [String(existing)];
  reply.header('set-cookie', [...lines, line]);
}

/** Expire a cookie in the browser. */
export function clearCookie(
  config: Pick<Config, 'publicBaseUrl'>,
  reply: FastifyReply,
  name: string,
  sameSite: 'strict' | 'lax' = 'strict',
): void {
  setCookie(config, reply, name, '', { maxAgeSeconds: 0, sameSite });
}

/** The session token the request's cookie carries, or undefined. */
export function sessionToken(config: Pick<Config, 'publicBaseUrl'>, request: FastifyRequest): string | undefined {
  return readCookie(request, sessionCookieName(config));
}

/** The live session of the request's cookie, or null. */
export function sessionOf(
  ctx: { config: Config; sessions: SessionStore },
  request: FastifyRequest,
): Promise<Session | null> {
  return ctx.sessions.get(sessionToken(ctx.config, request));
}

/** Set the session cookie for a new session (sign-in). */
export function setSessionCookie(
  ctx: { config: Config; sessions: SessionStore },
  reply: FastifyReply,
  token: string,
): void {
  setCookie(ctx.config, reply, sessionCookieName(ctx.config), token, { maxAgeSeconds: ctx.sessions.lifetimeSeconds });
}

/** End the request's session and expire its cookie (sign-out). */
export async function endSession(
  ctx: { config: Config; sessions: SessionStore },
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<void> {
  await ctx.sessions.revoke(sessionToken(ctx.config, request));
  clearCookie(ctx.config, reply, sessionCookieName(ctx.config));
}

/**
 * Sign-out (DELETE of a session route, desk or reader): with a live session the request must pass
 * the CSRF rule; the session ends and the cookie expires either way. Answers 204.
 */
export async function signOut(
  ctx: { config: Config; sessions: SessionStore },
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<FastifyReply> {
  const session = await sessionOf(ctx, request);
  if (session) {
    const refusal = csrfRefusal(ctx.config, request, session);
    if (refusal !== null) throw new ProblemError('forbidden', refusal);
  }
  await endSession(ctx, request, reply);
  return reply.code(204).header('Cache-Control', 'no-store').send();
}

function headerValue(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function sameToken(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The CSRF token a request presents: the header, else a `_csrf` field of a parsed form/JSON body. */
export function presentedCsrf(request: FastifyRequest): string | undefined {
  const header = headerValue(request.headers[CSRF_HEADER]);
  if (header) return header;
  const body = request.body;
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const field = (body as Record<string, unknown>)[CSRF_FIELD];
    if (typeof field === 'string') return field;
  }
  return undefined;
}

/**
 * Why a request is not from this origin, or null: a `Sec-Fetch-Site` other than `same-origin`
 * (`same-site` included: a sibling subdomain is another party), or an `Origin` that is neither
 * the public origin nor the origin the request was addressed to. Also guards the desk's sign-in
 * form, which has no session (and so no token) yet. Clients that send neither header (scripts,
 * curl) are judged by the CSRF token alone.
 */
export function crossSiteRefusal(config: Pick<Config, 'publicBaseUrl'>, request: FastifyRequest): string | null {
  const site = headerValue(request.headers['sec-fetch-site']);
  if (site !== undefined && site !== 'same-origin')
    return `The request did not come from this archive's own pages (Sec-Fetch-Site: ${site.slice(0, 40)}); only same-origin requests may change state.`;
  const origin = headerValue(request.headers.origin);
  if (origin !== undefined) {
    const host = headerValue(request.headers.host);
    const addressed = host ? `${request.protocol}://${host}` : null;
    if (origin !== new URL(config.publicBaseUrl).origin && origin !== addressed)
      return `The request's Origin "${origin.slice(0, 200)}" is not this archive.`;
  }
  return null;
}

/**
 * Why a cookie-authenticated request may not change state, or null when it may. Safe methods
 * always may. `checkToken: false` checks the origin only (for a hook that runs before the body,
 * where a form field cannot be read yet; the handler then checks the token).
 */
export function csrfRefusal(
  config: Pick<Config, 'publicBaseUrl'>,
  request: FastifyRequest,
  session: Session,
  checkToken = true,
): string | null {
  if (SAFE_METHODS.has(request.method)) return null;
  const foreign = crossSiteRefusal(config, request);
  if (foreign !== null) return foreign;
  if (!checkToken) return null;
  const presented = presentedCsrf(request);
  if (!presented)
    return `A state-changing request with a session cookie needs the session's CSRF token in the ${CSRF_HEADER} header or the ${CSRF_FIELD} form field.`;
  if (!sameToken(presented, session.csrf)) return 'The CSRF token does not belong to this session.';
  return null;
}
