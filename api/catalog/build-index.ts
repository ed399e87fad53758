/**
 * Writes a build folder's index files (`<build>/index/`) from the records the build wrote into
 * `client/`, so the index can never disagree with the static records it points to. Runs in the
 * build's child process (scripts/build.ts), never on the server's request thread.
 */
import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { WorkRecord } from '../../src/schemas/work.ts';
import type { InstrumentRecord, ProfileRecord } from '../../src/schemas/profile.ts';
import {
  buildIndexFiles,
  COMPOSERS_FILE,
  profilesFile,
  composersFile,
  manifestFile,
  type ManifestListing,
  listingFiles,
  distinctComposers,
  facetCountsOf,
  type FacetCounts,
  CATALOG_INDEX_FORMAT,
  INDEX_DIR,
  type CatalogIndexInput,
  type CatalogManifest,
  type IndexFiles,
  layerListingFiles,
  layerOverlayFiles,
  worksDigestOf,
  IndexFilesBuilder,
} from '../../src/domain/catalog-index/index-files.ts';
import { decodeIndex } from '../../src/domain/catalog-index/binary.ts';
import { profileHead } from '../../src/domain/catalog-index/profiles.ts';
import { decodeWorksIndex } from '../../src/domain/catalog-index/works-index.ts';
import type { WorksOverlay } from '../../src/domain/catalog-index/works-overlay.ts';
import {
  decodeResolveCatalog,
  slugTableOf,
  type GenresAndPeriods,
  type ResolveCatalog,
} from '../../src/domain/resolve/catalog.ts';
import { layerResolveCatalog } from '../../src/domain/resolve/catalog-layer.ts';
import { mergeResolveCatalog } from '../../src/domain/resolve/catalog-merge.ts';
import type { LaidResolve } from '../../src/domain/catalog-index/resolve-overlay.ts';
import { workSummary } from '../../src/domain/records.ts';
import { indexWork } from '../../src/domain/works-query.ts';
import {
  ListingLayerError,
  materializeListing,
  overlayBaseDir,
  readComposers,
  readListingBase,
  readResolveBase,
  readResolveOverlay,
  readWorksOverlay,
  type ListingBase,
} from './index-layers.ts';
import { SiteView } from '../../src/lib/site/layers.ts';
import { RememberedFile } from '../../src/lib/file-identity.ts';
import {
  instrumentTerms,
  mergeFromBase,
  profileStatuses,
  type IndexBase,
  type LayerListing,
  type MergedIndex,
} from '../../src/domain/catalog-index/merge-from-base.ts';

async function readJson<T>(file: string): Promise<T> {
  return JSON.parse(await fs.readFile(file, 'utf8')) as T;
}

/** The work records of a build's view (slug order), all of them or those `include` accepts. */
export async function readWorkRecords(
  site: SiteView,
  include: (slug: string) => boolean = () => true,
): Promise<WorkRecord[]> {
  const records: WorkRecord[] = [];
  await eachRecord(workRecordFiles(site, include), (record) => records.push(record));
  return records;
}

/** The record files of a build's view (slug order), all of them or those `include` accepts. */
function workRecordFiles(site: SiteView, include: (slug: string) => boolean = () => true): string[] {
  const files: string[] = [];
  for (const slug of site.listDirs('api/v1/works')) {
    if (!include(slug)) continue;
    // A work a layer removed: its folder may still be in the base, its record is deleted.
    const file = site.locate(`api/v1/works/${slug}/index.json`);
    if (file !== null) files.push(file);
  }
  return files;
}

/** Each record of `files`, parsed, in their order. */
async function eachRecord(files: readonly string[], take: (record: WorkRecord) => void): Promise<void> {
  // In batches: thousands of records load quickly without opening thousands of files at once.
  for (let i = 0; i < files.length; i += 256) {
    const batch = await Promise.all(files.slice(i, i + 256).map((file) => readJson<{ data: WorkRecord }>(file)));
    for (const { data } of batch) take(data);
  }
}

/** The records of these works a build's view holds (a work it lacks is left out), looked up by slug. */
async function readWorkRecordsOf(site: SiteView, slugs: readonly string[]): Promise<WorkRecord[]> {
  const read = async (slug: string): Promise<WorkRecord[]> => {
    const file = site.locate(`api/v1/works/${slug}/index.json`);
    const text =
      file === null
        ? null
        : await fs.readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
            if (err.code === 'ENOENT') return null; // a work the base does not have
            throw err;
          });
    return text === null ? [] : [(JSON.parse(text) as { data: WorkRecord }).data];
  };
  const records: WorkRecord[] = [];
  // In batches, as readWorkRecords: a large scope does not open its files all at once.
  for (let i = 0; i < slugs.length; i += 256)
    for (const found of await Promise.all(slugs.slice(i, i + 256).map(read))) records.push(...found);
  return records.sort((a, b) => (a.slug < b.slug ? -1 : a.slug > b.slug ? 1 : 0));
}

