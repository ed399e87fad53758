/**
 * Builds the static site from a content repository:
 *   npm run build -- [--content DIR] [--out DIR] [--base-url URL] [--reader-sign-in github|none] [--batch-works N]
 * Checks the content first (same messages as lint:content), renders the MusicXML source scores
 * to SVG and MIDI with Verovio (the pages need their sizes), runs `astro build` into
 * `<out>/client`, copies the score files in, writes the Pagefind search index of the works,
 * writes the server's index files (`index/`: search, listing and resolve indexes, from the
 * records just written), writes the nginx config that serves the same URLs, and marks the folder complete with
 * `build.json` last, so a half-built folder is never mistaken for a site.
 */
import {
  copyFileSync,
  cpSync,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  writeFileSync,
  symlinkSync,
} from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { formatLintMessage, loadCatalog, type Catalog } from '../src/domain/catalog.ts';
import { dropSharedSiteData, shareCatalog } from '../src/lib/site-data.ts';
import { nginxHasBrotliStatic, renderNginxConfig } from '../api/site/nginx.ts';
import { writePlainBaseLink } from '../src/lib/site/layers.ts';
import { protectedAssets, publishedBlobs } from '../src/domain/records.ts';
import { placeViewedScores, renderScores, type RenderSummary } from '../src/lib/site/render-scores.ts';
import type { RenderCacheBackend } from '../src/lib/site/render-cache.ts';
import type { EngravePoolOptions } from '../src/lib/site/engrave-pool.ts';
import { createBlobStore } from '../api/blobs/create.ts';
import { ConfigError, engraveSettingsFromEnv, loadConfig, type Config } from '../api/config.ts';
import { BUILD_STORE_VARIABLE } from '../api/site/builds.ts';
import { precompressScores, type PrecompressResult } from '../src/lib/site/precompress.ts';
import type { ScoreManifest } from '../src/lib/site/scores.ts';
import { LocalBlobStore } from '../api/blobs/blob-store.ts';
import { buildSearchIndex, buildSearchIndexInWorker } from '../src/lib/site/search-index.ts';
import { indexBuild } from '../api/catalog/build-index.ts';
import { buildWorkZipsInWorker, type ZipSummary } from '../src/lib/site/work-zips.ts';
import { forgetSnapshot, writeSnapshot } from './catalog-snapshot.ts';
import { moveTree } from '../src/lib/site/move-tree.ts';
import { resetWorksIndexPages, writeWorksIndexKeys } from '../src/lib/site/works-index.ts';
import { siteCodeDigest } from './lib/site-code.ts';
import { warmAppKey, warmCapture, warmKey, warmRender } from './lib/warm-render.ts';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

export interface BuildOptions {
  contentDir: string;
  /** The build folder; the site goes to `<outDir>/client`. */
  outDir: string;
  baseUrl: string;
  quiet?: boolean;
  /** The blob store's folder, for nginx.conf's download offload location (ARCHIVE_DOWNLOAD_OFFLOAD=nginx). */
  blobsDir?: string;
  /**
   * The folder nginx.conf roots at. The server passes ARCHIVE_DATA_DIR/current/client, the link it
   * moves to the served build at every swap, so nginx follows swaps; default this build's client/.
   */
  nginxRoot?: string;
  /**
   * Does the archive this build is for sign readers in (GitHub OAuth)? Records and pages say so:
   * signed-in files get the protected download link, or the words "signed-in download is not
   * offered by this archive" (src/domain/access.ts). Default: none.
   */
  readerSignIn?: 'github' | 'none';
  /**
   * Works per Astro run (ARCHIVE_BUILD_BATCH_WORKS, --batch-works; default 10,000): a larger
   * catalog renders in batches, so Astro's memory follows the batch, not the catalog.
   */
  batchWorks?: number;
  /** The content commit being built, recorded in build.json (an incremental build diffs from it). */
  commit?: string;
  /** The build's time (every record's generatedAtUtc); now unless given (tests compare builds). */
  generatedAtUtc?: string;
  /** The render cache's backend (the blob store's named objects); none: every score is engraved. */
  renderCache?: RenderCacheBackend | null;
  /**
   * The render view's folder: cached scores unpacked once and hard-linked into each build
   * (src/lib/site/render-view.ts). `--render-cache` picks it beside the cache; none: files are written.
   */
  renderView?: string | null;
  /** The engraving pool's workers and budgets (defaults: every core, DEFAULT_ENGRAVE_*). */
  engrave?: Partial<EngravePoolOptions>;
}

