/// <reference lib="dom" />
/**
 * The search page's client: queries the Pagefind index written after `astro build` (one record
 * per work, src/lib/site/search-index.ts; a large catalog's several indexes merged as one), with composer, genre and instrument filters. Pagefind
 * folds diacritics, so "dvorak" finds "Dvořák"; a catalog-number query ("Op. 18") is the index's
 * catalog filter, so it finds what the catalog API finds. Results are built with DOM calls; the excerpt Pagefind returns is
 * parsed inertly and only its text and <mark> highlights are kept. Without JavaScript the same
 * form asks /api/v1/works instead.
 */

interface PagefindResultData {
  url: string;
  excerpt: string;
  meta: Record<string, string | undefined>;
}
interface Pagefind {
  options(o: Record<string, unknown>): Promise<void>;
  mergeIndex(url: string): Promise<void>;
  init(): Promise<void>;
  filters(): Promise<Record<string, Record<string, number>>>;
  search(
    query: string | null,
    o?: { filters?: Record<string, string | { any: string[] }> },
  ): Promise<{ results: Array<{ id: string; data(): Promise<PagefindResultData> }> }>;
}

import { catalogQueryKey } from '../domain/catalog-numbers.ts';
import { namedComposers } from '../domain/works-query.ts';

const PAGE_SIZE = 20;
const FILTERS = ['composer', 'genre', 'instrument'] as const;

/** Pagefind's excerpt as text with its <mark> highlights, nothing else. */
function excerptNodes(html: string): Node[] {
  const doc = new DOMParser().parseFromString(`<p>${html}</p>`, 'text/html');
  const out: Node[] = [];
  for (const node of doc.body.firstChild?.childNodes ?? []) {
    if (node.nodeName === 'MARK') {
      const mark = document.createElement('mark');
      mark.textContent = node.textContent;
      out.push(mark);
    } else out.push(document.createTextNode(node.textContent ?? ''));
  }
  return out;
}

