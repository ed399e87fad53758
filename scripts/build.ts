/**
 * Builds the static site from a content repository:
 *   npm run build -- [--content DIR] [--out DIR] [--base-url URL] [--reader-sign-in github|none]
 * Checks the content first (same messages as lint:content), renders the MusicXML source scores
 * to SVG and MIDI with Verovio (the pages need their sizes), runs `astro build` into
 * `<out>/client`, copies the score files in, writes the Pagefind search index of the works,
 * writes the server's index files (`index/`: search, listing and resolve indexes, from the
 * records just written), writes the nginx config that serves the same URLs, and marks the folder complete with
 * `build.json` last, so a half-built folder is never mistaken for a site.
 */
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync, symlinkSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { formatLintMessage, loadCatalog, type Catalog } from '../src/domain/catalog.ts';
import { shareCatalog } from '../src/lib/site-data.ts';
import { renderNginxConfig } from '../api/site/nginx.ts';
import { protectedAssets, publishedBlobs } from '../src/domain/records.ts';
import { renderScores } from '../src/lib/site/render-scores.ts';
import type { ScoreManifest } from '../src/lib/site/scores.ts';
import { LocalBlobStore } from '../api/blobs/blob-store.ts';
import { buildSearchIndex } from '../src/lib/site/search-index.ts';
import { indexBuild } from '../api/catalog/build-index.ts';
import { buildWorkZips, type ZipSummary } from '../src/lib/site/work-zips.ts';
import { writeSnapshot } from './catalog-snapshot.ts';

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
   * Does the archive this build is for sign readers in (GitHub OAuth)? Records and pages say so:
   * signed-in files get the protected download link, or the words "signed-in download is not
   * offered by this archive" (src/domain/access.ts). Default: none.
   */
  readerSignIn?: 'github' | 'none';
  /** The content commit being built, recorded in build.json (an incremental build diffs from it). */
  commit?: string;
  /** The build's time (every record's generatedAtUtc); now unless given (tests compare builds). */
  generatedAtUtc?: string;
}

export interface BuildInfo {
  baseUrl: string;
  /** Reader sign-in the records and pages were written for (issue 18). */
  readerSignIn: 'github' | 'none';
  contentDir: string;
  /** The content commit built; null when the caller did not name one (then no incremental build can start from this folder). */
  commit: string | null;
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
    renderedFiles: number;
    /** Wall time of each step in order (ms). */
    phases: Record<string, number>;
    /** Steps that run while Astro renders (the hard-linked copy, Pagefind): each one's own time (ms). */
    background: Record<string, number>;
  };
  generatedAtUtc: string;
  works: number;
  profiles: number;
  /** Score previews: rendered and failed MusicXML source scores, and the time it took. */
  scores: { rendered: number; failed: number; durationMs: number };
  /** Works in the Pagefind search index, and the time it took. */
  searchIndex: { pages: number; durationMs: number };
  /** Works in the server's index files (`index/`), and the time it took. */
  catalogIndex: { works: number; durationMs: number };
  /** "Download all": one zip of public files per work (src/lib/site/work-zips.ts). */
  zips: ZipSummary;
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
}

