/**
 * The review desk's pages, rendered from the records the review service holds: the
 * sign-in form, the queue with its filters and counts, and one item with the submission, the
 * proposed change as a diff, the contributor files (verification, checks, measured audio, score
 * preview, audio player), the history and the action forms. Pure functions of their input: no
 * I/O here (api/desk/routes.ts reads and calls).
 */
import type { FactImpactView } from '../review/fact-impact.ts';
import type { FactImpactRow } from '../../src/domain/people.ts';
import { esc, html, page, raw, type DeskSessionView, type Html } from './html.ts';
import { itemActionPath, type StoredItemAction } from '../../src/domain/review/item-actions.ts';
import { diffLineKind } from '../../src/domain/review/diff.ts';
import { statusWords, STATUS_MEANINGS } from '../../src/domain/contributions/tracking-words.ts';
import { canTransition } from '../../src/domain/contributions/status.ts';
import { REVIEW_STATE_LABELS, REVIEW_STATE_MEANINGS } from '../../src/domain/review-states.ts';
import {
  ASSERTABLE_STATES,
  type QueueKind,
  type ReviewDiff,
  type ReviewRecord,
  type VerificationEntry,
} from '../../src/schemas/review.ts';
import {
  CONTRIBUTION_OPERATIONS,
  SUBMISSION_STATUSES,
  type StoredContribution,
  type SubmissionKind,
} from '../../src/schemas/contribution.ts';
import type { StoredCorrectionReport } from '../../src/schemas/correction.ts';
import type { QueueEntry } from '../../src/domain/review/queue.ts';

type Stored = StoredContribution | StoredCorrectionReport;

export const SEGMENT: Record<SubmissionKind, string> = {
  contribution: 'contributions',
  'correction-report': 'correction-reports',
};
export const itemPath = (kind: SubmissionKind, code: string) => `/admin/${SEGMENT[kind]}/${code}`;
const kindWords = (kind: string) =>
  kind === 'contribution'
    ? 'Contribution'
    : kind === 'correction-report'
      ? 'Correction report'
      : kind === 'pull-request'
        ? 'Pull request'
        : kind;
/** Where a queue row links: the desk's item page; a person's pull request (no desk page yet) to its admin JSON record. */
const queueRowHref = (kind: QueueKind, code: string) =>
  kind === 'pull-request' ? `/api/v1/admin/pull-requests/${code.replace(/^PR-/, '')}` : itemPath(kind, code);

// --- sign-in --------------------------------------------------------------------------------

export function signInPage(
  options: { error?: string | null; notice?: string | null; next?: string | null } = {},
): string {
  const body = html`<h1>Sign in to the review desk</h1>
<p>Editors sign in with an admin key (<code>ARCHIVE_ADMIN_KEYS</code>). The key is sent once, in this form's body, and
exchanged for a session cookie; it is never put in a web address or kept in the page.</p>
${options.notice ? html`<p class="notice ok" role="status">${options.notice}</p>` : ''}
${options.error ? html`<p class="notice bad" role="alert" id="sign-in-error">${options.error}</p>` : ''}
<form method="post" action="/admin/sign-in" class="stack sign-in">
  ${options.next ? html`<input type="hidden" name="next" value="${options.next}">` : ''}
  <label for="key">Admin key</label>
  <input id="key" name="key" type="password" autocomplete="current-password" required maxlength="512"${options.error ? raw(' aria-describedby="sign-in-error" aria-invalid="true"') : ''}>
  <button type="submit">Sign in</button>
</form>`;
  return page({ title: 'Sign in', body });
}

/** A short page for refusals (forged request, missing item) with a way back. */
export function messagePage(title: string, message: string, session: DeskSessionView | null): string {
  return page({
    title,
    session,
    body: html`<h1>${title}</h1><p class="notice bad" role="alert">${message}</p><p><a href="/admin/queue">Back to the review queue</a></p>`,
  });
}

// --- queue ----------------------------------------------------------------------------------

export const AGE_FILTERS: Record<string, { words: string; after?: number; before?: number }> = {
  '': { words: 'Any age' },
  'new-1d': { words: 'Received in the last day', after: 1 },
  'new-7d': { words: 'Received in the last 7 days', after: 7 },
  'old-1d': { words: 'Waiting more than a day', before: 1 },
  'old-7d': { words: 'Waiting more than 7 days', before: 7 },
  'old-30d': { words: 'Waiting more than 30 days', before: 30 },
};

export interface QueueFilterForm {
  kind: string;
  status: string;
  operation: string;
  age: string;
  work: string;
}

export interface QueuePageInput {
  session: DeskSessionView;
  form: QueueFilterForm;
  items: Array<QueueEntry & { blockers: number }>;
  page: number;
  pageSize: number;
  total: number;
  counts: Record<string, number>;
  error?: string | null;
}