async function main(form: HTMLFormElement): Promise<void> {
  const input = form.querySelector<HTMLInputElement>('input[name="query"]')!;
  const status = document.getElementById('search-status')!;
  const list = document.getElementById('search-results') as HTMLOListElement;
  const more = document.getElementById('search-more') as HTMLButtonElement;
  const selects = Object.fromEntries(
    FILTERS.map((f) => [f, form.querySelector<HTMLSelectElement>(`select[name="${f}"]`)!]),
  );

  // Root-relative, so the index loads from this page's own origin whatever address it was built for.
  const bundle = new URL(form.dataset.pagefind!, location.origin);
  const pagefind = (await import(/* @vite-ignore */ bundle.href)) as Pagefind;
  await pagefind.options({ excerptLength: 24 });
  // A large catalog is indexed as several Pagefind indexes (src/lib/site/search-index.ts); the
  // primary one names the others in shards.json, and they are searched as one.
  const shardList = await fetch(new URL('shards.json', bundle)).catch(() => null);
  if (shardList?.ok) {
    const { shards } = (await shardList.json()) as { shards?: unknown };
    // All at once: each index's entry and metadata load in parallel (a catalog of N works has about
    // N / 1,000 of them); Pagefind keeps the indexes in the order they were asked for.
    if (Array.isArray(shards))
      await Promise.all(
        shards
          .slice(0, 1000)
          .filter((shard): shard is string => typeof shard === 'string')
          .map((shard) => pagefind.mergeIndex(new URL(shard, bundle).pathname)),
      );
  }
  await pagefind.init();

  // Offer only the filter values the index knows, with their counts.
  const known = await pagefind.filters();
  for (const f of FILTERS) {
    const select = selects[f]!;
    const values = known[f] ?? {};
    const chosen = select.value;
    for (const option of [...select.options]) if (option.value !== '' && !(option.value in values)) option.remove();
    for (const option of select.options)
      if (option.value !== '') option.textContent = `${option.value} (${values[option.value] ?? 0})`;
    select.value = chosen;
  }

  const params = new URLSearchParams(location.search);
  input.value = params.get('query') ?? params.get('q') ?? '';
  for (const f of FILTERS) if (params.get(f)) selects[f]!.value = params.get(f)!;

  let results: Awaited<ReturnType<Pagefind['search']>>['results'] = [];
  let shown = 0;
  let generation = 0;

  const render = async (from: number) => {
    const mine = generation;
    const slice = await Promise.all(results.slice(from, from + PAGE_SIZE).map((r) => r.data()));
    if (mine !== generation) return;
    for (const d of slice) {
      const li = document.createElement('li');
      const h = document.createElement('h2');
      const a = document.createElement('a');
      // Pagefind's URLs are root-relative: results open on the address the reader used.
      a.href = new URL(d.url, location.origin).href;
      a.textContent = d.meta.title ?? d.url;
      h.append(a);
      const by = document.createElement('p');
      by.className = 'muted';
      by.textContent = [d.meta.composer, d.meta.catalog].filter(Boolean).join(' · ');
      // The work's own summary reads better than an excerpt of name forms; the excerpt is shown
      // only when a work has no summary.
      const ex = document.createElement('p');
      if (d.meta.summary) ex.textContent = d.meta.summary;
      else ex.append(...excerptNodes(d.excerpt));
      li.append(h, by, ex);
      list.append(li);
    }
    shown = from + slice.length;
    more.hidden = shown >= results.length;
  };

  const run = async () => {
    const mine = ++generation;
    const query = input.value.trim();
    const filters: Record<string, string> = {};
    for (const f of FILTERS) if (selects[f]!.value) filters[f] = selects[f]!.value;
    const url = new URL(location.href);
    url.search = new URLSearchParams({ ...(query ? { query } : {}), ...filters }).toString();
    history.replaceState(null, '', url);
    if (!query && Object.keys(filters).length === 0) {
      results = [];
      list.replaceChildren();
      more.hidden = true;
      status.textContent = 'Type a title, composer, catalog number or instrument, or choose a filter.';
      return;
    }
    status.textContent = 'Searching …';
    // A query that is one catalog number ("Op. 18") finds the works with that whole number, by the
    // index's catalog filter: the same works the catalog API answers (src/domain/catalog-numbers.ts).
    const key = catalogQueryKey(query);
    // A composer the query names ("Wolf": Hugo Wolf) has their works listed first, then the rest
    // (as the catalog search lists them): asked for by the composer filter, then without it.
    const named = key || filters.composer ? [] : namedComposers(query, Object.keys(known.composer ?? {}));
    const found = key
      ? await pagefind.search(null, { filters: { ...filters, catalog: key } })
      : await pagefind.search(query || null, { filters });
    const first = named.length
      ? (await pagefind.search(query, { filters: { ...filters, composer: { any: named } } })).results
      : [];
    if (mine !== generation) return;
    const firstIds = new Set(first.map((r) => r.id));
    results = [...first, ...found.results.filter((r) => !firstIds.has(r.id))];
    list.replaceChildren();
    await render(0);
    if (mine !== generation) return;
    // Announced once the first results are on the page, so the count and the list agree.
    status.textContent =
      results.length === 0
        ? 'No works found. Try fewer words or another spelling.'
        : `${results.length} ${results.length === 1 ? 'work' : 'works'} found.`;
  };

  let timer: ReturnType<typeof setTimeout> | undefined;
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    clearTimeout(timer);
    void run();
  });
  input.addEventListener('input', () => {
    clearTimeout(timer);
    timer = setTimeout(() => void run(), 250);
  });
  for (const f of FILTERS) selects[f]!.addEventListener('change', () => void run());
  more.addEventListener('click', () => void render(shown));
  form.dataset.ready = 'true';
  await run();
}

const form = document.getElementById('search-form');
if (form instanceof HTMLFormElement) {
  main(form).catch((err: unknown) => {
    const status = document.getElementById('search-status');
    if (status)
      status.textContent = `Search is not available right now (${(err as Error).message}). The browse pages list every work.`;
  });
}