export interface BuildInfo {
  baseUrl: string;
  /** Reader sign-in the records and pages were written for. */
  readerSignIn: 'github' | 'none';
  contentDir: string;
  /** The content commit built; null when the caller did not name one (then no incremental build can start from this folder). */
  commit: string | null;
  /**
   * SHA-256 of the site code that made the build (scripts/lib/site-code.ts): an incremental build
   * starts only from a base with the same. Builds before 2026-11-28 have none.
   */
  siteCode?: string;
  /** "full": everything rendered; "incremental": only what a change touched, on top of `incremental.base` (scripts/build-incremental.ts). */
  mode: 'full' | 'incremental';
  /** Why a requested incremental build became a full one; null otherwise. */
  fallbackReason?: string | null;
  incremental?: {
    base: string;
    baseCommit: string;
    changedFiles: number;
    works: string[];
    /** Works parsed and checked again (the rest came from the base's catalog-snapshot.json); null: the whole catalog was loaded. */
    reparsedWorks: number | null;
    /**
     * Where the base's snapshot came from: "memory" when this process wrote it (the warm build
     * process's previous apply; scripts/catalog-snapshot.ts), "file" when read; null: no snapshot.
     */
    snapshot?: 'memory' | 'file' | null;
    renderedFiles: number;
    /** Who rendered the pages: the warm renderer (no Vite run), or Astro (and why not the warm renderer). */
    renderer?: RendererUsed;
    /** The changed works' search records were unchanged, so the base's Pagefind index was linked, not made again. */
    searchIndexKept?: boolean;
    /** The search-index shards indexed again (the others linked from the base); null: every shard (src/lib/site/search-index.ts). */
    searchShardsIndexed?: number[] | null;
    /**
     * A layer over `base` (src/lib/site/layers.ts): the files of its delta and the base's files it
     * deletes; or no layer (`base: null`), `compacted` when the base was a layer whose view was copied.
     */
    layer?: { base: string; files: number; deleted: number } | { base: null; compacted: boolean };
    /** Pages 2.. of the works index rendered, per order (the others' keys were the base's). */
    worksIndexPages?: { title: number; composer: number };
    /** Wall time of each step in order (ms). */
    phases: Record<string, number>;
    /** Steps that run while Astro renders (the hard-linked copy, Pagefind): each one's own time (ms). */
    background: Record<string, number>;
  };
  generatedAtUtc: string;
  works: number;
  profiles: number;
  /**
   * Score previews: rendered and failed MusicXML source scores, and the time it took; of them,
   * `engraved` by this build and `fromCache` (verified render cache entries), `corrupt`
   * cache entries found damaged and made again, and `pdfsMade` PDFs made from cached pages. Builds before the render cache have no
   * engraved/fromCache/corrupt. `compressedFromCache`: SVG pages whose brotli and gzip forms came
   * from the cache entry (not compressed again); `compressedForCache`: SVG pages this build
   * compressed to store in the cache (new engravings, or entries made before the forms were kept).
   * With a cache every page's forms come with its engraving, so `compressedPages` counts none;
   * without one, every page is compressed there, beside Astro. `fromView`: scores of `fromCache`
   * hard-linked from the render view (their entry not read); `unpacked`: scores this build put
   * into the view; `linkedFiles`: files placed as links (src/lib/site/render-view.ts).
   */
  scores: Omit<RenderSummary, 'manifest' | 'deferred'>;
  /**
   * Engraved pages compressed by this build (brotli and gzip siblings, src/lib/site/precompress.ts):
   * pages, their SVG bytes, the compressed bytes of each coding, and the time it took beside Astro.
   */
  compressedPages?: PrecompressResult;
  /** Works in the Pagefind search index, and the time it took. */
  searchIndex: { pages: number; durationMs: number };
  /** Works in the server's index files (`index/`), and the time it took. */
  /**
   * The server's index files. An incremental build says how its listing index and its resolve
   * catalog were made: "merged" from the base's, or "built" from every record (with the reason).
   */
  catalogIndex: {
    works: number;
    durationMs: number;
    listing?: 'merged' | 'built';
    listingBuiltBecause?: string;
    resolve?: 'merged' | 'built';
    resolveBuiltBecause?: string;
  };
  /** "Download all": one zip of public files per work (src/lib/site/work-zips.ts). */
  zips: ZipSummary;
  /**
   * A full build's phases in ms, in order: loadMs, scoresMs, astroMs (with Pagefind beside it when
   * the catalog fits in one Astro run), copyScoresMs, searchMs (moving Pagefind's index in, or
   * Pagefind after Astro in a batched build), restMs, catalogIndexMs, zipsMs (waiting for the zip
   * worker, which runs from copyScoresMs on). `zips` and `searchIndex` have each one's own time.
   * Builds before 2026-11-23 evening had zipsAndSearchMs (zips beside Pagefind, after Astro).
   */
  phases?: Record<string, number>;
  /** Peak resident memory of the build process itself (not Pagefind's child), bytes. */
  peakRssBytes?: number;
  /** Astro runs of a full build: 1, or one per batch of works plus one for the listings (`batchWorks`). */
  astroRuns?: number;
  /** Of `astroRuns`, those the warm renderer rendered (every batch after the first, unless it failed). */
  warmRuns?: number;
  durationMs: number;
}