/** Run `astro build` once in this process (the build is a child process of the server). */
export async function runAstro(run: AstroRun): Promise<void> {
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
    await build({ root: PROJECT_ROOT, logLevel: run.quiet ? 'error' : 'info', outDir: run.clientDir, cacheDir });
  } finally {
    process.chdir(cwd);
    rmSync(borrowed, { force: true });
    rmSync(path.join(run.clientDir, '.prerender'), { recursive: true, force: true });
  }
  rmSync(cacheDir, { recursive: true, force: true });
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
  const { catalog, messages } = loadCatalog(contentDir);
  if (messages.length > 0) throw new ContentError(messages.map(formatLintMessage));

  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const generatedAtUtc = options.generatedAtUtc ?? new Date().toISOString();
  // Scores first: the work pages reserve each image's size, so they need the rendering's result.
  // Outside client/ because astro build owns that folder until it is done.
  const scoresDir = path.join(outDir, '.scores');
  const blobs = options.blobsDir ? new LocalBlobStore(path.resolve(options.blobsDir)) : null;
  const scores = await renderScores(catalog, scoresDir, { generatedAtUtc, blobPath: blobs ? (sha) => blobs.pathFor(sha) : undefined });
  const clientDir = path.join(outDir, 'client');
  await runAstro({ contentDir, baseUrl: options.baseUrl, generatedAtUtc, workDir: outDir, clientDir, scoresManifest: path.join(scoresDir, 'manifest.json'), quiet: options.quiet, catalog, readerSignIn: options.readerSignIn });
  if (existsSync(path.join(scoresDir, 'files'))) cpSync(path.join(scoresDir, 'files'), clientDir, { recursive: true });
  rmSync(scoresDir, { recursive: true, force: true });
  // Kept beside client/: an incremental build starts from it (the pages of unchanged works need their scores' entries).
  writeFileSync(path.join(outDir, SCORES_MANIFEST), serializeScoreManifest(scores.manifest));
  const zips = buildWorkZips(catalog, clientDir, generatedAtUtc);
  const searchIndex = await buildSearchIndex(clientDir, catalog);
  // From the records just written, so the server's index never disagrees with a static record.
  const catalogIndex = await indexBuild(outDir);

  writeFileSync(path.join(outDir, 'nginx.conf'), renderNginxConfig(clientDir, { blobsDir: options.blobsDir ? path.resolve(options.blobsDir) : undefined }));
  // Outside client/: the server reads it to know which blobs public records link to.
  writeFileSync(path.join(outDir, 'published-blobs.json'), `${JSON.stringify(publishedBlobs(catalog))}\n`);
  writeProtected(outDir, catalog);
  // What the next incremental build starts from instead of parsing every work again.
  writeSnapshot(outDir, catalog);
  const info: BuildInfo = {
    baseUrl: options.baseUrl,
    readerSignIn: options.readerSignIn ?? 'none',
    contentDir,
    commit: options.commit ?? null,
    mode: 'full',
    generatedAtUtc,
    works: catalog.works.length,
    profiles: catalog.profiles.length,
    scores: { rendered: scores.rendered, failed: scores.failed, durationMs: scores.durationMs },
    searchIndex,
    catalogIndex,
    zips,
    durationMs: Date.now() - started,
  };
  writeFileSync(path.join(outDir, 'build.json'), `${JSON.stringify(info, null, 2)}\n`);
  return info;
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      content: { type: 'string', default: process.env.ARCHIVE_CONTENT_DIR ?? path.join(PROJECT_ROOT, 'content') },
      out: { type: 'string', default: path.join(PROJECT_ROOT, 'dist') },
      'base-url': { type: 'string', default: process.env.PUBLIC_BASE_URL ?? 'http://localhost:4321' },
      quiet: { type: 'boolean', default: false },
      'blobs-dir': { type: 'string' },
      'reader-sign-in': { type: 'string', default: 'none' },
      commit: { type: 'string' },
      'generated-at': { type: 'string' },
      'incremental-from': { type: 'string' },
    },
  });
  const readerSignIn = values['reader-sign-in'];
  if (readerSignIn !== 'github' && readerSignIn !== 'none') {
    console.error(`--reader-sign-in must be "github" or "none" (got "${readerSignIn}")`);
    process.exit(2);
  }
  try {
    const options: BuildOptions = {
      contentDir: values.content,
      outDir: values.out,
      baseUrl: values['base-url'],
      quiet: values.quiet,
      blobsDir: values['blobs-dir'],
      commit: values.commit,
      generatedAtUtc: values['generated-at'],
      readerSignIn,
    };
    let info: BuildInfo;
    if (values['incremental-from']) {
      const { buildIncrementalOrFull } = await import('./build-incremental.ts');
      info = await buildIncrementalOrFull(options, values['incremental-from']);
    } else {
      info = await buildSite(options);
    }
    const how = info.mode === 'incremental' ? `incrementally (${info.incremental?.works.join(', ')})` : info.fallbackReason ? `in full (${info.fallbackReason})` : 'in full';
    console.log(`built ${info.works} works and ${info.profiles} profiles into ${values.out} ${how} in ${info.durationMs} ms`);
  } catch (err) {
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
