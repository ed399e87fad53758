/**
 * Builds the static site from a content repository:
 *   npm run build -- [--content DIR] [--out DIR] [--base-url URL] [--reader-sign-in github|none] [--batch-works N]
 * The command line of the build (build/: a plan carried out by named steps). It checks the
 * content first (same messages as lint:content), engraves the MusicXML source scores with Verovio
 * (the pages need their sizes), renders the pages and records into `<out>/client`, writes the
 * Pagefind search index of the works, the server's index files (`index/`, from the records just
 * written), the nginx config that serves the same URLs, and marks the folder complete with
 * `build.json` last, so a half-built folder is never mistaken for a site. With
 * `--incremental-from BUILD-DIR`, only what the change since that build touches is built (a full
 * build, with the reason in build.json, when that cannot be vouched for).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import type { RenderCacheBackend } from '../src/lib/site/render-cache.ts';
import type { EngravePoolOptions } from '../src/lib/site/engrave-pool.ts';
import { AUDIO_MODES, type AudioMode } from '../src/lib/site/render-audio.ts';
import type { AudioTools } from '../src/lib/site/audio-render.ts';
import { createBlobStore } from '../api/blobs/create.ts';
import { ConfigError, engraveSettingsFromEnv, loadConfig, type Config } from '../api/config.ts';
import { LocalBlobStore } from '../api/blobs/blob-store.ts';
import { BUILD_STORE_VARIABLE } from './protocol.ts';
import { batchWorksFrom } from './astro.ts';
import { buildIncrementalOrFull, buildSite } from './index.ts';
import { warmUp, type WarmUpResult } from './warm-up.ts';
import { compactBuild, NotALayer } from './compact.ts';
import { ContentError, PROJECT_ROOT, type BuildInfo, type BuildOptions } from './types.ts';

export { batchWorksFrom, DEFAULT_BATCH_WORKS, runAstro, type AstroRun } from './astro.ts';
export { build, buildIncremental, buildIncrementalOrFull, buildSite } from './index.ts';
export { FullBuildNeeded, planChange, type ChangePlan } from './plan.ts';
export type { WarmUpResult } from './warm-up.ts';
export {
  ContentError,
  PROJECT_ROOT,
  scoreCounts,
  SCORES_MANIFEST,
  serializeScoreManifest,
  type BuildInfo,
  type BuildOptions,
  type RendererUsed,
} from './types.ts';

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

/** The `--engrave-*` options of a command line (node:util parseArgs): the build's and `npm run engrave`'s. */
export const ENGRAVE_FLAGS = {
  'engrave-workers': { type: 'string' },
  'engrave-cpu-ms': { type: 'string' },
  'engrave-timeout-ms': { type: 'string' },
  'engrave-memory-mb': { type: 'string' },
} as const;

/** The engraving pool's options from `--engrave-*` flags (ENGRAVE_FLAGS), else the configuration's ARCHIVE_ENGRAVE_*. */
export function engraveOptionsFrom(
  flags: { [F in keyof typeof ENGRAVE_FLAGS]?: string },
  env: NodeJS.ProcessEnv,
): EngravePoolOptions {
  return engraveSettingsFromEnv({
    ...env,
    ...(flags['engrave-workers'] !== undefined ? { ARCHIVE_ENGRAVE_WORKERS: flags['engrave-workers'] } : {}),
    ...(flags['engrave-cpu-ms'] !== undefined ? { ARCHIVE_ENGRAVE_CPU_MS: flags['engrave-cpu-ms'] } : {}),
    ...(flags['engrave-timeout-ms'] !== undefined ? { ARCHIVE_ENGRAVE_TIMEOUT_MS: flags['engrave-timeout-ms'] } : {}),
    ...(flags['engrave-memory-mb'] !== undefined ? { ARCHIVE_ENGRAVE_MEMORY_MB: flags['engrave-memory-mb'] } : {}),
  });
}

/** FluidSynth, ffmpeg and the SoundFont from ARCHIVE_FLUIDSYNTH_PATH, ARCHIVE_FFMPEG_PATH, ARCHIVE_AUDIO_SOUNDFONT. */
export function audioToolsFrom(env: NodeJS.ProcessEnv): Partial<AudioTools> {
  return {
    ...(env.ARCHIVE_FLUIDSYNTH_PATH ? { fluidsynth: env.ARCHIVE_FLUIDSYNTH_PATH } : {}),
    ...(env.ARCHIVE_FFMPEG_PATH ? { ffmpeg: env.ARCHIVE_FFMPEG_PATH } : {}),
    ...(env.ARCHIVE_AUDIO_SOUNDFONT ? { soundFont: env.ARCHIVE_AUDIO_SOUNDFONT } : {}),
  };
}

/** A bad command line or setting (the CLI's exit code 2); the message names the option. */
export class UsageError extends Error {}