function option(value: string, words: string, selected: string): Html {
  return html`<option value="${value}"${value === selected ? raw(' selected') : ''}>${words}</option>`;
}

export function queueHref(form: QueueFilterForm, pageNumber: number): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(form)) if (v) q.set(k, v);
  if (pageNumber > 1) q.set('page', String(pageNumber));
  const s = q.toString();
  return `/admin/queue${s ? `?${s}` : ''}`;
}

export function queuePage(input: QueuePageInput): string {
  const { form } = input;
  const totalPages = Math.max(1, Math.ceil(input.total / input.pageSize));
  const counts = SUBMISSION_STATUSES.map(
    (s) => html`<li><span class="count">${input.counts[s] ?? 0}</span> ${statusWords(s)}</li>`,
  );
  const rows = input.items.map(
    (e) => html`<tr>
  <td><a href="${queueRowHref(e.kind, e.trackingCode)}"><code>${e.trackingCode}</code></a></td>
  <td>${kindWords(e.kind)}</td>
  <td><span class="status" data-status="${e.status}">${statusWords(e.status)}</span></td>
  <td>${e.summary}</td>
  <td>${e.workSlug ?? '—'}</td>
  <td><time datetime="${e.receivedAtUtc}">${e.receivedAtUtc}</time></td>
  <td>${e.blockers > 0 ? html`<span class="bad">${e.blockers}</span>` : '0'}</td>
</tr>`,
  );
  const shownFrom = input.total === 0 ? 0 : (input.page - 1) * input.pageSize + 1;
  const shownTo = Math.min(input.total, input.page * input.pageSize);
  const body = html`<h1>Review queue</h1>
<section aria-labelledby="counts-h"><h2 id="counts-h">Stored items by status</h2><ul class="counts">${counts}</ul></section>
<form method="get" action="/admin/queue" class="filters" aria-labelledby="filters-h">
  <h2 id="filters-h">Filters</h2>
  <div class="fields">
  <p><label for="f-kind">Kind</label>
  <select id="f-kind" name="kind">${option('', 'Contributions and correction reports', form.kind)}${option('contribution', 'Contributions', form.kind)}${option('correction-report', 'Correction reports', form.kind)}</select></p>
  <p><label for="f-status">Status</label>
  <select id="f-status" name="status">${option('', 'Open (pending, needs information, accepted)', form.status)}${SUBMISSION_STATUSES.map((s) => option(s, statusWords(s), form.status))}${option('all', 'Every status', form.status)}</select></p>
  <p><label for="f-operation">Operation</label>
  <select id="f-operation" name="operation">${option('', 'Any operation', form.operation)}${CONTRIBUTION_OPERATIONS.map((o) => option(o, o, form.operation))}</select></p>
  <p><label for="f-age">Age</label>
  <select id="f-age" name="age">${Object.entries(AGE_FILTERS).map(([k, v]) => option(k, v.words, form.age))}</select></p>
  <p><label for="f-work">Work (slug)</label>
  <input id="f-work" name="work" value="${form.work}" maxlength="200" pattern="[a-z0-9-]*" title="A work's slug, e.g. satie-gymnopedie-1"></p>
  </div>
  <p><button type="submit">Apply filters</button> <a href="/admin/queue">Clear filters</a></p>
</form>
${input.error ? html`<p class="notice bad" role="alert">${input.error}</p>` : ''}
<div class="table-wrap">
<table id="queue">
  <caption>${input.total === 0 ? 'No item matches these filters.' : `Items ${shownFrom} to ${shownTo} of ${input.total}, oldest first`}</caption>
  <thead><tr><th scope="col">Code</th><th scope="col">Kind</th><th scope="col">Status</th><th scope="col">Summary</th><th scope="col">Work</th><th scope="col">Received (UTC)</th><th scope="col">Blockers</th></tr></thead>
  <tbody>${rows}</tbody>
</table>
</div>
<nav aria-label="Queue pages" class="pager">
  ${input.page > 1 ? html`<a href="${queueHref(form, input.page - 1)}" rel="prev">Previous page</a>` : ''}
  <span>Page ${input.page} of ${totalPages}</span>
  ${input.page < totalPages ? html`<a href="${queueHref(form, input.page + 1)}" rel="next">Next page</a>` : ''}
</nav>`;
  return page({ title: 'Review queue', session: input.session, body });
}

// --- item -----------------------------------------------------------------------------------

const MAX_DEPTH = 6;
const MAX_ENTRIES = 200;

/** A JSON value as nested definition lists (bounded depth and width), every string escaped. */
/** Abbreviations written out the way people read them in labels. */
const LABEL_WORDS: Record<string, string> = {
  sha256: 'SHA-256',
  url: 'URL',
  urls: 'URLs',
  utc: '(UTC)',
  id: 'ID',
  ids: 'IDs',
  lufs: '(LUFS)',
  dbtp: '(dBTP)',
  dbfs: '(dBFS)',
  lu: '(LU)',
  db: '(dB)',
  midi: 'MIDI',
  mp3: 'MP3',
  wav: 'WAV',
  pdf: 'PDF',
  musicxml: 'MusicXML',
  mxl: 'MXL',
  us: 'US',
  eu: 'EU',
  ca: 'CA',
};