export class ContentError extends Error {
  readonly messages: string[];
  constructor(messages: string[]) {
    super(`content has ${messages.length} problem(s):\n${messages.join('\n')}`);
    this.messages = messages;
  }
}

/** The score manifest a build keeps (beside client/), keys sorted so equal manifests are equal bytes. */
export const SCORES_MANIFEST = 'scores-manifest.json';

export function serializeScoreManifest(manifest: ScoreManifest): string {
  const scores: ScoreManifest['scores'] = {};
  for (const key of Object.keys(manifest.scores).sort()) scores[key] = manifest.scores[key]!;
  return `${JSON.stringify({ scores })}\n`;
}

export interface AstroRun {
  contentDir: string;
  baseUrl: string;
  generatedAtUtc: string;
  /** A scratch folder the run may use (Astro's staging files, a borrowed node_modules link). */
  workDir: string;
  /** Where the pages go. */
  clientDir: string;
  scoresManifest: string;
  /** An incremental build's scope file (src/lib/site-data.ts, ARCHIVE_BUILD_SCOPE); none: every page. */
  scopeFile?: string;
  /** The catalog already loaded and checked from contentDir: the pages use it instead of parsing every work again. */
  catalog?: Catalog;
  readerSignIn?: 'github' | 'none';
  quiet?: boolean;
  /** Keep the site data the run built for the next run of the same build (batches); otherwise dropped when the run ends. */
  keepSiteData?: boolean;
  /**
   * Render through the warm renderer when this process holds Astro's compiled pages for the same
   * site code and settings (scripts/lib/warm-render.ts). Only for a run whose output joins a base
   * built by the same code: a warm run writes pages and records, not the browser's bundles.
   */
  warm?: boolean;
}

/** Run `astro build` once in this process (the build is a child process of the server). */
/**
 * How an Astro run's pages were rendered: by the warm renderer (scripts/lib/warm-render.ts), or by
 * Astro itself (with why the warm renderer was not used, when the run asked for it).
 */
export type RendererUsed = { kind: 'warm'; files: number; durationMs: number } | { kind: 'astro'; because?: string };

let warmScopes = 0;

export async function runAstro(run: AstroRun): Promise<RendererUsed> {
  const cacheDir = path.join(run.workDir, '.cache');
  const env: Record<string, string> = {
    ARCHIVE_CONTENT_DIR: run.contentDir,
    PUBLIC_BASE_URL: run.baseUrl,
    ARCHIVE_GENERATED_AT: run.generatedAtUtc,
    ARCHIVE_BUILD_OUT: run.clientDir,
    ARCHIVE_BUILD_CACHE: cacheDir,
    ARCHIVE_SCORES_MANIFEST: run.scoresManifest,
    ARCHIVE_READER_SIGNIN: run.readerSignIn ?? 'none',
    ASTRO_TELEMETRY_DISABLED: '1',
  };
  if (run.scopeFile) env.ARCHIVE_BUILD_SCOPE = run.scopeFile;
  else delete process.env.ARCHIVE_BUILD_SCOPE;
  Object.assign(process.env, env);
  if (run.catalog) shareCatalog(run.contentDir, run.catalog);
  const key = warmKey(siteCodeDigest(PROJECT_ROOT), process.env);
  let because: string | undefined;
  if (run.warm) {
    // The pages key their scope by its file name, and the warm app's page modules saw earlier
    // runs' files: each warm run reads its scope from a name of its own.
    const scopeCopy = run.scopeFile ? `${run.scopeFile}.warm-${process.pid}-${++warmScopes}` : undefined;
    try {
      if (scopeCopy) {
        copyFileSync(run.scopeFile!, scopeCopy);
        process.env.ARCHIVE_BUILD_SCOPE = scopeCopy;
      }
      const held = warmAppKey();
      const done = await warmRender(key, run.clientDir);
      if (done) {
        if (!run.quiet)
          console.log(`[build] warm render: ${done.files} pages and records in ${done.durationMs} ms (no Vite run)`);
        return { kind: 'warm', ...done };
      }
      because = held === null ? 'no warm app in this process yet' : 'the site code or its settings changed';
    } catch (err) {
      because = `the warm render failed: ${(err as Error).message}`;
      console.error(`[build] ${because}; running Astro`);
      rmSync(run.clientDir, { recursive: true, force: true });
    } finally {
      if (scopeCopy) {
        rmSync(scopeCopy, { force: true });
        process.env.ARCHIVE_BUILD_SCOPE = run.scopeFile!;
      }
      if (!run.keepSiteData) dropSharedSiteData();
    }
    if (run.catalog) shareCatalog(run.contentDir, run.catalog);
  }
  const { build } = await import('astro');
  // Astro stages prerendered chunks under <cwd>/.astro when outDir lies outside the working
  // directory, so two builds of this checkout would share (and break) one staging folder. Building
  // from inside the output folder keeps each build's staging files its own.
  // The staged chunks import packages by name, so the build folder borrows node_modules for the build.
  const cwd = process.cwd();
  const borrowed = path.join(run.workDir, 'node_modules');
  symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), borrowed, 'dir');
  process.chdir(run.workDir);
  try {
    // No `astro sync` first: it writes TypeScript declarations and syncs content collections,
    // neither of which the site uses or a build's output depends on, and cost 0.2-0.3 s of every
    // build, an apply's incremental ones included. `sync` is an option of Astro's builder that
    // build() passes on but does not declare (astro 7.3): should a later Astro ignore it, sync
    // runs again, which only costs the time.
    const options = { sync: false } as Parameters<typeof build>[1];
    await build(
      {
        root: PROJECT_ROOT,
        logLevel: run.quiet ? 'error' : 'info',
        outDir: run.clientDir,
        cacheDir,
        // Every run leaves its compiled pages loaded for the next run's warm render.
        integrations: [warmCapture(key, path.join(run.clientDir, '.prerender'))],
      },
      options,
    );
  } finally {
    process.chdir(cwd);
    rmSync(borrowed, { force: true });
    rmSync(path.join(run.clientDir, '.prerender'), { recursive: true, force: true });
    if (!run.keepSiteData) dropSharedSiteData();
  }
  rmSync(cacheDir, { recursive: true, force: true });
  return because === undefined ? { kind: 'astro' } : { kind: 'astro', because };
}

