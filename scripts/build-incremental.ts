/**
 * The incremental build (docs/review.md, "Apply-to-visible and the incremental path"): a new
 * build folder for commit N made from the complete build of an earlier commit B by re-rendering
 * only what the change from B to N touches, through the same Astro pages and the same post-steps
 * as a full build, so the folder holds exactly the bytes a full build of N (with B's
 * generatedAtUtc) would hold.
 *
 *   1. `git diff --name-only --no-renames B N` in the content worktree. Every path must lie in a
 *      work's folder (`works/<slug>/...`); any other path (instruments.json, genres.json, a
 *      profile, the layout of the repository) is a shared input: full build.
 *   2. The content is checked as a full build checks it (`loadCatalog`; the same lint messages),
 *      but only the changed works' folders are parsed and checked: every other work comes from the
 *      base build's `catalog-snapshot.json` (scripts/catalog-snapshot.ts), which a full build and
 *      an incremental build both write (a base without one: the whole catalog is loaded).
 *      A changed work whose composer differs from its earlier version, or from another work of
 *      the same composer, or a new/removed work that would add or remove a composer, changes
 *      composer pages and slugs across the catalog: full build.
 *   3. Scores of the changed works are engraved again; the earlier build's score manifest
 *      (`scores-manifest.json`) keeps every other work's entry.
 *   4. Astro runs with a scope (ARCHIVE_BUILD_SCOPE, src/lib/site-data.ts): the changed works'
 *      pages and records, the browse pages of the values they left or joined, their composer's
 *      page, the profiles their arrangements use(d), and every catalog-wide page (home, browse,
 *      composers, instruments, profiles, search, llms) — into a scratch folder.
 *      The pages' data builds a work's record (its Markdown above all) only for the pages that
 *      show it; listings read each work's cheap `entry` (src/lib/site-data.ts).
 *      While Astro renders, two other processes run beside it: `cp -al` links the new folder's
 *      `client/` (a layer over B's plain build: B's delta only; a compaction: B's whole view;
 *      docs/architecture.md, "Layers instead of copies"), and Pagefind indexes the new catalog (custom records
 *      made from the catalog, not from the pages) into a scratch folder — unless no changed
 *      work's search record changed (`searchRecordsUnchanged`): then B's Pagefind index is the
 *      new one, linked with the rest. A worker thread reads B's records of the unchanged works.
 *   5. Once Astro is done, the worker makes the index files from those records and the pages
 *      just rendered, and this thread writes `published-blobs.json`, the score manifest, the
 *      signed-in files and the catalog snapshot, while the copy and Pagefind finish; all are
 *      awaited, and their errors surfaced, before the folder is touched again.
 *   6. The pages a change can remove are unlinked from the folder (in a layer, the base's files
 *      there join `deleted`), and every rendered file is moved in as a new inode (a linked file
 *      is never written in place, so B keeps serving unchanged); the new Pagefind shards replace
 *      B's. Zips of the changed works and `nginx.conf` are written as in a full build; a layer's
 *      `layer.json` next; `build.json` last, with each step's time
 *      (`incremental.phases`, in order; `incremental.background`, the steps beside them).
 *
 * Any reason the incremental path cannot be sure of the result is a `FullBuildNeeded`, and the
 * caller (`buildIncrementalOrFull`) builds in full instead; a content error fails as it would in
 * a full build.
 */
