/**
 * The catalog-wide orders of the site's works (by slug, by title, by composer), kept between the
 * builds of one process. The warm renderer's process (build/warm-render.ts) builds apply
 * after apply, and an unchanged work keeps its entry object from the build before
 * (src/lib/site-data.ts). An order that compares what entries hold is therefore still right for
 * every unchanged work: the next build keeps their order, sorts only the works whose entry is new,
 * and merges the two in one pass, instead of sorting the whole catalog again (at 10,000 works the
 * sorts were about 0.3 s of a scoped apply). The result equals a full sort whenever `compare` is a
 * total order over distinct entries; every order here ends on the slug, which is unique per work.
 */
import { fold } from '../../domain/text.ts';

const ORDERS = Symbol.for('pdma.build.keptOrders');
const FOLDED = Symbol.for('pdma.build.foldedEntries');
const shelf = globalThis as {
  [ORDERS]?: Map<string, object[]>;
  [FOLDED]?: WeakMap<object, { title: string; composer: string }>;
};

/** Beyond this share of new entries a plain sort is as cheap as the merge. */
const MERGE_AT_MOST = 0.25;

/**
 * `items` sorted by `compare`, reusing the order the last call with this `name` made for the
 * items whose entry (`entryOf`) it saw. Each entry must belong to one item.
 */
export function sortKept<T>(
  name: string,
  items: readonly T[],
  entryOf: (item: T) => object,
  compare: (a: T, b: T) => number,
): T[] {
  const orders = (shelf[ORDERS] ??= new Map());
  const sorted = mergeKept(orders.get(name), items, entryOf, compare) ?? [...items].sort(compare);
  orders.set(name, sorted.map(entryOf));
  return sorted;
}

function mergeKept<T>(
  last: object[] | undefined,
  items: readonly T[],
  entryOf: (item: T) => object,
  compare: (a: T, b: T) => number,
): T[] | null {
  if (last === undefined) return null;
  const byEntry = new Map<object, T>();
  for (const item of items) byEntry.set(entryOf(item), item);
  if (byEntry.size !== items.length) return null;
  const kept: T[] = [];
  for (const entry of last) {
    const item = byEntry.get(entry);
    if (item === undefined) continue;
    kept.push(item);
    byEntry.delete(entry);
  }
  // What is left was not in the last order: new works, or works whose content changed.
  if (byEntry.size > items.length * MERGE_AT_MOST) return null;
  const fresh = [...byEntry.values()].sort(compare);
  // Each new item's place among the kept ones by binary search (a kept item first on a tie), so a
  // correction costs about log2(n) comparisons, not one per kept item before its place (each a
  // locale comparison of folded titles: about 50,000 per order and apply at 100,000 works).
  const merged: T[] = new Array<T>(items.length);
  let from = 0;
  let k = 0;
  for (const item of fresh) {
    let lo = from;
    let hi = kept.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (compare(kept[mid]!, item) <= 0) lo = mid + 1;
      else hi = mid;
    }
    while (from < lo) merged[k++] = kept[from++]!;
    merged[k++] = item;
  }
  while (from < kept.length) merged[k++] = kept[from++]!;
  return merged;
}

/** An entry's title and composer sort name, folded (src/domain/text.ts), once per entry. */
export function foldedOf(entry: { title: string; composer: { sortName: string } }): {
  title: string;
  composer: string;
} {
  const kept = (shelf[FOLDED] ??= new WeakMap());
  let folded = kept.get(entry);
  if (folded === undefined) {
    folded = { title: fold(entry.title), composer: fold(entry.composer.sortName) };
    kept.set(entry, folded);
  }
  return folded;
}

/**
 * `sorted` (in `compare`'s order) without `removed` and with `added`, in the same order: what
 * sorting the new list gives when `compare` is a total order, found by binary search (a build
 * patched from the last: src/lib/site-data.ts, `siteDelta`). A new array; `sorted` is not
 * changed. Null when an item to remove is not where `compare` places it (the caller sorts).
 */
export function patchSorted<T>(
  sorted: readonly T[],
  removed: readonly T[],
  added: readonly T[],
  compare: (a: T, b: T) => number,
): T[] | null {
  const out = sorted.slice();
  for (const item of removed) {
    const at = lowerBound(out, item, compare);
    if (out[at] !== item) return null;
    out.splice(at, 1);
  }
  for (const item of added) {
    const at = lowerBound(out, item, compare);
    if (at < out.length && compare(out[at]!, item) === 0) return null;
    out.splice(at, 0, item);
  }
  return out;
}

/** The first place in `sorted` (in `compare`'s order) whose item does not sort before `probe`. */
export function lowerBound<T, P>(sorted: readonly T[], probe: P, compare: (a: T, b: P) => number): number {
  let lo = 0;
  let hi = sorted.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compare(sorted[mid]!, probe) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** `lowerBound`'s comparison of a loaded work with a slug (works in slug order: `knownSlugOrdered`). */
export const workToSlug = (w: { content: { slug: string } }, slug: string): number =>
  w.content.slug < slug ? -1 : w.content.slug > slug ? 1 : 0;