/**
 * A field name as words for a label: "downloadUrl" -> "Download URL", "receivedAtUtc" ->
 * "Received at (UTC)", "sha256" -> "SHA-256". The desk shows stored records, whose keys are
 * the schemas' field names; people read words.
 */
export function labelOf(key: string): string {
  const parts = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_.-]+/g, ' ')
    .trim()
    .split(/\s+/)
    .map((w) => LABEL_WORDS[w.toLowerCase()] ?? w.toLowerCase());
  const first = parts[0] ?? key;
  parts[0] = /^[a-z]/.test(first) ? first[0]!.toUpperCase() + first.slice(1) : first;
  return parts.join(' ');
}

export function readable(value: unknown, depth = 0): Html {
  if (value === null || value === undefined) return html`<span class="none">none</span>`;
  if (typeof value === 'string')
    return value === '' ? html`<span class="none">empty</span>` : html`<span class="text">${value}</span>`;
  if (typeof value !== 'object') return html`${String(value)}`;
  if (depth >= MAX_DEPTH) return html`<code>${JSON.stringify(value).slice(0, 2000)}</code>`;
  if (Array.isArray(value)) {
    if (value.length === 0) return html`<span class="none">none</span>`;
    const more = value.length > MAX_ENTRIES ? html`<li>… ${value.length - MAX_ENTRIES} more</li>` : '';
    return html`<ol start="0">${value.slice(0, MAX_ENTRIES).map((v) => html`<li>${readable(v, depth + 1)}</li>`)}${more}</ol>`;
  }
  const entries = Object.entries(value as Record<string, unknown>);
  if (entries.length === 0) return html`<span class="none">none</span>`;
  return html`<dl class="readable">${entries.slice(0, MAX_ENTRIES).map(([k, v]) => html`<dt>${labelOf(k)}</dt><dd>${readable(v, depth + 1)}</dd>`)}</dl>`;
}

export function diffSection(diff: ReviewDiff | null, branchWords: string | null): Html {
  if (!diff) {
    return html`<p>${branchWords ? `No diff: the review branch ${branchWords} is not in the content repository.` : 'No review branch yet: accepting the item opens one, and the exact change to the files (a diff) shows here.'}</p>`;
  }
  const files = diff.files.map(
    (f) =>
      html`<li><code>${f.path}</code> ${f.added === null ? '(binary)' : html`<span class="add-count">+${f.added}</span> <span class="del-count">−${f.deleted}</span>`}</li>`,
  );
  const lines = diff.text.split('\n');
  if (lines.at(-1) === '') lines.pop();
  const body = lines.map((l) => html`<span class="dl ${diffLineKind(l)}">${l}</span>\n`);
  return html`<p>Compared <code>${diff.base.slice(0, 12)}</code> (main) with <code>${diff.head.slice(0, 12)}</code>: ${diff.files.length + diff.moreFiles} changed file(s).</p>
<ul class="files">${files}${diff.moreFiles > 0 ? html`<li>… and ${diff.moreFiles} more</li>` : ''}</ul>
${diff.truncated ? html`<p class="notice warn">The diff is longer than ${Math.round(diff.maxBytes / 1024)} KiB; only its beginning is shown (see the branch for the rest).</p>` : ''}
<pre class="diff" tabindex="0" aria-label="Unified diff of the proposed change">${body}</pre>`;
}

function fmt(n: number | null | undefined, unit: string, digits = 1): string {
  return n === null || n === undefined ? 'none' : `${n.toFixed(digits)} ${unit}`;
}