/** The profile and instrument records of a build's view. */
async function readCatalogRecords(site: SiteView): Promise<Omit<CatalogIndexInput, 'records'>> {
  return { instruments: await readInstruments(site), profiles: await readProfileRecords(site) };
}

/**
 * The profile and instrument records of an incremental build's view. With `base`, `site` holds
 * only the pages the build rendered: a record it did not render is the base's (the profiles
 * themselves are shared inputs, so both name the same ones). `profiles` is null when the build
 * rendered no profile record: every one is the base's, unchanged, and none is read (a few
 * profile records list every work that uses them: about 8 MB at 100,000 works).
 */
async function readCatalogRecordsOver(
  site: SiteView,
  base: SiteView | undefined,
): Promise<{ instruments: InstrumentRecord[]; profiles: ProfileRecord[] | null }> {
  const instruments = await readInstruments(site, base);
  if (base) {
    let own = false;
    for (const slug of site.listDirs('api/v1/profiles'))
      if ((await ownFile(site, `api/v1/profiles/${slug}/index.json`)) !== null) own = true;
    if (!own) return { instruments, profiles: null };
  }
  return { instruments, profiles: await readProfileRecords(site, base) };
}

async function readInstruments(site: SiteView, base?: SiteView): Promise<InstrumentRecord[]> {
  const file = await recordFile(site, base, 'api/v1/instruments/index.json');
  return (await readJson<{ data: { instruments: InstrumentRecord[] } }>(file)).data.instruments;
}

async function ownFile(site: SiteView, rel: string): Promise<string | null> {
  const own = site.locate(rel);
  return own !== null && (await fs.stat(own).catch(() => null)) ? own : null;
}

/** A record file of the view, or of `base` when the view does not hold it. */
async function recordFile(site: SiteView, base: SiteView | undefined, rel: string): Promise<string> {
  const own = await ownFile(site, rel);
  if (own !== null) return own;
  const theirs = base?.locate(rel) ?? null;
  if (theirs === null) throw new Error(`${rel} is not in the build`);
  return theirs;
}

async function readProfileRecords(site: SiteView, base?: SiteView): Promise<ProfileRecord[]> {
  const profiles: ProfileRecord[] = [];
  const slugs = new Set(site.listDirs('api/v1/profiles'));
  if (base) for (const slug of base.listDirs('api/v1/profiles')) slugs.add(slug);
  for (const slug of [...slugs].sort())
    profiles.push(
      (await readJson<{ data: ProfileRecord }>(await recordFile(site, base, `api/v1/profiles/${slug}/index.json`)))
        .data,
    );
  return profiles;
}

/** An index file the same as one of the base's: hard-linked from it, or, when that fails, written from `bytes`. */
export interface LinkedIndexFile {
  from: string;
  bytes: () => Promise<Buffer>;
}

/**
 * Write the index files into `<buildDir>/index`, replacing any there in one rename; `staged`: a
 * staging folder already holding the others (`stageIndexFiles`); `linked`: files linked from the
 * base's instead of written.
 */
export async function writeIndexFiles(
  buildDir: string,
  files: Partial<IndexFiles>,
  staged?: string,
  linked: Partial<Record<keyof IndexFiles, LinkedIndexFile>> = {},
): Promise<void> {
  const target = path.join(buildDir, INDEX_DIR);
  const staging = staged ?? (await stageIndexFiles(buildDir, {}, { makeBuildDir: true }));
  for (const [name, bytes] of Object.entries(files)) await fs.writeFile(path.join(staging, name), bytes);
  for (const [name, file] of Object.entries(linked)) {
    const to = path.join(staging, name);
    // The base's file gone meanwhile (its folder compacted away), or another filesystem: written instead.
    await fs.link(file.from, to).catch(async () => fs.writeFile(to, await file.bytes()));
  }
  const old = `${staging}-old`;
  await fs.rename(target, old).catch(() => undefined);
  await fs.rename(staging, target);
  await fs.rm(old, { recursive: true, force: true });
}

/**
 * A staging folder in `buildDir` holding `files` (the rest of the index files are added, and the
 * folder renamed into place, by `writeIndexFiles`).
 */
async function stageIndexFiles(
  buildDir: string,
  files: Partial<IndexFiles>,
  options: { makeBuildDir: boolean },
): Promise<string> {
  const staging = path.join(buildDir, `.${INDEX_DIR}-${process.pid}-${Date.now()}-${++stagings}`);
  // Beside the render, the build folder is not made: one removed meanwhile (its build failed) stays gone.
  await fs.mkdir(staging, { recursive: options.makeBuildDir });
  for (const [name, bytes] of Object.entries(files)) await fs.writeFile(path.join(staging, name), bytes);
  return staging;
}
let stagings = 0;