/** Works per Astro run of a full build, unless the caller or ARCHIVE_BUILD_BATCH_WORKS says otherwise. */
export const DEFAULT_BATCH_WORKS = 10_000;

export function batchWorksFrom(value: string | number | undefined): number {
  if (value === undefined || value === '') return DEFAULT_BATCH_WORKS;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`the batch size must be a whole number of works >= 1 (got "${value}")`);
  return n;
}

/** Move every file under `from` to the same place under `to` (replacing what is there), then remove `from`. */
function moveInto(from: string, to: string): void {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, entry.name);
    const dest = path.join(to, entry.name);
    if (entry.isDirectory()) {
      if (!existsSync(dest)) {
        renameSync(src, dest);
        continue;
      }
      moveInto(src, dest);
    } else {
      rmSync(dest, { force: true });
      renameSync(src, dest);
    }
  }
  rmSync(from, { recursive: true, force: true });
}

/**
 * Every page of a full build. Up to `batchWorks` works: one Astro run, as always. More: one run
 * per batch of works (their pages, records, score pages and files; the catalog-wide pages come
 * along in every run and are the same bytes each time), then one run for every composer, browse
 * and profile page, each into a scratch folder moved into `clientDir`. The runs share one loaded
 * catalog and one set of records (src/lib/site-data.ts), so memory follows the batch, not the
 * number of runs; the output is the same files with the same bytes as one run
 * (test/build/full-build-batches.slow.test.ts).
 */
export async function renderAllPages(
  run: Omit<AstroRun, 'scopeFile' | 'keepSiteData'> & { catalog: Catalog },
  batchWorks: number,
  log: (message: string) => void,
): Promise<{ runs: number; warm: number }> {
  const slugs = run.catalog.works.map((w) => w.content.slug).sort();
  if (slugs.length <= batchWorks) {
    await runAstro(run);
    return { runs: 1, warm: 0 };
  }
  let warm = 0;
  // A folder per run too: Node keeps a module loaded from a path, and Astro's prerender entry keeps
  // its app (and the static paths it computed) in module state, so a run from the same path would
  // render the previous run's paths.
  const scratch = (n: number) => path.join(run.workDir, `.batch-${n}`);
  const scopeFile = (n: number) => path.join(run.workDir, `.batch-scope-${n}.json`);
  const scopes: Array<{ works: string[]; facets: string[]; profiles: string[]; listings: 'named' | 'all' }> = [];
  for (let i = 0; i < slugs.length; i += batchWorks)
    scopes.push({ works: slugs.slice(i, i + batchWorks), facets: [], profiles: [], listings: 'named' });
  scopes.push({ works: [], facets: [], profiles: [], listings: 'all' });
  mkdirSync(run.clientDir, { recursive: true });
  try {
    for (const [n, scope] of scopes.entries()) {
      // A file per run: the page modules may be the ones an earlier run loaded, and they key their scope by its file.
      writeFileSync(scopeFile(n), JSON.stringify(scope));
      const last = n === scopes.length - 1;
      // Runs after the first render through the first one's compiled pages (its bundles are in place).
      const used = await runAstro({
        ...run,
        clientDir: scratch(n),
        scopeFile: scopeFile(n),
        keepSiteData: !last,
        warm: n > 0,
      });
      if (used.kind === 'warm') warm++;
      rmSync(scopeFile(n), { force: true });
      moveInto(scratch(n), run.clientDir);
      const m = process.memoryUsage();
      const memory = `rss ${Math.round(m.rss / 1048576)} MB, heap ${Math.round(m.heapUsed / 1048576)}/${Math.round(m.heapTotal / 1048576)} MB`;
      log(
        `${scope.works.length > 0 ? `pages of works ${n * batchWorks + 1}-${n * batchWorks + scope.works.length} of ${slugs.length}` : 'composer, browse and profile pages'} (run ${n + 1} of ${scopes.length}, ${used.kind === 'warm' ? 'warm' : 'Astro'}); ${memory}`,
      );
    }
  } finally {
    dropSharedSiteData();
    for (let n = 0; n < scopes.length; n++) {
      rmSync(scopeFile(n), { force: true });
      rmSync(scratch(n), { recursive: true, force: true });
    }
  }
  return { runs: scopes.length, warm };
}