function checksBlock(v: VerificationEntry): Html {
  const c = v.checks;
  if (!c) return html``;
  const measurements = Object.entries(c.measurements ?? {}).slice(0, 40);
  const a = c.audio;
  const audio = a
    ? html`<dl class="measured">
  <dt>Duration</dt><dd>${fmt(a.durationSeconds, 's')}</dd>
  <dt>Integrated loudness</dt><dd>${fmt(a.integratedLufs, 'LUFS')}</dd>
  <dt>True peak</dt><dd>${fmt(a.truePeakDbtp, 'dBTP')}</dd>
  <dt>Sample peak</dt><dd>${fmt(a.samplePeakDbfs, 'dBFS')}</dd>
  <dt>Loudness range</dt><dd>${fmt(a.loudnessRangeLu, 'LU')}</dd>
  <dt>Loudest 3 s</dt><dd>${fmt(a.maxShortTermLufs, 'LUFS')}</dd>
  <dt>Sample rate, channels</dt><dd>${a.sampleRate} Hz, ${a.channels}</dd>
  <dt>Sections</dt><dd>${a.sections.length === 0 ? 'none' : a.sections.map((s) => `${s.startSeconds.toFixed(1)}–${s.endSeconds.toFixed(1)} s ${s.level}`).join('; ')}</dd>
  <dt>Quiet stretches (speech fits)</dt><dd>${a.quietStretches.length === 0 ? 'none' : a.quietStretches.map((s) => `${s.startSeconds.toFixed(1)}–${s.endSeconds.toFixed(1)} s`).join('; ')}</dd>
  <dt>As a bed under narration</dt><dd>${a.narrationBed.gainDb === null ? 'silent' : `gain ${a.narrationBed.gainDb.toFixed(1)} dB`}</dd>
</dl>`
    : c.kind === 'mp3' || c.kind === 'wav'
      ? html`<p>The audio could not be decoded, so nothing was measured.</p>`
      : html``;
  return html`<p class="${c.passed ? 'ok' : 'bad'}">Technical checks ${c.passed ? 'passed' : 'failed'} (not listening approval): ${c.summary}</p>
${measurements.length > 0 ? html`<dl class="measurements">${measurements.map(([k, val]) => html`<dt>${labelOf(k)}</dt><dd>${readable(val, MAX_DEPTH - 2)}</dd>`)}</dl>` : ''}
${audio}
${(v.disagreements ?? []).length > 0 ? html`<ul class="warn">${(v.disagreements ?? []).map((d) => html`<li>${d.detail}</li>`)}</ul>` : ''}`;
}

interface AssetLike {
  kind?: string;
  title?: string;
  downloadUrl?: string | null;
  /** What the contribution declared (shown before accept, when nothing was fetched yet). */
  sha256?: string | null;
}

function fileCard(code: string, index: number, asset: AssetLike | undefined, v: VerificationEntry | undefined): Html {
  const kind = asset?.kind ?? v?.checks?.kind ?? 'file';
  const base = `/admin/files/${code}/${index}`;
  const verified = v?.status === 'verified' && v.sha256;
  const preview =
    verified && (kind === 'musicxml' || kind === 'mxl')
      ? html`<figure class="score"><img src="${base}/score.svg" alt="First page of the score ${asset?.title ?? ''}, engraved from the verified file by Verovio" loading="lazy"><figcaption>Score preview: the first page, engraved by Verovio from the verified file.</figcaption></figure>`
      : verified && (kind === 'mp3' || kind === 'wav')
        ? html`<figure class="audio"><audio controls preload="metadata" src="${base}" aria-label="Listen to ${asset?.title ?? `file ${index}`}"></audio><figcaption>The verified file, served to signed-in editors only. <a href="${base}">Download it</a>.</figcaption></figure>`
        : verified
          ? html`<p><a href="${base}">Download the verified file</a></p>`
          : html``;
  const state = !v
    ? 'Not fetched yet: accepting the item fetches and verifies every file.'
    : v.status === 'verified'
      ? `Verified: fetched, ${v.declaredSha256 ? 'the declared SHA-256 matches, ' : 'no SHA-256 was declared, '}stored.`
      : v.status === 'refused'
        ? `Refused: ${v.reason ?? 'no reason recorded'}`
        : `Not fetched: ${v.reason ?? 'no download URL'}`;
  return html`<article class="file" aria-labelledby="file-${index}-h">
<h3 id="file-${index}-h">File ${index}: ${asset?.title ?? '(untitled)'} <span class="kind">${kind}</span></h3>
<p class="${v?.status === 'verified' ? 'ok' : v?.status === 'refused' ? 'bad' : ''}">${state}</p>
<dl class="facts">
  <dt>Contributor URL</dt><dd>${asset?.downloadUrl ?? v?.url ?? 'none'}</dd>
  <dt>SHA-256 (stored copy)</dt><dd><code>${v?.sha256 ?? 'none'}</code></dd>
  <dt>SHA-256 (declared by the contributor)</dt><dd><code>${v?.declaredSha256 ?? asset?.sha256 ?? 'none'}</code></dd>
  <dt>Size</dt><dd>${v?.byteLength != null ? `${v.byteLength} bytes` : 'unknown'}</dd>
  <dt>Media type sent</dt><dd>${v?.mediaType ?? 'none'}</dd>
</dl>
${v ? checksBlock(v) : ''}
${preview}
</article>`;
}

