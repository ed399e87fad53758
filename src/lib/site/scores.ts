/**
 * Score previews as the pages see them. `scripts/build.ts` renders every MusicXML source score
 * with Verovio before `astro build` (src/lib/site/render-scores.ts) and hands the result over in
 * a manifest file named by ARCHIVE_SCORES_MANIFEST; pages only read it, so Verovio never enters
 * the Astro bundle. Without a manifest (astro run on its own) every score reads "not rendered".
 */
import { existsSync, readFileSync } from 'node:fs';

/** One rendered SVG page, with the size the page reserves for it (no layout shift). */
export interface ScorePage {
  /** File name inside the score folder, e.g. "page-1.svg". */
  file: string;
  width: number;
  height: number;
}

export type ScoreRendering =
  | {
      status: 'rendered';
      /** Pages the source has; `pages` may hold fewer when the build caps them. */
      pageCount: number;
      pages: ScorePage[];
      /** "score.mid", the MIDI rendition Verovio made from the same file; null when it made none. */
      midi: string | null;
    }
  | { status: 'failed'; reason: string }
  | { status: 'not-rendered'; reason: string };

export interface ScoreManifest {
  /** Keyed by `${slug}/${assetId}`. */
  scores: Record<string, ScoreRendering>;
}

/** Where a score's files live in the site, relative to the site root. */
export function scoreFolder(slug: string, assetId: number): string {
  return `works/${slug}/score/${assetId}`;
}

let cached: ScoreManifest | undefined;

export function scoreManifest(): ScoreManifest {
  if (cached) return cached;
  const file = process.env.ARCHIVE_SCORES_MANIFEST;
  cached = file && existsSync(file) ? (JSON.parse(readFileSync(file, 'utf8')) as ScoreManifest) : { scores: {} };
  return cached;
}

export function scoreFor(slug: string, assetId: number): ScoreRendering {
  return (
    scoreManifest().scores[`${slug}/${assetId}`] ?? {
      status: 'not-rendered',
      reason: 'This build did not render score previews.',
    }
  );
}
