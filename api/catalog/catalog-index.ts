/**
 * What the dynamic routes of one build search: the build's prebuilt index files
 * (`<build>/index/`, written by the build from its own records), loaded as typed arrays and
 * sorted string lists, plus full records read on demand. Loading reads three files and makes
 * views over them; no work is parsed, so a start or a swap costs milliseconds at any size
 * (docs/architecture.md, "Indexes").
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { InstrumentRecord } from '../../src/schemas/profile.ts';
import type { ProfileHead } from '../../src/domain/catalog-index/profiles.ts';
import type { WorkRecord } from '../../src/schemas/work.ts';
import { decodeIndex } from '../../src/domain/catalog-index/binary.ts';
import { decodeWorksIndex, type WorksIndex } from '../../src/domain/catalog-index/works-index.ts';
import {
  CATALOG_INDEX_FORMAT,
  INDEX_DIR,
  PROFILES_INDEX_FORMAT,
  type CatalogManifest,
} from '../../src/domain/catalog-index/index-files.ts';
import { decodeResolveCatalog, type ResolveCatalog } from '../../src/domain/resolve/catalog.ts';
import { WorkRecords } from './work-records.ts';
import { SiteView } from '../../src/lib/site/layers.ts';
import { SummaryFile } from './summaries.ts';
import { AnswerCache } from './answer-cache.ts';
import { DEFAULT_CACHE_BUDGETS, type CacheBudgets } from '../site/cache-budgets.ts';

export interface CatalogIndex {
  /** Listing order, slugs and the search fields' inverted indexes. */
  works: WorksIndex;
  /** Listing items, read per page from the summaries file. */
  summaries: SummaryFile;
  /** The resolve catalog (columns over the same order); full records come from `records`. */
  resolve: ResolveCatalog;
  /** Full work records, read on demand with a bounded cache. */
  records: WorkRecords;
  /** Profiles in slug order, without their usage lists (filtering, resolve). */
  profiles: ProfileHead[];
  /** Each profile's full record as JSON text, by the same position (GET /api/v1/profiles joins them). */
  profileTexts: Buffer[];
  /** Catalog listing answers already given for this build, by their parameters (bounded). */
  listingAnswers: AnswerCache;
  /** Resolve answers (their `data` as JSON text) already given for this build, by request body (bounded). */
  resolveAnswers: AnswerCache;
  /** Listing bodies already answered, by the positions they list (a handful of profiles: few distinct answers). */
  profileListings: Map<string, { body: Buffer; etag: string }>;
  instruments: InstrumentRecord[];
  /** Distinct composers of the catalog (review matches a new work's composer against them). */
  composers: WorkRecord['composer'][];
}

export class MissingIndexError extends Error {}

/** Yield to the event loop between the load's synchronous steps, so requests keep flowing during a swap. */
const breathe = () => new Promise<void>((resolve) => setImmediate(resolve));

export async function loadCatalogIndex(
  buildDir: string,
  budgets: Pick<CacheBudgets, 'recordBytes' | 'answerBytes'> = DEFAULT_CACHE_BUDGETS,
): Promise<CatalogIndex> {
  const dir = path.join(buildDir, INDEX_DIR);
  let manifestText: string;
  try {
    manifestText = await fs.readFile(path.join(dir, 'catalog.json'), 'utf8');
  } catch {
    throw new MissingIndexError(
      `${buildDir} has no index (${INDEX_DIR}/catalog.json); it was built by an older version: rebuild it`,
    );
  }
  const manifest = JSON.parse(manifestText) as CatalogManifest;
  if (manifest.format !== CATALOG_INDEX_FORMAT)
    throw new MissingIndexError(
      `${buildDir}: index format ${manifest.format}, expected ${CATALOG_INDEX_FORMAT}; rebuild it`,
    );
  const [worksFile, resolveFile, profilesFile] = await Promise.all(
    ['works.idx', 'resolve.idx', 'profiles.idx'].map((name) => fs.readFile(path.join(dir, name))),
  );
  await breathe();
  const works = decodeWorksIndex(decodeIndex(worksFile!, 'works.idx'));
  await breathe();
  const resolve = decodeResolveCatalog(decodeIndex(resolveFile!, 'resolve.idx'), manifest.profiles);
  const profiles = decodeIndex(profilesFile!, 'profiles.idx');
  if (profiles.meta.version !== PROFILES_INDEX_FORMAT || profiles.meta.count !== manifest.profiles.length)
    throw new MissingIndexError(`${buildDir}: profiles.idx does not match catalog.json; rebuild it`);
  const text = profiles.bytes('text');
  const offsets = profiles.u32('offsets');
  if (works.count !== manifest.works || resolve.works.count !== manifest.works) {
    throw new MissingIndexError(
      `${buildDir}: index files disagree on the number of works (${works.count}, ${resolve.works.count}, ${manifest.works}); rebuild it`,
    );
  }
  return {
    works,
    resolve,
    records: new WorkRecords(SiteView.open(buildDir), works, budgets.recordBytes),
    summaries: new SummaryFile(path.join(dir, 'summaries.json'), works),
    profiles: manifest.profiles,
    profileTexts: manifest.profiles.map((_, k) => text.subarray(offsets[k], offsets[k + 1])),
    profileListings: new Map(),
    listingAnswers: new AnswerCache(undefined, budgets.answerBytes),
    resolveAnswers: new AnswerCache(undefined, budgets.answerBytes),
    instruments: manifest.instruments,
    composers: manifest.composers,
  };
}