/**
 * Index a build folder from its own records; returns the number of works indexed. The records are
 * read and parsed in batches and each is let go once the index builder took what it keeps
 * (`IndexFilesBuilder`), so the catalog's records (about 1 GB parsed at 100,000 works) are never
 * in memory at once. `expected`: the catalog's genres and periods, when the caller knows them;
 * otherwise, or when the records have others, every record is read a second time for its resolve row.
 */
export async function indexBuild(
  buildDir: string,
  expected?: GenresAndPeriods,
): Promise<{ works: number; durationMs: number; recordsReadAgain?: true }> {
  const started = Date.now();
  const site = SiteView.open(buildDir);
  const builder = new IndexFilesBuilder({
    ...(await readCatalogRecords(site)),
    expected: expected ?? { genres: [], periods: [] },
  });
  const files = workRecordFiles(site);
  await eachRecord(files, (record) => builder.add(record));
  const again = builder.rowsAgain();
  if (again) await eachRecord(files, (record) => builder.addRow(record));
  await writeIndexFiles(buildDir, builder.finish());
  return { works: files.length, durationMs: Date.now() - started, ...(again ? { recordsReadAgain: true } : {}) };
}

/**
 * An incremental build's index (build/plan.ts, a plan with a base), in a worker thread so that it
 * overlaps the build's other steps: `start` reads the base build's records of the works the
 * change did not touch while Astro renders; `finish` reads the changed works' records and the
 * profiles and instruments from the new folder, and writes the index files (`<buildDir>/index/`)
 * exactly as `indexBuild` would for that folder (the records of unchanged works are the base's
 * files, linked into the new folder). `renderedDir`: read them from the pages Astro rendered
 * there instead of the staged `client/` (profiles not rendered are the base's), so the index is
 * made while the copy and the search index are still running; the caller must not move those
 * pages away before `finish` settles.
 */
export interface IndexWorker {
  /**
   * The changed works' records as the build expects the pages to hold them (made by the same
   * domain code from the same catalog and scores): the merge starts on them at once, beside the
   * render, and `finish` keeps it only when the rendered records are the same.
   */
  predict(records: WorkRecord[], buildDir: string): void;
  finish(buildDir: string, renderedDir?: string): Promise<IncrementalIndexResult>;
  /** End the job (after `finish`, or when the build fails); the thread stays for the next build. */
  close(): Promise<void>;
}

/** A message to the index worker thread (index-worker.ts). */
export type IndexWorkerMessage =
  | { type: 'start'; id: number; baseBuildDir: string; changedSlugs: string[]; layerOver: string | null }
  | { type: 'predict'; id: number; records: WorkRecord[]; buildDir: string }
  | { type: 'finish'; id: number; buildDir: string; renderedDir?: string }
  | { type: 'cancel'; id: number };

/** The index worker thread's answer to a job's `finish` (or its end without one). */
export type IndexWorkerAnswer = { id: number } & IndexWorkerReply;

interface IndexWorkerState {
  worker: Worker;
  pending: Map<number, (reply: IndexWorkerReply) => void>;
  /** Jobs started and not yet finished or closed (the thread is referenced while any is). */
  open: Set<number>;
  /** Why the thread ended, once it did: a job asked to finish after that fails at once. */
  ended: string | null;
}

/**
 * The index worker of this process: started by the first incremental build and kept for the
 * next, as the search worker is (src/lib/site/search-index.ts), so an apply in the warm build
 * process does not start a thread, load the index modules and compile them again (a third to a
 * half of the thread's time per apply at 10,000 works). Referenced only while a job is open;
 * dropped when it fails or exits (the next build starts another).
 */
let indexWorker: IndexWorkerState | null = null;
let indexJobs = 0;

function indexWorkerFor(): IndexWorkerState {
  if (indexWorker) return indexWorker;
  const worker = new Worker(new URL('./index-worker.ts', import.meta.url));
  const state: IndexWorkerState = { worker, pending: new Map(), open: new Set(), ended: null };
  const fail = (message: string) => {
    state.ended ??= message;
    if (indexWorker === state) indexWorker = null;
    for (const answer of state.pending.values()) answer({ error: message });
    state.pending.clear();
  };
  worker.on('message', (msg: IndexWorkerAnswer) => {
    const answer = state.pending.get(msg.id);
    state.pending.delete(msg.id);
    answer?.(msg);
  });
  worker.on('error', (err) => fail(err.message));
  worker.on('exit', (code) => fail(`the index worker exited with ${code}`));
  worker.unref();
  indexWorker = state;
  return state;
}

/** Start the index worker now (the warm-up at a server's start: build/warm-up.ts), idle until a build's job. */
export function prepareIndexWorker(): void {
  indexWorkerFor();
}