/**
 * Outside client/ too: files that are not public. Signed-in stored files are copied under
 * protected/ for the protected download route (api/signin/); nothing serves that folder publicly.
 * `onlyWorks`: copy only these works' files (an incremental build keeps the others' links).
 */
export function writeProtected(outDir: string, catalog: Catalog, onlyWorks?: Set<string>): void {
  const restricted = protectedAssets(catalog);
  const bySlug = new Map(catalog.works.map((w) => [w.content.slug, w]));
  for (const [key, asset] of Object.entries(restricted)) {
    if (asset.access !== 'signed-in' || asset.file === undefined) continue;
    const slug = key.slice(0, key.lastIndexOf('/'));
    if (onlyWorks && !onlyWorks.has(slug)) continue;
    const stored = bySlug.get(slug)?.files.get(asset.file);
    if (!stored) continue;
    mkdirSync(path.join(outDir, 'protected', slug), { recursive: true });
    cpSync(stored.absolutePath, path.join(outDir, 'protected', slug, asset.file));
  }
  const file = path.join(outDir, 'protected-assets.json');
  rmSync(file, { force: true }); // a new inode: an incremental folder shares files with its base
  writeFileSync(file, `${JSON.stringify(restricted)}\n`);
}

export async function buildSite(options: BuildOptions): Promise<BuildInfo> {
  const started = Date.now();
  const contentDir = path.resolve(options.contentDir);
  const outDir = path.resolve(options.outDir);
  const siteCode = siteCodeDigest(PROJECT_ROOT);
  forgetSnapshot();
  const phase = phaseClock(options.quiet);
  let loaded: ReturnType<typeof loadCatalog> | undefined = loadCatalog(contentDir);
  if (loaded.messages.length > 0) throw new ContentError(loaded.messages.map(formatLintMessage));
  let catalog: Catalog | undefined = loaded.catalog;
  phase('loadMs', `loaded and checked ${catalog.works.length} works`);

  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const generatedAtUtc = options.generatedAtUtc ?? new Date().toISOString();
  // Scores first: the work pages reserve each image's size, so they need the rendering's result.
  // Outside client/ because astro build owns that folder until it is done.
  const scoresDir = path.join(outDir, '.scores');
  const blobs = options.blobsDir ? new LocalBlobStore(path.resolve(options.blobsDir)) : null;
  const scores = await renderScores(catalog, scoresDir, {
    generatedAtUtc,
    blobPath: blobs ? (sha) => blobs.pathFor(sha) : undefined,
    cache: options.renderCache ?? null,
    view: options.renderView ?? null,
    // Scores found in the render view are linked straight into client/ after Astro (nothing to stage and move).
    linkLater: true,
    poolOptions: options.engrave,
  });
  phase(
    'scoresMs',
    `scores: ${scores.rendered} rendered, ${scores.failed} failed; ${scores.engraved} engraved, ${scores.fromCache} from the render cache (${scores.fromView} linked from its view)`,
  );
  // Each engraved page's brotli and gzip forms, on libuv's thread pool while Astro renders (one
  // page at a time: the pool's other threads stay free for Astro's file writes).
  const compressing = precompressScores(path.join(scoresDir, 'files'), 1);
  compressing.catch(() => undefined); // surfaced when awaited below
  const clientDir = path.join(outDir, 'client');
  const batchWorks = options.batchWorks ?? batchWorksFrom(process.env.ARCHIVE_BUILD_BATCH_WORKS);
  // Pagefind's records come from the catalog, not from the pages, so when the catalog fits in one
  // Astro run the index is made while Astro renders: Pagefind's own process (fed by a worker
  // thread, like the incremental build's) works on the other core, into a scratch folder moved in
  // afterwards. A larger catalog keeps it after Astro (beside the zips), so Pagefind's memory does
  // not add to Astro's in a batched build.
  const searchBeside = catalog.works.length <= batchWorks;
  const searchScratch = path.join(outDir, '.search');
  const searching = searchBeside ? buildSearchIndexInWorker(searchScratch, catalog) : null;
  searching?.catch(() => undefined); // surfaced when awaited below
  let rendered: { runs: number; warm: number };
  resetWorksIndexPages();
  try {
    rendered = await renderAllPages(
      {
        contentDir,
        baseUrl: options.baseUrl,
        generatedAtUtc,
        workDir: outDir,
        clientDir,
        scoresManifest: path.join(scoresDir, 'manifest.json'),
        quiet: options.quiet,
        catalog,
        readerSignIn: options.readerSignIn,
      },
      batchWorks,
      (message) => {
        if (!options.quiet) console.log(`[build] ${message}`);
      },
    );
  } finally {
    // Never leave Pagefind writing into a folder the caller may remove next.
    if (searching) await searching.catch(() => undefined);
    await compressing.catch(() => undefined);
  }
  const compressedPages = await compressing;
  const astroRuns = rendered.runs;
  phase(
    'astroMs',
    `astro build done in ${astroRuns} run(s)${rendered.warm > 0 ? ` (${rendered.warm} by the warm renderer)` : ''}${searching ? ', Pagefind beside it' : ''}`,
  );
  // Moved, not copied: the engraved pages are most of a real catalog's bytes.
  if (existsSync(path.join(scoresDir, 'files'))) moveTree(path.join(scoresDir, 'files'), clientDir);
  scores.linkedFiles += placeViewedScores(scores.deferred, clientDir);
  rmSync(scoresDir, { recursive: true, force: true });
  // Kept beside client/: an incremental build starts from it (the pages of unchanged works need their scores' entries).
  writeFileSync(path.join(outDir, SCORES_MANIFEST), serializeScoreManifest(scores.manifest));
  // And the works-index pages' keys: the next incremental build renders only the pages whose key changed.
  writeWorksIndexKeys(outDir);
  phase('copyScoresMs', 'score files moved in');
  // The zips in worker threads from here on (they read the records Astro wrote), while this
  // thread finishes the search index, the small files and the server's index files.
  const zipping = buildWorkZipsInWorker(catalog, clientDir, generatedAtUtc);
  zipping.catch(() => undefined); // surfaced when awaited below
  let searchIndex: BuildInfo['searchIndex'];
  let catalogIndex: BuildInfo['catalogIndex'];
  let counts: { works: number; profiles: number };
  try {
    if (searching) {
      searchIndex = await searching;
      rmSync(path.join(clientDir, 'pagefind'), { recursive: true, force: true });
      renameSync(path.join(searchScratch, 'pagefind'), path.join(clientDir, 'pagefind'));
      rmSync(searchScratch, { recursive: true, force: true });
    } else {
      // After Astro, beside the zips (Pagefind's own process on the other core).
      searchIndex = await buildSearchIndex(clientDir, catalog);
    }
    phase(
      'searchMs',
      `Pagefind: ${searchIndex.pages} pages in ${searchIndex.durationMs} ms${searching ? ' (beside Astro)' : ''}`,
    );
    writeFileSync(
      path.join(outDir, 'nginx.conf'),
      renderNginxConfig(options.nginxRoot ? path.resolve(options.nginxRoot) : clientDir, {
        blobsDir: options.blobsDir ? path.resolve(options.blobsDir) : undefined,
        // nginx serves this folder on this machine: brotli when its nginx has the module.
        brotliStatic: nginxHasBrotliStatic(),
      }),
    );
    // nginx tries client/ then base/ (a layered build's base; here the folder's own client/).
    writePlainBaseLink(outDir);
    // Outside client/: the server reads it to know which blobs public records link to.
    writeFileSync(path.join(outDir, 'published-blobs.json'), `${JSON.stringify(publishedBlobs(catalog))}\n`);
    writeProtected(outDir, catalog);
    // What the next incremental build starts from instead of parsing every work again.
    writeSnapshot(outDir, catalog);
    counts = { works: catalog.works.length, profiles: catalog.profiles.length };
    phase('restMs', 'nginx.conf, published-blobs.json, protected files');
    // The loaded catalog is done with: the index step reads every record back, so only one copy of
    // the catalog is in memory at a time.
    loaded = undefined;
    catalog = undefined;
    // From the records just written, so the server's index never disagrees with a static record.
    catalogIndex = await indexBuild(outDir);
    phase('catalogIndexMs', `index files: ${catalogIndex.works} works`);
  } finally {
    // Never leave the zip worker writing into a folder the caller may remove next.
    await zipping.catch(() => undefined);
  }
  const zips = await zipping;
  phase('zipsMs', `zips: ${zips.works} works in ${zips.durationMs} ms (worker threads, beside the steps since Astro)`);
  const info: BuildInfo = {
    baseUrl: options.baseUrl,
    readerSignIn: options.readerSignIn ?? 'none',
    contentDir,
    commit: options.commit ?? null,
    siteCode,
    mode: 'full',
    generatedAtUtc,
    works: counts.works,
    profiles: counts.profiles,
    scores: scoreCounts(scores),
    compressedPages,
    searchIndex,
    catalogIndex,
    zips,
    phases: phase.phases,
    astroRuns,
    warmRuns: rendered.warm,
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
    durationMs: Date.now() - started,
  };
  writeFileSync(path.join(outDir, 'build.json'), `${JSON.stringify(info, null, 2)}\n`);
  return info;
}

