/**
 * What the batch and listening desks (batches.ts, listening.ts) answer alike: their HTML page
 * headers, the signed-in admin's view, the redirect to sign-in, and the guard of their forms
 * (an admin session and its CSRF token, or a 401/403 page saying nothing happened), and how
 * their forms are read.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { csrfRefusal, sessionOf } from '../session/cookies.ts';
import { html, page, type DeskSessionView } from './html.ts';
import { DESK_CSP } from './routes.ts';

export function sendDeskPage(reply: FastifyReply, status: number, text: string): FastifyReply {
  return reply
    .header('Content-Security-Policy', DESK_CSP)
    .header('X-Frame-Options', 'DENY')
    .header('Cache-Control', 'no-store')
    .header('Referrer-Policy', 'same-origin')
    .code(status)
    .type('text/html; charset=utf-8')
    .send(text);
}

/** The signed-in admin (label and CSRF token), or null for no session or a non-admin one. */
export async function deskSessionView(ctx: AppContext, request: FastifyRequest): Promise<DeskSessionView | null> {
  const s = await sessionOf(ctx, request);
  return s && s.subject.kind === 'admin' ? { label: s.subject.label, csrf: s.csrf } : null;
}

/** To the sign-in page, coming back to this page after. */
export function toSignIn(request: FastifyRequest, reply: FastifyReply): FastifyReply {
  return reply
    .code(303)
    .header('Location', `/admin/?next=${encodeURIComponent(request.url.slice(0, 400))}`)
    .send();
}

/**
 * The admin behind a form post, its CSRF token checked; otherwise the 401 (no admin session) or
 * 403 (refused) page is sent, saying nothing was `undone` ("changed", "recorded"), and null
 * returned.
 */
export async function formSession(
  ctx: AppContext,
  request: FastifyRequest,
  reply: FastifyReply,
  undone: string,
): Promise<DeskSessionView | null> {
  const s = await sessionOf(ctx, request);
  const session = s && s.subject.kind === 'admin' ? { label: s.subject.label, csrf: s.csrf } : null;
  if (!s || !session) {
    sendDeskPage(
      reply,
      401,
      page({
        title: 'Sign in',
        body: html`<h1>Sign in again</h1><p>Your desk session has ended; nothing was ${undone}. <a href="/admin/">Sign in</a>.</p>`,
      }),
    );
    return null;
  }
  const refusal = csrfRefusal(ctx.config, request, s);
  if (refusal !== null) {
    sendDeskPage(
      reply,
      403,
      page({ title: 'Refused', session, body: html`<h1>Refused</h1><p>${refusal} Nothing was ${undone}.</p>` }),
    );
    return null;
  }
  return session;
}

/**
 * Reads the desk's forms (application/x-www-form-urlencoded) on `desk` only: at most `bodyLimit`
 * bytes and the first `maxFields` fields; the field named `repeated` (a checkbox list) keeps
 * every value, any other field its last.
 */
export function acceptDeskForms(desk: FastifyInstance, bodyLimit: number, maxFields: number, repeated?: string): void {
  desk.addContentTypeParser(
    'application/x-www-form-urlencoded',
    { parseAs: 'string', bodyLimit },
    (_request, body, done) => {
      const out: Record<string, string | string[]> = {};
      let n = 0;
      for (const [k, v] of new URLSearchParams(typeof body === 'string' ? body : body.toString('utf8'))) {
        if (++n > maxFields) break;
        if (k === repeated) ((out[k] ??= []) as string[]).push(v);
        else if (k !== '__proto__' && k !== 'constructor' && k !== 'prototype') out[k] = v;
      }
      done(null, out);
    },
  );
}
