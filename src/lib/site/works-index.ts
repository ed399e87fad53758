/**
 * The works index for people (/works/): every work, paged, in title or composer order. Pages
 * hold WORKS_INDEX_PAGE_SIZE works on average and at most four times as many, and a bounded facet
 * summary on page 1, so no page grows with the catalog; the two orders are sorted once per build
 * (O(n log n)) and each page is a slice, so the build of the index is linear in the number of pages.
 *
 * Addresses: title order /works/, /works/by-title/2/, ...; composer order /works/by-composer/,
 * /works/by-composer/2/, ... (`by-title` and `by-composer` are therefore not work slugs:
 * the catalog refuses them, src/domain/catalog.ts).
 *
 * Where each page starts is content-defined (src/domain/listing-pages.ts): a new or removed work
 * changes the page it is on, not the pages after it. Page 1 states the catalog's total and its
 * facet summary; pages 2.. state nothing catalog-wide but the page count (which changes only when
 * a page splits or two join), so that a new work leaves them alone.
 *
 * An incremental build renders only the pages whose inputs changed: every page has a key, the
 * SHA-256 of everything a page 2.. reads (the page count, its slice of works' entries), and a
 * build keeps the keys of all its pages beside `client/` (`works-index-pages.json`); the next
 * incremental build renders pages 2.. of an order only where its key differs from its base's. A
 * correction renders the page that shows the work (two, when it moves the work to another page);
 * a new or removed work, the page it is on, and every page 2.. of that order when the page count
 * changes (about one new or removed work in WORKS_INDEX_PAGE_SIZE).
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { commonEnds, pageRange, pageStarts, patchPageStarts } from '../../domain/listing-pages.ts';
import { RememberedFile } from '../file-identity.ts';
import { buildScope, site, siteDelta, type SiteData, type SiteWork } from '../site-data.ts';
import { facets } from './facets.ts';
import { foldedOf, patchSorted, sortKept } from './kept-order.ts';

/**
 * Works per page on average: 100, or ARCHIVE_WORKS_INDEX_PAGE_SIZE (1 to 1,000; a build setting,
 * read when the module loads: tests use small pages to have many of them). A page holds from a
 * quarter of it (the last page excepted) to four times it (src/domain/listing-pages.ts).
 */
export const WORKS_INDEX_PAGE_SIZE = pageSizeFrom(process.env.ARCHIVE_WORKS_INDEX_PAGE_SIZE);

export function pageSizeFrom(value: string | undefined): number {
  if (value === undefined || value === '') return 100;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1 || n > 1000)
    throw new Error(`ARCHIVE_WORKS_INDEX_PAGE_SIZE must be a whole number from 1 to 1000 (got "${value}")`);
  return n;
}
/** How many values of each facet a page names (the rest are on the browse page). */
export const WORKS_INDEX_FACET_VALUES = 12;
export const WORKS_INDEX_SORTS = ['title', 'composer'] as const;
export type WorksIndexSort = (typeof WORKS_INDEX_SORTS)[number];
export { WORKS_INDEX_RESERVED_SLUGS } from '../../domain/catalog.ts';

export function worksIndexHref(sort: WorksIndexSort, page: number): string {
  if (sort === 'title') return page === 1 ? '/works/' : `/works/by-title/${page}/`;
  return page === 1 ? '/works/by-composer/' : `/works/by-composer/${page}/`;
}

// Each listing's page starts and page keys as the last run made them, by listing ("works/title",
// "works/composer", "browse/<facet>/<value>"), with the listing they were made for. A run in the
// warm build process patches them from the last run's over the works that changed: the two
// listings are compared by identity (an unchanged work keeps its site work object and its entry:
// src/lib/site-data.ts; a listing is a new array whenever it changes: kept-order.ts, patchSorted),
// so no unchanged work is read. Reading every work's slug of both 100,000-work orders took about
// 0.1 s per apply in a CPU profile of the warm build process; comparing every page's entries to
// the last run's, about 0.03 s. A full build forgets them first (`forgetListingPages`).
const LISTINGS = Symbol.for('pdma.build.listingPages');
interface KeptListing {
  works: readonly SiteWork[];
  starts: number[];
}
interface KeyedListing extends KeptListing {
  summary: string;
  keys: string[];
}
const listingShelf = globalThis as {
  [LISTINGS]?: { starts: Map<string, KeptListing>; keys: Map<string, KeyedListing> };
};
const listingsKept = () => (listingShelf[LISTINGS] ??= { starts: new Map(), keys: new Map() });