/** The change a submission proposes, in words, before accept has made it a branch and a diff. */
export function proposedChange(record: Stored): Html {
  if (record.kind === 'correction-report') {
    const r = record.report;
    const target =
      r.targetType === 'work' || r.targetType === 'composer'
        ? `the work ${r.workSlug ?? '(none named)'}`
        : `${labelOf(r.targetType).toLowerCase()} ${r.targetId ?? ''} of the work ${r.workSlug ?? '(none named)'}`;
    return html`<div id="proposed-change"><p>On ${target}, the field <strong>${labelOf(r.fieldName.split('.').at(-1) ?? r.fieldName)}</strong> (<code>${r.fieldName}</code>) changes</p>
<dl class="facts"><dt>from</dt><dd class="text">${r.currentValue ?? 'whatever it reads now (the reporter did not say)'}</dd><dt>to</dt><dd class="text">${r.proposedValue}</dd></dl></div>`;
  }
  const s = record.submission;
  const files = s.assets.map(
    (a, i) =>
      html`<li>File ${i}: ${a.title} (${labelOf(a.kind)}), SHA-256 declared <code>${a.sha256 ?? 'none'}</code></li>`,
  );
  return html`<div id="proposed-change"><p>${labelOf(s.operation)} on ${s.target?.workSlug ? html`the work <code>${s.target.workSlug}</code>` : 'a new work'}: ${s.changeSummary}</p>
${files.length > 0 ? html`<ul>${files}</ul>` : ''}</div>`;
}

export interface ItemPageInput {
  session: DeskSessionView;
  record: Stored;
  review: ReviewRecord | null;
  diff: ReviewDiff | null;
  /** Absolute or root-relative URL of the admin JSON record. */
  jsonHref: string;
  trackingJsonHref: string;
  notice?: string | null;
  error?: string | null;
  /** A rights fact's report: the works it reaches, their derived rights before and after. */
  impact?: FactImpactView | null;
  /** The item's running action, or the one the page was sent to after asking for it. */
  action?: StoredItemAction | null;
}

/** The fact a report records, and what it does to the rights of every work it reaches (derived, as the build will). */
function impactSection(impact: FactImpactView | null | undefined): Html | string {
  if (!impact) return '';
  const cell = (b: FactImpactRow['before']) =>
    b
      ? html`US ${b.US}, EU ${b.EU}, CA ${b.CA}; composition ${b.composition}${b.cleared ? ' (cleared)' : ' (not cleared)'}; worldwide ${b.worldwide}${b.missingFacts.length ? html`<br><small>missing: ${b.missingFacts.join('; ')}</small>` : ''}`
      : 'not derivable';
  const changed = impact.works.filter((w) => w.changes).length;
  return html`<section aria-labelledby="impact-h" id="fact-impact"><h2 id="impact-h">The fact and the works it changes</h2>
<dl class="facts"><dt>Fact</dt><dd><code>${impact.pointer}</code>: ${impact.oldValue ?? 'not recorded'} → <strong>${impact.newValue ?? 'removed'}</strong></dd>
<dt>Evidence</dt><dd>${impact.evidenceUrl ? html`<a href="${impact.evidenceUrl}" rel="noopener noreferrer">${impact.evidenceUrl}</a>` : 'none (a fact without evidence is refused)'}</dd>
${impact.person ? html`<dt>Person</dt><dd><a href="/people/${impact.person}/">${impact.person}</a>: the change is to their record, so every work naming them follows</dd>` : ''}
<dt>Derived as of</dt><dd>${impact.asOfYear}</dd></dl>
${
  impact.unavailable
    ? html`<p class="notice warn">${impact.unavailable}</p>`
    : html`<p id="impact-summary">${impact.works.length} work(s) reached${impact.more ? `, and ${impact.more} more` : ''}; ${changed} change their derived rights.</p>
<div class="table-wrap"><table id="impact"><caption>Derived rights before and after the change</caption>
<thead><tr><th scope="col">Work</th><th scope="col">Before</th><th scope="col">After</th></tr></thead>
<tbody>${impact.works.map((w) => html`<tr data-work="${w.slug}" data-changes="${w.changes ? 'yes' : 'no'}"><td><a href="/works/${w.slug}/">${w.title}</a></td><td>${cell(w.before)}</td><td>${cell(w.after)}</td></tr>`)}</tbody></table></div>`
}
</section>`;
}

const ACTION_WORDS: Record<StoredItemAction['action'], string> = {
  accept: 'Accepting',
  'request-information': 'Requesting information',
  decline: 'Declining',
};

/**
 * An action record on the item (api/review/item-actions.ts): while it runs, its progress (desk.js
 * follows its JSON record and reloads when it has finished; without JavaScript the page refreshes
 * itself); then its outcome.
 */
