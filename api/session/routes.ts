/**
 * The desk's sign-in as a JSON API (the /admin/ pages use the same functions):
 *
 *   POST   /api/v1/admin/session   { "key": "<admin key>" } -> 201 AdminSession + Set-Cookie
 *   GET    /api/v1/admin/session   the cookie's session (with its CSRF token), or 401
 *   DELETE /api/v1/admin/session   sign-out: 204, the session ends and the cookie expires
 *
 * Sign-in goes through the one credential limiter (api/http/credential-limiter.ts), consulted
 * before the key is compared: while an address is limited, the right key is refused too.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { ProblemError, sendProblem } from '../http/problem.ts';
import { sendPrivateJson } from '../http/reply.ts';
import { ROLE_ENV } from '../http/auth.ts';
import { utcTimestamp } from '../../src/schemas/envelope.ts';
import { AdminSignInBody, type AdminSession } from '../../src/schemas/session.ts';
import { ADMIN_SESSION_ROLES, type Session } from './sessions.ts';
import { sessionOf, setSessionCookie, signOut } from './cookies.ts';

export const ADMIN_SESSION_PATH = '/api/v1/admin/session';

/** The public view of an admin session (never the cookie's token). */
export function adminSessionView(session: Session): AdminSession {
  if (session.subject.kind !== 'admin') throw new Error('adminSessionView() on a reader session');
  return {
    kind: 'admin',
    label: session.subject.label,
    roles: ADMIN_SESSION_ROLES.filter((r) => r === 'admin') as 'admin'[],
    csrfToken: session.csrf,
    createdAtUtc: utcTimestamp(new Date(session.createdAtMs)),
    expiresAtUtc: utcTimestamp(new Date(session.expiresAtMs)),
  };
}

export type SignInOutcome =
  { ok: true; session: Session } | { ok: false; status: 401 | 403 | 429; detail: string; retryAfterSeconds?: number };

/**
 * Check an admin key and start a session (sets the cookie). Shared by the JSON route and the
 * desk's sign-in form. Only a key holding the admin role signs in.
 */
export function createAdminSignIn(ctx: AppContext) {
  return async function signIn(request: FastifyRequest, reply: FastifyReply, key: string): Promise<SignInOutcome> {
    if (!ctx.keys.configuredFor(['admin'])) {
      return {
        ok: false,
        status: 401,
        detail: `No admin key is configured, so nobody can sign in. The operator sets ${ROLE_ENV.admin} (comma-separated label=secret keys) and restarts the service.`,
      };
    }
    const limited = await ctx.credentials.beforeCheck(request.ip);
    if (limited) return { ok: false, status: 429, ...limited };
    const principal = ctx.keys.identify(key.trim());
    if (!principal || !principal.roles.includes('admin')) {
      await ctx.credentials.failed(request.ip);
      if (principal)
        return {
          ok: false,
          status: 403,
          detail: `The key "${principal.label}" has the role ${principal.roles.join(', ')}; the desk needs an admin key.`,
        };
      return { ok: false, status: 401, detail: 'The key is not valid for this service.' };
    }
    const overused = await ctx.credentials.admit(principal.label);
    if (overused) return { ok: false, status: 429, ...overused };
    const { token, session } = await ctx.sessions.create({ kind: 'admin', label: principal.label });
    setSessionCookie(ctx, reply, token);
    return { ok: true, session };
  };
}

export async function registerSessionRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  signIn: ReturnType<typeof createAdminSignIn>,
): Promise<void> {
  const base = ctx.config.publicBaseUrl;

  app.post<{ Body: AdminSignInBody }>(
    ADMIN_SESSION_PATH,
    { schema: { body: AdminSignInBody } },
    async (request, reply) => {
      const outcome = await signIn(request, reply, request.body.key);
      if (!outcome.ok) {
        const name = outcome.status === 401 ? 'unauthorized' : outcome.status === 403 ? 'forbidden' : 'rate-limited';
        const headers: Record<string, string> = outcome.retryAfterSeconds
          ? { 'Retry-After': String(outcome.retryAfterSeconds) }
          : {};
        const errors =
          outcome.status === 429 ? {} : { errors: [{ pointer: '/key', detail: 'not an admin key of this service' }] };
        await sendProblem(reply, request, base, name, outcome.detail, { headers, ...errors });
        return reply;
      }
      reply.code(201);
      return sendPrivateJson(reply, adminSessionView(outcome.session));
    },
  );

  app.get(ADMIN_SESSION_PATH, async (request, reply) => {
    const session = await sessionOf(ctx, request);
    if (!session || session.subject.kind !== 'admin') {
      throw new ProblemError(
        'unauthorized',
        `No desk session: sign in with POST ${ADMIN_SESSION_PATH} and an admin key, or at ${base}/admin/.`,
      );
    }
    return sendPrivateJson(reply, adminSessionView(session));
  });

  app.delete(ADMIN_SESSION_PATH, async (request, reply) => {
    return signOut(ctx, request, reply);
  });
}
