/**
 * The desk's view of import batches: every batch with its counts, one batch with its works
 * (filter by status, words, duplicates), each work linking to its item page (diff, score preview,
 * rights, verification), and forms to accept or decline chosen works or the whole batch, merge a
 * probable duplicate into the work it duplicates, or apply the accepted ones. The actions go through the same BatchService as the admin API.
 * An action runs in the background (api/imports/actions.ts): the form waits a few seconds for it
 * and then shows the batch page, which follows the running action (progress, then its outcome per
 * item; desk.js polls the action and reloads when it has finished, a noscript refresh without
 * JavaScript) and offers no new action meanwhile.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { isOperatorLabel } from '../http/auth.ts';
import { ProblemError } from '../http/problem.ts';
import type { BatchAction, BatchService } from '../imports/service.ts';
import { settledWithin, type BatchActions } from '../imports/actions.ts';
import {
  batchActionCounts,
  batchActionPath,
  batchActionProgressLine,
  type StoredBatchAction,
} from '../../src/domain/batch-actions.ts';
import { problemType } from '../../src/domain/problems.ts';
import { fold, matchesAllWords } from '../../src/domain/text.ts';
import { parseCatalogNumbers } from '../../src/domain/catalog-numbers.ts';
import type { MusicContributionInput } from '../../src/schemas/contribution.ts';
import type { WorkRecord } from '../../src/schemas/work.ts';
import { SUBMISSION_STATUSES } from '../../src/schemas/contribution.ts';
import type { BatchFact } from '../../src/schemas/imports.ts';
import { html, page, type DeskSessionView } from './html.ts';
import { acceptDeskForms, deskSessionView, formSession, sendDeskPage as send, toSignIn } from './desk-reply.ts';
import { batchListenCell, batchListenRows, listenForms, listenHelp, RecentVerdicts } from './listening.ts';

const FORM_BODY_LIMIT = 1024 * 1024;

/** What the side-by-side comparison shows of a work (a catalog record, or a batch item's submission). */
interface WorkFactsView {
  label: string;
  href: string;
  title: string;
  originalTitle: string;
  composer: string;
  lyricist: string;
  catalog: string;
  movements: string;
  scores: string;
  rights: string;
  sources: string;
}

const lifeOf = (born?: string, died?: string) => (born || died ? ` (${born ?? 'unknown'}–${died ?? 'unknown'})` : '');

function factsOfSubmission(label: string, c: MusicContributionInput, href: string): WorkFactsView {
  const w = c.work ?? {};
  const numbers = w.catalogNumbers?.length
    ? w.catalogNumbers
    : parseCatalogNumbers(`${w.title ?? ''} ${w.workNumber ?? ''}`);
  return {
    label,
    href,
    title: w.title ?? '',
    originalTitle: w.originalTitle ?? '',
    composer: `${w.composer ?? ''}${lifeOf(w.composerFacts?.born, w.composerFacts?.died)}`,
    lyricist: w.lyricist ? `${w.lyricist.name}${lifeOf(w.lyricist.born, w.lyricist.died)}` : '',
    catalog: numbers.map((n) => `${n.catalog} ${n.number}`).join('; '),
    movements: (w.movements ?? []).map((m) => `${m.number}. ${m.title}`).join('; '),
    scores: c.assets
      .filter((a) => a.kind === 'musicxml' || a.kind === 'mxl')
      .map((a) => a.title)
      .join('; '),
    rights: `composition ${c.rights.compositionStatus}; edition ${c.rights.editionStatus ?? 'unknown'}; license ${c.rights.license ?? 'none'}`,
    sources: [...new Set(c.assets.map((a) => a.sourcePageUrl))].join(' '),
  };
}

