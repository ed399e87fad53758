/**
 * Reader sign-in and signed-in downloads (docs/reader-sign-in.md).
 *
 *   GET    /api/v1/reader/sign-in?return=/works/x/     302 to GitHub (state + PKCE in a SameSite=Lax cookie)
 *   GET    /api/v1/reader/sign-in/callback?code&state   checks state, exchanges the code with the PKCE verifier,
 *                                                       reads GET /user, starts a reader session; 200 page
 *   GET    /api/v1/reader/session                       the cookie's reader session (with its CSRF token), or 401
 *   DELETE /api/v1/reader/session                       sign-out (CSRF-checked): 204, the cookie expires
 *   GET    /api/v1/works/{slug}/assets/{assetId}/download
 *          a signed-in file: 401 sign-in-required without a session, the bytes (ETag, ranges) with one;
 *          administrator-only files 403 to everyone here
 *
 * Without GITHUB_OAUTH_CLIENT_ID/SECRET the archive offers no reader sign-in: these routes answer
 * 404 `signed-in-download-not-offered`, and the build's records and pages say so in words.
 *
 * Cookies. The session is the desk's cookie (api/session/cookies.ts): HttpOnly, SameSite=Strict.
 * The sign-in's state, PKCE verifier and return path travel in a separate short-lived cookie with
 * SameSite=Lax, because the callback is a cross-site navigation from GitHub, on which a Strict
 * cookie is not sent. For the same reason the callback does not answer with a redirect: a Strict
 * cookie set on a response is not sent on a redirect that continues a cross-site navigation, so the
 * first request after sign-in would look anonymous. It answers a small same-origin page that moves
 * on to the return path (meta refresh, plus a link); that next navigation starts on this site, so
 * the session cookie goes with it. The session cookie stays Strict: no request from another site
 * ever carries a reader session.
 */
import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { ProblemError } from '../http/problem.ts';
import { sendPrivateJson } from '../http/reply.ts';
import { safeDeclaredType } from '../http/media-types.ts';
import { sendFile } from '../http/send-file.ts';
import { sendBlob } from '../blobs/send-blob.ts';
import {
  clearCookie,
  cookieName,
  readCookie,
  sessionOf,
  sessionToken,
  setCookie,
  setSessionCookie,
  signOut,
} from '../session/cookies.ts';
import type { Session } from '../session/sessions.ts';
import { utcTimestamp } from '../../src/schemas/envelope.ts';
import {
  ReaderCallbackQuery,
  ReaderSignInQuery,
  SignedInDownloadParams,
  type ReaderSession,
} from '../../src/schemas/session.ts';
import { isLocalReturnPath, NOT_OFFERED, signInUrl } from '../../src/domain/access.ts';
import { GitHubSignIn, SignInError } from './github.ts';
import { protectedAsset, protectedFilePath } from './protected-assets.ts';

export const READER_SIGN_IN_PATH = '/api/v1/reader/sign-in';
export const READER_CALLBACK_PATH = '/api/v1/reader/sign-in/callback';
export const READER_SESSION_PATH = '/api/v1/reader/session';
export const SIGNED_IN_DOWNLOAD_PATH = '/api/v1/works/:slug/assets/:assetId/download';

/** A sign-in must come back within this time (the state cookie's lifetime). */
export const SIGN_IN_WINDOW_SECONDS = 600;

/** Protected bytes: the browser may keep them but must ask again; shared caches never store them. */
const PRIVATE_CACHE = 'private, no-cache';

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

function sameText(a: string, b: string): boolean {
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && timingSafeEqual(x, y);
}

/** The public view of a reader session (never the cookie's token). */
export function readerSessionView(session: Session): ReaderSession {
  if (session.subject.kind !== 'reader') throw new Error('readerSessionView() on a desk session');
  const s = session.subject;
  return {
    kind: 'reader',
    provider: s.provider,
    userId: s.userId,
    login: s.login,
    name: s.name,
    grants: ['signed-in-downloads'],
    csrfToken: session.csrf,
    createdAtUtc: utcTimestamp(new Date(session.createdAtMs)),
    expiresAtUtc: utcTimestamp(new Date(session.expiresAtMs)),
  };
}

