/**
 * Every index file of one build, from its records: what the server loads instead of the records
 * (docs/decisions/0045-the-build-writes-the-indexes.md; docs/catalog.md). Pure: the build reads the records it just wrote and passes
 * them here; the 100,000-work bench passes records made by the domain code directly.
 *
 *   index/works.idx     listing order, slugs, one inverted index per search field
 *   index/summaries.json  each work's summary as JSON text, in listing order (read per page)
 *   index/resolve.idx   the resolve catalog's columns, word fields and role lists
 *   index/profiles.idx  each profile record's JSON text (the listing joins them)
 *   index/catalog.json  profile heads, instruments, counts (small)
 *   index/composers.json  the distinct composers (an incremental build links its base's)
 *
 * A layered build (src/domain/site-layers.ts) may keep, instead of works.idx and summaries.json,
 * `index/works-overlay.json`: the works changed since its plain base, laid over the base's listing
 * files when the server reads them (catalog.json `overlay`; works-overlay.ts).
 */
import { createHash } from 'node:crypto';
import type { WorkRecord } from '../../schemas/work.ts';
import type { InstrumentRecord, ProfileRecord } from '../../schemas/profile.ts';
import { workSummary } from '../records.ts';
import {
  encodeListing,
  encodeWorksIndex,
  listingEntry,
  orderWorks,
  type ListingEntry,
  type ListingFiles,
} from './works-index.ts';
import { encodeWorksOverlay, type WorksOverlay } from './works-overlay.ts';
import { SlugTable } from './slug-table.ts';
import { encodeResolveOverlay, type LaidResolve } from './resolve-overlay.ts';
import {
  buildResolveCatalog,
  distinctSorted,
  encodeResolveCatalog,
  meaningOf,
  resolveCatalogOfRows,
  resolveRowBuilder,
  slugTableOf,
  type GenresAndPeriods,
  type ResolveCatalog,
  type ResolveWorkRow,
} from '../resolve/catalog.ts';
import { encodeIndex } from './binary.ts';
import { profileHead, type ProfileHead } from './profiles.ts';

export const INDEX_DIR = 'index';
export const CATALOG_INDEX_FORMAT = 2;
/**
 * The distinct composers, in the order of their JSON text (review matches a new work's composer
 * against them), as a JSON array. Not first seen in slug order: that order moves with a new work,
 * while the set is the same for every incremental build (a change that adds or removes a composer
 * builds in full), so an incremental build's is its base's file, linked.
 */
export const COMPOSERS_FILE = 'composers.json';

/** A layered build's listing changes over its plain base's listing files (catalog.json `overlay`). */
export const WORKS_OVERLAY_FILE = 'works-overlay.json';
/** A layer's resolve rows over its plain base's resolve.idx (catalog.json `overlay.resolve`). */
export const RESOLVE_OVERLAY_FILE = 'resolve-overlay.json';

export interface CatalogIndexInput {
  records: WorkRecord[];
  profiles: ProfileRecord[];
  instruments: InstrumentRecord[];
}

/** The small part of the index, as JSON. */
export interface CatalogManifest {
  format: number;
  works: number;
  arrangements: number;
  /** Profiles in slug order, without their usage lists (the full records are in profiles.idx). */
  profiles: ProfileHead[];
  instruments: InstrumentRecord[];
  /**
   * Distinct composers, in a folder made before 2026-11-30 afternoon; since, in `composers.json`
   * (`COMPOSERS_FILE`), which an incremental build links from its base's rather than writing it
   * again (about 0.52 MB at 100,000 works).
   */
  composers?: WorkRecord['composer'][];
  /**
   * Works per genre and per period, keys sorted (an incremental build's resolve merge checks that
   * the catalog's genres and periods, which its meaning vocabulary is made from, stay the same,
   * without reading every record). Absent in a build made before 2026-11-27.
   */
  genres?: Record<string, number>;
  periods?: Record<string, number>;
  /**
   * The sha256 of this folder's works.idx (`worksDigestOf`), so an overlay can name the listing
   * it lies over and the server can check it without hashing 25 MB. Absent in a folder made
   * before 2026-11-30, and in one holding an overlay instead of works.idx.
   */
  worksDigest?: string;
  /**
   * Present when this folder holds no works.idx or summaries.json, but `works-overlay.json` over
   * those of `base`, a plain build folder beside this one whose catalog.json `worksDigest` is
   * `digest`. Everything else in the manifest is the whole catalog's, as in a full build. With
   * `resolve`, the folder holds no resolve.idx either but `resolve-overlay.json` (the resolve rows
   * of the overlay's works), laid over the base's resolve.idx when it is read
   * (src/domain/resolve/catalog-layer.ts).
   */
  overlay?: { base: string; digest: string; resolve?: true };
}

