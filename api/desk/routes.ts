/**
 * The editors' review desk at /admin/ (docs/review.md, "The review desk"): server-rendered HTML over the review
 * service, no framework and nothing downloaded at run time (one stylesheet and one small script,
 * both served from here).
 *
 *   GET  /admin/                         sign-in form (303 to the queue when signed in)
 *   POST /admin/sign-in                  form: key -> session cookie, 303 to the queue (or `next`)
 *   POST /admin/sign-out                 form: _csrf -> session ended, 303 to /admin/
 *   GET  /admin/queue                    ?kind&status&operation&age&work&page  filters, counts, paging
 *   GET  /admin/{contributions|correction-reports}/{code}           the item
 *   POST /admin/{contributions|correction-reports}/{code}/{action}  form: _csrf, reviewer, note, assert-N
 *   GET  /admin/files/{code}/{index}     the verified contributor file (audio player, download)
 *   GET  /admin/files/{code}/{index}/score.svg   first score page engraved by Verovio
 *   GET  /admin/assets/desk.css, /admin/assets/desk.js
 *
 * Every page needs an admin session (api/session/); without one a page answers 303 to the sign-in
 * form (files 401). State changes are forms posting the session's CSRF token (`_csrf`) from this
 * origin (api/session/cookies.ts: csrfRefusal); a forged cross-site POST gets 403 and changes
 * nothing. Desk answers carry a strict CSP (`default-src 'self'`, no inline script or style),
 * `frame-ancestors 'none'` / `X-Frame-Options: DENY`, `Cache-Control: no-store`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { factImpactOf } from '../review/fact-impact.ts';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { ProblemError } from '../http/problem.ts';
import { isOperatorLabel } from '../http/auth.ts';
import { sendBlob } from '../blobs/send-blob.ts';
import { crossSiteRefusal, csrfRefusal, endSession, sessionOf } from '../session/cookies.ts';
import type { Session } from '../session/sessions.ts';
import type { createAdminSignIn } from '../session/routes.ts';
import type { ReviewService } from '../review/service.ts';
import { reviewDiff } from '../review/diff.ts';
import { scorePreviewSvg } from '../review/checks.ts';
import { EngraveBudgetError } from '../../src/lib/site/engrave-pool.ts';
import { normalizeTrackingCode } from '../../src/domain/contributions/tracking-code.ts';
import { contributionUrl, correctionReportUrl } from '../../src/domain/contributions/tracking.ts';
import { problemType } from '../../src/domain/problems.ts';
import { validate, validatorFor } from '../../src/domain/validation.ts';
import { musicXmlText } from '../../src/domain/score-files.ts';
import {
  AdminActionBody,
  ASSERTABLE_STATES,
  REVIEW_ACTIONS,
  type AdminAction,
  type AssertableState,
  type ItemActionName,
} from '../../src/schemas/review.ts';
import type { ItemActions } from '../review/item-actions.ts';
import { settledWithin } from '../imports/actions.ts';
import {
  SUBMISSION_KINDS,
  SUBMISSION_STATUSES,
  CONTRIBUTION_OPERATIONS,
  type SubmissionKind,
  type SubmissionStatus,
} from '../../src/schemas/contribution.ts';
import type { DeskSessionView } from './html.ts';
import {
  AGE_FILTERS,
  itemPage,
  itemPath,
  messagePage,
  queuePage,
  SEGMENT,
  signInPage,
  type QueueFilterForm,
} from './pages.ts';

/** CSP of desk pages: only this origin's files; no inline script or style; never framed. */
export const DESK_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self'; media-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'";
/** CSP of a served contributor file or score image: nothing runs, even when opened directly. */
const FILE_CSP = "default-src 'none'; style-src 'unsafe-inline'; sandbox";
const QUEUE_PAGE_SIZE = 25;
const FORM_BODY_LIMIT = 64 * 1024;
/** Scores larger than this are not engraved for the preview (the check's own limit). */
const PREVIEW_MAX_BYTES = 20 * 1024 * 1024;
const ASSETS_DIR = path.join(import.meta.dirname, 'assets');

const AUDIO_TYPES: Record<string, string> = { mp3: 'audio/mpeg', wav: 'audio/wav' };

function deskHeaders(reply: FastifyReply): FastifyReply {
  return reply
    .header('Content-Security-Policy', DESK_CSP)
    .header('X-Frame-Options', 'DENY')
    .header('Cache-Control', 'no-store')
    .header('Referrer-Policy', 'same-origin')
    .header('Cross-Origin-Opener-Policy', 'same-origin');
}