/** The index worker's thread id, or null while none runs (for tests: one thread serves every build). */
export function indexWorkerThread(): number | null {
  return indexWorker?.worker.threadId ?? null;
}

/**
 * `options.layerOver`: the plain folder the new build is a layer over, whose listing files its
 * listing overlay lies over (null or absent: the new folder is plain, its listing files merged).
 */
export function startIndexWorker(
  baseBuildDir: string,
  changedSlugs: string[],
  options: { layerOver?: string | null } = {},
): IndexWorker {
  const state = indexWorkerFor();
  const id = ++indexJobs;
  let reply: Promise<IndexWorkerReply> | null = null;
  const release = () => {
    if (state.open.delete(id) && state.open.size === 0) state.worker.unref();
  };
  state.open.add(id);
  state.worker.ref();
  const layerOver = options.layerOver ?? null;
  state.worker.postMessage({ type: 'start', id, baseBuildDir, changedSlugs, layerOver } satisfies IndexWorkerMessage);
  return {
    predict(records, buildDir) {
      if (reply === null && state.ended === null)
        state.worker.postMessage({ type: 'predict', id, records, buildDir } satisfies IndexWorkerMessage);
    },
    async finish(buildDir, renderedDir) {
      reply ??= new Promise<IndexWorkerReply>((resolve) => {
        if (state.ended !== null) return resolve({ error: state.ended });
        state.pending.set(id, resolve);
        state.worker.postMessage({ type: 'finish', id, buildDir, renderedDir } satisfies IndexWorkerMessage);
      }).finally(release);
      const answer = await reply;
      if ('error' in answer) throw new Error(`cannot write the index files: ${answer.error}`);
      const { id: _id, ...result } = answer as IncrementalIndexResult & { id?: number };
      return result;
    },
    async close() {
      // A job never finished (the build failed before its index step): the thread lets it go.
      if (reply === null && state.open.has(id))
        state.worker.postMessage({ type: 'cancel', id } satisfies IndexWorkerMessage);
      release();
    },
  };
}

/** What an incremental build's index step reports (build.json `catalogIndex`). */
export interface IncrementalIndexResult {
  works: number;
  durationMs: number;
  /** Whether every record of the base was read (a base without counts, or a resolve merge that could not follow the change). */
  baseRecordsRead: boolean;
  /**
   * "overlay": a layer's listing overlay over its plain base's files (no works.idx or
   * summaries.json written); "merged": the listing index merged from the base's; "built": made
   * from every record, for `listingBuiltBecause`.
   */
  listing: 'overlay' | 'merged' | 'built';
  /** Why a layer's listing is merged files rather than an overlay. */
  noOverlayBecause?: string;
  listingBuiltBecause?: string;
  /**
   * The same for the resolve catalog; "laid": a layer's resolve rows, laid over its plain base's
   * resolve.idx when read (catalog.json `overlay.resolve`), nothing merged or written whole.
   */
  resolve: 'laid' | 'merged' | 'built';
  resolveBuiltBecause?: string;
  /**
   * "early": merged beside the render from the records the build predicted, which the rendered
   * ones equal; "at finish": merged once the rendered records were read, for `mergedLateBecause`.
   */
  merge?: 'early' | 'at finish';
  mergedLateBecause?: string;
  /**
   * The base's listing and resolve files: "kept" in memory by this process's index worker, which
   * wrote them in the build before (the usual apply), or "read" from disk.
   */
  baseFiles?: 'kept' | 'read';
  /**
   * The profiles index: "linked" from the base's when the build rendered no profile record (every
   * one is the base's), else "written" from the records.
   */
  profiles: 'linked' | 'written';
}

export type IndexWorkerReply = IncrementalIndexResult | { error: string };

/** What the build predicts (`IndexWorker.predict`): the changed works' records, and the folder it builds into. */
export interface Prediction {
  records: WorkRecord[];
  buildDir: string;
}

/** The base build's index files, decoded, or why they cannot be used. */
type BaseIndexFiles = Omit<IndexBase, 'counts' | 'recordAt' | 'before'> & {
  /** From its catalog.json; null when it was made before they were kept (then every record is read). */
  counts: FacetCounts | null;
  composers: NonNullable<CatalogManifest['composers']>;
  /** The base's composers file, when it has one (a folder made before 2026-11-30 afternoon keeps them in catalog.json). */
  composersFile: string | null;
  /** Whether the listing and resolve files were this thread's own, kept from the build that wrote them (not read). */
  filesKept: boolean;
  /**
   * With a layered new folder over the plain base this base is or lies over: that base's listing
   * and the overlay the base holds over it (none when the base is the plain one).
   */
  layer: { plain: ListingBase; previous: WorksOverlay | null; resolve?: LayerListing['resolve'] } | null;
  /** Why the new layer cannot hold a listing overlay (it holds merged files), when it is a layer. */
  noLayerBecause?: string;
};