/** The identity of a works.idx (catalog.json `worksDigest`). */
export function worksDigestOf(worksIdx: Buffer): string {
  return createHash('sha256').update(worksIdx).digest('hex');
}

/**
 * The catalog.json of the full build an overlay's folder stands for: its own, without `overlay`,
 * naming the merged works.idx (the same bytes a full build of the same catalog writes).
 */
export function manifestWithout(overlaid: CatalogManifest, worksIdx: Buffer): Buffer {
  const { overlay: _overlay, worksDigest: _digest, ...rest } = overlaid;
  return manifestBytes({ ...rest, worksDigest: worksDigestOf(worksIdx) });
}

const manifestBytes = (manifest: CatalogManifest) => Buffer.from(`${JSON.stringify(manifest)}\n`);

/** Works per genre and per period (catalog.json `genres`, `periods`). */
export interface FacetCounts {
  genres: Record<string, number>;
  periods: Record<string, number>;
}

/** The counts of a list of records. */
export function facetCountsOf(records: readonly WorkRecord[]): FacetCounts {
  const counts: FacetCounts = { genres: {}, periods: {} };
  for (const r of records) {
    counts.genres[r.genre] = (counts.genres[r.genre] ?? 0) + 1;
    counts.periods[r.period] = (counts.periods[r.period] ?? 0) + 1;
  }
  return sortedCounts(counts);
}

/** Keys sorted, none at 0 (so equal counts are equal JSON). */
export function sortedCounts(counts: FacetCounts): FacetCounts {
  const sorted = (m: Record<string, number>) =>
    Object.fromEntries(
      Object.entries(m)
        .filter(([, n]) => n > 0)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    );
  return { genres: sorted(counts.genres), periods: sorted(counts.periods) };
}

/** Distinct composers in the order of their JSON text. */
export function distinctComposers(composers: Iterable<WorkRecord['composer']>): WorkRecord['composer'][] {
  const byKey = new Map<string, WorkRecord['composer']>();
  for (const c of composers) byKey.set(JSON.stringify(c), c);
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, c]) => c);
}

/** What the index files need besides the listing and resolve indexes, when the records are not at hand. */
export interface IndexParts {
  /** Every work's slug (any order), or the listing's own slug table (an incremental build's). */
  slugs: readonly string[] | SlugTable | { readonly count: number };
  composers: WorkRecord['composer'][];
  counts: FacetCounts;
  profiles: ProfileRecord[];
  instruments: InstrumentRecord[];
}

export interface IndexFiles {
  'works.idx': Buffer;
  'summaries.json': Buffer;
  'resolve.idx': Buffer;
  'profiles.idx': Buffer;
  'catalog.json': Buffer;
  'composers.json': Buffer;
  /** A layer's, instead of works.idx and summaries.json (`WORKS_OVERLAY_FILE`). */
  'works-overlay.json'?: Buffer;
  /** A layer's, instead of resolve.idx (`RESOLVE_OVERLAY_FILE`). */
  'resolve-overlay.json'?: Buffer;
}

/**
 * `options.resolve` and `options.works`: the resolve catalog, and the listing index and summaries
 * files with their slugs in listing order, of exactly these records, profiles and instruments when
 * the caller has them already (an incremental build merges them from its base's,
 * src/domain/catalog-index/merge-from-base.ts); otherwise they are built from the records. Either
 * way both must number the works alike (checked below). `options.overlay`: a layer's listing
 * overlay of these records over its plain base's listing files (`over`), written instead of them.
 */
