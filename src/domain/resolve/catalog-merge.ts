/**
 * The resolve catalog of a changed catalog, from the base's loaded catalog and an overlay
 * (tombstones and insert positions from the works overlay, rows from the resolve overlay),
 * without reading or re-deriving any record: the base's columns and words are copied, tombstoned
 * works dropped, the overlay's rows merged in at their listing positions, the vocabulary
 * re-numbered, and the role lists and bound classes rebuilt. The result is what
 * `buildResolveCatalog` gives for the changed catalog (test/unit/resolve-overlay.test.ts compares
 * the index file bytes), provided the meaning vocabulary did not change (`buildResolveOverlay`
 * reports when it would).
 *
 * Cost: O(arrangements + their words) typed-array work plus the bound classes' sort (about 0.2 s
 * at 100,000 works), never per request. A layer does not pay it per apply: its rows are laid over
 * the base's catalog when read (catalog-layer.ts). It is paid where a plain folder is made from a
 * layer (the compaction, `materializeListing`) and where a layer follows a layer whose resolve
 * catalog had to be built whole (docs/decisions/0048-listing-overlay-over-a-plain-base.md).
 */
import { SlugTable } from '../catalog-index/slug-table.ts';
import type { WorksOverlay } from '../catalog-index/works-overlay.ts';
import type { ResolveOverlay } from '../catalog-index/resolve-overlay.ts';
import { Vocabulary } from './text-match.ts';
import {
  ROW_COLUMNS,
  invert,
  newColumns,
  newScratch,
  roleListsOf,
  slugTableOf,
  type ResolveCatalog,
  type ResolveWorkRow,
  type WordField,
} from './catalog.ts';

const WORK_FIELDS = ['title', 'composer'] as const;
const ARRANGEMENT_FIELDS = ['style', 'instrumentation', 'mood'] as const;