const LISTING_FILES = ['works.idx', 'resolve.idx', 'summaries.json'] as const;

/**
 * The listing and resolve files the last incremental build of this thread wrote (about 150 MB at
 * 100,000 works), kept for the next build, whose base that build usually is: known again by the
 * files' identity, they are not read back from disk. Any other base's files are read.
 */
const lastWritten = {
  'works.idx': new RememberedFile<Buffer>(),
  'resolve.idx': new RememberedFile<Buffer>(),
  'summaries.json': new RememberedFile<Buffer>(),
} satisfies Record<(typeof LISTING_FILES)[number], RememberedFile<Buffer>>;

/**
 * The base's index. `layerOver`: the plain folder the new build is a layer over (null when the
 * new folder is plain). When the base is that folder, or a layer over it holding a listing
 * overlay, the new layer's listing is an overlay too and the base's listing files are not read
 * (its listing order is its resolve catalog's); otherwise they are read, or merged from the
 * base's own overlay.
 */
async function readIndexBase(
  baseBuildDir: string,
  layerOver: string | null,
): Promise<BaseIndexFiles | { reason: string }> {
  const dir = path.join(baseBuildDir, INDEX_DIR);
  try {
    const manifest = JSON.parse(await fs.readFile(path.join(dir, 'catalog.json'), 'utf8')) as CatalogManifest;
    if (manifest.format !== CATALOG_INDEX_FORMAT) return { reason: `the base index has format ${manifest.format}` };
    let layer: BaseIndexFiles['layer'] = null;
    let noLayerBecause: string | undefined;
    if (layerOver !== null) {
      const over = path.resolve(layerOver);
      try {
        if (manifest.overlay ? overlayBaseDir(baseBuildDir, manifest) !== over : path.resolve(baseBuildDir) !== over)
          throw new ListingLayerError('the base holds merged listing files over the same plain base');
        const plain = await readListingBase(over, manifest.overlay?.digest);
        layer = { plain, previous: manifest.overlay ? await readWorksOverlay(baseBuildDir) : null };
      } catch (err) {
        if (!(err instanceof ListingLayerError)) throw err;
        noLayerBecause = err.message;
      }
    }
    let resolve: ResolveCatalog;
    let filesKept: boolean;
    if (manifest.overlay?.resolve) {
      // The base's resolve catalog is rows laid over its plain base's resolve.idx: laid again for
      // a new layer over the same plain base (which lays its rows over it too), else merged (a
      // plain folder needs the whole catalog in listing order).
      const { catalog: plainResolve, kept } = await readResolveBase(overlayBaseDir(baseBuildDir, manifest));
      const rows = await readResolveOverlay(baseBuildDir);
      const overlay = layer?.previous ?? (await readWorksOverlay(baseBuildDir));
      if (layer) {
        resolve = layerResolveCatalog(plainResolve, overlay, rows, new Map(manifest.profiles.map((p) => [p.slug, p])));
        layer.resolve = { plain: plainResolve, previous: rows };
      } else resolve = mergeResolveCatalog(plainResolve, overlay, rows);
      filesKept = kept;
    } else if (layer && layer.previous === null && !manifest.overlay) {
      // The base is the plain base itself: the new layer's resolve rows lie over its resolve.idx,
      // kept decoded for the next layer over it.
      const plain = await readResolveBase(baseBuildDir);
      resolve = plain.catalog;
      filesKept = plain.kept;
      layer.resolve = { plain: resolve, previous: null };
    } else {
      const resolveFile = path.join(dir, 'resolve.idx');
      const keptResolve = lastWritten['resolve.idx'].recall(resolveFile);
      resolve = decodeResolveCatalog(
        decodeIndex(keptResolve ?? (await fs.readFile(resolveFile)), 'resolve.idx'),
        manifest.profiles,
      );
      filesKept = keptResolve !== undefined;
    }
    let listing: IndexBase['listing'] = null;
    if (layer === null) {
      const merged = materializeListing(baseBuildDir);
      if (merged) {
        listing = {
          index: decodeWorksIndex(decodeIndex(merged['works.idx'], 'works.idx')),
          summaries: merged['summaries.json'],
        };
        filesKept = false;
      } else {
        const names = ['works.idx', 'summaries.json'] as const;
        const kept = names.map((name) => lastWritten[name].recall(path.join(dir, name)));
        const [works, summaries] = await Promise.all(
          names.map((name, k) => kept[k] ?? fs.readFile(path.join(dir, name))),
        );
        listing = { index: decodeWorksIndex(decodeIndex(works!, 'works.idx')), summaries: summaries! };
        filesKept &&= kept.every((bytes) => bytes !== undefined);
      }
    }
    return {
      works: listing?.index ?? resolve.works,
      listing,
      resolve,
      profiles: manifest.profiles,
      instruments: manifest.instruments,
      counts: manifest.genres && manifest.periods ? { genres: manifest.genres, periods: manifest.periods } : null,
      ...(await readComposers(baseBuildDir, manifest).then(({ composers, file }) => ({
        composers,
        composersFile: file,
      }))),
      filesKept,
      layer,
      ...(noLayerBecause !== undefined ? { noLayerBecause } : {}),
    };
  } catch (err) {
    return { reason: `the base index cannot be read: ${(err as Error).message}` };
  }
}