export function buildIndexFiles(
  input: CatalogIndexInput,
  options: {
    resolve?: ResolveCatalog | undefined;
    works?: ListingFiles | undefined;
    overlay?: { overlay: WorksOverlay; over: NonNullable<CatalogManifest['overlay']> };
  } = {},
): IndexFiles | LayerIndexFiles {
  const bySlug = [...input.records].sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  for (let i = 1; i < bySlug.length; i++)
    if (bySlug[i]!.slug === bySlug[i - 1]!.slug) throw new Error(`two records have slug ${bySlug[i]!.slug}`);
  const profiles = sortProfiles(input.profiles);
  const parts = {
    slugs: bySlug.map((r) => r.slug),
    composers: distinctComposers(bySlug.map((r) => r.composer)),
    counts: facetCountsOf(bySlug),
    profiles,
    instruments: input.instruments,
  };
  const resolve = () => options.resolve ?? buildResolveCatalog(bySlug, profiles, input.instruments);
  if (options.overlay) return layerIndexFiles(parts, options.overlay.overlay, resolve(), options.overlay.over);
  const aliases = new Map(input.instruments.map((i) => [i.slug, i.aliases]));
  let works = options.works;
  if (!works) {
    const ordered = orderWorks(
      bySlug.map((record) => ({ record, summary: workSummary(record) })),
      aliases,
    );
    works = encodeWorksIndex(ordered);
  }
  return assembleIndexFiles(parts, works, resolve());
}

/**
 * `buildIndexFiles` of a catalog given one record at a time (`add`), keeping of each only what
 * the index files hold (its listing entry and resolve row), so a full build's index of 100,000
 * works does not hold every parsed record at once (about 1 GB: the index step's peak went from
 * 1.88 GB to 1.07 GB, measured alone in a fresh process; bench/README.md). The resolve rows
 * need the catalog's meaning vocabulary, made from its genres and periods: `expected` names them
 * (the build knows them from the catalog it rendered); when the records turn out to have others,
 * `rowsAgain()` says so and the caller gives every record again to `addRow` before `finish`.
 */
export class IndexFilesBuilder {
  readonly #profiles: ProfileRecord[];
  readonly #heads: Map<string, ProfileHead>;
  readonly #instruments: InstrumentRecord[];
  readonly #aliases: Map<string, string[]>;
  readonly #expected: GenresAndPeriods;
  #rowOf: (record: WorkRecord) => ResolveWorkRow;
  #rows: ResolveWorkRow[] = [];
  readonly #entries: ListingEntry[] = [];
  readonly #composers = new Map<string, WorkRecord['composer']>();
  readonly #counts: FacetCounts = { genres: {}, periods: {} };
  #again: GenresAndPeriods | null = null;

  constructor(catalog: Omit<CatalogIndexInput, 'records'> & { expected: GenresAndPeriods }) {
    this.#profiles = sortProfiles(catalog.profiles);
    this.#heads = new Map(this.#profiles.map((p) => [p.slug, profileHead(p)]));
    this.#instruments = catalog.instruments;
    this.#aliases = new Map(catalog.instruments.map((i) => [i.slug, i.aliases]));
    this.#expected = catalog.expected;
    this.#rowOf = this.#rowBuilder(catalog.expected);
  }

  #rowBuilder(of: GenresAndPeriods): (record: WorkRecord) => ResolveWorkRow {
    return resolveRowBuilder(this.#heads, this.#instruments, meaningOf(of, this.#instruments));
  }

  /** One work's record (any order). */
  add(record: WorkRecord): void {
    this.#entries.push(listingEntry({ record, summary: workSummary(record) }, this.#aliases));
    this.#rows.push(this.#rowOf(record));
    this.#composers.set(JSON.stringify(record.composer), record.composer);
    this.#counts.genres[record.genre] = (this.#counts.genres[record.genre] ?? 0) + 1;
    this.#counts.periods[record.period] = (this.#counts.periods[record.period] ?? 0) + 1;
  }