/**
 * Where each page of a listing of works starts (index 0 is page 1): content-defined
 * (src/domain/listing-pages.ts), so a new work changes its own page only. `id` names the listing
 * across runs ("works/title", "browse/period/baroque", ...). Shared by the works index and the
 * browse values (browse-pages.ts).
 */
export function listingPageStarts(id: string, works: readonly SiteWork[]): number[] {
  const kept = listingsKept().starts;
  const last = kept.get(id);
  if (last?.works === works) return last.starts;
  const slugAt = (i: number) => works[i]!.entry.slug;
  const starts = last
    ? patchPageStarts(
        last.starts,
        last.works.length,
        works.length,
        commonEnds(last.works, works),
        slugAt,
        WORKS_INDEX_PAGE_SIZE,
      )
    : pageStarts(works.length, slugAt, WORKS_INDEX_PAGE_SIZE);
  kept.set(id, { works, starts });
  return starts;
}

/** The works of page `page` (1-based) of a listing. */
export function listingPageSlice<T extends SiteWork>(id: string, works: readonly T[], page: number): T[] {
  const { from, to } = pageRange(listingPageStarts(id, works), works.length, page);
  return works.slice(from, to);
}

/** Forget the starts and keys earlier runs kept for the listings whose id starts with `prefix`. */
export function forgetListingPages(prefix: string): void {
  const kept = listingShelf[LISTINGS];
  if (!kept) return;
  for (const map of [kept.starts, kept.keys])
    for (const id of [...map.keys()]) if (id.startsWith(prefix)) map.delete(id);
}

const orderId = (sort: WorksIndexSort) => `works/${sort}`;

/** How many pages one order of the works index has (one at least). */
export function worksIndexPageCount(sort: WorksIndexSort): number {
  return listingPageStarts(orderId(sort), worksInOrder(sort)).length;
}

/** Title order: folded title, then composer sort name, then slug (a total order: slugs are unique). */
function byTitle(a: SiteWork, b: SiteWork): number {
  const x = foldedOf(a.entry);
  const y = foldedOf(b.entry);
  return (
    x.title.localeCompare(y.title) || x.composer.localeCompare(y.composer) || a.entry.slug.localeCompare(b.entry.slug)
  );
}

const shelf = globalThis as { [k: symbol]: WeakMap<SiteData, SiteWork[]> | undefined };
const TITLE_ORDER = Symbol.for('pdma.build.worksByTitle');

/**
 * Every work in one order, sorted once per build (shared by the Astro runs of a batched build);
 * a build whose site data was patched from the last build's (src/lib/site-data.ts, `siteDelta`)
 * patches that build's title order.
 */
export function worksInOrder(sort: WorksIndexSort): SiteWork[] {
  if (sort === 'composer') return facets().works;
  const data = site();
  const orders = (shelf[TITLE_ORDER] ??= new WeakMap());
  const kept = orders.get(data);
  if (kept) return kept;
  const delta = siteDelta(data);
  const before = delta ? orders.get(delta.from) : undefined;
  const sorted =
    (before && delta && patchSorted(before, delta.removed, delta.added, byTitle)) ||
    sortKept('title', data.works, (w) => w.entry, byTitle);
  orders.set(data, sorted);
  return sorted;
}

export function worksIndexSlice(sort: WorksIndexSort, page: number): SiteWork[] {
  return listingPageSlice(orderId(sort), worksInOrder(sort), page);
}

