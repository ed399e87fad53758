/**
 * The tracking record in words, for people: what a status means, what each summary field is,
 * and readable values instead of the API's enum values ("A person assisted by AI", not
 * "AiAssisted"). One module for both renderings of /track/{code}: the front server's HTML (no
 * JavaScript needed, api/site/track-page.ts) and the page script (src/scripts/track.ts), so the
 * two never disagree. Pure: no DOM, no I/O.
 */

/** The public tracking record as the API answers it (ContributionTracking or CorrectionReportTracking). */
export interface TrackingRecord {
  trackingCode: string;
  kind: 'contribution' | 'correction-report';
  status: string;
  changedCanonicalData: boolean;
  receivedAtUtc: string;
  updatedAtUtc: string;
  history: Array<{ status: string; atUtc: string; note: string | null; action?: string; revisedSubmission?: boolean }>;
  review: { kind: string; branch: string; url: string | null; openedAtUtc: string } | null;
  summary: Record<string, unknown>;
  links: Record<string, string | null | undefined>;
  /** The latest apply (ApplyProgress); null until a reviewer applies it. */
  apply?: { state: string; requestedAtUtc: string; visibleAtUtc: string | null; failedAtUtc: string | null } | null;
}

export const TRACKING_CODE = /^[CR](-[2-9A-HJKMNP-Z]{4}){4}$/;

export const STATUS_MEANINGS: Record<string, string> = {
  pending: 'Received and waiting for a person to review it. Nothing in the catalog has changed.',
  'needs-information': 'A reviewer needs more information before deciding; see the notes in the history.',
  accepted: 'Accepted by a reviewer, but not applied yet: the catalog has not changed so far.',
  applied: 'Applied: the change is now part of the canonical record, its page and its JSON and Markdown records.',
  declined: 'Declined by a reviewer; the notes in the history say why. The catalog did not change.',
};

const SUMMARY_LABELS: Record<string, string> = {
  operation: 'Proposes',
  schemaVersion: 'Contract',
  targetWorkSlug: 'Work',
  workSlug: 'Work',
  title: 'Title',
  assetCount: 'Files submitted',
  submittedByKind: 'Submitted by',
  targetType: 'About',
  targetId: 'Item number',
  fieldName: 'Field',
};

const VALUE_WORDS: Record<string, Record<string, string>> = {
  submittedByKind: { Human: 'A person', AiAssisted: 'A person assisted by AI', AutomatedAgent: 'An automated agent' },
  operation: {
    'new-work': 'A new work',
    'metadata-revision': 'A correction of a work’s details',
    'source-score': 'A source score',
    'score-revision': 'A revised score',
    arrangement: 'An arrangement',
    performance: 'A performance (recording)',
    'rendering-profile': 'A rendering profile',
  },
  targetType: {
    work: 'The work itself',
    'source-asset': 'A source asset',
    arrangement: 'An arrangement',
    'arrangement-asset': 'A file of an arrangement',
    comment: 'A comment',
    video: 'A video',
    profile: 'A rendering profile',
  },
};

/** "needs-information" -> "needs information": a status as a person reads it. */
export function statusWords(status: string): string {
  return status.replace(/-/g, ' ');
}

const dateFormat = new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' });

/** "2026-11-23T08:00:00Z" -> "November 23, 2026 at 8:00 AM UTC". */
export function whenWords(iso: string): string {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${dateFormat.format(d)} UTC`;
}

export interface Fact {
  term: string;
  text: string;
  /** A web link for the value, when it has one (http/https only). */
  href?: string;
}

const web = (url: string | null | undefined): url is string => typeof url === 'string' && /^https?:\/\//.test(url);

/** The tracking record as headed lines of words: what both renderings show, in order. */
export function trackingFacts(t: TrackingRecord, jsonUrl: string): Fact[] {
  const facts: Fact[] = [
    { term: 'Tracks', text: t.kind === 'contribution' ? 'A contribution' : 'A correction report' },
    { term: 'Received', text: whenWords(t.receivedAtUtc) },
    { term: 'Last change', text: whenWords(t.updatedAtUtc) },
    { term: 'Changed canonical data', text: t.changedCanonicalData ? 'Yes' : 'Not yet' },
  ];
  if (t.apply) facts.push({ term: 'Publication', text: applyWords(t.apply) });
  for (const [key, value] of Object.entries(t.summary ?? {})) {
    if (value === null || value === undefined || value === '') continue;
    const raw = String(value);
    facts.push({ term: SUMMARY_LABELS[key] ?? key, text: VALUE_WORDS[key]?.[raw] ?? raw });
  }
  if (t.review) {
    const label =
      t.review.kind === 'pull-request'
        ? `Pull request (branch ${t.review.branch})`
        : `Branch ${t.review.branch} in the archive's content repository`;
    facts.push(
      web(t.review.url) ? { term: 'Review', text: label, href: t.review.url } : { term: 'Review', text: label },
    );
  }
  if (web(t.links?.work)) facts.push({ term: 'Work record', text: t.links.work, href: t.links.work });
  facts.push({ term: 'JSON', text: jsonUrl, href: jsonUrl });
  return facts;
}

/** The latest apply in words: being applied since, visible since, or failed (ApplyProgress). */
export function applyWords(a: NonNullable<TrackingRecord['apply']>): string {
  if (a.state === 'visible' && a.visibleAtUtc)
    return `Visible on the site since ${whenWords(a.visibleAtUtc)} (applied ${whenWords(a.requestedAtUtc)})`;
  if (a.state === 'failed')
    return `Could not be published${a.failedAtUtc ? ` (${whenWords(a.failedAtUtc)})` : ''}: nothing changed and the previous site keeps serving; a reviewer may apply it again`;
  return `Being applied since ${whenWords(a.requestedAtUtc)}: the change is being merged and the site rebuilt`;
}

/** The history rows, oldest first, in words. */
export function historyRows(t: TrackingRecord): Array<{ status: string; when: string; note: string }> {
  return (t.history ?? []).map((h) => ({
    status: h.action === 'answer' ? answerWords(h) : statusWords(h.status),
    when: whenWords(h.atUtc),
    note: h.note ?? '—',
  }));
}

/** An answer's row says who answered (the note is the submitter's message, public like a reviewer's note). */
function answerWords(h: { status: string; revisedSubmission?: boolean }): string {
  return `${statusWords(h.status)} (answered by the submitter${h.revisedSubmission ? ', with a revised submission' : ''})`;
}

/** The API address of a code's tracking record, root-relative (same origin as the page). */
export function trackingApiPath(code: string): string {
  return `${code.startsWith('C-') ? '/api/v1/music/contributions/' : '/api/v1/correction-reports/'}${code}`;
}

export const notACodeMessage = (code: string) =>
  `“${code}” is not a tracking code. Codes look like R-7KQM-T4XH-R2PZ-9WNB (correction reports) or C-… (contributions).`;
export const unknownCodeMessage = (code: string) =>
  `No contribution or correction report has the code ${code}. Check the code; it is case-insensitive.`;