function factsOfRecord(r: WorkRecord): WorkFactsView {
  return {
    label: `catalog work ${r.slug}`,
    href: r.links.html,
    title: r.title,
    originalTitle: r.originalTitle ?? '',
    composer: `${r.composer.name}${lifeOf(r.composer.born, r.composer.died)}`,
    lyricist: r.lyricist ? `${r.lyricist.name}${lifeOf(r.lyricist.born, r.lyricist.died)}` : '',
    catalog: r.catalogNumbers.map((n) => `${n.catalog} ${n.number}`).join('; '),
    movements: (r.movements ?? []).map((m) => `${m.number}. ${m.title}`).join('; '),
    scores: r.sourceAssets
      .filter((a) => a.kind === 'musicxml' || a.kind === 'mxl')
      .map((a) => a.title)
      .join('; '),
    rights: `composition ${r.rights.composition.status}; edition ${r.rights.edition.status}; license ${r.rights.license ?? 'none'}`,
    sources: [...new Set(r.sourceAssets.map((a) => a.links.sourcePage))].join(' '),
  };
}

const COMPARED: Array<[keyof WorkFactsView, string]> = [
  ['title', 'Title'],
  ['originalTitle', 'Original title'],
  ['composer', 'Composer'],
  ['lyricist', 'Lyricist'],
  ['catalog', 'Catalog numbers'],
  ['movements', 'Movements'],
  ['scores', 'Scores'],
  ['rights', 'Rights'],
  ['sources', 'Source pages'],
];