/** The file a build keeps beside `client/`: the key of every works-index page, per order. */
export const WORKS_INDEX_KEYS_FILE = 'works-index-pages.json';

/** What a build keeps in WORKS_INDEX_KEYS_FILE: per order, the key of page 1, 2, ... */
export type WorksIndexKeys = Record<WorksIndexSort, string[]>;

// An entry's digest (the SHA-256 of its JSON), kept with the entry (entries outlive a build in the
// warm renderer's process: src/lib/site-data.ts). A page's key hashes its entries' digests, not
// their JSON: when a new work shifted every page after its place (before pages by content), hashing
// those pages' JSON again was about 1 s of its build at 100,000 works (32 bytes per entry instead
// of about 300); a full build still hashes every page.
const ENTRY_DIGEST = Symbol.for('pdma.build.entryDigest');
const digestShelf = globalThis as { [ENTRY_DIGEST]?: WeakMap<object, Buffer> };
function entryDigest(entry: object): Buffer {
  const kept = (digestShelf[ENTRY_DIGEST] ??= new WeakMap());
  let digest = kept.get(entry);
  if (digest === undefined) kept.set(entry, (digest = createHash('sha256').update(JSON.stringify(entry)).digest()));
  return digest;
}

/**
 * The key of every page of a paged listing (index 0 is page 1; the pages start where
 * `listingPageStarts` says): the SHA-256 of `summary` (what every page 2.. states besides its
 * works) and its works' entries' digests (each the SHA-256 of the entry's JSON), and how many
 * pages this call hashed. A page whose works are the last run's same works in the same order,
 * under the same summary, keeps the last run's key: only the pages a change reaches are hashed
 * again in the warm renderer's process. Shared by the works index and the browse values
 * (browse-pages.ts).
 */
export function pagedKeys(id: string, works: readonly SiteWork[], summary: string): { keys: string[]; hashed: number } {
  const starts = listingPageStarts(id, works);
  const kept = listingsKept().keys;
  const last = kept.get(id);
  if (last && last.works === works && last.summary === summary) return { keys: last.keys, hashed: 0 };
  const same = last !== undefined && last.summary === summary;
  const ends = same ? commonEnds(last.works, works) : { prefix: 0, suffix: 0 };
  const shift = works.length - (last?.works.length ?? 0);
  const lastEnd = (j: number) => (j + 1 < last!.starts.length ? last!.starts[j + 1]! : last!.works.length);
  let j = 0;
  let hashed = 0;
  const keys = starts.map((from, i) => {
    const to = i + 1 < starts.length ? starts[i + 1]! : works.length;
    if (same) {
      // Before the change, page i is the last run's page i when it ends where that one did.
      if (to <= ends.prefix && last.starts[i] === from && lastEnd(i) === to) return last.keys[i]!;
      // After it, the last run's page that started at the same work, shifted, when it ends alike.
      if (from >= works.length - ends.suffix) {
        while (j < last.starts.length && last.starts[j]! < from - shift) j++;
        if (j < last.starts.length && last.starts[j] === from - shift && lastEnd(j) === to - shift)
          return last.keys[j]!;
      }
    }
    hashed++;
    const hash = createHash('sha256').update(summary);
    for (let w = from; w < to; w++) hash.update(entryDigest(works[w]!.entry));
    return hash.digest('hex');
  });
  kept.set(id, { works, starts, summary, keys });
  return { keys, hashed };
}

/**
 * The key of every page of one order (index 0 is page 1): the SHA-256 of what a page 2.. reads
 * (WorksIndex.astro, WorkList.astro): the page count and its works' entries in order. Page 1,
 * which also states the total and the facet summary, is rendered by every run that renders the
 * listings. Two builds of the same code give a page 2.. the same bytes when its key is equal.
 */
export function worksIndexPageKeys(sort: WorksIndexSort): string[] {
  const works = worksInOrder(sort);
  const summary = JSON.stringify([listingPageStarts(orderId(sort), works).length, WORKS_INDEX_PAGE_SIZE]);
  return pagedKeys(orderId(sort), works, summary).keys;
}

