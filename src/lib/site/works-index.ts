/**
 * The works index for people (/works/): every work, paged, in title or composer order. Pages
 * hold at most WORKS_INDEX_PAGE_SIZE works and a bounded facet summary, so no page grows with
 * the catalog; the two orders are sorted once per build (O(n log n)) and each page is a slice,
 * so the build of the index is linear in the number of pages.
 *
 * Addresses: title order /works/, /works/by-title/2/, ...; composer order /works/by-composer/,
 * /works/by-composer/2/, ... (`by-title` and `by-composer` are therefore not work slugs:
 * the catalog refuses them, src/domain/catalog.ts).
 */
import { buildScope, site, type SiteData, type SiteWork } from '../site-data.ts';
import { facets } from './facets.ts';
import { fold } from '../../domain/text.ts';

export const WORKS_INDEX_PAGE_SIZE = 100;
/** How many values of each facet a page names (the rest are on the browse page). */
export const WORKS_INDEX_FACET_VALUES = 12;
export const WORKS_INDEX_SORTS = ['title', 'composer'] as const;
export type WorksIndexSort = (typeof WORKS_INDEX_SORTS)[number];
export { WORKS_INDEX_RESERVED_SLUGS } from '../../domain/catalog.ts';

export function worksIndexHref(sort: WorksIndexSort, page: number): string {
  if (sort === 'title') return page === 1 ? '/works/' : `/works/by-title/${page}/`;
  return page === 1 ? '/works/by-composer/' : `/works/by-composer/${page}/`;
}

export function worksIndexPageCount(total: number): number {
  return Math.max(1, Math.ceil(total / WORKS_INDEX_PAGE_SIZE));
}

/** Title order: folded title, then composer sort name, then slug. */
function inTitleOrder(list: SiteWork[]): SiteWork[] {
  const keyed = list.map((w) => ({ w, title: fold(w.entry.title), composer: fold(w.entry.composer.sortName) }));
  keyed.sort(
    (a, b) =>
      a.title.localeCompare(b.title) ||
      a.composer.localeCompare(b.composer) ||
      a.w.entry.slug.localeCompare(b.w.entry.slug),
  );
  return keyed.map((k) => k.w);
}

const shelf = globalThis as { [k: symbol]: WeakMap<SiteData, SiteWork[]> | undefined };
const TITLE_ORDER = Symbol.for('pdma.build.worksByTitle');

/** Every work in one order, sorted once per build (shared by the Astro runs of a batched build). */
export function worksInOrder(sort: WorksIndexSort): SiteWork[] {
  if (sort === 'composer') return facets().works;
  const data = site();
  const kept = (shelf[TITLE_ORDER] ??= new WeakMap()).get(data);
  if (kept) return kept;
  const sorted = inTitleOrder(data.works);
  shelf[TITLE_ORDER].set(data, sorted);
  return sorted;
}

export function worksIndexSlice(sort: WorksIndexSort, page: number): SiteWork[] {
  return worksInOrder(sort).slice((page - 1) * WORKS_INDEX_PAGE_SIZE, page * WORKS_INDEX_PAGE_SIZE);
}

/**
 * The static paths of pages 2.. of one order. The index lists every work, so any change can move
 * works between its pages: it is rendered with the catalog-wide pages (every run but the
 * batches of a full build, which leave it to their last run).
 */
export function worksIndexPaths(sort: WorksIndexSort): Array<{ params: { page: string }; props: { page: number } }> {
  const scope = buildScope();
  if (scope !== null && scope.listings === 'named') return [];
  const pages = worksIndexPageCount(site().works.length);
  return Array.from({ length: pages - 1 }, (_, i) => ({ params: { page: String(i + 2) }, props: { page: i + 2 } }));
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
