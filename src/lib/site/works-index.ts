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
import { existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { pageRange, pageStarts } from '../../domain/listing-pages.ts';
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

// Each listing's page starts, made once per listing array (the orders and a browse value's works
// are new arrays whenever they change: src/lib/site/kept-order.ts, patchSorted).
const STARTS = Symbol.for('pdma.build.listingPageStarts');
const startsShelf = globalThis as { [STARTS]?: WeakMap<readonly SiteWork[], number[]> };

/**
 * Where each page of a listing of works starts (index 0 is page 1): content-defined
 * (src/domain/listing-pages.ts), so a new work changes its own page only. Shared by the works
 * index and the browse values (browse-pages.ts).
 */
export function listingPageStarts(works: readonly SiteWork[]): number[] {
  const kept = (startsShelf[STARTS] ??= new WeakMap());
  let starts = kept.get(works);
  if (starts === undefined) {
    starts = pageStarts(works.length, (i) => works[i]!.entry.slug, WORKS_INDEX_PAGE_SIZE);
    kept.set(works, starts);
  }
  return starts;
}

/** The works of page `page` (1-based) of a listing. */
export function listingPageSlice<T extends SiteWork>(works: readonly T[], page: number): T[] {
  const { from, to } = pageRange(listingPageStarts(works), works.length, page);
  return works.slice(from, to);
}

/** How many pages one order of the works index has (one at least). */
export function worksIndexPageCount(sort: WorksIndexSort): number {
  return listingPageStarts(worksInOrder(sort)).length;
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
  return listingPageSlice(worksInOrder(sort), page);
}

/** The file a build keeps beside `client/`: the key of every works-index page, per order. */
export const WORKS_INDEX_KEYS_FILE = 'works-index-pages.json';

/** What a build keeps in WORKS_INDEX_KEYS_FILE: per order, the key of page 1, 2, ... */
export type WorksIndexKeys = Record<WorksIndexSort, string[]>;

// An entry's digest (the SHA-256 of its JSON), kept with the entry (entries outlive a build in the
// warm renderer's process: src/lib/site-data.ts). A page's key hashes its entries' digests, not
// their JSON: a new work shifts every page after its place in both orders of the works index
// and in its browse values, and hashing those pages' JSON again was about 1 s of its build at
// 100,000 works (32 bytes per entry instead of about 300).
const ENTRY_DIGEST = Symbol.for('pdma.build.entryDigest');
const digestShelf = globalThis as { [ENTRY_DIGEST]?: WeakMap<object, Buffer> };
function entryDigest(entry: object): Buffer {
  const kept = (digestShelf[ENTRY_DIGEST] ??= new WeakMap());
  let digest = kept.get(entry);
  if (digest === undefined) kept.set(entry, (digest = createHash('sha256').update(JSON.stringify(entry)).digest()));
  return digest;
}

/**
 * A listing's page keys as a run computed them: the summary, per page its entries and key, and how
 * many of the pages this run hashed (the others kept the last run's key).
 */
export type KeptPageKeys = { summary: string; pages: Array<{ entries: object[]; key: string }>; hashed: number };

/**
 * The key of every page of a paged listing of `works` (index 0 is page 1; the pages start where
 * `listingPageStarts` says): the SHA-256 of `summary` (what every page 2.. states besides its
 * works) and its slice's entries' digests (each the SHA-256 of the entry's JSON). A page whose
 * summary and entries (the same objects: src/lib/site-data.ts keeps an unchanged work's entry) are
 * the last run's (`last`) keeps the last run's key: only the pages a change reaches are hashed
 * again in the warm renderer's process. Shared by the works index and the browse values
 * (browse-pages.ts).
 */
export function pagedKeys(works: readonly SiteWork[], summary: string, last: KeptPageKeys | undefined): KeptPageKeys {
  const reuse = last !== undefined && last.summary === summary;
  const starts = listingPageStarts(works);
  let hashed = 0;
  const made = starts.map((from, i) => {
    const to = i + 1 < starts.length ? starts[i + 1]! : works.length;
    const before = reuse ? last.pages[i] : undefined;
    // Compared in place: slicing every page of every order to compare was most of the keys' cost.
    if (before && before.entries.length === to - from && before.entries.every((e, j) => e === works[from + j]!.entry))
      return before;
    const entries = works.slice(from, to).map((w) => w.entry);
    hashed++;
    const hash = createHash('sha256').update(summary);
    for (const entry of entries) hash.update(entryDigest(entry));
    return { entries, key: hash.digest('hex') };
  });
  return { summary, pages: made, hashed };
}

// The last run's page keys per order, with the entries each page hashed.
const PAGE_KEYS = Symbol.for('pdma.build.worksIndexPageKeys');
const keyShelf = globalThis as { [PAGE_KEYS]?: Map<WorksIndexSort, KeptPageKeys> };

/**
 * The key of every page of one order (index 0 is page 1): the SHA-256 of what a page 2.. reads
 * (WorksIndex.astro, WorkList.astro): the page count and its works' entries in order. Page 1,
 * which also states the total and the facet summary, is rendered by every run that renders the
 * listings. Two builds of the same code give a page 2.. the same bytes when its key is equal.
 */
export function worksIndexPageKeys(sort: WorksIndexSort): string[] {
  const works = worksInOrder(sort);
  const summary = JSON.stringify([listingPageStarts(works).length, WORKS_INDEX_PAGE_SIZE]);
  const made = pagedKeys(works, summary, keyShelf[PAGE_KEYS]?.get(sort));
  (keyShelf[PAGE_KEYS] ??= new Map()).set(sort, made);
  return made.pages.map((p) => p.key);
}

/**
 * Forget the page keys earlier runs kept (a full build, before its first run: they hold another
 * catalog's entries, which would stay in memory through the build for nothing).
 */
export function forgetWorksIndexPageKeys(): void {
  delete keyShelf[PAGE_KEYS];
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
  const file = path.join(outDir, WORKS_INDEX_KEYS_FILE);
  rmSync(file, { force: true });
  writeFileSync(file, `${JSON.stringify(out)}\n`);
  writtenKeys.remember(file, out);
  return out;
}

// The keys this process wrote last, for the next build, which starts from that folder.
const writtenKeys = new RememberedFile<WorksIndexKeys>();

/** A build's kept keys, or null when it kept none (built before 2026-11-27) or they do not read as keys. */
export function readWorksIndexKeys(buildDir: string): WorksIndexKeys | null {
  const kept = writtenKeys.recall(path.join(buildDir, WORKS_INDEX_KEYS_FILE));
  if (kept) return kept;
  try {
    const raw = JSON.parse(readFileSync(path.join(buildDir, WORKS_INDEX_KEYS_FILE), 'utf8')) as unknown;
    const ok = (v: unknown): v is string[] => Array.isArray(v) && v.every((k) => typeof k === 'string');
    if (typeof raw !== 'object' || raw === null) return null;
    const { title, composer } = raw as Record<string, unknown>;
    return ok(title) && ok(composer) ? { title, composer } : null;
  } catch {
    return null;
  }
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