/**
 * Forget the page keys earlier runs kept (a full build, before its first run: they hold another
 * catalog's entries, which would stay in memory through the build for nothing).
 */
export function forgetWorksIndexPageKeys(): void {
  forgetListingPages('works/');
}

/** Where a run leaves the keys and the pages it rendered, for the build script in the same process. */
const RENDERED = Symbol.for('pdma.build.worksIndexPages');
type RenderedPages = { keys: Partial<WorksIndexKeys>; rendered: Partial<Record<WorksIndexSort, number[]>> };
const store = globalThis as { [RENDERED]?: RenderedPages };

/** Forget what earlier runs of this process left (the build script, before a run). */
export function resetWorksIndexPages(): void {
  store[RENDERED] = { keys: {}, rendered: {} };
}

/** The keys of every page and the pages rendered (2..) by the runs since the last reset. */
export function worksIndexPagesOfRun(): RenderedPages {
  return store[RENDERED] ?? { keys: {}, rendered: {} };
}

/**
 * Write the keys the runs since the last reset computed into `outDir` (beside `client/`). Throws
 * when a run did not compute both orders' keys: the build rendered no works index.
 */
export function writeWorksIndexKeys(outDir: string): WorksIndexKeys {
  const { keys } = worksIndexPagesOfRun();
  if (!keys.title || !keys.composer) throw new Error('the Astro run computed no works-index page keys');
  const out: WorksIndexKeys = { title: keys.title, composer: keys.composer };
  writtenKeys.writeJson(path.join(outDir, WORKS_INDEX_KEYS_FILE), out);
  return out;
}

// The keys this process wrote last, for the next build, which starts from that folder.
const writtenKeys = new RememberedFile<WorksIndexKeys>();

/** A build's kept keys, or null when it kept none (built before 2026-11-27) or they do not read as keys. */
export function readWorksIndexKeys(buildDir: string): WorksIndexKeys | null {
  return writtenKeys.readJson(path.join(buildDir, WORKS_INDEX_KEYS_FILE), (raw) => {
    const ok = (v: unknown): v is string[] => Array.isArray(v) && v.every((k) => typeof k === 'string');
    if (typeof raw !== 'object' || raw === null) return null;
    const { title, composer } = raw as Record<string, unknown>;
    return ok(title) && ok(composer) ? { title, composer } : null;
  });
}

/**
 * The static paths of pages 2.. of one order. The index lists every work, so any change can move
 * works between its pages: it is rendered with the catalog-wide pages (every run but the
 * batches of a full build, which leave it to their last run). In an incremental build whose base
 * kept its keys (`scope.worksIndexBase`), only the pages whose key changed.
 */
export function worksIndexPaths(sort: WorksIndexSort): Array<{ params: { page: string }; props: { page: number } }> {
  const scope = buildScope();
  if (scope !== null && scope.listings === 'named') return [];
  const keys = worksIndexPageKeys(sort);
  const base = scope?.worksIndexBase?.[sort];
  const pages: number[] = [];
  for (let page = 2; page <= keys.length; page++) if (base?.[page - 1] !== keys[page - 1]) pages.push(page);
  const kept = (store[RENDERED] ??= { keys: {}, rendered: {} });
  kept.keys[sort] = keys;
  kept.rendered[sort] = pages;
  return pages.map((page) => ({ params: { page: String(page) }, props: { page } }));
}

/** Page numbers to link around `page`: the first, the last and three either side; null is a gap. */
export function pageWindow(page: number, pages: number): Array<number | null> {
  const wanted = new Set([1, pages]);
  for (let n = Math.max(1, page - 3); n <= Math.min(pages, page + 3); n++) wanted.add(n);
  const out: Array<number | null> = [];
  for (const n of [...wanted].sort((a, b) => a - b)) {
    const last = out.at(-1);
    if (typeof last === 'number' && n > last + 1) out.push(null);
    out.push(n);
  }
  return out;
}
