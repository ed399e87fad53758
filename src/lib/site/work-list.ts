/**
 * The items of a plain list of works (src/components/WorkList.astro), as HTML made once per work
 * entry. A browse page lists up to thousands of works, and a scoped apply renders every browse
 * page its changed work appears on: as Astro components the items were most of such a page's
 * 150-450 ms at 10,000 works. An entry (src/lib/site-data.ts) is kept between the builds of one
 * process while its work is unchanged, so each item's HTML is made once and joined after that.
 * The HTML is what Astro writes for the same markup: text escaped as Astro escapes it (& < > ' "),
 * attribute values as Astro writes them (& and ").
 */
import type { WorkEntry } from '../site-data.ts';
import { onSite } from './paths.ts';

const ITEMS = Symbol.for('pdma.build.workListItems');
const shelf = globalThis as {
  [ITEMS]?: WeakMap<WorkEntry, { baseUrl: string; withComposer?: string; withoutComposer?: string }>;
};

const TEXT = /[&<>'"]/g;
const TEXT_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', "'": '&#39;', '"': '&quot;' };

function text(value: string): string {
  return value.replace(TEXT, (c) => TEXT_ENTITIES[c]!);
}

function attribute(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/"/g, '&quot;');
}

function item(entry: WorkEntry, showComposer: boolean, baseUrl: string): string {
  let html = `<li><a href="${attribute(onSite(entry.html, baseUrl))}">${text(entry.title)}</a>`;
  if (entry.workNumber) html += `, ${text(entry.workNumber)}`;
  if (showComposer)
    html += ` — ${text(entry.composer.name)} <span class="muted">(${text(entry.composerLifeDates)})</span>`;
  return `${html}<br><small>${text(entry.summary)}</small></li>`;
}

/** The `<li>` items of these works' entries, in order. */
export function workListItems(entries: readonly WorkEntry[], showComposer: boolean, baseUrl: string): string {
  const kept = (shelf[ITEMS] ??= new WeakMap());
  let html = '';
  for (const entry of entries) {
    let made = kept.get(entry);
    if (made === undefined || made.baseUrl !== baseUrl) kept.set(entry, (made = { baseUrl }));
    if (showComposer) html += made.withComposer ??= item(entry, true, baseUrl);
    else html += made.withoutComposer ??= item(entry, false, baseUrl);
  }
  return html;
}