export function mergeResolveCatalog(
  base: ResolveCatalog,
  works: WorksOverlay,
  resolve: ResolveOverlay,
  /** The changed catalog's slug table when the caller made it already (the listing merge's: the same order). */
  slugTable?: SlugTable,
): ResolveCatalog {
  const count = base.works.count;
  if (works.base.count !== count)
    throw new Error(`resolve merge: the overlay lies over ${works.base.count} works, not ${count}`);
  const rows: ResolveWorkRow[] = resolve.works;
  if (rows.length !== works.works.length || rows.some((r, k) => r.slug !== works.works[k]!.slug))
    throw new Error('resolve merge: the works and resolve overlays do not hold the same works');
  const dead = new Uint8Array(count);
  for (const id of works.tombstones) dead[id] = 1;

  // Works in the changed catalog's order: a base order (>= 0) or ~k for overlay row k.
  const items: number[] = [];
  let next = 0;
  for (let b = 0; b < count; b++) {
    while (next < rows.length && works.works[next]!.insertAfter < b) items.push(~next++);
    if (!dead[b]) items.push(b);
  }
  while (next < rows.length) items.push(~next++);

  // The vocabulary: the base's words still used by a live work, and the overlay's words. Every
  // base word is used by some base work, so only a removed work's words can fall out of use: one
  // is kept as soon as a posting names a live work (most words' first posting does).
  const first = base.works.firstArrangement;
  const used = new Uint8Array(base.vocab.words.length).fill(1);
  const liveWork = (b: number) => !dead[b];
  const liveArrangement = (a: number) => !dead[base.arrangementWork[a]!];
  const stillUsed = (v: number) =>
    WORK_FIELDS.some((name) => anyPosting(base[name], v, liveWork)) ||
    ARRANGEMENT_FIELDS.some((name) => anyPosting(base[name], v, liveArrangement));
  for (const b of works.tombstones) {
    for (const name of WORK_FIELDS) {
      const f = base[name];
      for (let k = f.start[b]!; k < f.start[b + 1]!; k++) if (!stillUsed(f.ids[k]!)) used[f.ids[k]!] = 0;
    }
    for (const name of ARRANGEMENT_FIELDS) {
      const f = base[name];
      for (let k = f.start[first[b]!]!; k < f.start[first[b + 1]!]!; k++)
        if (!stillUsed(f.ids[k]!)) used[f.ids[k]!] = 0;
    }
  }
  const words = new Set<string>();
  base.vocab.words.forEach((w, id) => used[id] && words.add(w));
  for (const r of rows) {
    for (const w of r.title) words.add(w);
    for (const w of r.composer) words.add(w);
    for (const a of r.arrangements) for (const name of ARRANGEMENT_FIELDS) for (const w of a[name]) words.add(w);
  }
  const vocab = new Vocabulary(words);
  // Both vocabularies are sorted, so a base word's new id keeps its order among its item's ids.
  const renumber = new Int32Array(base.vocab.words.length).fill(-1);
  base.vocab.words.forEach((w, id) => used[id] && (renumber[id] = vocab.idOf(w)!));
  // The usual correction keeps every word: the base's ids are then the new ones.
  const sameIds = vocab.words.length === base.vocab.words.length && renumber.every((id, old) => id === old);

  const table =
    slugTable ??
    SlugTable.splice(
      slugTableOf(base),
      Int32Array.from(items),
      rows.map((r) => r.slug),
    );
  if (table.count !== items.length)
    throw new Error(`resolve merge: a slug table of ${table.count} works for ${items.length}`);
  // A table from the caller must put the overlay's works where this merge does (the listing and
  // resolve indexes number works alike); checked at the overlay's positions only.
  if (slugTable)
    items.forEach((it, order) => {
      if (it < 0 && table.at(order) !== rows[~it]!.slug)
        throw new Error(
          `resolve merge: the slug table has ${table.at(order)} at ${order}, the overlay ${rows[~it]!.slug}`,
        );
    });
  const workCount = items.length;
  const slugOrder = new Int32Array(workCount);
  table.bySlug.forEach((order, rank) => (slugOrder[order] = rank));
  const workFlags = new Uint8Array(workCount);
  const firstArrangement = new Int32Array(workCount + 1);
  let n = 0;
  items.forEach((it, order) => {
    firstArrangement[order] = n;
    workFlags[order] = it >= 0 ? base.works.flags[it]! : rows[~it]!.flags;
    n += it >= 0 ? first[it + 1]! - first[it]! : rows[~it]!.arrangements.length;
  });
  firstArrangement[workCount] = n;

  const arrangementWork = new Int32Array(n);
  const cols = newColumns(n);
  // Base works come in runs of consecutive orders (broken only by tombstones and overlay works):
  // each run's arrangements are one range of every base column.
  let runStart = -1;
  items.forEach((it, order) => {
    const at = firstArrangement[order]!;
    if (it >= 0) {
      if (runStart < 0) runStart = order;
      const nextItem = items[order + 1];
      if (nextItem !== it + 1) {
        const from = first[items[runStart]!]!;
        const to = first[it + 1]!;
        const into = firstArrangement[runStart]!;
        for (const name of ROW_COLUMNS) cols[name].set(base.cols[name].subarray(from, to), into);
        runStart = -1;
      }
    } else {
      rows[~it]!.arrangements.forEach((a, k) => {
        for (const name of ROW_COLUMNS) cols[name][at + k] = a[name];
      });
    }
    arrangementWork.fill(order, at, firstArrangement[order + 1]!);
    cols.slugOrder.fill(slugOrder[order]!, at, firstArrangement[order + 1]!);
  });

  /** A word field over the merged items (`perWork`: one item per work, else one per arrangement). */
  const field = (name: (typeof WORK_FIELDS)[number] | (typeof ARRANGEMENT_FIELDS)[number]): WordField => {
    const perWork = name === 'title' || name === 'composer';
    const old = base[name];
    const itemCount = perWork ? workCount : n;
    const start = new Int32Array(itemCount + 1);
    // Sizes first, then the ids straight into their array: no per-item lists for base works.
    const fresh: number[][] = [];
    let item = 0;
    let total = 0;
    for (const it of items) {
      if (it >= 0) {
        const from = perWork ? it : first[it]!;
        const to = perWork ? it + 1 : first[it + 1]!;
        for (let i = from; i < to; i++) start[++item] = total += old.start[i + 1]! - old.start[i]!;
      } else {
        const lists = perWork
          ? [rows[~it]![name as 'title' | 'composer']]
          : rows[~it]!.arrangements.map((a) => a[name as 'style' | 'instrumentation' | 'mood']);
        for (const list of lists) {
          const ids = vocab.idsOf(list);
          fresh.push(ids);
          start[++item] = total += ids.length;
        }
      }
    }
    const all = new Int32Array(total);
    let k = 0;
    let nextFresh = 0;
    for (let x = 0; x < items.length;) {
      const it = items[x]!;
      if (it < 0) {
        const lists = perWork ? 1 : rows[~it]!.arrangements.length;
        for (let l = 0; l < lists; l++) for (const id of fresh[nextFresh++]!) all[k++] = id;
        x++;
        continue;
      }
      // A run of consecutive base works: one range of the base's ids, copied, then renumbered.
      let end = x + 1;
      while (end < items.length && items[end] === items[end - 1]! + 1) end++;
      const last = items[end - 1]!;
      const from = old.start[perWork ? it : first[it]!]!;
      const to = old.start[perWork ? last + 1 : first[last + 1]!]!;
      all.set(old.ids.subarray(from, to), k);
      if (!sameIds) for (let p = k; p < k + to - from; p++) all[p] = renumber[all[p]!]!;
      k += to - from;
      x = end;
    }
    return { start, ids: all, ...invert(vocab.words.length, itemCount, start, all) };
  };

  return {
    works: { count: workCount, slugs: table, slugOrder, flags: workFlags, firstArrangement },
    arrangementWork,
    arrangementCount: n,
    cols,
    byRole: roleListsOf(cols, arrangementWork, n),
    profiles: base.profiles,
    vocab,
    meaning: base.meaning,
    style: field('style'),
    instrumentation: field('instrumentation'),
    mood: field('mood'),
    title: field('title'),
    composer: field('composer'),
    scratch: newScratch(workCount),
  };
}

/** Whether any posting of word `v` in `field` is an item `live` accepts (stops at the first). */
function anyPosting(field: WordField, v: number, live: (item: number) => boolean): boolean {
  for (let p = field.postingStart[v]!; p < field.postingStart[v + 1]!; p++) if (live(field.postings[p]!)) return true;
  return false;
}
