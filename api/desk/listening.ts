/**
 * Listening on the desk (docs/audio.md, "Listening approval"): a player for each score's rendered
 * audio with Approve and Decline, on a work's listening page and in each applied row of an import
 * batch's page, made for going through many quickly with the keyboard (desk.js: J or Down next
 * and play it, K or Up previous, Space or P play/pause, A approve, D decline).
 *
 * No approval of audio nobody heard: the buttons are disabled in the page and desk.js enables a
 * row's only after its player has played LISTEN_SECONDS (or to its end, if shorter); the form
 * names the SHA-256 of the master heard, and the server refuses a verdict that does not name the
 * master it serves (api/review/listening.ts, the same service as the admin API). The verdict is
 * committed at once and shown by the rebuild that follows in the background, so the next row can
 * be heard meanwhile; until then the row says it is recorded.
 *
 *   GET  /admin/works/{slug}/listening      the work's rendered scores, each with its player
 *   POST /admin/listening                   form: _csrf, slug, assetId, audioSha256, verdict, next
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { isOperatorLabel } from '../http/auth.ts';
import { ProblemError } from '../http/problem.ts';
import { listenableScores, type Listenable, type ListeningService } from '../review/listening.ts';
import { listeningLabel } from '../../src/domain/audio/listening.ts';
import { newWorkSlug } from '../../src/domain/review/proposal.ts';
import { LISTENING_VERDICTS, type ListeningFact, type ListeningVerdict } from '../../src/schemas/audio.ts';
import { SLUG_PATTERN } from '../../src/schemas/common.ts';
import type { BatchItemView } from '../../src/schemas/imports.ts';
import type { WorkRecord } from '../../src/schemas/work.ts';
import { html, page, type Html } from './html.ts';
import { acceptDeskForms, deskSessionView, formSession, sendDeskPage as send, toSignIn } from './desk-reply.ts';

/** A row's buttons are enabled once its player has played this long (or to its end, if shorter). */
export const LISTEN_SECONDS = 5;
/** Applied works of a batch page that get players (the filters narrow the page to the ones wanted). */
export const LISTEN_ROWS_MAX = 50;
const SLUG = new RegExp(SLUG_PATTERN);
const FORM_BODY_LIMIT = 16 * 1024;