/** build.json's `scores` from a render summary. */
export function scoreCounts(s: {
  rendered: number;
  failed: number;
  durationMs: number;
  engraved: number;
  fromCache: number;
  corrupt: number;
  pdfsMade: number;
  compressedFromCache: number;
  compressedForCache: number;
  fromView: number;
  unpacked: number;
  linkedFiles: number;
}): BuildInfo['scores'] {
  return {
    rendered: s.rendered,
    failed: s.failed,
    durationMs: s.durationMs,
    engraved: s.engraved,
    fromCache: s.fromCache,
    corrupt: s.corrupt,
    pdfsMade: s.pdfsMade,
    compressedFromCache: s.compressedFromCache,
    compressedForCache: s.compressedForCache,
    fromView: s.fromView,
    unpacked: s.unpacked,
    linkedFiles: s.linkedFiles,
  };
}

/**
 * The render cache a build uses, from `--render-cache`: "config" (default) the configured blob
 * store (ARCHIVE_BLOB_STORE, ARCHIVE_DATA_DIR, ARCHIVE_S3_*), "store" the one the server handed
 * its build child (BUILD_STORE_VARIABLE), "none", or a folder (a local blob store's root).
 */
export function renderCacheFrom(
  value: string,
  env: NodeJS.ProcessEnv,
): { cache: RenderCacheBackend | null; config: Config | null; view: string | null } {
  if (value === 'none') return { cache: null, config: null, view: null };
  if (value === 'store') {
    const raw = env[BUILD_STORE_VARIABLE];
    if (!raw) throw new ConfigError(`--render-cache store needs ${BUILD_STORE_VARIABLE} (set by the server)`);
    const store = JSON.parse(raw) as Pick<Config, 'dataDir' | 'blobStore' | 's3'>;
    return { cache: createBlobStore(store), config: null, view: path.join(store.dataDir, RENDER_VIEW_FOLDER) };
  }
  if (value === 'config') {
    const config = loadConfig(env, PROJECT_ROOT);
    return { cache: createBlobStore(config), config, view: path.join(config.dataDir, RENDER_VIEW_FOLDER) };
  }
  // A local blob store's root: the view beside its named objects.
  return {
    cache: new LocalBlobStore(path.resolve(value)),
    config: null,
    view: path.join(path.resolve(value), RENDER_VIEW_FOLDER),
  };
}

