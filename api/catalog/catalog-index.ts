/**
 * What the dynamic routes of one build search: the build's prebuilt index files
 * (`<build>/index/`, written by the build from its own records), loaded as typed arrays and
 * sorted string lists, plus full records read on demand. Loading reads three files and makes
 * views over them; no work is parsed, so a start or a swap costs milliseconds at any size
 * (docs/decisions/0045-the-build-writes-the-indexes.md; docs/catalog.md). A layered build's listing may be an overlay over its plain
 * base's listing files (api/catalog/index-layers.ts): those are read from the base's folder (and
 * kept decoded between swaps to layers over the same base) and the overlay laid over them.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { InstrumentRecord } from '../../src/schemas/profile.ts';
import type { ProfileHead } from '../../src/domain/catalog-index/profiles.ts';
import type { WorkRecord } from '../../src/schemas/work.ts';
import { decodeIndex } from '../../src/domain/catalog-index/binary.ts';
import { decodeWorksIndex } from '../../src/domain/catalog-index/works-index.ts';
import { layerWorks } from '../../src/domain/catalog-index/works-overlay.ts';
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
import { OverlaidListing, PlainListing, type WorksListing } from './listing.ts';
import {
  overlayBaseDir,
  readComposers,
  readListingBase,
  readResolveBase,
  readResolveOverlay,
  readWorksOverlay,
} from './index-layers.ts';
import { layerResolveCatalog, liveWorks } from '../../src/domain/resolve/catalog-layer.ts';
import type { WorksOverlay } from '../../src/domain/catalog-index/works-overlay.ts';
import { AnswerCache } from './answer-cache.ts';
import { DEFAULT_CACHE_BUDGETS, type CacheBudgets } from '../site/cache-budgets.ts';

export interface CatalogIndex {
  /** Listing pages: the search fields' inverted indexes, and the items read per page from the summaries file. */
  listing: WorksListing;
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
  // A layer's resolve rows lie over its plain base's resolve.idx (catalog.json `overlay.resolve`).
  const laid = manifest.overlay?.resolve === true;
  const profilesFile = await fs.readFile(path.join(dir, 'profiles.idx'));
  let composers: NonNullable<CatalogManifest['composers']>;
  try {
    ({ composers } = await readComposers(buildDir, manifest));
  } catch (err) {
    throw new MissingIndexError(`${buildDir}: its composers cannot be read: ${(err as Error).message}; rebuild it`);
  }
  await breathe();
  let listing: WorksListing;
  let worksOverlay: WorksOverlay | null = null;
  if (manifest.overlay) {
    let plain, overlay;
    try {
      plain = await readListingBase(overlayBaseDir(buildDir, manifest), manifest.overlay.digest);
      overlay = await readWorksOverlay(buildDir);
    } catch (err) {
      throw new MissingIndexError(`${buildDir}: its listing overlay cannot be read: ${(err as Error).message}`);
    }
    await breathe();
    worksOverlay = overlay;
    const view = layerWorks(plain.works, plain.digest, overlay);
    listing = new OverlaidListing(view, new SummaryFile(plain.summariesFile, plain.works));
  } else {
    const works = decodeWorksIndex(decodeIndex(await fs.readFile(path.join(dir, 'works.idx')), 'works.idx'));
    listing = new PlainListing(works, new SummaryFile(path.join(dir, 'summaries.json'), works));
  }
  await breathe();
  let resolve: ResolveCatalog;
  if (laid) {
    try {
      const { catalog: base } = await readResolveBase(overlayBaseDir(buildDir, manifest));
      const rows = await readResolveOverlay(buildDir);
      await breathe();
      resolve = layerResolveCatalog(base, worksOverlay!, rows, new Map(manifest.profiles.map((p) => [p.slug, p])));
    } catch (err) {
      listing.close();
      throw new MissingIndexError(`${buildDir}: its resolve overlay cannot be read: ${(err as Error).message}`);
    }
  } else if (manifest.overlay) {
    // A layer whose resolve catalog was merged (its rows could not be laid: docs/review.md).
    resolve = decodeResolveCatalog(
      decodeIndex(await fs.readFile(path.join(dir, 'resolve.idx')), 'resolve.idx'),
      manifest.profiles,
    );
  } else {
    // A plain build's, kept decoded: the layers over it lay their rows over the same catalog.
    try {
      resolve = (await readResolveBase(buildDir)).catalog;
    } catch (err) {
      listing.close();
      throw new MissingIndexError(`${buildDir}: its resolve index cannot be read: ${(err as Error).message}`);
    }
  }
  const profiles = decodeIndex(profilesFile, 'profiles.idx');
  if (profiles.meta.version !== PROFILES_INDEX_FORMAT || profiles.meta.count !== manifest.profiles.length)
    throw new MissingIndexError(`${buildDir}: profiles.idx does not match catalog.json; rebuild it`);
  const text = profiles.bytes('text');
  const offsets = profiles.u32('offsets');
  if (listing.count !== manifest.works || liveWorks(resolve) !== manifest.works) {
    listing.close();
    throw new MissingIndexError(
      `${buildDir}: index files disagree on the number of works (${listing.count}, ${liveWorks(resolve)}, ${manifest.works}); rebuild it`,
    );
  }
  return {
    listing,
    resolve,
    // The resolve catalog numbers the whole catalog's works in listing order, as works.idx does.
    records: new WorkRecords(
      SiteView.open(buildDir),
      { count: liveWorks(resolve), slugs: resolve.works.slugs },
      budgets.recordBytes,
    ),
    profiles: manifest.profiles,
    profileTexts: manifest.profiles.map((_, k) => text.subarray(offsets[k], offsets[k + 1])),
    profileListings: new Map(),
    listingAnswers: new AnswerCache(undefined, budgets.answerBytes),
    resolveAnswers: new AnswerCache(undefined, budgets.answerBytes),
    instruments: manifest.instruments,
    composers,
  };
}
