/**
 * An incremental build's index files from its base's (docs/review.md, "Index files in an
 * incremental build"): the changed works as an overlay over the base's decoded `works.idx` and
 * `resolve.idx` (`buildWorksOverlay`, `buildResolveOverlay`), merged into the listing index and
 * summaries file (`mergeWorksIndex`) and into the resolve catalog (`mergeResolveCatalog`). Each gives
 * what a build from every record gives (test/unit/works-overlay.test.ts and
 * test/unit/resolve-overlay.test.ts compare the bytes). Pure.
 *
 * The listing index needs nothing else. The resolve catalog also needs the meaning vocabulary, the
 * profiles' statuses and the instruments to be the base's: the vocabulary is made from the
 * catalog's genres and periods (a change that brings a new one or takes the last work of one away
 * changes it), and the rows read the profiles' statuses and the instruments' names, families and
 * aliases. When they differ, `resolve` is the reason, and the caller builds the resolve catalog
 * from the records as a full build does. A layer over a plain base whose resolve catalog is the
 * plain base's (or rows laid over it) merges nothing: its resolve rows are every work of its
 * listing overlay (`laidResolve`), laid over the plain base's catalog when read.
 */
import type { WorkRecord } from '../../schemas/work.ts';
import type { InstrumentRecord, ProfileRecord } from '../../schemas/profile.ts';
import { workSummary } from '../records.ts';
import { indexWork } from '../works-query.ts';
import type { ResolveCatalog } from '../resolve/catalog.ts';
import { mergeResolveCatalog } from '../resolve/catalog-merge.ts';
import { mergeWorksIndex, type ListingFiles, type WorksIndex } from './works-index.ts';
import { buildWorksOverlay, type WorksOverlay } from './works-overlay.ts';
import { buildResolveOverlay, type LaidResolve, type ResolveOverlay } from './resolve-overlay.ts';
import { SlugTable as SlugTableClass, type SlugTable, type WorkSlugs } from './slug-table.ts';
import type { ProfileHead } from './profiles.ts';
import { sortedCounts, type FacetCounts } from './index-files.ts';

export interface IndexBase {
  /**
   * The base's works: its listing order (its resolve catalog numbers works alike), or, for a base
   * whose resolve catalog is laid over its plain base's (catalog-layer.ts), only its slugs (then
   * the layer's `resolve` is given, and nothing is placed in the base's order).
   */
  works: { count: number; slugs: WorkSlugs };
  /**
   * The base's decoded works.idx and its summaries file, to merge the changed works into; null
   * when the base holds an overlay instead (then only a `LayerListing` can follow it).
   */
  listing: { index: WorksIndex; summaries: Buffer } | null;
  /** The base's decoded resolve.idx (or its layered catalog), and the profile heads and instruments of its catalog.json. */
  resolve: ResolveCatalog;
  profiles: ProfileHead[];
  instruments: InstrumentRecord[];
  /** The base's works per genre and period (its catalog.json, or counted from its records). */
  counts: FacetCounts;
  /**
   * The base's record of the work with listing id `id`, read on demand: placing a changed work
   * reads about log2(works) of them, never every record.
   */
  recordAt(id: number): WorkRecord;
  /** The base's versions of the changed works it has. */
  before: readonly WorkRecord[];
}

export interface IndexTarget {
  /** The new versions of the changed works that still exist. */
  changedRecords: readonly WorkRecord[];
  /** The slugs the change touched (added, edited or removed). */
  changed: ReadonlySet<string>;
  /** Read only for their statuses (`profileStatuses`). */
  profiles: ReadonlyArray<Pick<ProfileRecord, 'slug' | 'status'>>;
  instruments: InstrumentRecord[];
}

/**
 * A layered build's listing (src/domain/site-layers.ts): not merged, but the changed works laid
 * over its plain base's listing files as an overlay (works-overlay.ts), which holds every change
 * since that plain base (`previous`, the base's own overlay, plus this change).
 */
export interface LayerListing {
  /** The plain base's decoded works.idx, and its catalog.json `worksDigest`. */
  works: WorksIndex;
  digest: string;
  /** The plain base's listing sort key of its work `id` (read from its record: about log2(works) per changed work). */
  sortKeyAt(id: number): string;
  previous?: WorksOverlay;
  /**
   * When the base is the plain base itself, or a layer whose resolve catalog is laid over the
   * plain base's: the plain base's decoded resolve.idx and the base's resolve rows (null for the
   * plain base). The new layer then holds resolve rows too, every work of its listing overlay's,
   * instead of a merged resolve.idx (`LaidResolve`), when the meaning vocabulary, the instruments'
   * terms and the profiles' statuses are the base's.
   */
  resolve?: { plain: ResolveCatalog; previous: ResolveOverlay | null };
}