/** A desk path to return to (never another site). */
function safeNext(value: unknown): string | null {
  if (typeof value !== 'string' || value.length > 500) return null;
  return /^\/admin\/[A-Za-z0-9/_?=&%.,:#+-]*$/.test(value) && !value.startsWith('//') ? value : null;
}

const rowId = (slug: string, assetId: number) => `listen-${slug}-${assetId}`;
const formId = (slug: string, assetId: number) => `listen-form-${slug}-${assetId}`;

/** Root-relative link to a served file of this site (the desk and the site share an origin). */
function onSite(url: string, base: string): string {
  return url.startsWith(base) ? url.slice(base.length) || '/' : url;
}

/** Verdicts recorded here whose rebuild has not finished yet (the served record does not show them). */
export class RecentVerdicts {
  private readonly map = new Map<string, ListeningFact>();
  set(slug: string, assetId: number, fact: ListeningFact): void {
    const key = `${slug}/${assetId}`;
    this.map.delete(key);
    this.map.set(key, fact);
    while (this.map.size > 1000) this.map.delete(this.map.keys().next().value!);
  }
  get(slug: string, assetId: number): ListeningFact | undefined {
    return this.map.get(`${slug}/${assetId}`);
  }
}

export interface ListenRow {
  slug: string;
  workTitle: string;
  item: Listenable;
}

/** One row's player, state and buttons (the buttons submit the row's form by its id). */
export function listenControls(row: ListenRow, base: string, recent: RecentVerdicts): Html {
  const { slug, item } = row;
  const id = item.asset.id;
  const served = item.audio;
  const pending = recent.get(slug, id);
  const shown = pending && pending.atUtc !== served.listening?.atUtc ? pending : null;
  const state = shown
    ? `${shown.verdict === 'approved' ? 'Approved' : 'Declined'} by ${shown.listener} (recorded; the site shows it after the rebuild)`
    : listeningLabel(served);
  const mp3 = served.files.find((f) => f.role === 'master' && f.format === 'mp3');
  return html`<div class="listen" data-listen-controls>
<audio controls preload="none" data-listen-player src="${onSite(item.heard.url, base)}" aria-label="Listen: ${item.asset.title}">${mp3 ? html`<a href="${onSite(mp3.url, base)}">MP3</a>` : ''}</audio>
<p><span class="status" data-listen-state="${shown ? `recorded-${shown.verdict}` : served.reviewState}">${state}</span> · ${item.heard.durationSeconds} s · <a href="${onSite(served.links.provenance, base)}">provenance</a></p>
<p><button type="submit" form="${formId(slug, id)}" name="verdict" value="approved" data-listen-approve disabled>Approve</button> <button type="submit" form="${formId(slug, id)}" name="verdict" value="declined" data-listen-decline disabled>Decline</button> <small data-listen-hint>Play it first: the buttons open after ${LISTEN_SECONDS} s of listening.</small></p>
</div>`;
}

/** The rows' forms (outside any other form: a batch page's rows sit in its action form). */
export function listenForms(rows: readonly ListenRow[], csrf: string, next: string): Html {
  return html`<div hidden>${rows.map(
    (r) => html`<form method="post" action="/admin/listening" id="${formId(r.slug, r.item.asset.id)}">
<input type="hidden" name="_csrf" value="${csrf}"><input type="hidden" name="slug" value="${r.slug}"><input type="hidden" name="assetId" value="${r.item.asset.id}"><input type="hidden" name="audioSha256" value="${r.item.heard.sha256}"><input type="hidden" name="next" value="${next}">
</form>`,
  )}</div>`;
}

/** How listening works on this page, for the editor (and screen readers). */
export function listenHelp(): Html {
  return html`<p class="listen-help" id="listen-help">Listening: <kbd>J</kbd> or <kbd>↓</kbd> next (and play it), <kbd>K</kbd> or <kbd>↑</kbd> previous, <kbd>Space</kbd> or <kbd>P</kbd> play or pause, <kbd>A</kbd> approve, <kbd>D</kbd> decline. A row's Approve and Decline open after ${LISTEN_SECONDS} s of its audio has played; an approval names the exact audio heard (its SHA-256) and your key's label.</p>
<noscript><p class="notice warn">Listening verdicts need JavaScript: the page opens a row's buttons only after its player has played.</p></noscript>`;
}

/** A work's listenable scores as rows. */
export function rowsOf(record: WorkRecord): ListenRow[] {
  return listenableScores(record).map((item) => ({ slug: record.slug, workTitle: record.title, item }));
}

/** The slug an applied batch item's work has (the one it named or created, or the work it was merged into). */
async function itemWorkSlug(ctx: AppContext, item: BatchItemView): Promise<string | null> {
  if (item.workSlug) return item.workSlug;
  const record = await ctx.intake.getContribution(item.trackingCode);
  const slug = record ? newWorkSlug(record.submission) : null;
  if (slug && ctx.handle.current.catalog.records.has(slug)) return slug;
  return item.duplicateOf && SLUG.test(item.duplicateOf) ? item.duplicateOf : slug;
}

/** The listening rows of a batch page's applied items, by tracking code (at most LISTEN_ROWS_MAX works). */
export async function batchListenRows(
  ctx: AppContext,
  items: readonly BatchItemView[],
): Promise<Map<string, ListenRow[]>> {
  const out = new Map<string, ListenRow[]>();
  for (const item of items) {
    if (out.size >= LISTEN_ROWS_MAX) break;
    if (item.status !== 'applied') continue;
    const slug = await itemWorkSlug(ctx, item);
    const record = slug ? await ctx.handle.current.catalog.records.get(slug) : null;
    const rows = record ? rowsOf(record) : [];
    if (rows.length > 0) out.set(item.trackingCode, rows);
  }
  return out;
}

/** The cell a batch row shows: its rows' players, or why there is nothing to hear. */
export function batchListenCell(
  item: BatchItemView,
  rows: Map<string, ListenRow[]>,
  base: string,
  recent: RecentVerdicts,
): Html {
  const mine = rows.get(item.trackingCode);
  if (!mine)
    return html`<td>${item.status === 'applied' ? html`<small>no rendered audio in the served build</small>` : '—'}</td>`;
  return html`<td>${mine.map(
    (r) =>
      html`<div data-listen-row id="${rowId(r.slug, r.item.asset.id)}" tabindex="-1" data-slug="${r.slug}" data-asset="${r.item.asset.id}" data-listen-seconds="${LISTEN_SECONDS}"><small>${r.item.arrangement ? `${r.item.arrangement.title}: ` : ''}${r.item.asset.title}</small>${listenControls(r, base, recent)}</div>`,
  )}</td>`;
}

export async function registerListeningDesk(
  app: FastifyInstance,
  ctx: AppContext,
  listening: ListeningService,
  recent: RecentVerdicts,
): Promise<void> {
  await app.register(async (desk) => {
    acceptDeskForms(desk, FORM_BODY_LIMIT, 50);
    const sessionView = (request: FastifyRequest) => deskSessionView(ctx, request);
    const base = ctx.config.publicBaseUrl;

    desk.get<{ Params: { slug: string }; Querystring: Record<string, unknown> }>(
      '/admin/works/:slug/listening',
      async (request, reply) => {
        const session = await sessionView(request);
        if (!session) return toSignIn(request, reply);
        let record: WorkRecord;
        try {
          record = await listening.work(request.params.slug);
        } catch (err) {
          if (!(err instanceof ProblemError)) throw err;
          return send(
            reply,
            404,
            page({ title: 'Not found', session, body: html`<h1>Not found</h1><p>${err.message}</p>` }),
          );
        }
        const rows = rowsOf(record);
        const here = `/admin/works/${record.slug}/listening`;
        const notice = typeof request.query.heard === 'string' ? request.query.heard.slice(0, 300) : '';
        const body = html`<h1>Listen: ${record.title}</h1>
<p>${record.composer.name}. <a href="${onSite(record.links.html, base)}">The work's page</a>.</p>
${notice ? html`<p class="notice" role="status" id="listen-notice">${notice}</p>` : ''}
${listenHelp()}
${
  rows.length === 0
    ? html`<p id="listen-none">No score of this work has rendered audio in the served build (a score's audio is rendered by the next full build after it is applied).</p>`
    : html`<div class="table-wrap"><table id="listen-rows"><caption>${rows.length} rendered score(s)</caption>
<thead><tr><th scope="col">Score</th><th scope="col">Listen</th></tr></thead>
<tbody>${rows.map(
        (r) =>
          html`<tr data-listen-row id="${rowId(r.slug, r.item.asset.id)}" tabindex="-1" data-slug="${r.slug}" data-asset="${r.item.asset.id}" data-listen-seconds="${LISTEN_SECONDS}"><td>${r.item.arrangement ? html`${r.item.arrangement.title}<br>` : ''}<small>asset ${r.item.asset.id}: ${r.item.asset.title}</small></td><td>${listenControls(r, base, recent)}</td></tr>`,
      )}</tbody></table></div>`
}
${listenForms(rows, session.csrf, here)}`;
        return send(reply, 200, page({ title: `Listen: ${record.title}`, session, body }));
      },
    );

    desk.post<{ Body: Record<string, string> | undefined }>('/admin/listening', async (request, reply) => {
      const session = await formSession(ctx, request, reply, 'recorded');
      if (!session) return reply;
      const form = request.body ?? {};
      const slug = form.slug ?? '';
      const assetId = Number(form.assetId);
      const verdict = form.verdict as ListeningVerdict;
      const next = safeNext(form.next) ?? (SLUG.test(slug) ? `/admin/works/${slug}/listening` : '/admin/queue');
      const fail = (status: number, text: string) =>
        send(
          reply,
          status,
          page({
            title: 'Not recorded',
            session,
            body: html`<h1>Not recorded</h1><p>${text}</p><p><a href="${next}">Back</a></p>`,
          }),
        );
      if (!(LISTENING_VERDICTS as readonly string[]).includes(verdict)) return fail(400, 'Choose Approve or Decline.');
      if (!Number.isInteger(assetId) || assetId < 1) return fail(400, 'The form names no asset.');
      if (!/^[0-9a-fA-F]{64}$/.test(form.audioSha256 ?? ''))
        return fail(400, 'The form does not name the audio heard (audioSha256): a verdict names the exact audio.');
      try {
        const outcome = await listening.record(
          slug,
          assetId,
          { verdict, audioSha256: form.audioSha256! },
          { label: session.label, operatorLabeled: isOperatorLabel(session.label) },
          { wait: false },
        );
        recent.set(slug, assetId, outcome.listening);
      } catch (err) {
        if (err instanceof ProblemError)
          return fail(err.problem === 'forbidden' ? 403 : err.problem === 'not-found' ? 404 : 409, err.message);
        throw err;
      }
      // Back to the page, at the row after this one (desk.js focuses it).
      const back = new URL(next, 'http://desk.invalid');
      back.searchParams.set('heard', `${verdict === 'approved' ? 'Approved' : 'Declined'}: ${slug} asset ${assetId}.`);
      back.hash = `after-${rowId(slug, assetId)}`;
      const target = `${back.pathname}${back.search}${back.hash}`;
      return reply.code(303).header('Location', target).send();
    });
  });
}
