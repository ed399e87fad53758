/**
 * Every index file of one build, from its records: what the server loads instead of the records
 * (docs/architecture.md, "Indexes"). Pure: the build reads the records it just wrote and passes
 * them here; the 100,000-work bench passes records made by the domain code directly.
 *
 *   index/works.idx     listing order, slugs, one inverted index per search field
 *   index/summaries.json  each work's summary as JSON text, in listing order (read per page)
 *   index/resolve.idx   the resolve catalog's columns, word fields and role lists
 *   index/profiles.idx  each profile record's JSON text (the listing joins them)
 *   index/catalog.json  profile heads, instruments, distinct composers, counts (small)
 */
import type { WorkRecord } from '../../schemas/work.ts';
import type { InstrumentRecord, ProfileRecord } from '../../schemas/profile.ts';
import { workSummary } from '../records.ts';
import { encodeWorksIndex, orderWorks } from './works-index.ts';
import { buildResolveCatalog, encodeResolveCatalog, type ResolveCatalog } from '../resolve/catalog.ts';
import { encodeIndex } from './binary.ts';
import { profileHead, type ProfileHead } from './profiles.ts';

export const INDEX_DIR = 'index';
export const CATALOG_INDEX_FORMAT = 2;

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
  /** Distinct composers, first seen in slug order (review matches a new work's composer against them). */
  composers: WorkRecord['composer'][];
}

export interface IndexFiles {
  'works.idx': Buffer;
  'summaries.json': Buffer;
  'resolve.idx': Buffer;
  'profiles.idx': Buffer;
  'catalog.json': Buffer;
}

/**
 * `options.resolve` and `options.works`: the resolve catalog, and the listing index and summaries
 * files with their slugs in listing order, of exactly these records, profiles and instruments when
 * the caller has them already (an incremental build merges them from its base's,
 * src/domain/catalog-index/merge-from-base.ts); otherwise they are built from the records. Either
 * way both must number the works alike (checked below).
 */
export function buildIndexFiles(
  input: CatalogIndexInput,
  options: { resolve?: ResolveCatalog; works?: { index: Buffer; summaries: Buffer; slugs: string[] } } = {},
): IndexFiles {
  const bySlug = [...input.records].sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  for (let i = 1; i < bySlug.length; i++)
    if (bySlug[i]!.slug === bySlug[i - 1]!.slug) throw new Error(`two records have slug ${bySlug[i]!.slug}`);
  const aliases = new Map(input.instruments.map((i) => [i.slug, i.aliases]));
  const ordered = options.works
    ? null
    : orderWorks(
        bySlug.map((record) => ({ record, summary: workSummary(record) })),
        aliases,
      );
  const listing = options.works?.slugs ?? ordered!.map((w) => w.record.slug);
  const listed = [...listing].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  if (listed.length !== bySlug.length || listed.some((slug, i) => slug !== bySlug[i]!.slug))
    throw new Error(`the listing holds other works than the records (${listed.length} / ${bySlug.length})`);
  const profiles = [...input.profiles].sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  const resolve = options.resolve ?? buildResolveCatalog(bySlug, profiles, input.instruments);
  // Both indexes number works by listing order; they must agree work for work.
  listing.forEach((slug, i) => {
    if (resolve.works.slugs.at(i) !== slug)
      throw new Error(`listing and resolve orders disagree at ${i}: ${slug} / ${resolve.works.slugs.at(i)}`);
  });
  const composers = new Map<string, WorkRecord['composer']>();
  for (const r of bySlug) {
    const key = JSON.stringify(r.composer);
    if (!composers.has(key)) composers.set(key, r.composer);
  }
  const manifest: CatalogManifest = {
    format: CATALOG_INDEX_FORMAT,
    works: bySlug.length,
    arrangements: resolve.arrangementCount,
    profiles: profiles.map(profileHead),
    instruments: input.instruments,
    composers: [...composers.values()],
  };
  const works = options.works ?? encodeWorksIndex(ordered!);
  return {
    'works.idx': works.index,
    'summaries.json': works.summaries,
    'resolve.idx': encodeResolveCatalog(resolve),
    'profiles.idx': encodeProfiles(profiles),
    'catalog.json': Buffer.from(`${JSON.stringify(manifest)}\n`),
  };
}

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