export interface MergedIndex<Listing = ListingFiles | { overlay: WorksOverlay }> {
  /** The listing files merged; or, with a `LayerListing`, the overlay over the plain base's. */
  works: Listing;
  resolve: ResolveCatalog | LaidResolve | { reason: string };
  /** The new catalog's works per genre and period. */
  counts: FacetCounts;
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/**
 * What the merge reads of the instruments: the terms the resolve catalog's vocabulary and
 * instrument expander are made from, and the aliases the listing index folds (the records' other
 * fields, work counts and profiles, change with the works). `mergeFromBase` gives the same result
 * for two instrument lists with the same terms (test/unit/merge-from-base.test.ts).
 */
export function instrumentTerms(list: readonly InstrumentRecord[]): unknown[] {
  return list.map(({ slug, name, family, aliases }) => [slug, name, family, aliases]);
}

/**
 * What the merge reads of the target's profiles: each one's status (the rows read the base's
 * profile heads; an arrangement counts as approved when its profiles all are).
 */
export function profileStatuses(list: ReadonlyArray<{ slug: string; status: string }>): unknown[] {
  return list.map((p) => [p.slug, p.status]).sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0));
}

/** The counts after the change: the base's, less the changed works' earlier versions, plus their new ones. */
export function countsAfter(
  base: FacetCounts,
  before: readonly WorkRecord[],
  after: readonly WorkRecord[],
): FacetCounts {
  const next: FacetCounts = { genres: { ...base.genres }, periods: { ...base.periods } };
  const add = (r: WorkRecord, n: number) => {
    next.genres[r.genre] = (next.genres[r.genre] ?? 0) + n;
    next.periods[r.period] = (next.periods[r.period] ?? 0) + n;
  };
  for (const r of before) add(r, -1);
  for (const r of after) add(r, 1);
  for (const m of [next.genres, next.periods])
    for (const [k, n] of Object.entries(m))
      if (n < 0) throw new Error(`the base's counts do not hold its records (${k}: ${n})`);
  return sortedCounts(next);
}

/** Throws when the base's index does not hold the base's records (the caller builds from the records). */
export function mergeFromBase(base: IndexBase, target: IndexTarget): MergedIndex<ListingFiles>;
export function mergeFromBase(base: IndexBase, target: IndexTarget, layer: LayerListing | undefined): MergedIndex;
export function mergeFromBase(base: IndexBase, target: IndexTarget, layer?: LayerListing): MergedIndex {
  const changed = target.changedRecords.filter((r) => target.changed.has(r.slug));
  const present = new Set(changed.map((r) => r.slug));
  for (const r of base.before)
    if (!target.changed.has(r.slug) || base.works.slugs.indexOf(r.slug) < 0)
      throw new Error(`the base's version of ${r.slug} is not a changed work of the base`);
  const removed = [...target.changed].filter((slug) => !present.has(slug) && base.works.slugs.indexOf(slug) >= 0);
  const names = new Map(target.instruments.map((i) => [i.slug, i.aliases]));
  const inputs = changed.map((record) => ({ record, summary: workSummary(record) }));
  const counts = countsAfter(base.counts, base.before, changed);
  const layerOverlay = (l: LayerListing) =>
    buildWorksOverlay({
      base: l.works,
      baseDigest: l.digest,
      baseSortKey: l.sortKeyAt,
      instrumentNames: names,
      ...(l.previous ? { previous: l.previous } : {}),
      changed: inputs,
      removed,
    });
  if (layer?.resolve) {
    // Nothing is placed in the base's own order: the rows lie over the plain base, as the listing does.
    const listing = layerOverlay(layer);
    return {
      works: { overlay: listing },
      resolve: laidResolve(base, target, changed, listing, counts, layer.resolve),
      counts,
    };
  }
  if (!(base.works.slugs instanceof SlugTableClass))
    throw new Error("the base's resolve catalog is laid over another's: its listing order is not at hand");
  const baseWorks = base.works as Pick<WorksIndex, 'count' | 'slugs'>;
  const sortKeys = new Map<number, string>();
  const overlay = buildWorksOverlay({
    base: baseWorks,
    baseDigest: 'incremental',
    baseSortKey: (id) => {
      let key = sortKeys.get(id);
      if (key === undefined) {
        const record = base.recordAt(id);
        if (record.slug !== base.works.slugs.at(id))
          throw new Error(`the base index names ${base.works.slugs.at(id)}, its record ${record.slug}`);
        key = indexWork(record, workSummary(record), names).sortKey;
        sortKeys.set(id, key);
      }
      return key;
    },
    instrumentNames: names,
    changed: inputs,
    removed,
  });
  if (layer) {
    const listing = layerOverlay(layer);
    return { works: { overlay: listing }, resolve: mergedResolve(base, target, changed, overlay, counts), counts };
  }
  if (base.listing === null) throw new Error('the base holds a listing overlay, not the files to merge into');
  const works = mergeWorksIndex(base.listing.index, base.listing.summaries, overlay);
  return { works, resolve: mergedResolve(base, target, changed, overlay, counts, works.slugs), counts };
}