function itemActionSection(a: StoredItemAction | null | undefined): Html {
  if (!a) return html``;
  const asked = html`${a.action} asked by <strong>${a.actor}</strong> (reviewer ${a.reviewer}) at <time datetime="${a.startedAtUtc}">${a.startedAtUtc}</time>${a.resumedAtUtc.length ? html`; resumed after a stop at ${a.resumedAtUtc.join(', ')}` : ''}`;
  const p = a.progress;
  if (a.state === 'running')
    return html`<section id="item-action" class="notice warn" aria-live="polite" data-state="running" data-action="${a.action}" data-action-id="${a.actionId}" data-poll="${itemActionPath(a.kind, a.trackingCode, a.actionId)}">
<h2>${ACTION_WORDS[a.action]}…</h2><p>${asked}.</p>
<p><progress id="item-action-bar" max="${Math.max(p.total, 1)}" value="${p.done}">${p.done} of ${p.total}</progress> <span id="item-action-text">Now ${p.step} (${p.done} of ${p.total} steps done).</span></p>
<p>This page follows it until it has finished; no other action on the item starts meanwhile.</p></section>`;
  if (a.state === 'completed')
    return html`<section id="item-action" class="notice ok" data-state="completed" data-action="${a.action}" data-action-id="${a.actionId}"><h2>Done: ${a.action.replace('-', ' ')}</h2><p>${asked}; finished at <time datetime="${a.finishedAtUtc ?? ''}">${a.finishedAtUtc ?? '?'}</time>. The item is now “${statusWords(a.status)}”.</p></section>`;
  return html`<section id="item-action" class="notice bad" role="alert" data-state="failed" data-action="${a.action}" data-action-id="${a.actionId}"><h2>Not done: ${a.action.replace('-', ' ')}</h2><p>${asked}; it failed at <time datetime="${a.finishedAtUtc ?? ''}">${a.finishedAtUtc ?? '?'}</time> and nothing was changed: ${a.error?.detail ?? 'no reason was recorded'}</p></section>`;
}

function actorWords(actor: string | undefined | null): string {
  return actor ?? 'the submitter / the service';
}

function assertionFields(record: Stored): Html {
  if (record.kind !== 'contribution') return html``;
  const states = (name: string, label: string) => html`<p><label for="${name}">${label}</label>
<select id="${name}" name="${name}">
<option value="">No assertion (the file lands as “${REVIEW_STATE_LABELS.pending}”, whatever the submitter claimed)</option>
${ASSERTABLE_STATES.map((s) => html`<option value="${s}">${REVIEW_STATE_LABELS[s]} — ${REVIEW_STATE_MEANINGS[s]}</option>`)}
</select></p>`;
  const assets = record.submission.assets.map((a, i) =>
    states(`assert-${i}`, `File ${i} (${a.kind}: ${a.title}): what I assert`),
  );
  return html`<fieldset><legend>What I assert as the reviewer (recorded with my key's label)</legend>
<p class="hint">“${REVIEW_STATE_LABELS['human-listening-approved']}” means you listened to the whole file yourself; it needs a key with an operator-given label. Rights review is never lifted here.</p>
${assets}
${['arrangement', 'performance'].includes(record.submission.operation) ? states('assert-arrangement', 'The arrangement as a whole: what I assert') : ''}
</fieldset>`;
}

function actionForm(
  record: Stored,
  session: DeskSessionView,
  action: string,
  title: string,
  explain: string,
  extra: Html,
  noteLabel: string,
  noteRequired = false,
): Html {
  const id = `act-${action}`;
  return html`<form method="post" action="${itemPath(record.kind, record.trackingCode)}/${action}" class="stack action" aria-labelledby="${id}-h">
<h3 id="${id}-h">${title}</h3>
<p class="hint">${explain}</p>
<input type="hidden" name="_csrf" value="${session.csrf}">
<p><label for="${id}-reviewer">Reviewer name (shown beside your key's label)</label>
<input id="${id}-reviewer" name="reviewer" required maxlength="100" value="${session.label}" autocomplete="name"></p>
<p><label for="${id}-note">${noteLabel}</label>
<textarea id="${id}-note" name="note" rows="3" maxlength="2000"${noteRequired ? raw(' required') : ''}></textarea></p>
${extra}
<p><button type="submit" name="action" value="${action}">${title}</button></p>
</form>`;
}

function applyProgress(record: Stored, jsonHref: string): Html {
  const a = record.apply;
  if (!a) return html``;
  if (a.state === 'applying') {
    return html`<section id="apply-progress" class="notice warn" aria-live="polite" data-poll="${jsonHref}" data-state="applying">
<h2>Applying</h2><p id="apply-progress-text">Merging the change and rebuilding the site, requested ${a.requestedAtUtc}. This page follows it until the change is visible.</p></section>`;
  }
  if (a.state === 'visible') {
    const slug = record.kind === 'contribution' ? record.submission.target?.workSlug : record.report.workSlug;
    return html`<section id="apply-progress" class="notice ok" data-state="visible"><h2>Applied and visible</h2><p>Requested ${a.requestedAtUtc}; visible on the public site since ${a.visibleAtUtc ?? '?'}.${slug ? html` <a href="/works/${encodeURIComponent(slug)}/">See the public page</a>.` : ''}</p></section>`;
  }
  return html`<section id="apply-progress" class="notice bad" data-state="failed"><h2>The last apply failed</h2><p>Requested ${a.requestedAtUtc}, failed ${a.failedAtUtc ?? '?'}; main was reset and the previous site keeps serving. The error is under “Blockers and warnings”.</p></section>`;
}