/** The render view's folder name, in ARCHIVE_DATA_DIR (or in a `--render-cache DIR`). */
export const RENDER_VIEW_FOLDER = 'render-view';

/** The engraving pool's options from `--engrave-*` flags, else the configuration's ARCHIVE_ENGRAVE_*. */
export function engraveOptionsFrom(
  flags: { workers?: string; timeoutMs?: string; memoryMb?: string },
  env: NodeJS.ProcessEnv,
): EngravePoolOptions {
  return engraveSettingsFromEnv({
    ...env,
    ...(flags.workers !== undefined ? { ARCHIVE_ENGRAVE_WORKERS: flags.workers } : {}),
    ...(flags.timeoutMs !== undefined ? { ARCHIVE_ENGRAVE_TIMEOUT_MS: flags.timeoutMs } : {}),
    ...(flags.memoryMb !== undefined ? { ARCHIVE_ENGRAVE_MEMORY_MB: flags.memoryMb } : {}),
  });
}

/**
 * Times a build's phases; unless quiet, logs each with the process's RSS and heap, so the
 * memory of a large build can be followed (`[build] astroMs 52.1 s; rss 1210 MB, heap 830/1010 MB, external 20 MB, peak rss 1250 MB`).
 */
export function phaseClock(
  quiet?: boolean,
): ((name: string, note?: string) => void) & { phases: Record<string, number> } {
  let mark = Date.now();
  const phases: Record<string, number> = {};
  const fn = (name: string, note?: string) => {
    const now = Date.now();
    phases[name] = now - mark;
    mark = now;
    if (!quiet) {
      const m = process.memoryUsage();
      const mb = (n: number) => Math.round(n / 1048576);
      console.log(
        `[build] ${name} ${(phases[name]! / 1000).toFixed(1)} s${note ? ` (${note})` : ''}; rss ${mb(m.rss)} MB, heap ${mb(m.heapUsed)}/${mb(m.heapTotal)} MB, external ${mb(m.external)} MB, peak rss ${mb(process.resourceUsage().maxRSS * 1024)} MB`,
      );
    }
  };
  return Object.assign(fn, { phases });
}

/** A bad command line or setting (the CLI's exit code 2); the message names the option. */
export class UsageError extends Error {}