/**
 * A plain base's listing sort keys read so far (from its records: about log2(works) per changed
 * work), for the next layer over the same base.
 */
const plainSortKeys = { digest: '', keys: new Map<number, string>() };
const PLAIN_SORT_KEYS_KEPT = 100_000;

function layerListing(layer: NonNullable<BaseIndexFiles['layer']>, names: Map<string, string[]>): LayerListing {
  const { plain } = layer;
  if (plainSortKeys.digest !== plain.digest || plainSortKeys.keys.size > PLAIN_SORT_KEYS_KEPT) {
    plainSortKeys.digest = plain.digest;
    plainSortKeys.keys = new Map();
  }
  const keys = plainSortKeys.keys;
  const site = SiteView.plain(path.join(plain.dir, 'client'));
  return {
    works: plain.works,
    digest: plain.digest,
    sortKeyAt(id) {
      let key = keys.get(id);
      if (key === undefined) {
        const slug = plain.works.slugs.at(id);
        const record = readRecordSync(site, slug);
        if (record.slug !== slug) throw new Error(`the plain base's index names ${slug}, its record ${record.slug}`);
        key = indexWork(record, workSummary(record), names).sortKey;
        keys.set(id, key);
      }
      return key;
    },
    ...(layer.previous ? { previous: layer.previous } : {}),
    ...(layer.resolve ? { resolve: layer.resolve } : {}),
  };
}

/** One work record of a build's view, read on this thread (the merge asks for a few, one at a time). */
function readRecordSync(site: SiteView, slug: string): WorkRecord {
  const file = site.locate(`api/v1/works/${slug}/index.json`);
  if (file === null) throw new Error(`the record of ${slug} is deleted from the base's view`);
  return (JSON.parse(readFileSync(file, 'utf8')) as { data: WorkRecord }).data;
}

/** What a layer's catalog.json names as the plain base its listing overlay lies over. */
const overOf = (base: BaseIndexFiles) => ({
  base: path.basename(base.layer!.plain.dir),
  digest: base.layer!.plain.digest,
});

const aliasesOf = (instruments: readonly InstrumentRecord[]) => new Map(instruments.map((i) => [i.slug, i.aliases]));

/** The listing and resolve files of a merge: merged, or a layer's overlays (all but the small catalog files). */
function mergedListingFiles(works: MergedIndex['works'], resolve: ResolveCatalog | LaidResolve): Partial<IndexFiles> {
  if ('overlay' in resolve) {
    if (!('overlay' in works)) throw new Error('resolve rows without a listing overlay');
    return layerOverlayFiles(works.overlay, resolve);
  }
  return 'overlay' in works ? layerListingFiles(works.overlay, resolve) : listingFiles(works, resolve);
}

/**
 * The worker's side (api/catalog/index-worker.ts). With a base whose catalog.json keeps its
 * genre and period counts, no unchanged record is read: the listing and resolve indexes are
 * merged from the base's, the counts follow the changed works, and the composers are the base's
 * (a change that adds or removes a composer is a full build: docs/review.md, step 2) plus the
 * changed works'. Otherwise, or when the resolve merge cannot follow the change, every base
 * record is read, as a full build reads them.
 */
