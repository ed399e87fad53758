/**
 * /track/{code} rendered by the front server: the built tracking page (track/index.html) with
 * the code's public tracking record put into its #track-result, in the same words the page
 * script uses (src/domain/contributions/tracking-words.ts). So the page reads without
 * JavaScript; the script sees `data-code` and does not look the code up again. `/track/?code=X`
 * (the page's form without JavaScript) redirects to /track/X. A static server (nginx) still
 * answers the plain file, and the script fills it in.
 */
import { readFile } from 'node:fs/promises';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { sendFile } from '../http/send-file.ts';
import { PUBLIC_CSP } from '../http/content-security-policy.ts';
import { normalizeTrackingCode } from '../../src/domain/contributions/tracking-code.ts';
import { contributionView, correctionReportView } from '../../src/domain/contributions/tracking.ts';
import {
  STATUS_MEANINGS,
  historyRows,
  notACodeMessage,
  statusWords,
  trackingApiPath,
  trackingFacts,
  unknownCodeMessage,
  type TrackingRecord,
} from '../../src/domain/contributions/tracking-words.ts';

const escape = (text: string) => text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);

/** The record as HTML: heading, status in words, facts, history table. Every value escaped. */
export function trackingHtml(t: TrackingRecord, jsonUrl: string): string {
  const facts = trackingFacts(t, jsonUrl)
    .map(
      (f) =>
        `<dt>${escape(f.term)}</dt><dd>${f.href ? `<a href="${escape(f.href)}">${escape(f.text)}</a>` : escape(f.text)}</dd>`,
    )
    .join('');
  const rows = historyRows(t)
    .map((h) => `<tr><td>${escape(h.status)}</td><td>${escape(h.when)}</td><td>${escape(h.note)}</td></tr>`)
    .join('');
  return (
    `<h2>Tracking code ${escape(t.trackingCode)}</h2>` +
    `<p>Status: <strong data-status="${escape(t.status)}">${escape(statusWords(t.status))}</strong></p>` +
    `<p>${escape(STATUS_MEANINGS[t.status] ?? '')}</p>` +
    `<dl class="facts">${facts}</dl>` +
    '<div class="table-wrap"><table><caption>History, oldest first</caption>' +
    '<thead><tr><th scope="col">Status</th><th scope="col">When</th><th scope="col">Note</th></tr></thead>' +
    `<tbody>${rows}</tbody></table></div>`
  );
}

const RESULT = /<div id="track-result"([^>]*)><\/div>/;

/** The built page with `code` in the form and `inner` in #track-result; null if the page has no such slot. */
export function fillTrackPage(page: string, code: string, inner: string, title: string | null): string | null {
  if (!RESULT.test(page)) return null;
  let html = page.replace(
    RESULT,
    (_m, attrs: string) => `<div id="track-result"${attrs} data-code="${escape(code)}">${inner}</div>`,
  );
  html = html.replace(
    /(<input id="track-code"[^>]*?)(\s*\/?>)/,
    (_m, open: string, close: string) => `${open} value="${escape(code)}"${close}`,
  );
  if (title)
    html = html.replace(/<title>[^<]*<\/title>/, `<title>${escape(title)} · Public-Domain Music Archive</title>`);
  return html;
}

export function registerTrackPage(app: FastifyInstance, ctx: AppContext): void {
  const base = ctx.config.publicBaseUrl;
  const workExists = (slug: string) => ctx.handle.current.catalog.records.has(slug);

  const staticPage = async (): Promise<string | null> => {
    const found = await ctx.handle.current.site.resolve('/track/');
    if (found.kind !== 'file') return null;
    return (found.file.body ?? (await readFile(found.file.absPath))).toString('utf8');
  };

  const answer = async (request: FastifyRequest, reply: FastifyReply, raw: string) => {
    const page = await staticPage();
    if (page === null) return reply.callNotFound();
    const code = raw.trim().toUpperCase().slice(0, 64);
    const kind = code.startsWith('C-') ? 'contribution' : 'correction-report';
    const normalized = normalizeTrackingCode(code, kind);
    let inner: string;
    let title: string | null = null;
    let found = false;
    if (!normalized) {
      inner = `<p class="notice bad">${escape(notACodeMessage(code))}</p>`;
    } else {
      const view =
        kind === 'contribution'
          ? await ctx.intake.getContribution(normalized).then((s) => (s ? contributionView(s, base, workExists) : null))
          : await ctx.intake
              .getCorrectionReport(normalized)
              .then((s) => (s ? correctionReportView(s, base, workExists) : null));
      if (view) {
        inner = trackingHtml(view as TrackingRecord, `${base}${trackingApiPath(normalized)}`);
        title = `${normalized}: ${statusWords(view.status)}`;
        found = true;
      } else {
        inner = `<p class="notice bad">${escape(unknownCodeMessage(normalized))}</p>`;
      }
    }
    const html = fillTrackPage(page, normalized ?? code, inner, title);
    if (html === null) return reply.callNotFound();
    // The page says what the lookup found, readable by people; its status says it to crawlers,
    // link checkers and agents: 404 for a code no record has (or that is not a code), as the
    // JSON record answers. A tracking record changes as it is reviewed: never cached.
    return reply
      .code(found ? 200 : 404)
      .type('text/html; charset=utf-8')
      .header('Cache-Control', 'no-store')
      .header('Content-Security-Policy', PUBLIC_CSP)
      .send(request.method === 'HEAD' ? undefined : html);
  };

  app.route<{ Params: { code: string } }>({
    method: ['GET', 'HEAD'],
    url: '/track/:code',
    handler: async (request, reply) => {
      // The page's own file, named by its path, is the page (as nginx serves it), not a code.
      if (request.params.code === 'index.html') {
        const found = await ctx.handle.current.site.resolve('/track/');
        if (found.kind !== 'file') return reply.callNotFound();
        return sendFile(request, reply, base, found.file);
      }
      return answer(request, reply, request.params.code);
    },
  });
  // The page's own form without JavaScript: GET /track/?code=X goes to the shareable /track/X.
  app.route<{ Querystring: { code?: string } }>({
    method: ['GET', 'HEAD'],
    url: '/track/',
    handler: async (request, reply) => {
      const code = typeof request.query.code === 'string' ? request.query.code.trim() : '';
      if (code)
        return reply
          .code(303)
          .header('Location', `/track/${encodeURIComponent(code.toUpperCase().slice(0, 64))}`)
          .send();
      const found = await ctx.handle.current.site.resolve('/track/');
      if (found.kind !== 'file') return reply.callNotFound();
      return sendFile(request, reply, base, found.file);
    },
  });
}
