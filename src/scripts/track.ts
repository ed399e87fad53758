/// <reference lib="dom" />
/**
 * Client of the tracking page. The front server renders /track/{code} with the record already
 * in it (api/site/track-page.ts), so the page reads without JavaScript; this script looks the
 * code up itself only when the page came without it (a static server such as nginx answers
 * every /track/{code} with the same file). It reads the code from the path (or ?code= from the
 * form), fetches the public tracking record from the page's own origin (C- codes: contributions,
 * R- codes: correction reports) and shows status, history and the reviewers' notes in the same
 * words as the server (src/domain/contributions/tracking-words.ts). Every value is set as text.
 */
import {
  STATUS_MEANINGS,
  TRACKING_CODE,
  historyRows,
  notACodeMessage,
  statusWords,
  trackingApiPath,
  trackingFacts,
  unknownCodeMessage,
  type TrackingRecord,
} from '../domain/contributions/tracking-words.ts';

function el<K extends keyof HTMLElementTagNameMap>(
  tag: K,
  text?: string,
  attrs: Record<string, string> = {},
): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

function renderRecord(out: HTMLElement, t: TrackingRecord, jsonUrl: string): void {
  const statusLine = el('p', 'Status: ');
  statusLine.append(el('strong', statusWords(t.status), { 'data-status': t.status }));
  const facts = el('dl', undefined, { class: 'facts' });
  for (const f of trackingFacts(t, jsonUrl)) {
    facts.append(el('dt', f.term));
    const dd = el('dd');
    dd.append(f.href ? el('a', f.text, { href: f.href }) : f.text);
    facts.append(dd);
  }
  const table = el('table');
  table.append(el('caption', 'History, oldest first'));
  const head = el('tr');
  head.append(
    el('th', 'Status', { scope: 'col' }),
    el('th', 'When', { scope: 'col' }),
    el('th', 'Note', { scope: 'col' }),
  );
  const thead = el('thead');
  thead.append(head);
  table.append(thead);
  const body = el('tbody');
  for (const h of historyRows(t)) {
    const row = el('tr');
    row.append(el('td', h.status), el('td', h.when), el('td', h.note));
    body.append(row);
  }
  table.append(body);
  const wrap = el('div', undefined, { class: 'table-wrap' });
  wrap.append(table);
  out.replaceChildren(
    el('h2', `Tracking code ${t.trackingCode}`),
    statusLine,
    el('p', STATUS_MEANINGS[t.status] ?? ''),
    facts,
    wrap,
  );
}

async function main(): Promise<void> {
  const out = document.getElementById('track-result')!;
  const fromPath = decodeURIComponent(location.pathname.replace(/\/+$/, '').split('/').pop() ?? '');
  const code = (fromPath && fromPath !== 'track' ? fromPath : (new URLSearchParams(location.search).get('code') ?? ''))
    .trim()
    .toUpperCase();
  const input = document.getElementById('track-code') as HTMLInputElement | null;
  if (input) input.value = code;
  if (!code) return;
  // The front server already put this code's record (or its "unknown code" note) on the page.
  if (out.dataset.code === code) return;
  if (!TRACKING_CODE.test(code)) {
    out.replaceChildren(el('p', notACodeMessage(code), { class: 'notice bad' }));
    return;
  }
  const jsonUrl = new URL(trackingApiPath(code), location.origin).href;
  out.replaceChildren(el('p', `Looking up ${code} …`));
  const res = await fetch(jsonUrl, { headers: { Accept: 'application/json' } });
  const payload = (await res.json().catch(() => null)) as { data?: TrackingRecord; detail?: string } | null;
  if (res.ok && payload?.data) {
    renderRecord(out, payload.data, jsonUrl);
    document.title = `${code}: ${statusWords(payload.data.status)} · Public-Domain Music Archive`;
  } else if (res.status === 404) {
    out.replaceChildren(el('p', unknownCodeMessage(code), { class: 'notice bad' }));
  } else {
    out.replaceChildren(
      el('p', `The archive could not show ${code} (HTTP ${res.status}). ${payload?.detail ?? ''}`, {
        class: 'notice bad',
      }),
    );
  }
}

// A code typed into the form goes to its own address, /track/{code}, which can be shared.
document.getElementById('track-form')?.addEventListener('submit', (event) => {
  const form = event.currentTarget as HTMLFormElement;
  const code = String(new FormData(form).get('code') ?? '')
    .trim()
    .toUpperCase();
  if (!code) return;
  event.preventDefault();
  location.assign(
    new URL(encodeURIComponent(code), new URL(form.getAttribute('action') ?? '/track/', location.origin)).href,
  );
});

main().catch((err: unknown) => {
  const out = document.getElementById('track-result');
  if (out) out.textContent = `The tracking record could not be loaded (${(err as Error).message}).`;
});