/** The build CLI's options, for `--help` and a bad command line. */
export const BUILD_USAGE = `usage: npm run build -- [--content DIR] [--out DIR] [--base-url URL] [--quiet]
  [--reader-sign-in github|none] [--commit SHA] [--generated-at ISO-TIME] [--incremental-from BUILD-DIR]
  [--batch-works N] [--render-cache config|none|DIR] [--blobs-dir DIR] [--nginx-root DIR]
  [--engrave-workers N] [--engrave-cpu-ms MS] [--engrave-timeout-ms MS] [--engrave-memory-mb MB]
  [--audio build|cached|off]
   or: npm run build -- --warm-up --incremental-from BUILD-DIR --commit SHA --out SCRATCH-DIR [...]
       (plans the build and renders its pages into SCRATCH-DIR, then removes it: the warm build
       process's warm-up; the process keeps the base's catalog and Astro's compiled pages)
   or: npm run build -- --compact-from LAYER-BUILD-DIR --out DIR   (a layered build made plain again)
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
      'compact-from': { type: 'string' },
      'warm-up': { type: 'boolean', default: false },
      'batch-works': { type: 'string' },
      'render-cache': { type: 'string', default: 'config' },
      ...ENGRAVE_FLAGS,
      audio: { type: 'string', default: process.env.ARCHIVE_AUDIO_RENDER || 'build' },
    },
  });
}

/**
 * `npm run build` with these arguments, in this process (the CLI below, and the warm build
 * process of api/site/warm-builder.ts): the build's info. Throws UsageError (exit code 2) or
 * ContentError (exit code 1); anything else is a failure of the build itself.
 */
export async function runBuildCommand(
  args: string[],
): Promise<{ info: BuildInfo; outDir: string } | { warmUp: WarmUpResult; outDir: string }> {
  let parsed: ReturnType<typeof parseBuildArgs>;
  try {
    parsed = parseBuildArgs(args);
  } catch (err) {
    // node:util's message names the option ("Unknown option '--x'", "Option '--out <value>' argument missing").
    throw new UsageError(`${(err as Error).message}\n${BUILD_USAGE}`);
  }
  const { values } = parsed;
  if (values['compact-from']) {
    if (!args.includes('--out')) throw new UsageError(`--compact-from needs --out DIR\n${BUILD_USAGE}`);
    try {
      await compactBuild(values['compact-from'], values.out);
    } catch (err) {
      if (err instanceof NotALayer) throw new UsageError(`--compact-from: ${err.message}`);
      throw err;
    }
    const info = JSON.parse(readFileSync(path.join(values.out, 'build.json'), 'utf8')) as BuildInfo;
    return { info, outDir: values.out };
  }
  let renderCache: RenderCacheBackend | null;
  let renderView: string | null;
  let engrave: EngravePoolOptions;
  try {
    ({ cache: renderCache, view: renderView } = renderCacheFrom(values['render-cache'], process.env));
    engrave = engraveOptionsFrom(values, process.env);
  } catch (err) {
    throw new UsageError(`--render-cache / --engrave-*: ${(err as Error).message}`);
  }
  const audio = values.audio as AudioMode;
  if (!AUDIO_MODES.includes(audio))
    throw new UsageError(`--audio / ARCHIVE_AUDIO_RENDER must be build, cached or off (got "${values.audio}")`);
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
    // An incremental build (an apply's) takes only cached audio, so showing the change never waits
    // for audio; what is missing is left to a background full build (the server starts one).
    audio: values['incremental-from'] && audio === 'build' ? 'cached' : audio,
    audioLater: Boolean(values['incremental-from']) && audio === 'build',
    audioTools: audioToolsFrom(process.env),
  };
  if (values['warm-up']) {
    if (!values['incremental-from'] || !values.commit || !args.includes('--out'))
      throw new UsageError(`--warm-up needs --incremental-from BUILD-DIR, --commit SHA and --out DIR\n${BUILD_USAGE}`);
    return { warmUp: await warmUp(options, values['incremental-from']), outDir: values.out };
  }
  if (values['incremental-from']) {
    return { info: await buildIncrementalOrFull(options, values['incremental-from']), outDir: values.out };
  }
  return { info: await buildSite(options), outDir: values.out };
}

/** One line for the log: what was built, where, and how. */
export function builtLine(info: BuildInfo, outDir: string): string {
  if (info.compaction)
    return `compacted ${info.compaction.from} (${info.compaction.layerPaths} paths in its layer) into ${outDir} in ${info.compaction.durationMs} ms`;
  const how =
    info.mode === 'incremental'
      ? `incrementally (${info.incremental?.works.join(', ')})`
      : info.fallbackReason
        ? `in full (${info.fallbackReason})`
        : 'in full';
  return `built ${info.works} works and ${info.profiles} profiles into ${outDir} ${how} in ${info.durationMs} ms`;
}

/** `npm run build`: the command line (scripts/build.ts), with its exit codes. */
export async function buildMain(): Promise<void> {
  if (process.argv.includes('--help') || process.argv.includes('-h')) {
    console.log(BUILD_USAGE);
    return;
  }
  try {
    const result = await runBuildCommand(process.argv.slice(2));
    console.log(
      'warmUp' in result
        ? `warm-up done in ${result.warmUp.durationMs} ms (${result.warmUp.works} works; ${result.warmUp.renderer?.kind ?? 'no'} render into ${result.outDir}, removed)`
        : builtLine(result.info, result.outDir),
    );
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