/** Why the resolve rows of `changed` would not be what a fresh build holds (null: they would). */
function rowsDifferBecause(base: IndexBase, target: IndexTarget, counts: FacetCounts): string | null {
  if (!sameJson(instrumentTerms(base.instruments), instrumentTerms(target.instruments)))
    return 'the instruments changed';
  if (!sameJson(profileStatuses(base.profiles), profileStatuses(target.profiles))) return 'the profiles changed';
  const baseCounts = sortedCounts(base.counts);
  for (const field of ['genres', 'periods'] as const)
    if (!sameJson(Object.keys(baseCounts[field]), Object.keys(counts[field])))
      return `the catalog's ${field} changed (the meaning vocabulary is made from them)`;
  return null;
}

function mergedResolve(
  base: IndexBase,
  target: IndexTarget,
  changed: WorkRecord[],
  overlay: Parameters<typeof mergeResolveCatalog>[1],
  counts: FacetCounts,
  slugs?: SlugTable,
): ResolveCatalog | { reason: string } {
  const rows = changedRows(base, target, changed, counts, base.resolve.meaning);
  return 'reason' in rows ? rows : mergeResolveCatalog(base.resolve, overlay, rows, slugs);
}

/**
 * The resolve rows of `changed`, made against `meaning` (the base's, or the plain base's it was
 * laid over), or why they would not be what a fresh build holds.
 */
function changedRows(
  base: IndexBase,
  target: IndexTarget,
  changed: WorkRecord[],
  counts: FacetCounts,
  meaning: ResolveCatalog['meaning'],
): ResolveOverlay | { reason: string } {
  const because = rowsDifferBecause(base, target, counts);
  if (because !== null) return { reason: because };
  const { overlay, vocabularyChanges } = buildResolveOverlay({
    meaning,
    profiles: base.profiles,
    instruments: target.instruments,
    changed,
  });
  if (vocabularyChanges.length > 0) return { reason: `new vocabulary terms: ${vocabularyChanges.join(', ')}` };
  return overlay;
}

/**
 * A layer's resolve rows (`LaidResolve`): every work of its listing overlay `listing` (over the
 * plain base), the changed ones' rows made now, the others' the base's (`over.previous`), made
 * against the plain base's meaning vocabulary, which the base shares (it was laid over it too).
 */
function laidResolve(
  base: IndexBase,
  target: IndexTarget,
  changed: WorkRecord[],
  listing: WorksOverlay,
  counts: FacetCounts,
  over: NonNullable<LayerListing['resolve']>,
): LaidResolve | { reason: string } {
  const fresh = changedRows(base, target, changed, counts, over.plain.meaning);
  if ('reason' in fresh) return fresh;
  const rowOf = new Map([...(over.previous?.works ?? []), ...fresh.works].map((row) => [row.slug, row]));
  const works = listing.works.map((w) => {
    const row = rowOf.get(w.slug);
    if (!row) throw new Error(`the listing overlay holds ${w.slug}, which no resolve row describes`);
    return row;
  });
  const plain = over.plain;
  let arrangements = plain.arrangementCount;
  for (const id of listing.tombstones)
    arrangements -= plain.works.firstArrangement[id + 1]! - plain.works.firstArrangement[id]!;
  for (const row of works) arrangements += row.arrangements.length;
  return {
    overlay: { works },
    workCount: listing.base.count - listing.tombstones.length + listing.works.length,
    arrangementCount: arrangements,
  };
}
