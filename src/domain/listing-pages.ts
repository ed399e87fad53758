/**
 * Where the pages of a paged listing of works start (the works index, each browse value):
 * content-defined pages, so that adding or removing one work changes the page it is on and not
 * every page after it.
 *
 * Pages of a fixed size are slices by position: one new work near the start shifts every later
 * page's works by one, and an incremental build renders them all again (at 100,000 works, a new
 * work rendered about 2,280 listing pages: 4.1-4.4 s of a 6.5 s apply). Here a page starts at a work
 * whose slug's hash falls in a fixed fraction of the hash space (a "cut"), as content-defined
 * chunking cuts a file where a rolling hash does: whether a work starts a page depends on that
 * work alone and on the distance to the page start before it, never on its position in the
 * catalog. So a new work joins the page of the works around it, and the pages before and after
 * keep their works; only when the new work is itself a cut does its page split in two (about one
 * new work in `size`), and only when a removed work was a cut do two pages join.
 *
 * Bounds: a cut closer than `minPageWorks(size)` to the page's start is ignored (no page of one or
 * two works next to a full one), and a page that reaches `maxPageWorks(size)` without a cut ends
 * there. With those rules a page holds `size` works on average (the chance of a cut is chosen
 * for it) and never more than four times as many. The same works in the same order always give
 * the same pages, whatever the history that led to them: a full build and an incremental one agree.
 */

/** Works a page holds at least (the last page of a listing excepted): a quarter of the size. */
export function minPageWorks(size: number): number {
  return Math.floor(size / 4);
}

/** Works a page holds at most: four times the size. */
export function maxPageWorks(size: number): number {
  return size * 4;
}

/**
 * A 32-bit hash of a slug (FNV-1a over its UTF-16 code units, then MurmurHash3's finalizer so
 * that every bit depends on every character). Bounded by the slug's length (the catalog limits it).
 */
export function slugHash(slug: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < slug.length; i++) {
    h ^= slug.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/**
 * Whether a work with this slug may start a page in listings of `size` works per page: one slug
 * in `size - m + 1`, where m (at least 1) is the shortest page a cut may end, so that a page
 * averages `size` works (m - 1 works, then a cut after `size - m + 1` works on average).
 */
export function isCut(slug: string, size: number): boolean {
  const stride = size - Math.max(1, minPageWorks(size)) + 1;
  return slugHash(slug) % stride === 0;
}

/** Whether the work at `i`, `length` works after its page's start, starts the next page. */
function startsPage(
  length: number,
  slugAt: (index: number) => string,
  i: number,
  min: number,
  max: number,
  size: number,
): boolean {
  return length >= max || (length >= min && isCut(slugAt(i), size));
}

/**
 * The index of the first work of each page of a listing of `count` works in order (`slugAt(i)`
 * is the i-th work's slug): [0, ...], ascending, one entry per page (one page, starting at 0,
 * for an empty listing). O(count).
 */
export function pageStarts(count: number, slugAt: (index: number) => string, size: number): number[] {
  if (!Number.isInteger(size) || size < 1)
    throw new RangeError(`page size must be a whole number of at least 1 (got ${size})`);
  const min = minPageWorks(size);
  const max = maxPageWorks(size);
  const starts = [0];
  let start = 0;
  for (let i = 1; i < count; i++) {
    if (startsPage(i - start, slugAt, i, min, max, size)) {
      starts.push(i);
      start = i;
    }
  }
  return starts;
}

/** The works [from, to) of page `page` (1-based) given the listing's page starts and length. */
export function pageRange(starts: readonly number[], count: number, page: number): { from: number; to: number } {
  if (!Number.isInteger(page) || page < 1 || page > starts.length) return { from: 0, to: 0 };
  return { from: starts[page - 1]!, to: page < starts.length ? starts[page]! : count };
}

/**
 * How many items two listings share at their start and at their end, compared by identity (the
 * items are not read: at 100,000 works, following each work to its slug was most of the starts'
 * cost in a large heap). The two never overlap: prefix + suffix <= the shorter length.
 */
export function commonEnds<T>(before: readonly T[], after: readonly T[]): { prefix: number; suffix: number } {
  const shorter = Math.min(before.length, after.length);
  let prefix = 0;
  while (prefix < shorter && before[prefix] === after[prefix]) prefix++;
  let suffix = 0;
  while (suffix < shorter - prefix && before[before.length - 1 - suffix] === after[after.length - 1 - suffix]) suffix++;
  return { prefix, suffix };
}

/**
 * `pageStarts` of a listing that differs from one whose starts are known (`before`, over
 * `beforeCount` works) only between its first `prefix` and its last `suffix` works (`commonEnds`).
 * A start depends only on the start before it and the work at that place, so the starts before the
 * change are the old ones; from the change on the listing is scanned until a start falls where the
 * old listing had one (in the common end, shifted by the change in length), and the old starts
 * after it, shifted, finish it. The same result as `pageStarts` (checked by the unit tests); its
 * cost is the pages the change reaches, not the listing (O(count) at worst, as `pageStarts`).
 */
export function patchPageStarts(
  before: readonly number[],
  beforeCount: number,
  count: number,
  ends: { prefix: number; suffix: number },
  slugAt: (index: number) => string,
  size: number,
): number[] {
  if (!Number.isInteger(size) || size < 1)
    throw new RangeError(`page size must be a whole number of at least 1 (got ${size})`);
  const min = minPageWorks(size);
  const max = maxPageWorks(size);
  const shift = count - beforeCount;
  const tail = count - ends.suffix;
  const starts = [0];
  let k = 1;
  while (k < before.length && before[k]! < ends.prefix) starts.push(before[k++]!);
  let start = starts[starts.length - 1]!;
  for (let i = Math.max(1, ends.prefix); i < count; i++) {
    if (!startsPage(i - start, slugAt, i, min, max, size)) continue;
    starts.push(i);
    start = i;
    if (i < tail) continue;
    // In the common end: where the old listing had a start at the same work, the rest is the old one's.
    while (k < before.length && before[k]! < i - shift) k++;
    if (k < before.length && before[k]! === i - shift) {
      for (k++; k < before.length; k++) starts.push(before[k]! + shift);
      return starts;
    }
  }
  return starts;
}
