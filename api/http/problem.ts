/** RFC 9457 problem details, with `type` URLs that resolve to pages documenting each problem. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { problemType, type ProblemName } from '../../src/domain/problems.ts';
import type { ProblemFieldError } from '../../src/schemas/envelope.ts';

export interface ProblemExtras {
  errors?: ProblemFieldError[];
  status?: number;
  headers?: Record<string, string>;
  [member: string]: unknown;
}

export function problemBody(
  baseUrl: string,
  name: ProblemName,
  instance: string,
  detail: string,
  extras: ProblemExtras = {},
) {
  const t = problemType(name);
  const { headers: _headers, status, ...members } = extras;
  return {
    type: `${baseUrl}/problems/${t.name}`,
    title: t.title,
    status: status ?? t.status,
    detail,
    instance,
    ...members,
  };
}

/**
 * Send a problem; never cached, path only in `instance` (query strings can hold secrets).
 * A browser (an Accept that asks for text/html before any JSON) gets the same problem as a page
 * for people, with the same status and headers; everybody else gets the problem detail.
 */
export function sendProblem(
  reply: FastifyReply,
  request: FastifyRequest,
  baseUrl: string,
  name: ProblemName,
  detail: string,
  extras: ProblemExtras = {},
) {
  const body = problemBody(baseUrl, name, request.url.split('?')[0] ?? '/', detail, extras);
  for (const [k, v] of Object.entries(extras.headers ?? {})) reply.header(k, v);
  reply.code(body.status).header('Cache-Control', 'no-store').header('Vary', 'Accept');
  const pages = (request.server as { problemPages?: ProblemPages }).problemPages;
  if (pages && prefersHtml(request.headers.accept)) {
    const page = problemPage(pages(t(name)), body);
    if (page !== null) return reply.type('text/html; charset=utf-8').send(request.method === 'HEAD' ? undefined : page);
  }
  return reply.type('application/problem+json').send(body);
}

const t = (name: ProblemName) => problemType(name).name;

/** The built page that documents a problem type (`/problems/<name>/`), as HTML text, or null. */
export type ProblemPages = (name: string) => string | null;

/**
 * True when the client asks for HTML before JSON: a browser navigating ("text/html,...,*\/*;q=0.8").
 * `*\/*` alone (curl, fetch) or any JSON type at least as preferred keeps the problem detail.
 */
export function prefersHtml(accept: string | undefined): boolean {
  if (!accept) return false;
  let html = 0;
  let json = 0;
  for (const part of accept.slice(0, 1024).split(',').slice(0, 32)) {
    const [type, ...params] = part.trim().toLowerCase().split(';');
    const qParam = params.map((p) => p.trim()).find((p) => p.startsWith('q='));
    const q = qParam ? Number(qParam.slice(2)) : 1;
    if (!Number.isFinite(q)) continue;
    if (type === 'text/html' || type === 'application/xhtml+xml') html = Math.max(html, q);
    else if (type === 'application/json' || type === 'application/problem+json' || type?.endsWith('+json'))
      json = Math.max(json, q);
  }
  return html > 0 && html > json;
}

const escapeHtml = (text: unknown) => String(text ?? '').replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);

/**
 * The problem's documentation page with what happened put under its heading: the status, the
 * detail, the address, each invalid field, the allowed methods; every value escaped. Null when
 * the page has no heading to anchor on (then the problem detail is sent).
 */
export function problemPage(page: string | null, body: ReturnType<typeof problemBody>): string | null {
  if (page === null) return null;
  const h1 = page.indexOf('</h1>');
  if (h1 < 0) return null;
  const members = body as Record<string, unknown>;
  const errors = Array.isArray(members.errors) ? (members.errors as Array<Record<string, unknown>>) : [];
  const allow = Array.isArray(members.allow) ? (members.allow as string[]) : [];
  const parts = [
    `<section class="notice bad" id="problem" aria-labelledby="problem-what"><h2 id="problem-what">What happened</h2>`,
    `<p><strong>${escapeHtml(body.status)} ${escapeHtml(body.title)}</strong>: ${escapeHtml(body.detail)}</p>`,
    `<p>Address: <code>${escapeHtml(body.instance)}</code></p>`,
    errors.length > 0
      ? `<ul>${errors
          .slice(0, 50)
          .map((e) => `<li><code>${escapeHtml(e.parameter ?? e.pointer)}</code> ${escapeHtml(e.detail)}</li>`)
          .join('')}</ul>`
      : '',
    allow.length > 0 ? `<p>Allowed here: ${escapeHtml(allow.join(', '))}.</p>` : '',
    // A problem that says where to sign in links there (only a path or an http(s) address).
    typeof members.signIn === 'string' && /^(\/|https?:\/\/)/.test(members.signIn)
      ? `<p><a href="${escapeHtml(members.signIn)}">Sign in</a></p>`
      : '',
    body.status === 404
      ? '<p>Try <a href="/works/">the list of works</a>, <a href="/search/">search</a> or <a href="/browse/">browse</a>.</p>'
      : '<p><a href="/">Go to the home page</a>.</p>',
    '</section>',
  ];
  const titled = page.replace(
    /<title>[^<]*<\/title>/,
    `<title>${escapeHtml(`${body.status} ${body.title}`)} · Public-Domain Music Archive</title>`,
  );
  const at = titled.indexOf('</h1>') + '</h1>'.length;
  return titled.slice(0, at) + parts.join('') + titled.slice(at);
}

/**
 * The one error idiom of the services: they throw a ProblemError (a problem name from the catalog
 * in src/domain/problems.ts, a detail and extra members) and the one error handler in app.ts
 * answers it as a problem detail. Routes never build error answers from service results.
 */
export class ProblemError extends Error {
  readonly problem: ProblemName;
  readonly extras: ProblemExtras;
  constructor(problem: ProblemName, detail: string, extras: ProblemExtras = {}) {
    super(detail);
    this.name = 'ProblemError';
    this.problem = problem;
    this.extras = extras;
  }
}