  /**
   * Once every record was added: whether the records' genres and periods are not the expected
   * ones, so every resolve row was made with another vocabulary. Then the rows made are dropped,
   * and every record must be given again, to `addRow`.
   */
  rowsAgain(): boolean {
    if (this.#again === null) {
      const seen = { genres: Object.keys(this.#counts.genres), periods: Object.keys(this.#counts.periods) };
      const of = { genres: distinctSorted(seen.genres), periods: distinctSorted(seen.periods) };
      if (JSON.stringify(of) !== JSON.stringify(this.#expected)) {
        this.#again = of;
        this.#rowOf = this.#rowBuilder(of);
        this.#rows = [];
      } else this.#again = this.#expected;
    }
    return this.#again !== this.#expected;
  }

  /** One record given again (after `rowsAgain`): its resolve row only. */
  addRow(record: WorkRecord): void {
    this.#rows.push(this.#rowOf(record));
  }

  /** The index files: the same bytes `buildIndexFiles` gives for these records, profiles and instruments. */
  finish(): IndexFiles {
    const of = this.rowsAgain() ? this.#again! : this.#expected;
    if (this.#rows.length !== this.#entries.length)
      throw new Error(`${this.#rows.length} resolve rows for ${this.#entries.length} works`);
    const works = encodeListing(this.#entries);
    const twice = works.slugs.duplicate();
    if (twice !== null) throw new Error(`two records have slug ${twice}`);
    const rows = this.#rows.sort((a, b) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0));
    const resolve = resolveCatalogOfRows(rows, this.#heads, meaningOf(of, this.#instruments));
    const parts = {
      slugs: works.slugs,
      composers: distinctComposers(this.#composers.values()),
      counts: sortedCounts(this.#counts),
      profiles: this.#profiles,
      instruments: this.#instruments,
    };
    return {
      ...listingFiles(works, resolve),
      ...catalogFiles(parts, resolve.arrangementCount, { worksDigest: worksDigestOf(works.index) }),
    };
  }
}

/** A layer's index files: its listing overlay instead of works.idx and summaries.json. */
export type LayerIndexFiles = Omit<IndexFiles, 'works.idx' | 'summaries.json' | 'works-overlay.json'> & {
  'works-overlay.json': Buffer;
};

/** A layer's index files from their parts, its listing overlay (over the plain base `over`) and its resolve catalog. */
export function layerIndexFiles(
  parts: IndexParts,
  overlay: WorksOverlay,
  resolve: ResolveCatalog,
  over: NonNullable<CatalogManifest['overlay']>,
): LayerIndexFiles {
  return {
    ...layerListingFiles(overlay, resolve),
    ...catalogFiles(parts, resolve.arrangementCount, { overlay: over }),
  };
}

/**
 * A layer's listing overlay and resolve files (`listingFiles` of a layer), checked: both hold the
 * same number of works (the overlay's are the base's less its tombstones plus its own).
 */
export function layerListingFiles(
  overlay: WorksOverlay,
  resolve: ResolveCatalog,
): Pick<LayerIndexFiles, 'works-overlay.json' | 'resolve.idx'> {
  const count = overlay.base.count - overlay.tombstones.length + overlay.works.length;
  if (count !== resolve.works.count)
    throw new Error(`the listing overlay holds ${count} works, the resolve catalog ${resolve.works.count}`);
  return { [WORKS_OVERLAY_FILE]: encodeWorksOverlay(overlay), 'resolve.idx': encodeResolveCatalog(resolve) };
}

/**
 * A layer's listing overlay and resolve rows (its resolve catalog laid over the plain base's when
 * read, not merged: catalog.json `overlay.resolve`), checked: both hold the same works.
 */
export function layerOverlayFiles(
  overlay: WorksOverlay,
  resolve: LaidResolve,
): Pick<IndexFiles, 'works-overlay.json' | 'resolve-overlay.json'> {
  const count = overlay.base.count - overlay.tombstones.length + overlay.works.length;
  if (count !== resolve.workCount)
    throw new Error(`the listing overlay holds ${count} works, the resolve overlay ${resolve.workCount}`);
  const rows = resolve.overlay.works;
  if (rows.length !== overlay.works.length || rows.some((r, k) => r.slug !== overlay.works[k]!.slug))
    throw new Error('the listing and resolve overlays do not hold the same works');
  return {
    [WORKS_OVERLAY_FILE]: encodeWorksOverlay(overlay),
    [RESOLVE_OVERLAY_FILE]: encodeResolveOverlay(resolve.overlay),
  };
}

/**
 * The index files from their parts, when the listing and resolve indexes were merged from a base
 * (an incremental build that did not read every record): the same bytes `buildIndexFiles` gives
 * for the same catalog.
 */
export function assembleIndexFiles(parts: IndexParts, works: ListingFiles, resolve: ResolveCatalog): IndexFiles {
  // The records' slugs against the listing's (in slug order): the same works. Nothing to compare
  // when the parts name the listing's own table.
  if (parts.slugs !== works.slugs) {
    const sorted = [...(parts.slugs as readonly string[])].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const listed = works.slugs;
    if (listed.count !== sorted.length || sorted.some((slug, r) => listed.at(listed.bySlug[r]!) !== slug))
      throw new Error(`the listing holds other works than the records (${listed.count} / ${sorted.length})`);
  }
  return {
    ...listingFiles(works, resolve),
    ...catalogFiles(parts, resolve.arrangementCount, { worksDigest: worksDigestOf(works.index) }),
  };
}

/**
 * The listing and resolve index files (all but a few megabytes of the index at 100,000 works),
 * checked: no slug twice, and both indexes numbering works in the same listing order. An
 * incremental build writes them beside the render (api/catalog/build-index.ts).
 */
export function listingFiles(
  works: ListingFiles,
  resolve: ResolveCatalog,
): Pick<IndexFiles, 'works.idx' | 'summaries.json' | 'resolve.idx'> {
  const twice = works.slugs.duplicate();
  if (twice !== null) throw new Error(`two records have slug ${twice}`);
  // Both indexes number works by listing order; they must agree work for work.
  if (!works.slugs.equals(slugTableOf(resolve))) {
    const at = Array.from({ length: works.slugs.count }, (_, i) => i).find(
      (i) => works.slugs.at(i) !== resolve.works.slugs.at(i),
    );
    throw new Error(
      at === undefined
        ? `listing and resolve orders disagree (${works.slugs.count} / ${resolve.works.count} works)`
        : `listing and resolve orders disagree at ${at}: ${works.slugs.at(at)} / ${resolve.works.slugs.at(at)}`,
    );
  }
  return {
    'works.idx': works.index,
    'summaries.json': works.summaries,
    'resolve.idx': encodeResolveCatalog(resolve),
  };
}

/**
 * The profiles and the small catalog file, from the catalog's profile and instrument records;
 * `listing`: the folder's works.idx digest, or the overlay it holds instead.
 */
export function catalogFiles(
  parts: IndexParts,
  arrangementCount: number,
  listing: ManifestListing,
): Pick<IndexFiles, 'profiles.idx' | 'catalog.json' | 'composers.json'> {
  const profiles = sortProfiles(parts.profiles);
  return {
    ...profilesFile(profiles),
    ...manifestFile({ ...parts, profiles: profiles.map(profileHead) }, arrangementCount, listing),
    ...composersFile(parts.composers),
  };
}

/** The profiles index (`profiles.idx`) of these profile records. */
export function profilesFile(profiles: ProfileRecord[]): Pick<IndexFiles, 'profiles.idx'> {
  return { 'profiles.idx': encodeProfiles(sortProfiles(profiles)) };
}

/** The composers file (`COMPOSERS_FILE`) of these distinct composers (`distinctComposers`). */
export function composersFile(composers: WorkRecord['composer'][]): Pick<IndexFiles, 'composers.json'> {
  return { [COMPOSERS_FILE]: Buffer.from(`${JSON.stringify(composers)}\n`) };
}

/** What a catalog.json says of its folder's listing: the digest of its works.idx, or the overlay it holds instead. */
export type ManifestListing = { worksDigest: string } | { overlay: NonNullable<CatalogManifest['overlay']> };

/**
 * The small catalog file alone, from the profiles' heads: for a build whose profile records are
 * all its base's, which links the base's profiles.idx instead of encoding the same bytes again
 * (and the composers file, written apart: `composersFile`).
 */
export function manifestFile(
  parts: Omit<IndexParts, 'profiles' | 'composers'> & { profiles: ProfileHead[] },
  arrangementCount: number,
  listing: ManifestListing,
): Pick<IndexFiles, 'catalog.json'> {
  const counts = sortedCounts(parts.counts);
  const manifest: CatalogManifest = {
    format: CATALOG_INDEX_FORMAT,
    works: 'count' in parts.slugs ? parts.slugs.count : parts.slugs.length,
    arrangements: arrangementCount,
    profiles: sortProfiles(parts.profiles),
    instruments: parts.instruments,
    genres: counts.genres,
    periods: counts.periods,
    ...listing,
  };
  return { 'catalog.json': manifestBytes(manifest) };
}

const sortProfiles = <T extends { slug: string }>(list: readonly T[]): T[] =>
  [...list].sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));

export const PROFILES_INDEX_FORMAT = 1;

/** Each profile record's JSON text, in slug order (offsets[k] .. offsets[k + 1]). */
function encodeProfiles(profiles: ProfileRecord[]): Buffer {
  const texts = profiles.map((p) => Buffer.from(JSON.stringify(p)));
  const offsets = new Uint32Array(texts.length + 1);
  texts.forEach((t, k) => (offsets[k + 1] = offsets[k]! + t.length));
  return encodeIndex(
    { kind: 'profiles', version: PROFILES_INDEX_FORMAT, count: profiles.length },
    { text: { bytes: Buffer.concat(texts) }, offsets },
  );
}
