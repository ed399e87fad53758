/// <reference lib="dom" />
/**
 * Client of the tracking page. The front server answers every /track/{code} with the same
 * static page; this reads the code from the path (or ?code= from the form), fetches the public
 * tracking record (C- codes: contributions, R- codes: correction reports) and shows status,
 * history and the reviewers' notes. Every value is set as text.
 */

interface StatusChange {
  status: string;
  atUtc: string;
  note: string | null;
}
interface Tracking {
  trackingCode: string;
  kind: 'contribution' | 'correction-report';
  status: string;
  changedCanonicalData: boolean;
  receivedAtUtc: string;
  updatedAtUtc: string;
  history: StatusChange[];
  review: { kind: string; branch: string; url: string | null; openedAtUtc: string } | null;
  summary: Record<string, unknown>;
  links: Record<string, string | null>;
}

const CODE = /^[CR](-[2-9A-HJKMNP-Z]{4}){4}$/;

const MEANINGS: Record<string, string> = {
  pending: 'Received and waiting for a person to review it. Nothing in the catalog has changed.',
  'needs-information': 'A reviewer needs more information before deciding; see the notes in the history.',
  accepted: 'Accepted by a reviewer, but not applied yet: the catalog has not changed so far.',
  applied: 'Applied: the change is now part of the canonical record, its page and its JSON and Markdown records.',
  declined: 'Declined by a reviewer; the notes in the history say why. The catalog did not change.',
};

const SUMMARY_LABELS: Record<string, string> = {
  operation: 'Operation',
  schemaVersion: 'Contract',
  targetWorkSlug: 'Work',
  workSlug: 'Work',
  title: 'Title',
  assetCount: 'Assets submitted',
  submittedByKind: 'Submitted by',
  targetType: 'About',
  targetId: 'Item id',
  fieldName: 'Field',
};

const dateFormat = new Intl.DateTimeFormat('en-US', { dateStyle: 'long', timeStyle: 'short', timeZone: 'UTC' });
const when = (iso: string) => {
  const d = new Date(iso);
  return Number.isNaN(d.getTime()) ? iso : `${dateFormat.format(d)} UTC`;
};

function el<K extends keyof HTMLElementTagNameMap>(tag: K, text?: string, attrs: Record<string, string> = {}): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

function renderRecord(out: HTMLElement, t: Tracking, jsonUrl: string): void {
  const statusLine = el('p', 'Status: ');
  statusLine.append(el('strong', t.status, { 'data-status': t.status }));
  const facts = el('dl', undefined, { class: 'facts' });
  const add = (term: string, value: string | Node) => {
    facts.append(el('dt', term));
    const dd = el('dd');
    dd.append(value);
    facts.append(dd);
  };
  add('Tracks', t.kind === 'contribution' ? 'A contribution' : 'A correction report');
  add('Received', when(t.receivedAtUtc));
  add('Last change', when(t.updatedAtUtc));
  add('Changed canonical data', t.changedCanonicalData ? 'Yes' : 'Not yet');
  for (const [key, value] of Object.entries(t.summary ?? {})) {
    if (value === null || value === undefined || value === '') continue;
    add(SUMMARY_LABELS[key] ?? key, String(value));
  }
  if (t.review) {
    const review = t.review.url && /^https?:\/\//.test(t.review.url) ? el('a', `${t.review.kind} ${t.review.branch}`, { href: t.review.url }) : `${t.review.kind} ${t.review.branch} (in the archive's content repository)`;
    add('Review', review);
  }
  if (t.links?.work && /^https?:\/\//.test(t.links.work)) add('Work record', el('a', t.links.work, { href: t.links.work }));
  add('JSON', el('a', jsonUrl, { href: jsonUrl }));

  const table = el('table');
  table.append(el('caption', 'History, oldest first'));
  const head = el('tr');
  head.append(el('th', 'Status', { scope: 'col' }), el('th', 'When', { scope: 'col' }), el('th', 'Note', { scope: 'col' }));
  const thead = el('thead');
  thead.append(head);
  table.append(thead);
  const body = el('tbody');
  for (const h of t.history ?? []) {
    const row = el('tr');
    row.append(el('td', h.status), el('td', when(h.atUtc)), el('td', h.note ?? '—'));
    body.append(row);
  }
  table.append(body);
  const wrap = el('div', undefined, { class: 'table-wrap' });
  wrap.append(table);
  out.replaceChildren(el('h2', `Tracking code ${t.trackingCode}`), statusLine, el('p', MEANINGS[t.status] ?? ''), facts, wrap);
}

async function main(): Promise<void> {
  const out = document.getElementById('track-result')!;
  const page = document.getElementById('track-page')!;
  const fromPath = decodeURIComponent(location.pathname.replace(/\/+$/, '').split('/').pop() ?? '');
  const code = (fromPath && fromPath !== 'track' ? fromPath : new URLSearchParams(location.search).get('code') ?? '').trim().toUpperCase();
  const input = document.getElementById('track-code') as HTMLInputElement | null;
  if (input) input.value = code;
  if (!code) return;
  if (!CODE.test(code)) {
    out.replaceChildren(el('p', `“${code}” is not a tracking code. Codes look like R-7KQM-T4XH-R2PZ-9WNB (correction reports) or C-… (contributions).`, { class: 'notice bad' }));
    return;
  }
  const base = page.dataset.api ?? '';
  const jsonUrl = `${base}${code.startsWith('C-') ? '/api/v1/music/contributions/' : '/api/v1/correction-reports/'}${code}`;
  out.replaceChildren(el('p', `Looking up ${code} …`));
  const res = await fetch(jsonUrl, { headers: { Accept: 'application/json' } });
  const payload = (await res.json().catch(() => null)) as { data?: Tracking; detail?: string } | null;
  if (res.ok && payload?.data) {
    renderRecord(out, payload.data, jsonUrl);
    document.title = `${code}: ${payload.data.status} · Public-Domain Music Archive`;
  } else if (res.status === 404) {
    out.replaceChildren(el('p', `No contribution or correction report has the code ${code}. Check the code; it is case-insensitive.`, { class: 'notice bad' }));
  } else {
    out.replaceChildren(el('p', `The archive could not show ${code} (HTTP ${res.status}). ${payload?.detail ?? ''}`, { class: 'notice bad' }));
  }
}

// A code typed into the form goes to its own address, /track/{code}, which can be shared.
document.getElementById('track-form')?.addEventListener('submit', (event) => {
  const form = event.currentTarget as HTMLFormElement;
  const code = String(new FormData(form).get('code') ?? '').trim().toUpperCase();
  if (!code) return;
  event.preventDefault();
  location.assign(new URL(encodeURIComponent(code), form.action).href);
});

main().catch((err: unknown) => {
  const out = document.getElementById('track-result');
  if (out) out.textContent = `The tracking record could not be loaded (${(err as Error).message}).`;
});