/** The build CLI's options, for `--help` and a bad command line. */
export const BUILD_USAGE = `usage: npm run build -- [--content DIR] [--out DIR] [--base-url URL] [--quiet]
  [--reader-sign-in github|none] [--commit SHA] [--generated-at ISO-TIME] [--incremental-from BUILD-DIR]
  [--batch-works N] [--render-cache config|none|DIR] [--blobs-dir DIR] [--nginx-root DIR]
  [--engrave-workers N] [--engrave-timeout-ms MS] [--engrave-memory-mb MB]
(README.md, "Settings"; docs/architecture.md for what a build writes)`;

function parseBuildArgs(args: string[]) {
  return parseArgs({
    args,
    options: {
      content: { type: 'string', default: process.env.ARCHIVE_CONTENT_DIR ?? path.join(PROJECT_ROOT, 'content') },
      out: { type: 'string', default: path.join(PROJECT_ROOT, 'dist') },
      'base-url': { type: 'string', default: process.env.PUBLIC_BASE_URL ?? 'http://localhost:4321' },
      quiet: { type: 'boolean', default: false },
      'blobs-dir': { type: 'string' },
      'nginx-root': { type: 'string' },
      'reader-sign-in': { type: 'string', default: 'none' },
      commit: { type: 'string' },
      'generated-at': { type: 'string' },
      'incremental-from': { type: 'string' },
      'batch-works': { type: 'string' },
      'render-cache': { type: 'string', default: 'config' },
      'engrave-workers': { type: 'string' },
      'engrave-timeout-ms': { type: 'string' },
      'engrave-memory-mb': { type: 'string' },
    },
  });
}

/**
 * `npm run build` with these arguments, in this process (the CLI below, and the warm build
 * process of api/site/warm-builder.ts): the build's info. Throws UsageError (exit code 2) or
 * ContentError (exit code 1); anything else is a failure of the build itself.
 */
export async function runBuildCommand(args: string[]): Promise<{ info: BuildInfo; outDir: string }> {
  let parsed: ReturnType<typeof parseBuildArgs>;
  try {
    parsed = parseBuildArgs(args);
  } catch (err) {
    // node:util's message names the option ("Unknown option '--x'", "Option '--out <value>' argument missing").
    throw new UsageError(`${(err as Error).message}\n${BUILD_USAGE}`);
  }
  const { values } = parsed;
  let renderCache: RenderCacheBackend | null;
  let renderView: string | null;
  let engrave: EngravePoolOptions;
  try {
    ({ cache: renderCache, view: renderView } = renderCacheFrom(values['render-cache'], process.env));
    engrave = engraveOptionsFrom(
      {
        workers: values['engrave-workers'],
        timeoutMs: values['engrave-timeout-ms'],
        memoryMb: values['engrave-memory-mb'],
      },
      process.env,
    );
  } catch (err) {
    throw new UsageError(`--render-cache / --engrave-*: ${(err as Error).message}`);
  }
  const readerSignIn = values['reader-sign-in'];
  if (readerSignIn !== 'github' && readerSignIn !== 'none')
    throw new UsageError(`--reader-sign-in must be "github" or "none" (got "${readerSignIn}")`);
  let batchWorks: number;
  try {
    batchWorks = batchWorksFrom(values['batch-works'] ?? process.env.ARCHIVE_BUILD_BATCH_WORKS);
  } catch (err) {
    throw new UsageError(`--batch-works / ARCHIVE_BUILD_BATCH_WORKS: ${(err as Error).message}`);
  }
  const options: BuildOptions = {
    contentDir: values.content,
    outDir: values.out,
    baseUrl: values['base-url'],
    quiet: values.quiet,
    blobsDir: values['blobs-dir'],
    nginxRoot: values['nginx-root'],
    commit: values.commit,
    generatedAtUtc: values['generated-at'],
    readerSignIn,
    batchWorks,
    renderCache,
    renderView,
    engrave,
  };
  if (values['incremental-from']) {
    const { buildIncrementalOrFull } = await import('./build-incremental.ts');
    return { info: await buildIncrementalOrFull(options, values['incremental-from']), outDir: values.out };
  }
  return { info: await buildSite(options), outDir: values.out };
}

/** One line for the log: what was built, where, and how. */
export function builtLine(info: BuildInfo, outDir: string): string {
  const how =
    info.mode === 'incremental'
      ? `incrementally (${info.incremental?.works.join(', ')})`
      : info.fallbackReason
        ? `in full (${info.fallbackReason})`
        : 'in full';
  return `built ${info.works} works and ${info.profiles} profiles into ${outDir} ${how} in ${info.durationMs} ms`;
}

async function main(): Promise<void> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    console.log(BUILD_USAGE);
    return;
  }
  try {
    const { info, outDir } = await runBuildCommand(process.argv.slice(2));
    console.log(builtLine(info, outDir));
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(err.message);
      process.exit(2);
    }
    if (err instanceof ContentError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
}

// Not a top-level await: build-incremental.ts imports this module, which must finish evaluating first.
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}