interface PendingSignIn {
  state: string;
  codeVerifier: string;
  returnPath: string;
}

function encodePending(p: PendingSignIn): string {
  return `${p.state}.${p.codeVerifier}.${Buffer.from(p.returnPath, 'utf8').toString('base64url')}`;
}

function decodePending(value: string | undefined): PendingSignIn | null {
  if (!value || value.length > 2048) return null;
  const parts = value.split('.');
  if (parts.length !== 3 || parts.some((p) => !/^[A-Za-z0-9_-]+$/.test(p))) return null;
  const returnPath = Buffer.from(parts[2]!, 'base64url').toString('utf8');
  if (!isLocalReturnPath(returnPath)) return null;
  return { state: parts[0]!, codeVerifier: parts[1]!, returnPath };
}

function signedInPage(login: string, returnPath: string): string {
  const target = escapeHtml(returnPath);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="refresh" content="0; url=${target}">
<title>Signed in — Public-Domain Music Archive</title>
</head>
<body>
<main>
<h1>Signed in</h1>
<p data-signed-in>Signed in as <strong>${escapeHtml(login)}</strong> with GitHub.</p>
<p><a href="${target}">Continue</a></p>
</main>
</body>
</html>
`;
}

export function registerReaderRoutes(app: FastifyInstance, ctx: AppContext): void {
  const base = ctx.config.publicBaseUrl;
  const settings = ctx.config.readerSignIn;
  const github = settings ? new GitHubSignIn(settings, `${base}${READER_CALLBACK_PATH}`) : null;
  const pendingCookie = cookieName(ctx.config, 'archive-sign-in');

  const notOffered = () =>
    new ProblemError(
      'signed-in-download-not-offered',
      `${NOT_OFFERED} The operator enables reader sign-in with GITHUB_OAUTH_CLIENT_ID and GITHUB_OAUTH_CLIENT_SECRET (a GitHub OAuth app).`,
    );

  app.get<{ Querystring: ReaderSignInQuery }>(
    READER_SIGN_IN_PATH,
    { schema: { querystring: ReaderSignInQuery } },
    async (request, reply) => {
      if (!github) throw notOffered();
      const { state, codeVerifier, url } = github.start();
      setCookie(
        ctx.config,
        reply,
        pendingCookie,
        encodePending({ state, codeVerifier, returnPath: request.query.return ?? '/' }),
        { maxAgeSeconds: SIGN_IN_WINDOW_SECONDS, sameSite: 'lax' },
      );
      return reply
        .code(302)
        .header('Location', url.href)
        .header('Cache-Control', 'no-store')
        .header('Referrer-Policy', 'no-referrer')
        .send();
    },
  );

  app.get<{ Querystring: ReaderCallbackQuery }>(
    READER_CALLBACK_PATH,
    { schema: { querystring: ReaderCallbackQuery } },
    async (request, reply) => {
      if (!github) throw notOffered();
      const again = `Start again at ${signInUrl(base)}.`;
      const pending = decodePending(readCookie(request, pendingCookie));
      // The sign-in cookie is single-use: whatever happens next, it expires.
      clearCookie(ctx.config, reply, pendingCookie, 'lax');
      reply.header('Referrer-Policy', 'no-referrer');
      const q = request.query;
      if (q.error !== undefined) {
        throw new ProblemError(
          'sign-in-failed',
          `GitHub did not sign you in (${q.error}${q.error_description ? `: ${q.error_description.slice(0, 200)}` : ''}). ${again}`,
        );
      }
      if (!pending) {
        throw new ProblemError(
          'sign-in-failed',
          `No sign-in is in progress in this browser: its cookie is missing or expired (a sign-in must finish within ${SIGN_IN_WINDOW_SECONDS / 60} minutes, in the browser that started it). ${again}`,
        );
      }
      if (q.code === undefined || q.state === undefined) {
        throw new ProblemError(
          'sign-in-failed',
          `GitHub's answer lacks ${q.code === undefined ? 'code' : 'state'}. ${again}`,
          { errors: [{ parameter: q.code === undefined ? 'code' : 'state', detail: 'is required' }] },
        );
      }
      if (!sameText(q.state, pending.state)) {
        throw new ProblemError(
          'sign-in-failed',
          `The state GitHub sent back does not belong to the sign-in this browser started. ${again}`,
          { errors: [{ parameter: 'state', detail: 'does not match the sign-in cookie' }] },
        );
      }
      let subject;
      try {
        subject = await github.finish(q.code, pending.codeVerifier);
      } catch (error) {
        if (error instanceof SignInError)
          throw new ProblemError(
            error.kind === 'refused' ? 'sign-in-failed' : 'sign-in-provider-unavailable',
            `${error.message} ${again}`,
          );
        throw error;
      }
      // A new session on every sign-in: any session this browser had (reader or desk) ends.
      await ctx.sessions.revoke(sessionToken(ctx.config, request));
      const { token } = await ctx.sessions.create(subject);
      setSessionCookie(ctx, reply, token);
      return reply
        .code(200)
        .header('Cache-Control', 'no-store')
        .header('Content-Security-Policy', "default-src 'none'; style-src 'unsafe-inline'")
        .type('text/html; charset=utf-8')
        .send(signedInPage(subject.login, pending.returnPath));
    },
  );

  app.get(READER_SESSION_PATH, async (request, reply) => {
    if (!github) throw notOffered();
    const session = await sessionOf(ctx, request);
    if (!session || session.subject.kind !== 'reader') {
      throw new ProblemError(
        'sign-in-required',
        `No reader session in this browser: sign in with GitHub at ${signInUrl(base)}.`,
        { signIn: signInUrl(base) },
      );
    }
    return sendPrivateJson(reply, readerSessionView(session));
  });

  app.delete(READER_SESSION_PATH, async (request, reply) => {
    return signOut(ctx, request, reply);
  });

  // GET and HEAD in one route: Fastify's generated HEAD route would answer Content-Length: 0.
  app.route<{ Params: SignedInDownloadParams }>({
    method: ['GET', 'HEAD'],
    url: SIGNED_IN_DOWNLOAD_PATH,
    schema: { params: SignedInDownloadParams },
    handler: async (request: FastifyRequest<{ Params: SignedInDownloadParams }>, reply: FastifyReply) => {
      const { slug } = request.params;
      const assetId = Number(request.params.assetId);
      const buildDir = ctx.handle.current.dir;
      const asset = await protectedAsset(buildDir, slug, assetId);
      if (!asset) {
        throw new ProblemError(
          'not-found',
          `Work "${slug}" has no signed-in or administrator-only file with asset id ${assetId}. Public files are downloaded at the links in the work's record (${base}/api/v1/works/${encodeURIComponent(slug)}).`,
        );
      }
      if (asset.access === 'admin-only') {
        throw new ProblemError(
          'administrator-only',
          `Asset ${assetId} of "${slug}" is administrator-only for now; no reader sign-in grants it.`,
        );
      }
      if (!github) throw notOffered();
      const session = await sessionOf(ctx, request);
      const returnPath = `/works/${encodeURIComponent(slug)}/`;
      if (!session) {
        const link = signInUrl(base, returnPath);
        throw new ProblemError(
          'sign-in-required',
          `This file is for signed-in readers. Sign in with GitHub at ${link}, then follow this link again in the same browser.`,
          { signIn: link },
        );
      }
      reply.header('Vary', 'Cookie');
      const contentType = safeDeclaredType(asset.mediaType);
      if (asset.file !== undefined) {
        return sendFile(request, reply, base, {
          absPath: protectedFilePath(buildDir, slug, asset.file),
          size: asset.byteLength,
          etag: `"${asset.sha256}"`,
          contentType,
          cacheControl: PRIVATE_CACHE,
          downloadName: asset.fileName,
        });
      }
      const info = await ctx.blobs.stat(asset.sha256);
      if (!info) {
        request.log.error({ slug, assetId, sha256: asset.sha256 }, 'signed-in asset missing from the blob store');
        throw new ProblemError(
          'not-found',
          `The file of asset ${assetId} of "${slug}" is missing from the blob store (logged for the operator).`,
        );
      }
      return sendBlob(request, reply, base, ctx.blobs, {
        sha256: asset.sha256,
        size: info.byteLength,
        contentType,
        cacheControl: PRIVATE_CACHE,
        downloadName: asset.fileName,
      });
    },
  });
}