export function itemPage(input: ItemPageInput): string {
  const { record, review, session } = input;
  const code = record.trackingCode;
  const ref = review?.ref ?? null;
  const submission = record.kind === 'contribution' ? record.submission : record.report;
  const branchWords = ref ? ref.branch : null;
  const acting = input.action?.state === 'running';
  const actable =
    !acting && record.apply?.state !== 'applying' && record.status !== 'applied' && record.status !== 'declined';
  const links = html`<ul class="links">
${actable ? html`<li><a href="#actions-h">Jump to the actions</a></li>` : ''}
<li><a href="${input.jsonHref}">Admin JSON record</a></li>
<li><a href="/track/${code}">Public tracking page</a></li>
<li><a href="${input.trackingJsonHref}">Public tracking JSON</a></li>
${ref ? (ref.url && /^https:\/\//.test(ref.url) ? html`<li><a href="${ref.url}" rel="noopener noreferrer">Pull request ${ref.number ? `#${ref.number}` : ''}</a> (branch <code>${ref.branch}</code>)</li>` : html`<li>Review branch <code>${ref.branch}</code> in the content repository</li>`) : ''}
</ul>`;
  const problems = [
    ...(review?.blockers ?? []).map((b) => html`<li class="bad">Blocker: ${b}</li>`),
    ...(review?.warnings ?? []).map((w) => html`<li class="warn">Warning: ${w}</li>`),
    ...(review?.lastError
      ? [
          html`<li class="bad">Last error (${review.lastError.atUtc}): ${review.lastError.message.split('\n').slice(0, 5).join(' ')}</li>`,
        ]
      : []),
  ];
  const assets = record.kind === 'contribution' ? record.submission.assets : [];
  const verification = review?.verification ?? [];
  const fileCount = Math.max(assets.length, verification.length);
  const files = Array.from({ length: fileCount }, (_, i) =>
    fileCard(
      code,
      i,
      assets[i] as AssetLike | undefined,
      verification.find((v) => v.index === i),
    ),
  );
  const history = record.history.map((entry) => {
    // `action` and `revisedSubmission` come with submitters' answers (docs/contributions.md).
    const h = entry as typeof entry & { action?: string; revisedSubmission?: boolean };
    const answer = h.action === 'answer';
    const what = answer
      ? `${statusWords(h.status)}: answered by the submitter${h.revisedSubmission ? ', with a revised submission' : ''}`
      : statusWords(h.status);
    return html`<tr${answer ? raw(' class="answer"') : ''}><td><span class="status" data-status="${h.status}">${what}</span></td><td><time datetime="${h.atUtc}">${h.atUtc}</time></td><td>${actorWords(h.actor)}</td><td class="text">${h.note ?? ''}</td></tr>`;
  });
  const actions = (review?.actions ?? []).map(
    (a) =>
      html`<tr><td>${a.action}</td><td><time datetime="${a.atUtc}">${a.atUtc}</time></td><td>${a.actor ?? 'unrecorded'}</td><td>${a.reviewer}</td><td class="text">${a.note ?? ''}</td><td class="text">${a.outcome}</td></tr>`,
  );
  const applying = record.apply?.state === 'applying';
  const forms: Html[] = [];
  if (!applying && !acting) {
    if (canTransition(record.status, 'accepted')) {
      forms.push(
        actionForm(
          record,
          session,
          'accept',
          'Accept',
          'Opens the review branch, fetches and verifies every contributor file and runs the technical checks (this page shows the progress of a long score). Nothing in the catalog changes yet.',
          assertionFields(record),
          'Public note (optional)',
        ),
      );
    } else if (record.status === 'accepted' && (review?.blockers.length ?? 0) > 0) {
      forms.push(
        actionForm(
          record,
          session,
          'accept',
          'Fetch and check again',
          'Accepts the item again: fetches every contributor file afresh (after a file host or the fetch allow-list was fixed), runs the technical checks and rewrites the review. Nothing in the catalog changes yet.',
          assertionFields(record),
          'Public note (optional)',
        ),
      );
    }
    if (canTransition(record.status, 'needs-information')) {
      forms.push(
        actionForm(
          record,
          session,
          'request-information',
          'Request information',
          'The submitter sees this message on the tracking page and can answer it.',
          html``,
          'What do you need from the submitter? (public)',
          true,
        ),
      );
    }
    if (record.status === 'accepted') {
      forms.push(
        actionForm(
          record,
          session,
          'apply',
          'Apply',
          'Merges the change into main and rebuilds the site; this page shows the progress until the change is visible.',
          assertionFields(record),
          'Public note (optional)',
        ),
      );
    }
    if (canTransition(record.status, 'declined')) {
      forms.push(
        actionForm(
          record,
          session,
          'decline',
          'Decline',
          'Closes the review; the catalog does not change. Say why in the note.',
          html``,
          'Why it is declined (public)',
        ),
      );
    }
  }
  const body = html`<p class="crumbs"><a href="/admin/queue">Review queue</a> › <code>${code}</code></p>
<h1>${kindWords(record.kind)} <code>${code}</code></h1>
${input.notice ? html`<p class="notice ok" role="status">${input.notice}</p>` : ''}
${input.error ? html`<p class="notice bad" role="alert" id="action-error">${input.error}</p>` : ''}
<p>Status: <strong class="status" data-status="${record.status}" id="item-status">${statusWords(record.status)}</strong>. ${STATUS_MEANINGS[record.status] ?? ''}</p>
<dl class="facts">
  <dt>Received</dt><dd><time datetime="${record.receivedAtUtc}">${record.receivedAtUtc}</time></dd>
  <dt>Last status change</dt><dd><time datetime="${record.updatedAtUtc}">${record.updatedAtUtc}</time></dd>
  <dt>Changed canonical data</dt><dd>${record.changedCanonicalData ? 'yes' : 'no'}</dd>
  ${record.kind === 'contribution' ? html`<dt>Operation</dt><dd>${labelOf(record.submission.operation)}</dd><dt>Submitted by</dt><dd>${record.submission.submittedBy.name} (${record.submission.submittedBy.kind})</dd>` : html`<dt>Work</dt><dd>${record.report.workSlug ?? record.report.targetType}</dd><dt>Field</dt><dd>${record.report.fieldName}</dd><dt>Current value</dt><dd class="text">${record.report.currentValue ?? 'none'}</dd><dt>Proposed value</dt><dd class="text" id="proposed-value">${record.report.proposedValue}</dd>`}
</dl>
${itemActionSection(input.action)}
${applyProgress(record, input.jsonHref)}
${links}
${
  review?.assertions
    ? html`<section aria-labelledby="asserted-h"><h2 id="asserted-h">What reviewers asserted</h2>
<p>By <strong>${review.assertions.actor ?? 'unrecorded key'}</strong> (reviewer name “${review.assertions.reviewer}”) at <time datetime="${review.assertions.atUtc}">${review.assertions.atUtc}</time>:</p>
<ul id="assertions">${Object.entries(review.assertions.assets).map(([i, st]) => html`<li>File ${i}: ${REVIEW_STATE_LABELS[st]}</li>`)}${review.assertions.arrangement ? html`<li>The arrangement: ${REVIEW_STATE_LABELS[review.assertions.arrangement]}</li>` : ''}</ul></section>`
    : ''
}
${problems.length > 0 ? html`<section aria-labelledby="problems-h"><h2 id="problems-h">Blockers and warnings</h2><ul class="problems">${problems}</ul></section>` : ''}
${impactSection(input.impact)}
<section aria-labelledby="diff-h"><h2 id="diff-h">Proposed change to the content repository</h2>${diffSection(input.diff, branchWords)}${input.diff ? '' : proposedChange(record)}</section>
${fileCount > 0 ? html`<section aria-labelledby="files-h"><h2 id="files-h">Contributor files</h2>${files}</section>` : ''}
<section aria-labelledby="history-h"><h2 id="history-h">History</h2>
<div class="table-wrap"><table id="history"><caption>Status history, oldest first (actor: the label of the admin key that acted, or the submitter answering)</caption>
<thead><tr><th scope="col">Status</th><th scope="col">When (UTC)</th><th scope="col">Actor</th><th scope="col">Note</th></tr></thead><tbody>${history}</tbody></table></div>
${
  actions.length > 0
    ? html`<div class="table-wrap"><table id="actions"><caption>Review actions, oldest first</caption>
<thead><tr><th scope="col">Action</th><th scope="col">When (UTC)</th><th scope="col">Actor</th><th scope="col">Reviewer name</th><th scope="col">Note</th><th scope="col">Outcome</th></tr></thead><tbody>${actions}</tbody></table></div>`
    : ''
}
</section>
<section aria-labelledby="submission-h"><h2 id="submission-h">The submission</h2>
${record.kind === 'contribution' ? html`<p class="summary text">${record.submission.changeSummary}</p>` : ''}
${readable(submission)}</section>
${forms.length > 0 ? html`<section aria-labelledby="actions-h" class="actions"><h2 id="actions-h">Actions</h2>${forms}</section>` : applying || acting ? '' : html`<p>No action is possible: “${statusWords(record.status)}” is final.</p>`}`;
  return page({
    title: `${code} (${statusWords(record.status)})`,
    session,
    body,
    refreshSeconds: applying || acting ? 3 : undefined,
  });
}

export { esc };