import { execFileSync, spawn } from 'node:child_process';
import {
  existsSync,
  linkSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { moveTree } from '../src/lib/site/move-tree.ts';
import {
  filesBelow,
  readLayerManifest,
  SiteView,
  writeLayerFiles,
  writePlainBaseLink,
} from '../src/lib/site/layers.ts';
import {
  LAYER_FORMAT,
  layerMaxPathsFrom,
  nextBuildKind,
  nextDeleted,
  type LayerManifest,
} from '../src/domain/site-layers.ts';
import {
  readWorksIndexKeys,
  resetWorksIndexPages,
  worksIndexPagesOfRun,
  writeWorksIndexKeys,
} from '../src/lib/site/works-index.ts';
import {
  formatLintMessage,
  loadCatalog,
  type Catalog,
  type LoadedWork,
  type LoadResult,
} from '../src/domain/catalog.ts';
import { readBaseSnapshot, workFolder, writeSnapshot, type SnapshotReuse } from './catalog-snapshot.ts';
import { parseWorkFile } from '../src/domain/work-file.ts';
import { WorkContent } from '../src/schemas/work.ts';
import { validate } from '../src/domain/validation.ts';
import { publishedBlobs } from '../src/domain/records.ts';
import { fold } from '../src/domain/text.ts';
import { renderScores } from '../src/lib/site/render-scores.ts';
import { precompressScores } from '../src/lib/site/precompress.ts';
import type { ScoreManifest } from '../src/lib/site/scores.ts';
import {
  buildSearchIndexInWorker,
  searchRecords,
  shardCount,
  shardOf,
  shardWorksFrom,
  SHARD_SCHEME,
  SHARDS_FILE,
  type ShardReuse,
} from '../src/lib/site/search-index.ts';
import { buildWorkZips } from '../src/lib/site/work-zips.ts';
import { composerScopeKey, facetKeysOf } from '../src/lib/site/facets.ts';
import { LocalBlobStore } from '../api/blobs/blob-store.ts';
import { startIndexWorker } from '../api/catalog/build-index.ts';
import { nginxHasBrotliStatic, renderNginxConfig } from '../api/site/nginx.ts';
import {
  buildSite,
  ContentError,
  PROJECT_ROOT,
  runAstro,
  scoreCounts,
  SCORES_MANIFEST,
  serializeScoreManifest,
  writeProtected,
  type BuildInfo,
  type BuildOptions,
  type RendererUsed,
} from './build.ts';
import { siteCodeDigest } from './lib/site-code.ts';

/** The incremental path cannot vouch for the result; the message says why (build.json `fallbackReason`). */
export class FullBuildNeeded extends Error {}

/** What a change from the base commit touches, as the incremental build sees it. */
export interface ChangePlan {
  changedFiles: string[];
  /** Work slugs whose folder changed (added, edited or removed). */
  works: string[];
  /** Browse keys ("facet/value") the changed works had before or have now, and their composers' keys (`composerScopeKey`). */
  facets: string[];
  /** Profiles the changed works' arrangements used before or use now. */
  profiles: string[];
}

function gitIn(dir: string, args: string[]): string {
  return execFileSync('git', ['-C', dir, ...args], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/** The files that differ between two commits (renames as a delete and an add). */
export function changedFiles(contentDir: string, from: string, to: string): string[] {
  try {
    return gitIn(contentDir, ['diff', '--name-only', '--no-renames', '-z', from, to])
      .split('\0')
      .filter(Boolean)
      .sort();
  } catch (err) {
    throw new FullBuildNeeded(
      `cannot diff ${from.slice(0, 12)}..${to.slice(0, 12)}: ${((err as { stderr?: string }).stderr ?? String(err)).trim().split('\n')[0]}`,
    );
  }
}

const WORK_FILE = /^works\/([^/]+)\/.+$/;

/** The earlier version of a work's content, from the base commit; null when it had none. */
function contentAt(contentDir: string, commit: string, slug: string): WorkContent | null {
  let text: string;
  try {
    text = gitIn(contentDir, ['show', `${commit}:works/${slug}/index.md`]);
  } catch {
    return null;
  }
  let data: unknown;
  try {
    data = parseWorkFile(text).data;
  } catch {
    throw new FullBuildNeeded(`works/${slug}/index.md at the base commit does not parse`);
  }
  // With the schema's defaults, as loadCatalog reads it (alsoSuits, moods ... may be left out).
  if (validate(WorkContent, data, { useDefaults: true }).length > 0)
    throw new FullBuildNeeded(`works/${slug}/index.md at the base commit does not validate`);
  return data as WorkContent;
}

const composerKey = (c: WorkContent['composer']) => `${fold(c.sortName)}|${c.born}`;

/** Decide what to re-render, or why only a full build will do. */
export function planChange(
  contentDir: string,
  baseCommit: string,
  files: string[],
  works: LoadedWork[],
  genres: Parameters<typeof facetKeysOf>[1],
): ChangePlan {
  const slugs = new Set<string>();
  for (const file of files) {
    const m = WORK_FILE.exec(file);
    if (!m) throw new FullBuildNeeded(`${file} is a shared input`);
    slugs.add(m[1]!);
  }
  const bySlug = new Map(works.map((w) => [w.content.slug, w]));
  // Composer pages, slugs and "first written" names come from every work of a composer, so a
  // changed work may only keep a composer exactly as every other work writes it.
  const composerTexts = new Map<string, Set<string>>();
  const unchangedByComposer = new Map<string, number>();
  for (const w of works) {
    const key = composerKey(w.content.composer);
    let texts = composerTexts.get(key);
    if (!texts) composerTexts.set(key, (texts = new Set()));
    texts.add(JSON.stringify(w.content.composer));
    if (!slugs.has(w.content.slug)) unchangedByComposer.set(key, (unchangedByComposer.get(key) ?? 0) + 1);
  }
  const facets = new Set<string>();
  const profiles = new Set<string>();
  for (const slug of slugs) {
    const now = bySlug.get(slug)?.content ?? null;
    const before = contentAt(contentDir, baseCommit, slug);
    for (const c of [before, now]) {
      if (!c) continue;
      const key = composerKey(c.composer);
      if (
        (unchangedByComposer.get(key) ?? 0) === 0 &&
        !(before && now && composerKey(before.composer) === composerKey(now.composer))
      ) {
        throw new FullBuildNeeded(`works/${slug} adds or removes the composer ${c.composer.name}`);
      }
      if ((composerTexts.get(key)?.size ?? 0) > 1)
        throw new FullBuildNeeded(`works/${slug}: the works of ${c.composer.name} write the composer differently`);
      for (const k of facetKeysOf(c, genres)) facets.add(k);
      // Its composer's page, also when the work left it (not a browse folder: composer pages are never removed here).
      facets.add(composerScopeKey(c.composer));
      for (const a of c.arrangements) for (const p of a.renderingProfileSlugs) profiles.add(p);
    }
    if (before && now && JSON.stringify(before.composer) !== JSON.stringify(now.composer)) {
      throw new FullBuildNeeded(`works/${slug} changes its composer`);
    }
  }
  return { changedFiles: files, works: [...slugs].sort(), facets: [...facets].sort(), profiles: [...profiles].sort() };
}

/**
 * The catalog of the new commit, re-parsing and re-checking only the works whose folders changed:
 * every other work comes from the base build's snapshot (scripts/catalog-snapshot.ts). Without a
 * snapshot (a base made by an older version), the whole catalog is loaded as a full build loads it.
 */
function loadChanged(
  contentDir: string,
  baseDir: string,
  files: string[],
): LoadResult & {
  reparsed: number | null;
  before: Map<string, LoadedWork> | null;
  snapshot: (SnapshotReuse & { fromMemory: boolean }) | null;
} {
  const base = readBaseSnapshot(baseDir, contentDir);
  if (!base) return { ...loadCatalog(contentDir), reparsed: null, before: null, snapshot: null };
  const baseWorks = base.works;
  const touched = new Set(files.map((f) => WORK_FILE.exec(f)?.[1]).filter((s): s is string => s !== undefined));
  // Shared inputs (instruments, profiles, genres) are loaded whole: the changed works are checked against them.
  const loaded = loadCatalog(contentDir, { works: touched });
  const kept: LoadedWork[] = [];
  // The touched works as the base build had them (absent: new works).
  const before = new Map<string, LoadedWork>();
  for (const w of baseWorks) {
    if (touched.has(workFolder(w))) before.set(workFolder(w), w);
    else kept.push(w);
  }
  // The one check across works: slugs equal folder names and differ in more than letter case.
  // A clash is left to a full build, which reports it with the loader's exact message.
  const keptKeys = new Set(kept.map((w) => workFolder(w).toLowerCase()));
  const newKeys = new Set<string>();
  for (const w of loaded.catalog.works) {
    const key = workFolder(w).toLowerCase();
    if (keptKeys.has(key) || newKeys.has(key))
      throw new FullBuildNeeded(`works/${workFolder(w)} has a slug that differs from another only in letter case`);
    newKeys.add(key);
  }
  // The loader's order: folder names, sorted as readdirSync(...).sort() sorts them.
  const works = [...kept, ...loaded.catalog.works].sort((a, b) => {
    const x = workFolder(a);
    const y = workFolder(b);
    return x < y ? -1 : x > y ? 1 : 0;
  });
  return {
    catalog: { ...loaded.catalog, works },
    messages: loaded.messages,
    reparsed: loaded.catalog.works.length,
    before,
    snapshot: { base, changed: touched, fromMemory: base.fromMemory },
  };
}

/**
 * Whether the base build's Pagefind index is the one a full build of the new catalog writes: the
 * same works, in the same order, each with the same search record (Pagefind's output depends on
 * its records alone, byte for byte; instruments and genres, which records read, are shared
 * inputs and so unchanged). A correction of rights, review states, files or notes then costs no
 * re-indexing of the whole catalog; a new, removed or retitled work does.
 */
export function searchRecordsUnchanged(
  catalog: Catalog,
  changed: string[],
  before: Map<string, LoadedWork> | null,
): boolean {
  return searchRecordChanges(catalog, changed, before)?.length === 0;
}

/**
 * The changed works whose search record is not the one the base indexed (new, removed or
 * re-worded works), or null when the base's works are not known (then every record counts as
 * changed).
 */
export function searchRecordChanges(
  catalog: Catalog,
  changed: string[],
  before: Map<string, LoadedWork> | null,
): string[] | null {
  if (!before) return null;
  const bySlug = new Map(catalog.works.map((w) => [w.content.slug, w]));
  return changed.filter((slug) => {
    const then = before.get(slug);
    const now = bySlug.get(slug);
    if (!then || !now || then.content.slug !== slug) return true;
    const [a, b] = searchRecords({ ...catalog, works: [then, now] });
    return JSON.stringify(a) !== JSON.stringify(b);
  });
}

/**
 * Which of the base's search-index shards can be linked rather than indexed again
 * (src/lib/site/search-index.ts). A shard is dirty when a changed record falls in it (before or
 * now), or when the number of shards changed and a work moved into or out of it (linear hashing
 * moves the works of one shard per shard added or removed). Null: index every shard (the base's
 * works are not known, or its shards.json is missing or names another way of spreading works).
 */
export function searchShardReuse(
  base: string | SiteView,
  slugs: string[],
  changedRecords: string[] | null,
): ShardReuse | null {
  if (changedRecords === null) return null;
  const view = typeof base === 'string' ? SiteView.open(base) : base;
  const listedFile = view.locate(`pagefind/${SHARDS_FILE}`);
  if (listedFile === null) return null;
  const dir = path.dirname(listedFile);
  let baseShards: number;
  try {
    const listed = JSON.parse(readFileSync(listedFile, 'utf8')) as {
      shards?: unknown;
      scheme?: unknown;
    };
    if (!Array.isArray(listed.shards) || listed.scheme !== SHARD_SCHEME) return null;
    baseShards = listed.shards.length + 1;
  } catch {
    return null;
  }
  const shards = shardCount(slugs.length, shardWorksFrom(process.env.ARCHIVE_SEARCH_SHARD_WORKS));
  const dirty = new Set<number>();
  for (const slug of changedRecords) {
    dirty.add(shardOf(slug, shards));
    dirty.add(shardOf(slug, baseShards));
  }
  if (shards !== baseShards) {
    for (let k = baseShards; k < shards; k++) dirty.add(k);
    for (const slug of slugs) {
      const then = shardOf(slug, baseShards);
      const now = shardOf(slug, shards);
      if (then !== now) {
        dirty.add(then);
        dirty.add(now);
      }
    }
  }
  return { dir, shards, dirty: [...dirty].filter((k) => k < shards).sort((a, b) => a - b) };
}

/**
 * A hard-linked copy of the folder `from` at `to` but for its entries named in `except` (one
 * `cp -al`), without blocking this process (Astro renders meanwhile).
 */
function hardLinkCopy(from: string, to: string, except: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    let entries: string[];
    try {
      entries = readdirSync(from)
        .filter((name) => !except.includes(name))
        .map((name) => path.join(from, name));
      mkdirSync(to, { recursive: true });
    } catch (err) {
      reject(new FullBuildNeeded(`cannot hard-link the base build: ${(err as Error).message}`));
      return;
    }
    if (entries.length === 0) {
      resolve();
      return;
    }
    const child = spawn('cp', ['-al', ...entries, to], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('error', (err) => reject(new FullBuildNeeded(`cannot hard-link the base build: ${err.message}`)));
    child.on('close', (code) =>
      code === 0
        ? resolve()
        : reject(new FullBuildNeeded(`cannot hard-link the base build: ${stderr.trim() || `cp exited with ${code}`}`)),
    );
  });
}

/**
 * A linked copy of a layered base's whole view at `to` (the compaction): its base's files but the
 * deleted ones, then its delta's over them (bounded by ARCHIVE_LAYER_MAX_PATHS).
 */
async function materializeView(view: SiteView, layer: LayerManifest, to: string): Promise<void> {
  await hardLinkCopy(view.base!, to, []);
  for (const rel of layer.deleted) {
    rmSync(path.join(to, rel), { force: true });
    // A folder left empty (a removed work's) goes too, as a full build would not have it.
    for (let dir = path.dirname(rel); dir !== '.'; dir = path.dirname(dir)) {
      try {
        rmdirSync(path.join(to, dir));
      } catch {
        break; // not empty
      }
    }
  }
  for (const rel of layer.files) {
    const dest = path.join(to, rel);
    rmSync(dest, { force: true, recursive: true });
    mkdirSync(path.dirname(dest), { recursive: true });
    linkSync(path.join(view.client, rel), dest);
  }
}

/** Whether a search-index file lies in shard k (shard 0 is the root of `pagefind/`, without the other shards' folders). */
function inShard(rel: string, k: number): boolean {
  if (k > 0) return rel.startsWith(`pagefind/shard-${k}/`);
  return rel.startsWith('pagefind/') && !/^pagefind\/shard-\d+\//.test(rel);
}

/** The works-index page folders of a view past the new last page of each order (works were removed). */
function pagesPast(view: SiteView, keys: ReturnType<typeof writeWorksIndexKeys>): string[] {
  const out: string[] = [];
  for (const [sort, folder] of [
    ['title', 'works/by-title'],
    ['composer', 'works/by-composer'],
  ] as const)
    for (const name of view.listDirs(folder))
      if (/^[0-9]+$/.test(name) && Number(name) > keys[sort].length) out.push(`${folder}/${name}`);
  return out;
}

/** Write a file as a new inode (the folder shares inodes with the base build). */
function writeNew(file: string, data: string | Buffer): void {
  rmSync(file, { force: true });
  writeFileSync(file, data);
}

export async function buildIncremental(options: BuildOptions, baseDir: string): Promise<BuildInfo> {
  const started = Date.now();
  const contentDir = path.resolve(options.contentDir);
  const outDir = path.resolve(options.outDir);
  baseDir = path.resolve(baseDir);
  if (!existsSync(path.join(baseDir, 'build.json')))
    throw new FullBuildNeeded(`the base ${path.basename(baseDir)} is not a complete build`);
  const base = JSON.parse(readFileSync(path.join(baseDir, 'build.json'), 'utf8')) as BuildInfo;
  if (!base.commit) throw new FullBuildNeeded('the base build does not name its commit');
  if (base.baseUrl !== options.baseUrl) throw new FullBuildNeeded('the base build was made for another base URL');
  if ((base.readerSignIn ?? 'none') !== (options.readerSignIn ?? 'none'))
    throw new FullBuildNeeded('the base build was made for another reader sign-in');
  if (!existsSync(path.join(baseDir, SCORES_MANIFEST)))
    throw new FullBuildNeeded('the base build kept no score manifest');
  if (!options.commit) throw new FullBuildNeeded('no commit named');
  // The pages not rendered again are the base's: the same code must have made them.
  const siteCode = siteCodeDigest(PROJECT_ROOT);
  if (!base.siteCode) throw new FullBuildNeeded('the base build does not record its site code');
  if (base.siteCode !== siteCode) throw new FullBuildNeeded('the site code changed since the base build');
  // Where the time goes, for build.json (bench/README.md quotes it).
  const phases: Record<string, number> = {};
  let mark = Date.now();
  const phase = (name: string) => {
    const now = Date.now();
    phases[name] = now - mark;
    mark = now;
  };
  const files = changedFiles(contentDir, base.commit, options.commit);
  for (const file of files) if (!WORK_FILE.test(file)) throw new FullBuildNeeded(`${file} is a shared input`);
  phase('diffMs');

  const { catalog, messages, reparsed, before, snapshot } = loadChanged(contentDir, baseDir, files);
  if (messages.length > 0) throw new ContentError(messages.map(formatLintMessage));
  phase('loadMs');
  const plan = planChange(contentDir, base.commit, files, catalog.works, catalog.genres);
  const changed = catalog.works.filter((w) => plan.works.includes(w.content.slug));
  phase('planMs');
  // Every record of the folder carries one time: the full build it descends from (the background
  // reconcile replaces the folder with a full build of the same commit, with its own time).
  const generatedAtUtc = base.generatedAtUtc;

  // A layered base (src/lib/site/layers.ts): its view is its delta over its own base. The new
  // folder is a layer over that same base (its delta starts as a linked copy of the base's delta,
  // bounded by ARCHIVE_LAYER_MAX_PATHS), or, past the bound or with layers off, a linked copy of
  // the whole view (the compaction: the new folder is a plain build, the base of later layers).
  let baseLayer: LayerManifest | null;
  let baseView: SiteView;
  try {
    baseLayer = readLayerManifest(baseDir);
    baseView = SiteView.open(baseDir);
  } catch (err) {
    throw new FullBuildNeeded(`the base's layer cannot be read: ${(err as Error).message}`);
  }
  if (baseLayer && !existsSync(path.join(baseView.base!, '..', 'build.json')))
    throw new FullBuildNeeded(`the base's own base ${baseLayer.base} is gone`);
  const kind = nextBuildKind(baseLayer, layerMaxPathsFrom(process.env.ARCHIVE_LAYER_MAX_PATHS));

  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const scoresDir = path.join(outDir, '.scores');
  const blobs = options.blobsDir ? new LocalBlobStore(path.resolve(options.blobsDir)) : null;
  const scores = await renderScores({ ...catalog, works: changed }, scoresDir, {
    generatedAtUtc,
    blobPath: blobs ? (sha) => blobs.pathFor(sha) : undefined,
    cache: options.renderCache ?? null,
    view: options.renderView ?? null,
    poolOptions: options.engrave,
  });
  const baseManifest = JSON.parse(readFileSync(path.join(baseDir, SCORES_MANIFEST), 'utf8')) as ScoreManifest;
  const merged: ScoreManifest = { scores: {} };
  for (const [key, value] of Object.entries(baseManifest.scores)) {
    if (!plan.works.some((slug) => key.startsWith(`${slug}/`))) merged.scores[key] = value;
  }
  Object.assign(merged.scores, scores.manifest.scores);
  const manifestText = serializeScoreManifest(merged);
  const manifestFile = path.join(scoresDir, 'merged.json');
  writeFileSync(manifestFile, manifestText);
  phase('scoresMs');

  // Two things that need only the plan run while Astro renders, each in its own process: the
  // hard-linked copy of the base's client/ (`cp -al`; not its Pagefind folder when that is made
  // again), and Pagefind's index of the new catalog (its own binary) into a scratch folder. Each
  // is awaited (and its error surfaced) before anything else happens to the folder.
  const clientDir = path.join(outDir, 'client');
  const searchScratch = path.join(outDir, '.search');
  const background: Record<string, number> = {};
  const timed = <T>(name: string, p: Promise<T>): Promise<T> => {
    const t0 = Date.now();
    return p.finally(() => {
      background[name] = Date.now() - t0;
    });
  };
  // When no search record changed, the base's Pagefind index is the new one: linked with the rest.
  // With a sharded index (above ARCHIVE_SEARCH_SHARD_WORKS works), only the shards a changed
  // record falls in are indexed again; the others are linked from the base.
  const changedRecords = searchRecordChanges(catalog, plan.works, before);
  const entryFile = baseView.locate('pagefind/pagefind-entry.json');
  const keepSearch = changedRecords?.length === 0 && entryFile !== null && existsSync(entryFile);
  let shardReuse: ShardReuse | null;
  let linking: Promise<void>;
  if (kind === 'layer') {
    // The delta so far (bounded), or nothing over a plain base.
    linking = timed(
      'linkMs',
      baseLayer
        ? hardLinkCopy(path.join(baseDir, 'client'), clientDir, [])
        : mkdir(clientDir, { recursive: true }).then(() => undefined),
    );
    // Only the dirty shards are indexed into the scratch folder; the clean ones stay in the view.
    const reuse = searchShardReuse(
      baseView,
      catalog.works.map((w) => w.content.slug),
      changedRecords,
    );
    shardReuse = reuse ? { ...reuse, link: false } : null;
  } else if (baseLayer === null) {
    linking = timed('linkMs', hardLinkCopy(path.join(baseDir, 'client'), clientDir, keepSearch ? [] : ['pagefind']));
    shardReuse = searchShardReuse(
      baseView,
      catalog.works.map((w) => w.content.slug),
      changedRecords,
    );
  } else {
    // The compaction: the whole view, linked, before the search index links its clean shards from it.
    const t0 = Date.now();
    await materializeView(baseView, baseLayer, clientDir);
    background.linkMs = Date.now() - t0;
    linking = Promise.resolve();
    shardReuse = searchShardReuse(
      SiteView.plain(clientDir),
      catalog.works.map((w) => w.content.slug),
      changedRecords,
    );
  }
  const searching: Promise<BuildInfo['searchIndex'] | null> = keepSearch
    ? Promise.resolve(null)
    : timed('searchMs', buildSearchIndexInWorker(searchScratch, catalog, { reuse: shardReuse ?? undefined }));
  // The changed works' engraved pages get their brotli and gzip forms (src/lib/site/precompress.ts)
  // on libuv's thread pool; the unchanged works' come with the hard-linked copy.
  const compressing = timed('compressMs', precompressScores(path.join(scoresDir, 'files'), 1));
  const pending = Promise.allSettled([linking, searching, compressing]);
  // And a worker thread reads the base's records of the unchanged works for the index files.
  const indexer = startIndexWorker(baseDir, plan.works);
  let searchIndex: BuildInfo['searchIndex'];
  let renderedFiles: number;
  let renderer: RendererUsed;
  let zips: BuildInfo['zips'];
  let catalogIndex: BuildInfo['catalogIndex'];
  let compressedPages: BuildInfo['compressedPages'];
  let worksIndexKeys: ReturnType<typeof writeWorksIndexKeys> | undefined;
  let worksIndexPages: { title: number; composer: number } = { title: 0, composer: 0 };
  let layer: LayerManifest | null = null;
  // Render the touched pages into a scratch folder first: the stage is made only once they exist.
  const partial = path.join(outDir, '.partial');
  const scopeFile = path.join(outDir, '.scope.json');
  try {
    // The base's works-index keys: pages 2.. of the index whose key is unchanged are not rendered.
    const worksIndexBase = readWorksIndexKeys(baseDir);
    writeFileSync(
      scopeFile,
      JSON.stringify({
        works: plan.works,
        facets: plan.facets,
        profiles: plan.profiles,
        ...(worksIndexBase ? { worksIndexBase } : {}),
      }),
    );
    resetWorksIndexPages();
    let indexing: Promise<BuildInfo['catalogIndex']> | undefined;
    try {
      renderer = await runAstro({
        contentDir,
        baseUrl: options.baseUrl,
        generatedAtUtc,
        workDir: outDir,
        clientDir: partial,
        scoresManifest: manifestFile,
        scopeFile,
        quiet: options.quiet,
        catalog,
        readerSignIn: options.readerSignIn,
        warm: true,
      });
      phase('astroMs');
      worksIndexKeys = writeWorksIndexKeys(outDir);
      const { rendered } = worksIndexPagesOfRun();
      worksIndexPages = { title: rendered.title?.length ?? 0, composer: rendered.composer?.length ?? 0 };
      // The index files from the pages just rendered (and the base's records), in the worker,
      // while the copy and Pagefind finish; the rendered pages stay where they are until it is done.
      indexing = indexer.finish(outDir, partial);
      indexing.catch(() => undefined);
      // Meanwhile, on this thread, the files beside client/ that need neither.
      writeNew(path.join(outDir, 'published-blobs.json'), `${JSON.stringify(publishedBlobs(catalog))}\n`);
      writeNew(path.join(outDir, SCORES_MANIFEST), manifestText);
      // Signed-in files: the base's copies linked, the changed works' copied again.
      const protectedDir = path.join(outDir, 'protected');
      if (existsSync(path.join(baseDir, 'protected')))
        execFileSync('cp', ['-al', path.join(baseDir, 'protected'), protectedDir]);
      for (const slug of plan.works) rmSync(path.join(protectedDir, slug), { recursive: true, force: true });
      writeProtected(outDir, catalog, new Set(plan.works));
      // The unchanged works' lines copied from the base's file; kept in memory for the next apply.
      writeSnapshot(outDir, catalog, { reuse: snapshot ?? undefined, rememberFor: contentDir });
      phase('restMs');
    } catch (err) {
      // Never leave a copy, Pagefind or the index writing into a folder the caller may remove next.
      await Promise.allSettled([pending, indexing]);
      throw err;
    }
    const [linked, searched, compressed] = await pending;
    phase('waitMs');
    // The index's own time is catalogIndex.durationMs; this phase is what is left of it after the wait.
    const [indexed] = await Promise.allSettled([indexing]);
    phase('indexMs');
    if (linked.status === 'rejected') throw linked.reason;
    if (searched.status === 'rejected') throw searched.reason;
    if (compressed.status === 'rejected') throw compressed.reason;
    compressedPages = compressed.value;
    if (indexed.status === 'rejected') throw indexed.reason;
    searchIndex = searched.value ?? { pages: base.searchIndex.pages, durationMs: 0 };
    catalogIndex = indexed.value;

    // What a change can remove: a work's pages, score pages and files; a browse value it left;
    // works-index pages past the new last page (works were removed). The folder's own files there
    // go; in a layer, the base's files there are deleted from the view unless rendered again.
    const replaced: string[] = [];
    for (const slug of plan.works) replaced.push(`works/${slug}`, `api/v1/works/${slug}`);
    for (const key of plan.facets) if (!key.startsWith('composer/')) replaced.push(`browse/${key}`);
    replaced.push(...pagesPast(kind === 'layer' ? baseView : SiteView.plain(clientDir), worksIndexKeys!));
    const removedBase: string[] = [];
    for (const dir of replaced) {
      rmSync(path.join(clientDir, dir), { recursive: true, force: true });
      if (kind === 'layer') removedBase.push(...baseView.baseFilesUnder(dir));
    }
    renderedFiles = moveTree(partial, clientDir);
    if (existsSync(path.join(scoresDir, 'files'))) moveTree(path.join(scoresDir, 'files'), clientDir);
    if (!keepSearch && kind === 'layer') {
      // The shards indexed again replace theirs; every shard when the whole index was made again.
      const dirty = shardReuse ? shardReuse.dirty : null;
      const inDirty = (rel: string) => dirty === null || dirty.some((k) => inShard(rel, k));
      for (const rel of filesBelow(clientDir, 'pagefind')) if (inDirty(rel)) rmSync(path.join(clientDir, rel));
      // The base's files of those shards only: shard 0's folder holds the others' folders.
      const folders = dirty === null ? ['pagefind'] : dirty.map((k) => (k === 0 ? 'pagefind' : `pagefind/shard-${k}`));
      const otherShard = (folder: string) => /^pagefind\/shard-\d+$/.test(folder);
      for (const folder of folders)
        removedBase.push(
          ...baseView.baseFilesUnder(folder, folder === 'pagefind' && dirty !== null ? otherShard : undefined),
        );
      moveTree(path.join(searchScratch, 'pagefind'), path.join(clientDir, 'pagefind'));
    } else if (!keepSearch) {
      rmSync(path.join(clientDir, 'pagefind'), { recursive: true, force: true });
      renameSync(path.join(searchScratch, 'pagefind'), path.join(clientDir, 'pagefind'));
    }
    phase('stageMs');
    for (const w of changed)
      rmSync(path.join(clientDir, 'works', w.content.slug, `${w.content.slug}.zip`), { force: true });
    zips = buildWorkZips({ ...catalog, works: changed }, clientDir, generatedAtUtc);
    phase('zipsMs');
    if (kind === 'layer') {
      const files = filesBelow(clientDir).sort();
      layer = {
        format: LAYER_FORMAT,
        base: path.basename(baseLayer ? path.dirname(baseView.base!) : baseDir),
        files,
        deleted: nextDeleted(baseLayer?.deleted ?? [], removedBase, new Set(files)),
      };
      writeLayerFiles(outDir, layer);
      phase('layerMs');
    } else writePlainBaseLink(outDir);
  } finally {
    await indexer.close();
  }

  writeNew(
    path.join(outDir, 'nginx.conf'),
    renderNginxConfig(options.nginxRoot ? path.resolve(options.nginxRoot) : clientDir, {
      blobsDir: options.blobsDir ? path.resolve(options.blobsDir) : undefined,
      // nginx serves this folder on this machine: brotli when its nginx has the module.
      brotliStatic: nginxHasBrotliStatic(),
    }),
  );
  for (const scratch of [partial, scoresDir, scopeFile, searchScratch])
    rmSync(scratch, { recursive: true, force: true });
  const info: BuildInfo = {
    baseUrl: options.baseUrl,
    readerSignIn: options.readerSignIn ?? 'none',
    contentDir,
    commit: options.commit,
    siteCode,
    mode: 'incremental',
    fallbackReason: null,
    incremental: {
      base: path.basename(baseDir),
      baseCommit: base.commit,
      changedFiles: files.length,
      works: plan.works,
      reparsedWorks: reparsed,
      snapshot: snapshot === null ? null : snapshot.fromMemory ? 'memory' : 'file',
      renderedFiles,
      renderer,
      searchIndexKept: keepSearch,
      searchShardsIndexed: keepSearch ? [] : shardReuse ? shardReuse.dirty : null,
      layer: layer
        ? { base: layer.base, files: layer.files.length, deleted: layer.deleted.length }
        : { base: null, compacted: baseLayer !== null },
      worksIndexPages,
      phases,
      background,
    },
    generatedAtUtc,
    works: catalog.works.length,
    profiles: catalog.profiles.length,
    scores: scoreCounts(scores),
    compressedPages,
    searchIndex,
    catalogIndex,
    zips,
    durationMs: Date.now() - started,
  };
  writeNew(path.join(outDir, 'build.json'), `${JSON.stringify(info, null, 2)}\n`);
  return info;
}

/** Incremental when it can be, else a full build that says why in build.json. */
export async function buildIncrementalOrFull(options: BuildOptions, baseDir: string): Promise<BuildInfo> {
  try {
    return await buildIncremental(options, baseDir);
  } catch (err) {
    if (!(err instanceof FullBuildNeeded)) throw err;
    const info = await buildSite(options);
    info.fallbackReason = err.message;
    writeFileSync(path.join(path.resolve(options.outDir), 'build.json'), `${JSON.stringify(info, null, 2)}\n`);
    return info;
  }
}
