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
import { formatLintMessage, loadCatalog } from '../src/domain/catalog.ts';
import { renderNginxConfig } from '../api/site/nginx.ts';
import { protectedAssets, publishedBlobs } from '../src/domain/records.ts';
import { renderScores } from '../src/lib/site/render-scores.ts';
import { LocalBlobStore } from '../api/blobs/blob-store.ts';
import { buildSearchIndex } from '../src/lib/site/search-index.ts';
import { indexBuild } from '../api/catalog/build-index.ts';
import { buildWorkZips, type ZipSummary } from '../src/lib/site/work-zips.ts';

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
}

export interface BuildInfo {
  baseUrl: string;
  /** Reader sign-in the records and pages were written for (issue 18). */
  readerSignIn: 'github' | 'none';
  contentDir: string;
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

export async function buildSite(options: BuildOptions): Promise<BuildInfo> {
  const started = Date.now();
  const contentDir = path.resolve(options.contentDir);
  const outDir = path.resolve(options.outDir);
  const { catalog, messages } = loadCatalog(contentDir);
  if (messages.length > 0) throw new ContentError(messages.map(formatLintMessage));

  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  const generatedAtUtc = new Date().toISOString();
  // Scores first: the work pages reserve each image's size, so they need the rendering's result.
  // Outside client/ because astro build owns that folder until it is done.
  const scoresDir = path.join(outDir, '.scores');
  const blobs = options.blobsDir ? new LocalBlobStore(path.resolve(options.blobsDir)) : null;
  const scores = await renderScores(catalog, scoresDir, { generatedAtUtc, blobPath: blobs ? (sha) => blobs.pathFor(sha) : undefined });
  const env = {
    ARCHIVE_CONTENT_DIR: contentDir,
    PUBLIC_BASE_URL: options.baseUrl,
    ARCHIVE_GENERATED_AT: generatedAtUtc,
    ARCHIVE_BUILD_OUT: path.join(outDir, 'client'),
    ARCHIVE_BUILD_CACHE: path.join(outDir, '.cache'),
    ARCHIVE_SCORES_MANIFEST: path.join(scoresDir, 'manifest.json'),
    ARCHIVE_READER_SIGNIN: options.readerSignIn ?? 'none',
    ASTRO_TELEMETRY_DISABLED: '1',
  };
  Object.assign(process.env, env);
  const { build } = await import('astro');
  // Astro stages prerendered chunks under <cwd>/.astro when outDir lies outside the working
  // directory, so two builds of this checkout would share (and break) one staging folder. Building
  // from inside the output folder keeps each build's staging files its own.
  // The staged chunks import packages by name, so the build folder borrows node_modules for the build.
  const cwd = process.cwd();
  const borrowed = path.join(outDir, 'node_modules');
  symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), borrowed, 'dir');
  process.chdir(outDir);
  try {
    await build({ root: PROJECT_ROOT, logLevel: options.quiet ? 'error' : 'info', outDir: env.ARCHIVE_BUILD_OUT, cacheDir: env.ARCHIVE_BUILD_CACHE });
  } finally {
    process.chdir(cwd);
    rmSync(borrowed, { force: true });
    rmSync(path.join(env.ARCHIVE_BUILD_OUT, '.prerender'), { recursive: true, force: true });
  }
  rmSync(env.ARCHIVE_BUILD_CACHE, { recursive: true, force: true });
  if (existsSync(path.join(scoresDir, 'files'))) cpSync(path.join(scoresDir, 'files'), env.ARCHIVE_BUILD_OUT, { recursive: true });
  rmSync(scoresDir, { recursive: true, force: true });
  const zips = buildWorkZips(catalog, env.ARCHIVE_BUILD_OUT, generatedAtUtc);
  const searchIndex = await buildSearchIndex(env.ARCHIVE_BUILD_OUT, catalog);
  // From the records just written, so the server's index never disagrees with a static record.
  const catalogIndex = await indexBuild(outDir);

  writeFileSync(path.join(outDir, 'nginx.conf'), renderNginxConfig(path.join(outDir, 'client'), { blobsDir: options.blobsDir ? path.resolve(options.blobsDir) : undefined }));
  // Outside client/: the server reads it to know which blobs public records link to.
  writeFileSync(path.join(outDir, 'published-blobs.json'), `${JSON.stringify(publishedBlobs(catalog))}\n`);
  // Outside client/ too: files that are not public. Signed-in stored files are copied under
  // protected/ for the protected download route (api/signin/); nothing serves that folder publicly.
  const restricted = protectedAssets(catalog);
  for (const [key, asset] of Object.entries(restricted)) {
    if (asset.access !== 'signed-in' || asset.file === undefined) continue;
    const slug = key.slice(0, key.lastIndexOf('/'));
    const work = catalog.works.find((w) => w.content.slug === slug);
    const stored = work?.files.get(asset.file);
    if (!stored) continue;
    mkdirSync(path.join(outDir, 'protected', slug), { recursive: true });
    cpSync(stored.absolutePath, path.join(outDir, 'protected', slug, asset.file));
  }
  writeFileSync(path.join(outDir, 'protected-assets.json'), `${JSON.stringify(restricted)}\n`);
  const info: BuildInfo = {
    baseUrl: options.baseUrl,
    readerSignIn: options.readerSignIn ?? 'none',
    contentDir,
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

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      content: { type: 'string', default: process.env.ARCHIVE_CONTENT_DIR ?? path.join(PROJECT_ROOT, 'content') },
      out: { type: 'string', default: path.join(PROJECT_ROOT, 'dist') },
      'base-url': { type: 'string', default: process.env.PUBLIC_BASE_URL ?? 'http://localhost:4321' },
      quiet: { type: 'boolean', default: false },
      'blobs-dir': { type: 'string' },
      'reader-sign-in': { type: 'string', default: 'none' },
    },
  });
  const readerSignIn = values['reader-sign-in'];
  if (readerSignIn !== 'github' && readerSignIn !== 'none') {
    console.error(`--reader-sign-in must be "github" or "none" (got "${readerSignIn}")`);
    process.exit(2);
  }
  try {
    const info = await buildSite({ contentDir: values.content, outDir: values.out, baseUrl: values['base-url'], quiet: values.quiet, blobsDir: values['blobs-dir'], readerSignIn });
    console.log(`built ${info.works} works and ${info.profiles} profiles into ${values.out} in ${info.durationMs} ms`);
  } catch (err) {
    if (err instanceof ContentError) {
      console.error(err.message);
      process.exit(1);
    }
    throw err;
  }
}