export async function runIndexWorker(
  baseBuildDir: string,
  changedSlugs: string[],
  next: () => Promise<{ buildDir: string; renderedDir?: string }>,
  predicted: Promise<Prediction | null> = Promise.resolve(null),
  layerOver: string | null = null,
): Promise<IncrementalIndexResult> {
  const changed = new Set(changedSlugs);
  // The base may be layered (src/lib/site/layers.ts); a missing base reads as empty, and the
  // build that asked fails on its index, not here.
  let baseSite: SiteView;
  try {
    baseSite = SiteView.open(baseBuildDir);
  } catch {
    baseSite = SiteView.plain(path.join(baseBuildDir, 'client'));
  }
  // The base's own versions of the changed works (looked up by slug: the base lists 100,000
  // folders at that size) and its index files.
  const before = readWorkRecordsOf(baseSite, changedSlugs);
  const baseIndex = readIndexBase(baseBuildDir, layerOver);
  let unchanged: Promise<WorkRecord[]> | null = null;
  const everyBaseRecord = () => (unchanged ??= readWorkRecords(baseSite, (slug) => !changed.has(slug)));
  // A read error is reported when the build asks for the index, not as an unhandled rejection.
  for (const p of [before, baseIndex]) p.catch(() => undefined);
  // Without counts in the base, every record is needed: read them while Astro renders.
  void baseIndex.then((b) => {
    if ('reason' in b || b.counts === null) everyBaseRecord().catch(() => undefined);
  });
  // The merge over the predicted records, as soon as they and the base are here (while Astro
  // renders). It reads of the instruments and profiles only their terms and statuses
  // (merge-from-base.ts), taken from the base here and checked against the new ones at finish.
  // The listing and resolve files (all but a few megabytes) are written then too, into a staging
  // folder of the build that finish completes and renames, or removes.
  const early = predicted.then(async (prediction) => {
    if (prediction === null) return { reason: 'the build predicted no records' };
    const { records } = prediction;
    const base = await baseIndex;
    if ('reason' in base) return base;
    if (base.counts === null) return { reason: 'the base index keeps no counts' };
    const beforeRecords = await before;
    try {
      const merged = mergeFromBase(
        {
          ...base,
          counts: base.counts,
          recordAt: (id) => readRecordSync(baseSite, base.works.slugs.at(id)),
          before: beforeRecords,
        },
        { changedRecords: records, changed, profiles: base.profiles, instruments: base.instruments },
        base.layer ? layerListing(base.layer, aliasesOf(base.instruments)) : undefined,
      );
      const listing = 'reason' in merged.resolve ? null : mergedListingFiles(merged.works, merged.resolve);
      const staged =
        listing === null ? null : await stageIndexFiles(prediction.buildDir, listing, { makeBuildDir: false });
      return { records, merged, base, staged, listing, buildDir: prediction.buildDir };
    } catch (err) {
      return { reason: `the early merge failed: ${(err as Error).message}` };
    }
  });
  early.catch(() => undefined);
  const { buildDir, renderedDir } = await next();
  const started = Date.now();
  const site = renderedDir ? SiteView.plain(renderedDir) : SiteView.open(buildDir);
  const changedNow = await readWorkRecords(site, (slug) => changed.has(slug));
  const fromBase = renderedDir ? baseSite : undefined;
  const catalogOver = await readCatalogRecordsOver(site, fromBase);
  const base = await baseIndex;
  // Profile records the build did not render are the base's: their heads are the base's catalog.json's.
  const profileRecords = catalogOver.profiles ?? ('reason' in base ? await readProfileRecords(site, fromBase) : null);
  const catalogRecords = {
    instruments: catalogOver.instruments,
    profiles: profileRecords ?? (base as BaseIndexFiles).profiles,
  };
  const allProfileRecords = async () => profileRecords ?? (await readProfileRecords(site, fromBase));
  let merged: MergedIndex | { reason: string };
  let baseRecordsRead = false;
  // The early merge, when it was made from exactly what the merge now would read.
  const pre = await early;
  const inSlugOrder = (list: readonly WorkRecord[]) => [...list].sort((a, b) => (a.slug < b.slug ? -1 : 1));
  const lateBecause =
    'reason' in pre
      ? pre.reason
      : JSON.stringify(inSlugOrder(pre.records)) !== JSON.stringify(inSlugOrder(changedNow))
        ? 'the rendered records are not the predicted ones'
        : JSON.stringify(instrumentTerms(pre.base.instruments)) !==
            JSON.stringify(instrumentTerms(catalogRecords.instruments))
          ? "the instruments' terms changed"
          : JSON.stringify(profileStatuses(pre.base.profiles)) !==
              JSON.stringify(profileStatuses(catalogRecords.profiles))
            ? "the profiles' statuses changed"
            : null;
  try {
    if (lateBecause === null && !('reason' in pre)) merged = pre.merged;
    else if ('reason' in base) merged = base;
    else {
      const beforeRecords = await before;
      let counts = base.counts;
      let recordAt: IndexBase['recordAt'];
      if (counts === null) {
        const all = [...(await everyBaseRecord()), ...beforeRecords];
        baseRecordsRead = true;
        counts = facetCountsOf(all);
        const bySlug = new Map(all.map((r) => [r.slug, r]));
        recordAt = (id) => {
          const r = bySlug.get(base.works.slugs.at(id));
          if (!r) throw new Error(`the base index names ${base.works.slugs.at(id)}, which its records lack`);
          return r;
        };
      } else recordAt = (id) => readRecordSync(baseSite, base.works.slugs.at(id));
      merged = mergeFromBase(
        { ...base, counts, recordAt, before: beforeRecords },
        { changedRecords: changedNow, changed, ...catalogRecords },
        base.layer && !baseRecordsRead ? layerListing(base.layer, aliasesOf(catalogRecords.instruments)) : undefined,
      );
    }
  } catch (err) {
    merged = { reason: `the merge failed: ${(err as Error).message}` };
  }
  const works = 'reason' in merged ? undefined : merged.works;
  const resolve = 'reason' in merged ? merged : merged.resolve;
  const resolveMerged = 'reason' in resolve ? undefined : resolve;
  // Rows laid over the plain base's resolve.idx (a layer's), or a merged catalog.
  const laid = resolveMerged && 'overlay' in resolveMerged ? resolveMerged : undefined;
  const resolveCatalog = resolveMerged && !('overlay' in resolveMerged) ? resolveMerged : undefined;
  let files: Partial<IndexFiles>;
  let count: number;
  // The early merge's files, when it is kept and wrote them into this build's folder.
  const staged =
    !('reason' in pre) && pre.staged !== null && merged === pre.merged && pre.buildDir === buildDir ? pre.staged : null;
  if (!('reason' in pre) && pre.staged !== null && staged === null)
    await fs.rm(pre.staged, { recursive: true, force: true });
  const linked: NonNullable<Parameters<typeof writeIndexFiles>[3]> = {};
  if (works && resolveMerged && !('reason' in base) && !baseRecordsRead) {
    const composers = distinctComposers([...base.composers, ...changedNow.map((r) => r.composer)]);
    const parts = {
      // The listing's own slug table: the records' slugs are the listing's by construction.
      slugs: 'overlay' in works ? (laid ? { count: laid.workCount } : slugTableOf(resolveCatalog!)) : works.slugs,
      composers,
      counts: (merged as MergedIndex).counts,
      instruments: catalogRecords.instruments,
    };
    const listing: ManifestListing =
      'overlay' in works
        ? { overlay: { ...overOf(base), ...(laid ? { resolve: true as const } : {}) } }
        : { worksDigest: worksDigestOf(works.index) };
    const n = laid ? laid.arrangementCount : resolveCatalog!.arrangementCount;
    const catalog: Partial<IndexFiles> = manifestFile(
      { ...parts, profiles: profileRecords?.map(profileHead) ?? base.profiles },
      n,
      listing,
    );
    if (profileRecords !== null) Object.assign(catalog, profilesFile(profileRecords));
    else {
      // No profile record changed: the base's profiles.idx is this build's, linked rather than written again.
      linked['profiles.idx'] = {
        from: path.join(baseBuildDir, INDEX_DIR, 'profiles.idx'),
        bytes: async () => profilesFile(await allProfileRecords())['profiles.idx'],
      };
    }
    // The base's composers and no other (a change that adds one builds in full): its file, linked.
    if (composers.length === base.composers.length && base.composersFile !== null)
      linked[COMPOSERS_FILE] = {
        from: base.composersFile,
        bytes: async () => composersFile(composers)[COMPOSERS_FILE],
      };
    else Object.assign(catalog, composersFile(composers));
    files = { ...(staged ? {} : mergedListingFiles(works, resolveMerged)), ...catalog };
    count = laid ? laid.workCount : resolveCatalog!.works.count;
  } else {
    const records = [...(await everyBaseRecord()), ...changedNow];
    baseRecordsRead = true;
    // A layer's overlay stays one when only the resolve catalog had to be built from the records.
    files = buildIndexFiles(
      { records, instruments: catalogRecords.instruments, profiles: await allProfileRecords() },
      works && 'overlay' in works && !('reason' in base)
        ? { resolve: resolveCatalog, overlay: { overlay: works.overlay, over: overOf(base) } }
        : { works: works && !('overlay' in works) ? works : undefined, resolve: resolveCatalog },
    );
    count = records.length;
  }
  await writeIndexFiles(buildDir, files, staged ?? undefined, linked);
  const written: Partial<IndexFiles> =
    staged && !('reason' in pre) && pre.listing ? { ...pre.listing, ...files } : files;
  for (const name of LISTING_FILES) {
    const bytes = written[name];
    if (bytes) lastWritten[name].remember(path.join(buildDir, INDEX_DIR, name), bytes);
    else lastWritten[name].forget();
  }
  return {
    works: count,
    durationMs: Date.now() - started,
    baseRecordsRead,
    listing: works ? ('overlay' in works ? 'overlay' : 'merged') : 'built',
    ...(!('reason' in base) && base.noLayerBecause !== undefined ? { noOverlayBecause: base.noLayerBecause } : {}),
    merge: lateBecause === null ? 'early' : 'at finish',
    ...(lateBecause !== null ? { mergedLateBecause: lateBecause } : {}),
    ...('reason' in merged ? { listingBuiltBecause: merged.reason } : {}),
    resolve: laid ? 'laid' : resolveCatalog ? 'merged' : 'built',
    ...('reason' in resolve ? { resolveBuiltBecause: resolve.reason } : {}),
    ...('reason' in base ? {} : { baseFiles: base.filesKept ? 'kept' : 'read' }),
    profiles: 'profiles.idx' in linked ? 'linked' : 'written',
  };
}
