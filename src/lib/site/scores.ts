/**
 * Score previews as the pages see them. `scripts/build.ts` renders every MusicXML source score
 * with Verovio before `astro build` (src/lib/site/render-scores.ts) and hands the result over in
 * a manifest file named by ARCHIVE_SCORES_MANIFEST; pages only read it, so Verovio never enters
 * the Astro bundle. Without a manifest (astro run on its own) every score reads "not rendered".
 */
import { existsSync, readFileSync } from 'node:fs';
import type { AudioRendering } from './audio-render.ts';

/** One rendered SVG page, with the size the page reserves for it (no layout shift). */
export interface ScorePage {
  /** File name inside the score folder, e.g. "page-1.svg". */
  file: string;
  width: number;
  height: number;
}

/**
 * A score's rendered audio as the pages and records see it (src/lib/site/render-audio.ts): its
 * files are in `audioFolder(slug, assetId)`. `pending`: not rendered yet (a build that only takes
 * what the render cache holds, as after an apply); `not-offered`: this archive renders no audio
 * (the reason says why, e.g. FluidSynth is not installed).
 */
export type AudioEntry =
  | Extract<AudioRendering, { status: 'rendered' }>
  | Extract<AudioRendering, { status: 'failed' }>
  | { status: 'pending'; reason: string }
  | { status: 'not-offered'; reason: string };

export type ScoreRendering = (
  | {
      status: 'rendered';
      /** Pages the source has; `pages` holds every one of them (no page limit). */
      pageCount: number;
      pages: ScorePage[];
      /** "score.mid", the MIDI rendition Verovio made from the same file; null when it made none. */
      midi: string | null;
      /** "score.pdf": the rendered pages as one printable PDF (one page per SVG page); null when it failed. */
      pdf: string | null;
      /**
       * The same score engraved again for phone screens ("narrow-page-N.svg", NARROW_PAGE_PX wide,
       * a 25.9 px staff): shown below 40rem instead of the wide pages, which would shrink to less
       * than half their size there.
       */
      narrowPages: ScorePage[];
    }
  | { status: 'failed'; reason: string }
  | { status: 'not-rendered'; reason: string }
) & {
  /** The score's rendered audio; absent when the build did not render audio (docs/audio.md). */
  audio?: AudioEntry;
};

export interface ScoreManifest {
  /** Keyed by `${slug}/${assetId}`. */
  scores: Record<string, ScoreRendering>;
}

/**
 * Phone layout. The wide pages are 840 px with a 28.8 px staff (five lines, outer to outer); at
 * 390 px they would shrink to about 12 px. The narrow engraving is 340 px wide, so it fits a
 * 390 px screen (less the page padding) without shrinking, with a 25.9 px staff.
 * MIN_STAFF_PX is the promise the browser test checks at 390 px.
 */
export const NARROW_PAGE_PX = 340;
export const MIN_STAFF_PX = 24;

/**
 * The score page's HTML holds this many pages of each layout as images; the rest are listed as
 * links (with their sizes) that src/scripts/score-pages.ts turns into lazily loaded images, so a
 * 96-page quartet's page stays a few tens of KB.
 */
export const FIRST_PAGES_SHOWN = 3;

/** Where a score's files live in the site, relative to the site root. */
export function scoreFolder(slug: string, assetId: number): string {
  return `works/${slug}/score/${assetId}`;
}

/** Where a score's rendered audio lives in the site (its provenance page is the folder's index.html). */
export function audioFolder(slug: string, assetId: number): string {
  return `works/${slug}/audio/${assetId}`;
}

/** The rendered audio of a score, or null when the build made none for it. */
export function audioFor(slug: string, assetId: number): AudioEntry | null {
  return scoreManifest().scores[`${slug}/${assetId}`]?.audio ?? null;
}

// Keyed by the file and by the catalog the build shared (src/lib/site-data.ts, shareCatalog): the
// page modules of one process render many builds (the warm renderer, build/warm-render.ts),
// each with its own manifest.
// Weakly: the module must not keep an earlier build's catalog alive.
let cached: { file: string | undefined; catalog: WeakRef<object> | undefined; manifest: ScoreManifest } | undefined;
const SHARED_CATALOG = Symbol.for('pdma.build.catalog');

// The manifest the build's score step wrote, handed over in memory (`shareScoreManifest`).
const SHARED_MANIFEST = Symbol.for('pdma.build.scoreManifest');
const manifestShelf = globalThis as { [SHARED_MANIFEST]?: { file: string; manifest: ScoreManifest } };

/**
 * Called by the build's score step (build/steps/scores.ts) with the manifest it wrote to
 * `file`: the pages of the same process use it instead of reading and parsing the file again
 * (about 1 MB at 10,000 works, read by every apply). `manifest` must be what the file holds, as
 * JSON gives it back. Dropped with the build's shared catalog (src/lib/site-data.ts).
 */
export function shareScoreManifest(file: string, manifest: ScoreManifest): void {
  manifestShelf[SHARED_MANIFEST] = { file, manifest };
}

export function dropSharedScoreManifest(): void {
  delete manifestShelf[SHARED_MANIFEST];
}

export function scoreManifest(): ScoreManifest {
  const file = process.env.ARCHIVE_SCORES_MANIFEST;
  const shared = manifestShelf[SHARED_MANIFEST];
  if (shared && file !== undefined && shared.file === file) return shared.manifest;
  const catalog = (globalThis as { [SHARED_CATALOG]?: { catalog: object } })[SHARED_CATALOG]?.catalog;
  if (cached && cached.file === file && cached.catalog?.deref() === catalog) return cached.manifest;
  const manifest =
    file && existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as ScoreManifest) : { scores: {} };
  cached = { file, catalog: catalog ? new WeakRef(catalog) : undefined, manifest };
  return manifest;
}

export function scoreFor(slug: string, assetId: number): ScoreRendering {
  return (
    scoreManifest().scores[`${slug}/${assetId}`] ?? {
      status: 'not-rendered',
      reason: 'This build did not render score previews.',
    }
  );
}
