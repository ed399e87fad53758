/**
 * Every index file of one build, from its records: what the server loads instead of the records
 * (docs/architecture.md, "Indexes"). Pure: the build reads the records it just wrote and passes
 * them here; the 100,000-work bench passes records made by the domain code directly.
 *
 *   index/works.idx     listing order, summaries, one inverted index per search field
 *   index/resolve.idx   the resolve catalog's columns, word fields and role lists
 *   index/catalog.json  profiles, instruments, distinct composers, counts (small)
 */
import type { WorkRecord } from '../../schemas/work.ts';
import type { InstrumentRecord, ProfileRecord } from '../../schemas/profile.ts';
import { workSummary } from '../records.ts';
import { encodeWorksIndex, orderWorks } from './works-index.ts';
import { buildResolveCatalog, encodeResolveCatalog } from '../resolve/catalog.ts';

export const INDEX_DIR = 'index';
export const CATALOG_INDEX_FORMAT = 1;

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
  profiles: ProfileRecord[];
  instruments: InstrumentRecord[];
  /** Distinct composers, first seen in slug order (review matches a new work's composer against them). */
  composers: WorkRecord['composer'][];
}

export interface IndexFiles {
  'works.idx': Buffer;
  'resolve.idx': Buffer;
  'catalog.json': Buffer;
}

export function buildIndexFiles(input: CatalogIndexInput): IndexFiles {
  const bySlug = [...input.records].sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
  for (let i = 1; i < bySlug.length; i++) if (bySlug[i]!.slug === bySlug[i - 1]!.slug) throw new Error(`two records have slug ${bySlug[i]!.slug}`);
  const aliases = new Map(input.instruments.map((i) => [i.slug, i.aliases]));
  const ordered = orderWorks(
    bySlug.map((record) => ({ record, summary: workSummary(record) })),
    aliases,
  );
  const resolve = buildResolveCatalog(bySlug, input.profiles, input.instruments);
  // Both indexes number works by listing order; they must agree work for work.
  ordered.forEach((w, i) => {
    if (resolve.works.slugs[i] !== w.record.slug) throw new Error(`listing and resolve orders disagree at ${i}: ${w.record.slug} / ${resolve.works.slugs[i]}`);
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
    profiles: input.profiles,
    instruments: input.instruments,
    composers: [...composers.values()],
  };
  return {
    'works.idx': encodeWorksIndex(ordered),
    'resolve.idx': encodeResolveCatalog(resolve),
    'catalog.json': Buffer.from(`${JSON.stringify(manifest)}\n`),
  };
}