function sendPage(reply: FastifyReply, status: number, htmlText: string): FastifyReply {
  return deskHeaders(reply).code(status).type('text/html; charset=utf-8').send(htmlText);
}

function redirect(reply: FastifyReply, location: string): FastifyReply {
  return deskHeaders(reply).code(303).header('Location', location).send();
}

/** A `next` target after sign-in: a desk path only (never another site). */
function safeNext(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 500) return null;
  return /^\/admin\/[A-Za-z0-9/_?=&%.,:-]*$/.test(value) && !value.startsWith('//') ? value : null;
}

function asString(v: unknown): string {
  return typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : '';
}

/** The desk's form body: at most 200 fields, last value of a name wins. */
function parseForm(text: string): Record<string, string> {
  const out: Record<string, string> = {};
  let n = 0;
  for (const [k, v] of new URLSearchParams(text)) {
    if (++n > 200) break;
    if (k === '__proto__' || k === 'constructor' || k === 'prototype') continue;
    out[k] = v;
  }
  return out;
}

/** How long the desk's form waits for an action before showing its progress instead. */
const DESK_WAIT_MS = 5_000;

export async function registerDesk(
  app: FastifyInstance,
  ctx: AppContext,
  reviews: ReviewService,
  itemActions: ItemActions,
  signIn: ReturnType<typeof createAdminSignIn>,
): Promise<void> {
  const css = readFileSync(path.join(ASSETS_DIR, 'desk.css'));
  const js = readFileSync(path.join(ASSETS_DIR, 'desk.js'));
  const previews = new Map<string, Promise<string>>();
  // Compiled now, not on the first form a reviewer posts (a compile holds the thread).
  validatorFor(AdminActionBody);

  await app.register(async (desk) => {
    // Forms post application/x-www-form-urlencoded; only desk routes read it.
    desk.addContentTypeParser(
      'application/x-www-form-urlencoded',
      { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT },
      (_request, body, done) => {
        done(null, parseForm(typeof body === 'string' ? body : body.toString('utf8')));
      },
    );

    const adminSession = async (request: FastifyRequest): Promise<Session | null> => {
      const s = await sessionOf(ctx, request);
      return s && s.subject.kind === 'admin' ? s : null;
    };
    const view = (s: Session): DeskSessionView => ({
      label: s.subject.kind === 'admin' ? s.subject.label : '',
      csrf: s.csrf,
    });
    const toSignIn = (request: FastifyRequest, reply: FastifyReply) =>
      redirect(reply, `/admin/?next=${encodeURIComponent(request.url.slice(0, 400))}`);

    desk.get('/admin/assets/desk.css', async (_request, reply) =>
      reply.header('Cache-Control', 'no-cache').type('text/css; charset=utf-8').send(css),
    );
    desk.get('/admin/assets/desk.js', async (_request, reply) =>
      reply.header('Cache-Control', 'no-cache').type('text/javascript; charset=utf-8').send(js),
    );

    desk.get('/admin', async (_request, reply) => redirect(reply, '/admin/'));
    desk.get<{ Querystring: Record<string, unknown> }>('/admin/', async (request, reply) => {
      if (await adminSession(request)) return redirect(reply, safeNext(request.query.next) ?? '/admin/queue');
      const signedOut = asString(request.query['signed-out']) === '1';
      return sendPage(
        reply,
        200,
        signInPage({ next: safeNext(request.query.next), notice: signedOut ? 'You are signed out.' : null }),
      );
    });

    desk.post<{ Body: Record<string, string> | undefined }>('/admin/sign-in', async (request, reply) => {
      // No session yet, so no token: the form must come from this archive (login CSRF).
      const foreign = crossSiteRefusal(ctx.config, request);
      if (foreign !== null) return sendPage(reply, 403, signInPage({ error: `Refused: ${foreign}` }));
      const body = request.body ?? {};
      const key = asString(body.key);
      const next = safeNext(body.next);
      if (!key.trim()) return sendPage(reply, 400, signInPage({ error: 'Enter an admin key.', next }));
      const outcome = await signIn(request, reply, key);
      if (!outcome.ok) {
        if (outcome.retryAfterSeconds) reply.header('Retry-After', String(outcome.retryAfterSeconds));
        return sendPage(reply, outcome.status, signInPage({ error: outcome.detail, next }));
      }
      return redirect(reply, next ?? '/admin/queue');
    });

    desk.post<{ Body: Record<string, string> | undefined }>('/admin/sign-out', async (request, reply) => {
      const session = await adminSession(request);
      if (session) {
        const refusal = csrfRefusal(ctx.config, request, session);
        if (refusal !== null) return sendPage(reply, 403, messagePage('Sign-out refused', refusal, view(session)));
      }
      await endSession(ctx, request, reply);
      return redirect(reply, '/admin/?signed-out=1');
    });

    desk.get<{ Querystring: Record<string, unknown> }>('/admin/queue', async (request, reply) => {
      const session = await adminSession(request);
      if (!session) return toSignIn(request, reply);
      const q = request.query;
      const form: QueueFilterForm = {
        kind: asString(q.kind),
        status: asString(q.status),
        operation: asString(q.operation),
        age: asString(q.age),
        work: asString(q.work).trim().slice(0, 200),
      };
      const errors: string[] = [];
      if (form.kind && !(SUBMISSION_KINDS as readonly string[]).includes(form.kind))
        errors.push(`Unknown kind "${form.kind}".`);
      if (form.status && form.status !== 'all' && !(SUBMISSION_STATUSES as readonly string[]).includes(form.status))
        errors.push(`Unknown status "${form.status}".`);
      if (form.operation && !(CONTRIBUTION_OPERATIONS as readonly string[]).includes(form.operation))
        errors.push(`Unknown operation "${form.operation}".`);
      if (!(form.age in AGE_FILTERS)) errors.push(`Unknown age "${form.age}".`);
      const pageNumber = Math.min(1_000_000, Math.max(1, Number.parseInt(asString(q.page), 10) || 1));
      if (errors.length > 0) {
        return sendPage(
          reply,
          400,
          queuePage({
            session: view(session),
            form,
            items: [],
            page: 1,
            pageSize: QUEUE_PAGE_SIZE,
            total: 0,
            counts: {},
            error: `${errors.join(' ')} Choose from the lists.`,
          }),
        );
      }
      const age = AGE_FILTERS[form.age]!;
      const dayMs = 86_400_000;
      const iso = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
      const statuses: SubmissionStatus[] =
        form.status === 'all' ? [...SUBMISSION_STATUSES] : form.status ? [form.status as SubmissionStatus] : [];
      const found = await reviews.queue(
        {
          statuses,
          kind: (form.kind || undefined) as SubmissionKind | undefined,
          operation: form.operation || undefined,
          workSlug: form.work || undefined,
          receivedAfter: age.after !== undefined ? iso(Date.now() - age.after * dayMs) : undefined,
          receivedBefore: age.before !== undefined ? iso(Date.now() - age.before * dayMs) : undefined,
        },
        pageNumber,
        QUEUE_PAGE_SIZE,
      );
      // Only the page's review records are read (for their blocker counts).
      const items = await Promise.all(
        found.items.map(async (e) => ({
          ...e,
          blockers: (await reviews.reviews.get(e.trackingCode))?.blockers.length ?? 0,
        })),
      );
      return sendPage(
        reply,
        200,
        queuePage({
          session: view(session),
          form,
          items,
          page: pageNumber,
          pageSize: QUEUE_PAGE_SIZE,
          total: found.total,
          counts: found.counts,
        }),
      );
    });

    for (const kind of SUBMISSION_KINDS) {
      const segment = SEGMENT[kind];
      const codeOf = (raw: string): string | null => normalizeTrackingCode(raw, kind);
      const renderItem = async (
        reply: FastifyReply,
        session: Session,
        code: string,
        status: number,
        notes: { notice?: string | null; error?: string | null; actionId?: string } = {},
      ) => {
        const { record, review } = await reviews.get(kind, code);
        // The action the page was sent to follow (or the item's running one), with its progress or outcome.
        const named = notes.actionId ? await itemActions.get(kind, code, notes.actionId) : null;
        const action = itemActions.current(code) ?? named;
        const diff = await reviewDiff(ctx.config.contentRepo, {
          branch: review?.ref?.branch ?? null,
          appliedCommit: review?.appliedCommit ?? null,
        }).catch(() => null);
        const jsonHref = `/api/v1/admin/${segment}/${code}`;
        const trackingJsonHref = new URL(
          kind === 'contribution'
            ? contributionUrl(ctx.config.publicBaseUrl, code)
            : correctionReportUrl(ctx.config.publicBaseUrl, code),
        ).pathname;
        // A report of a rights fact shows the works it reaches and their rights before and after.
        const impact =
          record.kind === 'correction-report' && record.status !== 'applied' && record.status !== 'declined'
            ? await factImpactOf(ctx, record, review).catch(() => null)
            : null;
        return sendPage(
          reply,
          status,
          itemPage({
            session: view(session),
            record,
            review,
            diff,
            jsonHref,
            trackingJsonHref,
            notice: notes.notice,
            error: notes.error,
            action,
            impact,
          }),
        );
      };
      const notFound = (reply: FastifyReply, session: Session, raw: string) =>
        sendPage(
          reply,
          404,
          messagePage(
            'Not found',
            `No ${kind === 'contribution' ? 'contribution' : 'correction report'} has the tracking code ${raw.slice(0, 100)}.`,
            view(session),
          ),
        );

      desk.get<{ Params: { code: string }; Querystring: Record<string, unknown> }>(
        `/admin/${segment}/:code`,
        async (request, reply) => {
          const session = await adminSession(request);
          if (!session) return toSignIn(request, reply);
          const code = codeOf(request.params.code);
          if (!code) return notFound(reply, session, request.params.code);
          const done = asString(request.query.done);
          const notice = (REVIEW_ACTIONS as readonly string[]).includes(done)
            ? `Done: ${done.replace('-', ' ')}.`
            : null;
          const actionId = asString(request.query.action).slice(0, 100);
          try {
            return await renderItem(reply, session, code, 200, { notice, ...(actionId ? { actionId } : {}) });
          } catch (err) {
            if (err instanceof ProblemError && err.problem === 'not-found') return notFound(reply, session, code);
            throw err;
          }
        },
      );

      desk.post<{ Params: { code: string; action: string }; Body: Record<string, string> | undefined }>(
        `/admin/${segment}/:code/:action`,
        async (request, reply) => {
          const session = await adminSession(request);
          if (!session) {
            // A form without a session (expired, or a forged cross-site post without the cookie).
            return sendPage(
              reply,
              401,
              signInPage({
                error:
                  'Your desk session has ended (or this request carried none); sign in again. Nothing was changed.',
              }),
            );
          }
          const refusal = csrfRefusal(ctx.config, request, session);
          if (refusal !== null)
            return sendPage(reply, 403, messagePage('Refused', `${refusal} Nothing was changed.`, view(session)));
          const code = codeOf(request.params.code);
          if (!code) return notFound(reply, session, request.params.code);
          const action = request.params.action;
          if (!(REVIEW_ACTIONS as readonly string[]).includes(action))
            return sendPage(
              reply,
              404,
              messagePage('Not found', `Unknown review action "${action.slice(0, 50)}".`, view(session)),
            );
          const form = request.body ?? {};
          const assets: Array<{ index: number; reviewState: AssertableState }> = [];
          let arrangement: AssertableState | undefined;
          for (const [name, value] of Object.entries(form)) {
            const m = /^assert-(\d{1,3}|arrangement)$/.exec(name);
            if (!m || !value) continue;
            if (!(ASSERTABLE_STATES as readonly string[]).includes(value)) continue;
            if (m[1] === 'arrangement') arrangement = value as AssertableState;
            else assets.push({ index: Number(m[1]), reviewState: value as AssertableState });
          }
          const body: AdminActionBody = {
            reviewer: asString(form.reviewer).trim(),
            ...(asString(form.note).trim() ? { note: asString(form.note).trim() } : {}),
            ...(assets.length > 0 || arrangement
              ? { assert: { ...(assets.length > 0 ? { assets } : {}), ...(arrangement ? { arrangement } : {}) } }
              : {}),
          };
          const invalid = validate(AdminActionBody, body);
          if (invalid.length > 0) {
            const words = invalid.map((e) => `${e.pointer.replace(/^\//, '') || 'form'} ${e.detail}`).join('; ');
            return renderItem(reply, session, code, 400, { error: `Not done: ${words}.` });
          }
          const label = session.subject.kind === 'admin' ? session.subject.label : '';
          const actor = { label, operatorLabeled: isOperatorLabel(label) };
          try {
            if (action !== 'apply') {
              // An action record (api/review/item-actions.ts): a quick one lands with "Done"; a long
              // one (a large score's accept) is followed on the item page, progress then outcome.
              const started = await itemActions.start(kind, code, action as ItemActionName, body, actor);
              await settledWithin(started.finished, DESK_WAIT_MS);
              const current = (await itemActions.get(kind, code, started.record.actionId)) ?? started.record;
              if (current.state === 'completed') return redirect(reply, `${itemPath(kind, code)}?done=${action}`);
              if (current.state === 'failed')
                return renderItem(reply, session, code, current.error?.status ?? 409, {
                  error: `Not done: ${current.error?.detail ?? 'the action failed'}`,
                  actionId: current.actionId,
                });
              return redirect(reply, `${itemPath(kind, code)}?action=${encodeURIComponent(current.actionId)}`);
            }
            // Apply answers at once (as with Prefer: respond-async); the item page follows its progress.
            await reviews.act(kind, code, action as AdminAction, body, actor, { wait: false });
          } catch (err) {
            if (!(err instanceof ProblemError)) {
              request.log.error({ err }, 'desk review action failed');
              return renderItem(reply, session, code, 409, {
                error: `Not done, and nothing was changed: ${(err as Error).message}`,
              });
            }
            if (err.problem === 'not-found') return notFound(reply, session, code);
            return renderItem(reply, session, code, problemType(err.problem).status, {
              error: `Not done: ${err.message}`,
            });
          }
          return redirect(reply, `${itemPath(kind, code)}?done=${action}`);
        },
      );
    }

    /** The verified file behind verification entry `index` of an item, or a refusal. */
    const verifiedFile = async (rawCode: string, rawIndex: string) => {
      const kind: SubmissionKind = rawCode.toUpperCase().startsWith('R-') ? 'correction-report' : 'contribution';
      const code = normalizeTrackingCode(rawCode, kind);
      const index = /^\d{1,3}$/.test(rawIndex) ? Number(rawIndex) : -1;
      if (!code || index < 0) return null;
      const review = await reviews.reviews.get(code);
      const entry = review?.verification.find((v) => v.index === index);
      if (!entry || entry.status !== 'verified' || !entry.sha256) return null;
      const { record } = await reviews.get(kind, code).catch(() => ({ record: null }));
      const asset = record?.kind === 'contribution' ? record.submission.assets[index] : undefined;
      return { entry, sha256: entry.sha256, kind: asset?.kind ?? entry.checks?.kind ?? 'file', code, index };
    };

    const fileRefusal = (request: FastifyRequest, reply: FastifyReply, status: 401 | 404) => {
      const detail =
        status === 401
          ? 'Sign in at /admin/ to read contributor files.'
          : 'No verified file is stored for this item and index.';
      throw new ProblemError(status === 401 ? 'unauthorized' : 'not-found', detail);
    };

    desk.get<{ Params: { code: string; index: string } }>('/admin/files/:code/:index', async (request, reply) => {
      if (!(await adminSession(request))) return fileRefusal(request, reply, 401);
      const file = await verifiedFile(request.params.code, request.params.index);
      if (!file) return fileRefusal(request, reply, 404);
      const info = await ctx.blobs.stat(file.sha256);
      if (!info) return fileRefusal(request, reply, 404);
      const audio = AUDIO_TYPES[file.kind];
      reply.header('Content-Security-Policy', FILE_CSP).header('X-Frame-Options', 'DENY');
      return sendBlob(request, reply, ctx.config.publicBaseUrl, ctx.blobs, {
        sha256: file.sha256,
        size: info.byteLength,
        contentType: audio ?? 'application/octet-stream',
        cacheControl: 'private, no-store',
        ...(audio ? {} : { downloadName: `${file.code}-${file.index}.${file.kind}` }),
      });
    });

    desk.get<{ Params: { code: string; index: string } }>(
      '/admin/files/:code/:index/score.svg',
      async (request, reply) => {
        if (!(await adminSession(request))) return fileRefusal(request, reply, 401);
        const file = await verifiedFile(request.params.code, request.params.index);
        if (!file || (file.kind !== 'musicxml' && file.kind !== 'mxl')) return fileRefusal(request, reply, 404);
        if ((file.entry.byteLength ?? 0) > PREVIEW_MAX_BYTES)
          throw new ProblemError('not-found', 'This score is too large for a preview; download the file.');
        let svg = previews.get(file.sha256);
        if (!svg) {
          svg = (async () => {
            const bytes = await ctx.blobs.readBytes(file.sha256);
            const xml = musicXmlText(bytes, file.kind === 'mxl');
            return (await scorePreviewSvg(xml)).svg;
          })();
          previews.set(file.sha256, svg);
          svg.catch(() => previews.delete(file.sha256));
          // A few recent previews only (each is an SVG of one page).
          while (previews.size > 16) previews.delete(previews.keys().next().value!);
        }
        let text: string;
        try {
          text = await svg;
        } catch (err) {
          if (err instanceof EngraveBudgetError)
            throw new ProblemError('engraving-over-budget', err.message, {
              limit: err.limit,
              budget: err.budget,
              setting: err.setting,
            });
          throw new ProblemError('not-found', `No preview: ${(err as Error).message}`);
        }
        return reply
          .header('Content-Security-Policy', FILE_CSP)
          .header('Cache-Control', 'private, no-store')
          .type('image/svg+xml; charset=utf-8')
          .send(text);
      },
    );
  });
}
