/**
 * The build's shared vocabulary: what a caller asks for (`BuildOptions`), what a build folder
 * records (`BuildInfo`, written last as build.json) and the small helpers both need. The build
 * itself is a plan (build/plan.ts) run through named steps (build/steps/).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { RenderSummary } from '../src/lib/site/render-scores.ts';
import type { RenderCacheBackend } from '../src/lib/site/render-cache.ts';
import type { EngravePoolOptions } from '../src/lib/site/engrave-pool.ts';
import type { AudioMode, AudioSummary } from '../src/lib/site/render-audio.ts';
import type { AudioTools } from '../src/lib/site/audio-render.ts';
import type { PrecompressResult } from '../src/lib/site/precompress.ts';
import type { ScoreManifest } from '../src/lib/site/scores.ts';
import type { ZipSummary } from '../src/lib/site/work-zips.ts';

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
  /**
   * Rendered audio of the public scores (src/lib/site/render-audio.ts): `build` renders what the
   * render cache lacks, `cached` only places what it holds (the rest `pending`), `off` (the
   * default when not given) makes none. `npm run build` takes ARCHIVE_AUDIO_RENDER or `--audio`.
   */
  audio?: AudioMode;
  /** Audio left pending is to be rendered by a background full build (an apply's build in `build` mode). */
  audioLater?: boolean;
  /** FluidSynth, ffmpeg and the SoundFont (ARCHIVE_FLUIDSYNTH_PATH, ARCHIVE_FFMPEG_PATH, ARCHIVE_AUDIO_SOUNDFONT). */
  audioTools?: Partial<AudioTools>;
}

export interface BuildInfo {
  baseUrl: string;
  /** Reader sign-in the records and pages were written for. */
  readerSignIn: 'github' | 'none';
  contentDir: string;
  /** The content commit built; null when the caller did not name one (then no incremental build can start from this folder). */
  commit: string | null;
  /**
   * SHA-256 of the site code that made the build (build/site-code.ts): an incremental build
   * starts only from a base with the same. Builds before 2026-11-28 have none.
   */
  siteCode?: string;
  /** "full": everything rendered (a plan without a base); "incremental": only what a change touched, on top of `incremental.base` (build/plan.ts). */
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
     * process's previous apply; build/catalog-snapshot.ts), "file" when read; null: no snapshot.
     */
    snapshot?: 'memory' | 'file' | null;
    /**
     * Where the base's score manifest came from: "memory" when this process wrote that file (kept
     * by its identity: build/score-manifest.ts), "file" when read and parsed.
     */
    scoreManifest?: 'memory' | 'file';
    renderedFiles: number;
    /** Who rendered the pages: the warm renderer (no Vite run), or Astro (and why not the warm renderer). */
    renderer?: RendererUsed;
    /**
     * How the pages' site data (works, orders, facets, profile usage) was made: "patched" from the
     * previous build's in this process (src/lib/site-data.ts), "made" afresh; since 2026-11-29.
     */
    siteData?: 'patched' | 'made' | null;
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
    /** Pages 2.. of the browse values rendered (the others' keys were the base's; since 2026-11-29). */
    browsePages?: number;
    /**
     * Browse pages whose key this build hashed: the pages its change reaches, or, on the first
     * build of a process that kept no keys for a value, every page of that value (since 2026-11-29).
     */
    browseKeysHashed?: number;
    /**
     * The changed works' records handed to the index worker before the render, made with the
     * base's score manifest (no changed work's source scores changed: before the scores step) or
     * the scores step's; null when not predicted (more than 64 works). Since 2026-11-29, night.
     */
    prediction?: 'base' | 'scores' | null;
    /** The same as the build's `phases` (kept here for readers of builds before 2026-11-28 evening). */
    phases: Record<string, number>;
    /** The same as the build's `background`. */
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
   * Rendered audio (docs/audio.md): scores with audio in this build, of them `synthesized` by
   * this build and `fromCache`; `failed`, `pending` (not in the cache, mode `cached`), `corrupt`
   * cache entries, `notOffered` (why none was made: the renderer is missing), the time it took.
   * Absent in builds made before rendered audio.
   */
  audio?: AudioSummary;
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
   * catalog were made: "merged" from the base's, or "built" from every record (with the reason);
   * a layer's resolve catalog may be "laid": rows over its plain base's resolve.idx.
   */
  catalogIndex: {
    works: number;
    durationMs: number;
    listing?: 'overlay' | 'merged' | 'built';
    listingBuiltBecause?: string;
    noOverlayBecause?: string;
    resolve?: 'laid' | 'merged' | 'built';
    resolveBuiltBecause?: string;
    /** A full build's: its records were read twice (their genres and periods were not the catalog's it rendered). */
    recordsReadAgain?: true;
  };
  /** "Download all": one zip of public files per work (src/lib/site/work-zips.ts). */
  zips: ZipSummary;
  /**
   * Every step's time in ms, in order (build/index.ts, STEPS): the plan's (`loadMs`; with
   * a base `diffMs` before it and `planMs` after), then `besideMs`, `scoresMs`, `predictMs`,
   * `astroMs`, `searchMs`, `indexMs`, `restMs`, `stageMs`, `zipsMs`, `finishMs` (before
   * 2026-11-29 evening `scoresMs` came before `besideMs`, and `predictMs` was part of it); `<step>WaitMs` is the time
   * waited before a step for the tasks beside (`stageWaitMs`: the link, Pagefind, the compressed
   * pages and, with a base, the index files and the catalog snapshot; `recordWaitMs`: a full
   * build's index files and zips).
   * Builds before 2026-11-28 evening named a full build's phases copyScoresMs, catalogIndexMs and
   * an incremental one's waitMs (now in stageWaitMs).
   */
  phases?: Record<string, number>;
  /**
   * The tasks beside the steps: each one's own time (ms): linkMs, searchMs, compressMs, indexMs,
   * zipsMs, snapshotMs (an incremental build's catalog snapshot).
   */
  background?: Record<string, number>;
  /** Peak resident memory of the build process itself (not Pagefind's child), bytes (of the whole process: a warm build process's earlier builds too). */
  peakRssBytes?: number;
  /** Astro runs: 1, or for a full build one per batch of works plus one for the listings (`batchWorks`). */
  astroRuns?: number;
  /** Of `astroRuns`, those the warm renderer rendered (every batch after the first, unless it failed). */
  warmRuns?: number;
  durationMs: number;
  /**
   * A plain folder made from a layered build by the background compaction (build/compact.ts):
   * the layer it was made from, the paths that layer carried, and the compaction's time. The rest
   * of build.json is the layer's (its view is the same bytes).
   */
  compaction?: { from: string; layerPaths: number; durationMs: number };
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

/**
 * How an Astro run's pages were rendered: by the warm renderer (build/warm-render.ts), or by
 * Astro itself (with why the warm renderer was not used, when the run asked for it).
 */
export type RendererUsed = { kind: 'warm'; files: number; durationMs: number } | { kind: 'astro'; because?: string };

/** build.json's `scores` from a render summary: its counts, without the manifest and the deferred links. */
export function scoreCounts(summary: RenderSummary): BuildInfo['scores'] {
  const { manifest: _manifest, deferred: _deferred, ...counts } = summary;
  return counts;
}