/** The two works side by side, each fact in a row; rows whose values agree (folded) are marked. */
function compareTable(ours: WorkFactsView, theirs: WorkFactsView) {
  const rows = COMPARED.map(([k, label]) => {
    const same = fold(ours[k]) === fold(theirs[k]);
    return html`<tr data-fact="${k}" data-same="${String(same)}"><th scope="row">${label}</th><td>${ours[k] || '—'}</td><td>${theirs[k] || '—'}</td></tr>`;
  });
  return html`<div class="table-wrap"><table id="compare"><caption>Side by side (rows marked “same” agree)</caption>
<thead><tr><th scope="col">Fact</th><th scope="col"><a href="${ours.href}">${ours.label}</a></th><th scope="col"><a href="${theirs.href}">${theirs.label}</a></th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
}
/** The form's answer waits this long for the action, so a small one lands with its count at once. */
const DESK_WAIT_MS = 5000;
/** Failed items listed on the page (the action's JSON has all of them). */
const FAILURES_SHOWN = 50;
const DONE_WORDS: Record<BatchAction, string> = {
  accept: 'accepted',
  decline: 'declined',
  apply: 'applied',
  merge: 'merged',
  'record-facts': 'facts recorded',
};

const str = (v: unknown): string =>
  typeof v === 'string' ? v : Array.isArray(v) && typeof v[0] === 'string' ? v[0] : '';

/** The batch's running (or latest) action: progress while it runs, then its outcome. */
function actionSection(a: StoredBatchAction | null) {
  if (!a) return html``;
  const c = batchActionCounts(a);
  const asked = html`${a.action} asked by <strong>${a.actor}</strong> (reviewer ${a.reviewer}) at <time>${a.startedAtUtc}</time>`;
  const line = batchActionProgressLine({ ...a, ...c });
  if (a.state === 'running') {
    return html`<section id="batch-action" class="notice warn" aria-live="polite" data-state="running" data-action="${a.action}" data-action-id="${a.actionId}" data-poll="${batchActionPath(a.batchId, a.actionId)}">
<h2>Action running</h2><p>${asked}${a.resumedAtUtc.length ? html`; resumed after a stop at ${a.resumedAtUtc.join(', ')}` : ''}.</p>
<p><progress id="batch-action-bar" max="${c.total}" value="${c.done}">${c.done} of ${c.total}</progress> <span id="batch-action-text">${line}</span></p>
<p>This page follows it until every work has its outcome; no other action on the batch starts meanwhile.</p></section>`;
  }
  const failures = a.items.filter((i) => i.outcome === 'failed');
  const waiting = a.items.filter((i) => i.outcome === 'waiting').length;
  return html`<section id="batch-action" class="notice ${a.state === 'completed' && c.failed === 0 ? 'ok' : 'bad'}" data-state="${a.state}" data-action="${a.action}" data-action-id="${a.actionId}">
<h2>Last action: ${a.action} ${a.state}</h2><p>${asked}; finished at <time>${a.finishedAtUtc ?? '?'}</time>${a.resumedAtUtc.length ? html` (resumed after a stop at ${a.resumedAtUtc.join(', ')})` : ''}.</p>
<p id="batch-action-text">${line}: ${c.actedOn} acted on, ${c.failed} failed${waiting ? `, ${waiting} not reached` : ''}.</p>
${a.error ? html`<p>The action stopped: ${a.error.detail}</p>` : ''}
${failures.length ? html`<ul id="batch-action-failures">${failures.slice(0, FAILURES_SHOWN).map((i) => html`<li data-item="${i.itemKey}"><a href="/admin/contributions/${i.trackingCode}">${i.itemKey}</a> (${i.status}): ${i.problem?.detail ?? 'failed'}</li>`)}</ul>${failures.length > FAILURES_SHOWN ? html`<p>${failures.length - FAILURES_SHOWN} more in the <a href="${batchActionPath(a.batchId, a.actionId)}">action's record</a>.</p>` : ''}` : ''}
</section>`;
}

export async function registerBatchDesk(
  app: FastifyInstance,
  ctx: AppContext,
  batches: BatchService,
  actions: BatchActions,
  recent: RecentVerdicts = new RecentVerdicts(),
): Promise<void> {
  await app.register(async (desk) => {
    // Checkbox lists repeat a name, so the form keeps every value of "item".
    acceptDeskForms(desk, FORM_BODY_LIMIT, 12_000, 'item');
    const sessionView = (request: FastifyRequest) => deskSessionView(ctx, request);

    desk.get('/admin/batches', async (request, reply) => {
      const session = await sessionView(request);
      if (!session) return toSignIn(request, reply);
      const list = await batches.store.listBatches();
      const rows = [];
      for (const b of list) {
        const items = await batches.items(b.batchId);
        const counts = SUBMISSION_STATUSES.map((s) => `${items.filter((i) => i.status === s).length} ${s}`).join(', ');
        const latest = await actions.latest(b.batchId);
        const action = latest ? batchActionProgressLine({ ...latest, ...batchActionCounts(latest) }) : '—';
        rows.push(
          html`<tr><td><a href="/admin/batches/${b.batchId}">${b.title}</a></td><td>${items.length}</td><td>${counts}</td><td>${items.filter((i) => i.duplicateOf).length}</td><td${latest ? html` data-action-state="${latest.state}"` : ''}>${action}</td></tr>`,
        );
      }
      const body = html`<h1>Import batches</h1>
<div class="table-wrap"><table id="batches"><caption>${list.length} batches</caption>
<thead><tr><th scope="col">Batch</th><th scope="col">Works</th><th scope="col">By status</th><th scope="col">Probable duplicates</th><th scope="col">Last action</th></tr></thead>
<tbody>${rows}</tbody></table></div>`;
      return send(reply, 200, page({ title: 'Import batches', session, body }));
    });

    /** The facts recorded for the batch, with their reports and where each stands. */
    const factsTable = async (batchId: string) => {
      const facts = await batches.factsView(batchId);
      if (facts.length === 0) return html``;
      return html`<div class="table-wrap"><table id="batch-fact-reports"><caption>${facts.length} facts recorded for this batch</caption>
<thead><tr><th scope="col">Work</th><th scope="col">Fact</th><th scope="col">Report</th><th scope="col">Status</th></tr></thead>
<tbody>${facts.map((f) => html`<tr data-fact="${f.trackingCode}"><td><code>${f.itemKey}</code></td><td>${f.person ? `${f.person}: ` : ''}${f.field} = ${f.value}</td><td><a href="/admin/correction-reports/${f.trackingCode}">${f.trackingCode}</a></td><td><span class="status" data-status="${f.status}">${f.status}</span></td></tr>`)}</tbody></table></div>`;
    };

    const renderBatch = async (
      request: FastifyRequest<{ Params: { batchId: string }; Querystring: Record<string, unknown> }>,
      reply: FastifyReply,
      session: DeskSessionView,
      status: number,
      notice: string | null,
    ) => {
      let batch;
      try {
        batch = await batches.batchOrThrow(request.params.batchId);
      } catch (err) {
        if (err instanceof ProblemError)
          return send(
            reply,
            404,
            page({ title: 'Not found', session, body: html`<h1>Not found</h1><p>${err.message}</p>` }),
          );
        throw err;
      }
      const q = request.query;
      const f = { status: str(q.status), q: str(q.q).slice(0, 200), duplicates: str(q.duplicates) === 'true' };
      const all = await batches.items(batch.batchId);
      const items = all.filter(
        (i) =>
          (!f.status || i.status === f.status) &&
          (!f.duplicates || i.duplicateOf !== null) &&
          (!f.q || matchesAllWords(`${i.title} ${i.composer} ${i.lyricist ?? ''} ${i.itemKey}`, f.q)),
      );
      // Applied works' rendered scores, each with a player (desk/listening.ts).
      const listen = await batchListenRows(ctx, items);
      const base = ctx.config.publicBaseUrl;
      const rows = items.map(
        (i) => html`<tr data-item="${i.itemKey}">
  <td><input type="checkbox" name="item" value="${i.trackingCode}" id="pick-${i.trackingCode}" aria-label="Choose ${i.title}"></td>
  <td><a href="/admin/contributions/${i.trackingCode}">${i.title}</a><br><small><code>${i.itemKey}</code></small>${i.factsFrom === 'score-file' ? html`<br><small class="bad" data-facts-from="score-file">facts read from the file itself: check them</small>` : ''}</td>
  <td>${i.composer}${i.lyricist ? html`<br><small>words: ${i.lyricist}</small>` : ''}${i.newTerms.length ? html`<br><small data-new-terms="${i.termsApproved ? 'approved' : 'proposed'}">new terms${i.termsApproved ? ' (approved)' : ' (not approved)'}: ${i.newTerms.join('; ')}</small>` : ''}</td>
  <td><span class="status" data-status="${i.status}">${i.status}</span></td>
  <td>US ${i.territories.US}, EU ${i.territories.EU}, CA ${i.territories.CA}${i.missingFacts.length ? html`<br><small>missing: ${i.missingFacts.join('; ')}</small>` : ''}</td>
  <td>${
    i.duplicateOf
      ? html`<span class="bad" data-duplicate-of="${i.duplicateOf}" data-exact="${String(i.duplicateMatch?.exact === true)}">${i.duplicateMatch?.exact ? 'exact' : 'probable'} duplicate of ${i.duplicateOf}</span>${i.duplicateMatch ? html`<br><small>matched: ${i.duplicateMatch.matched.join(', ')}</small>` : ''}<br><a href="/admin/batches/${batch.batchId}/compare/${encodeURIComponent(i.itemKey)}">compare side by side</a>`
      : '—'
  }</td>
  ${batchListenCell(i, listen, base, recent)}
</tr>`,
      );
      const latest = await actions.latest(batch.batchId);
      const running = latest?.state === 'running';
      const option = (v: string, label: string) =>
        html`<option value="${v}"${f.status === v ? ' selected' : ''}>${label}</option>`;
      const body = html`<h1>${batch.title}</h1>
${notice ? html`<p class="notice" role="status">${notice}</p>` : ''}
${actionSection(latest)}
<p>${all.length} works; each links to its review page (diff, score preview, rights, verification).</p>
<form method="get" action="/admin/batches/${batch.batchId}" class="filters" aria-labelledby="bf-h"><h2 id="bf-h">Filters</h2>
<div class="fields">
<p><label for="bf-status">Status</label><select id="bf-status" name="status">${option('', 'Any status')}${SUBMISSION_STATUSES.map((s) => option(s, s))}</select></p>
<p><label for="bf-q">Words</label><input id="bf-q" name="q" value="${f.q}" maxlength="200"></p>
<p><label><input type="checkbox" name="duplicates" value="true"${f.duplicates ? ' checked' : ''}> Probable duplicates only</label></p>
</div><p><button type="submit">Apply filters</button> <a href="/admin/batches/${batch.batchId}">Clear filters</a></p></form>
<form method="post" action="/admin/batches/${batch.batchId}/act" id="batch-actions">
<input type="hidden" name="_csrf" value="${session.csrf}">
<div class="table-wrap"><table id="batch-items"><caption>${items.length} of ${all.length} works shown</caption>
<thead><tr><th scope="col">Choose</th><th scope="col">Work</th><th scope="col">Composer</th><th scope="col">Status</th><th scope="col">Rights</th><th scope="col">Duplicate</th><th scope="col">Listen</th></tr></thead>
<tbody>${rows}</tbody></table></div>
<p><label for="b-reviewer">Reviewer</label> <input id="b-reviewer" name="reviewer" value="${session.label}" maxlength="100" required></p>
<p><label for="b-note">Note</label> <input id="b-note" name="note" maxlength="2000"></p>
<p><label><input type="checkbox" name="approveTerms" value="true" id="b-terms"> Approve the new vocabulary terms the works propose (with Accept or Merge)</label></p>
<p><label for="b-scope">Act on</label> <select id="b-scope" name="scope"><option value="chosen">The chosen works</option><option value="all">Every work of the batch the action fits</option></select></p>
${running ? html`<p id="batch-actions-wait">New actions can be asked for once the running action has finished.</p>` : html`<p><button type="submit" name="action" value="accept">Accept</button> <button type="submit" name="action" value="decline">Decline</button> <button type="submit" name="action" value="apply">Apply accepted</button> <button type="submit" name="action" value="merge" title="Accept a probable duplicate as another source score of the work it duplicates (no second work)">Merge duplicate into existing work</button></p>`}
<fieldset id="batch-facts"><legend>Record a fact for the chosen works (or every applied work)</legend>
<p>A fact decides rights, so it needs evidence an editor can follow. Each work's fact becomes a correction report accepted with your key; "Apply accepted" lands them with the batch, and every work's rights are derived from the facts again. A person's fact (their death year) is recorded once: it changes the person's record, so every work naming them.</p>
<p><label for="f-field">Fact</label> <select id="f-field" name="factField"><option value="firstPublished">First published (each work)</option><option value="died">A person's death year</option><option value="born">A person's birth year</option><option value="worksPublishedBy">A composer: every work published by</option><option value="wikidataId">A person's Wikidata id</option></select></p>
<p><label for="f-value">Value</label> <input id="f-value" name="factValue" maxlength="40" placeholder="no later than 1900"> <small>"1826", "no later than 1900" or "unpublished"; a person's date, year or "unknown"</small></p>
<p><label for="f-person">Person (for a person's fact)</label> <input id="f-person" name="factPerson" maxlength="160" placeholder="eichendorff-joseph-von"> <small>the person's slug, as on their page</small></p>
<p><label><input type="radio" name="factEvidence" value="scan" checked> Each work's own evidence: the scan its score was transcribed from</label><br>
<label><input type="radio" name="factEvidence" value="url"> One page for every chosen work:</label> <input id="f-url" name="factUrl" maxlength="1000" placeholder="https://www.wikidata.org/wiki/Q..."></p>
<p><label for="f-note">What the evidence shows</label> <input id="f-note" name="factNote" maxlength="500"></p>
${running ? '' : html`<p><button type="submit" name="action" value="record-facts">Record the fact</button></p>`}
</fieldset>
</form>
${listen.size > 0 ? html`${listenHelp()}${listenForms([...listen.values()].flat(), session.csrf, request.url.slice(0, 400))}` : ''}
${await factsTable(batch.batchId)}`;
      return send(
        reply,
        status,
        page({ title: batch.title, session, body, ...(running ? { refreshSeconds: 5 } : {}) }),
      );
    };

    desk.get<{ Params: { batchId: string }; Querystring: Record<string, unknown> }>(
      '/admin/batches/:batchId',
      async (request, reply) => {
        const session = await sessionView(request);
        if (!session) return toSignIn(request, reply);
        const done = str(request.query.done);
        return renderBatch(request, reply, session, 200, /^[0-9]+ [a-z]+$/.test(done) ? `Done: ${done}.` : null);
      },
    );

    desk.get<{ Params: { batchId: string; itemKey: string } }>(
      '/admin/batches/:batchId/compare/:itemKey',
      async (request, reply) => {
        const session = await sessionView(request);
        if (!session) return toSignIn(request, reply);
        const notFound = (detail: string) =>
          send(reply, 404, page({ title: 'Not found', session, body: html`<h1>Not found</h1><p>${detail}</p>` }));
        const batch = await batches.store.getBatch(request.params.batchId);
        if (!batch) return notFound(`No import batch is called "${request.params.batchId}".`);
        const all = await batches.items(batch.batchId);
        const item = all.find((i) => i.itemKey === request.params.itemKey);
        if (!item) return notFound(`The batch ${batch.batchId} has no item "${request.params.itemKey}".`);
        if (!item.duplicateOf) return notFound(`The item "${item.itemKey}" is not flagged as a probable duplicate.`);
        const record = await ctx.intake.getContribution(item.trackingCode);
        if (!record) return notFound(`No contribution has the tracking code ${item.trackingCode}.`);
        const other = /^batch item (.+)$/.exec(item.duplicateOf);
        let theirs: WorkFactsView | null = null;
        if (other) {
          const peer = all.find((i) => i.itemKey === other[1]);
          const peerRecord = peer ? await ctx.intake.getContribution(peer.trackingCode) : null;
          if (peer && peerRecord)
            theirs = factsOfSubmission(
              `batch item ${peer.itemKey}`,
              peerRecord.submission,
              `/admin/contributions/${peer.trackingCode}`,
            );
        } else {
          const work = await ctx.handle.current.catalog.records.get(item.duplicateOf);
          if (work) theirs = factsOfRecord(work);
        }
        const ours = factsOfSubmission(
          `this item (${item.itemKey})`,
          record.submission,
          `/admin/contributions/${item.trackingCode}`,
        );
        const open = item.status === 'pending' || item.status === 'needs-information';
        const body = html`<h1>Probable duplicate: ${item.title}</h1>
<p id="duplicate-match" data-exact="${String(item.duplicateMatch?.exact === true)}">${
          item.duplicateMatch
            ? html`${item.duplicateMatch.exact ? 'Exact match' : 'Partial match'}: ${item.duplicateMatch.matched.join(', ')}.`
            : 'What matched was not recorded (flagged before it was).'
        } A merge adds this item's files to <strong>${item.duplicateOf}</strong> as further source scores; no second work is made.</p>
${theirs ? compareTable(ours, theirs) : html`<p class="bad">The work it is flagged against (${item.duplicateOf}) is not in the catalog or the batch any more.</p>`}
${
  open
    ? html`<form method="post" action="/admin/batches/${batch.batchId}/act" id="compare-actions">
<input type="hidden" name="_csrf" value="${session.csrf}">
<input type="hidden" name="item" value="${item.trackingCode}">
<p><label for="c-reviewer">Reviewer</label> <input id="c-reviewer" name="reviewer" value="${session.label}" maxlength="100" required></p>
<p><label for="c-note">Note</label> <input id="c-note" name="note" maxlength="2000"></p>
<p><button type="submit" name="action" value="merge">Merge into ${item.duplicateOf}</button> <button type="submit" name="action" value="accept" class="secondary">Not a duplicate: accept as a work of its own</button> <button type="submit" name="action" value="decline" class="secondary">Decline</button></p>
</form>`
    : html`<p>This item is ${item.status}; nothing is offered.</p>`
}
<p><a href="/admin/batches/${batch.batchId}?duplicates=true">Back to the batch's probable duplicates</a></p>`;
        return send(reply, 200, page({ title: `Compare ${item.itemKey}`, session, body }));
      },
    );

    desk.post<{ Params: { batchId: string }; Body: Record<string, string | string[]> | undefined }>(
      '/admin/batches/:batchId/act',
      async (request, reply) => {
        const session = await formSession(ctx, request, reply, 'changed');
        if (!session) return reply;
        const form = request.body ?? {};
        const action = str(form.action) as BatchAction;
        const req = request as unknown as FastifyRequest<{
          Params: { batchId: string };
          Querystring: Record<string, unknown>;
        }>;
        if (!['accept', 'decline', 'apply', 'merge', 'record-facts'].includes(action))
          return renderBatch(
            req,
            reply,
            session,
            400,
            'Not done: choose Accept, Decline, Apply, Merge or Record the fact.',
          );
        const fact: BatchFact | null =
          action === 'record-facts'
            ? {
                field: str(form.factField) as BatchFact['field'],
                value: str(form.factValue).trim().slice(0, 40),
                ...(str(form.factPerson).trim() ? { person: str(form.factPerson).trim().slice(0, 160) } : {}),
                ...(str(form.factEvidence) === 'url'
                  ? { evidenceUrl: str(form.factUrl).trim().slice(0, 1000) }
                  : { evidenceFromItemScan: true }),
                note: str(form.factNote).trim().slice(0, 500),
              }
            : null;
        if (fact && (!fact.value || !fact.note || (str(form.factEvidence) === 'url' && !fact.evidenceUrl)))
          return renderBatch(
            req,
            reply,
            session,
            400,
            'Not done: a fact needs its value, its evidence (the scans, or a page) and what the evidence shows.',
          );
        const chosen = Array.isArray(form.item) ? form.item : [];
        if (str(form.scope) !== 'all' && chosen.length === 0)
          return renderBatch(
            req,
            reply,
            session,
            400,
            'Not done: choose at least one work, or act on every work of the batch.',
          );
        const reviewer = str(form.reviewer).trim().slice(0, 100) || session.label;
        const note = str(form.note).trim().slice(0, 2000);
        try {
          const { record, finished } = await actions.start(
            request.params.batchId,
            action,
            {
              ...(str(form.scope) === 'all' ? {} : { items: chosen.slice(0, 10_000) }),
              reviewer,
              ...(note ? { note } : {}),
              ...(str(form.approveTerms) === 'true' ? { approveTerms: true } : {}),
              ...(fact ? { fact } : {}),
            },
            { label: session.label, operatorLabeled: isOperatorLabel(session.label) },
          );
          const where = `/admin/batches/${encodeURIComponent(request.params.batchId)}`;
          const current = (await settledWithin(finished, DESK_WAIT_MS))
            ? ((await actions.get(record.batchId, record.actionId)) ?? record)
            : record;
          // Finished within the wait: the count at once, as before. Else the page follows the action.
          if (current.state === 'completed')
            return reply
              .code(303)
              .header('Location', `${where}?done=${batchActionCounts(current).actedOn}%20${DONE_WORDS[action]}`)
              .send();
          return reply.code(303).header('Location', `${where}#batch-action`).send();
        } catch (err) {
          if (err instanceof ProblemError)
            return renderBatch(req, reply, session, problemType(err.problem).status, `Not done: ${err.message}`);
          throw err;
        }
      },
    );
  });
}
