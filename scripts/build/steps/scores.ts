/**
 * Step "scores": the MusicXML scores of the works in scope engraved (or taken from the render
 * cache), before the pages: a work page reserves each image's size, so it needs the engraving's
 * result. The score manifest the pages read is the base's with the scope's entries replaced (every
 * entry without a base). Each engraved page's brotli and gzip forms are made beside the steps that
 * follow, on libuv's thread pool, one page at a time (its other threads stay free for the render's
 * file writes).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { LocalBlobStore } from '../../../api/blobs/blob-store.ts';
import { precompressScores } from '../../../src/lib/site/precompress.ts';
import { renderScores } from '../../../src/lib/site/render-scores.ts';
import { shareScoreManifest, type ScoreManifest } from '../../../src/lib/site/scores.ts';
import type { Step } from '../runner.ts';
import { serializeScoreManifest } from '../types.ts';

export const scores: Step = {
  name: 'scores',
  async run(build) {
    const { plan } = build;
    const { options } = plan;
    // Outside client/: the render owns that folder until it is done.
    build.scoresDir = path.join(plan.outDir, '.scores');
    const blobs = options.blobsDir ? new LocalBlobStore(path.resolve(options.blobsDir)) : null;
    const summary = await renderScores({ ...build.catalog, works: build.works }, build.scoresDir, {
      generatedAtUtc: plan.generatedAtUtc,
      blobPath: blobs ? (sha) => blobs.pathFor(sha) : undefined,
      cache: options.renderCache ?? null,
      view: options.renderView ?? null,
      // Scores found in the render view are linked straight into client/ by the stage step (nothing to stage and move).
      linkLater: true,
      poolOptions: options.engrave,
    });
    const manifest: ScoreManifest = { scores: {} };
    if (plan.base) {
      const inScope = new Set(plan.scope);
      for (const [key, value] of Object.entries(plan.base.scores.scores))
        if (!inScope.has(key.slice(0, key.indexOf('/')))) manifest.scores[key] = value;
    }
    // The base's entries came from JSON; this run's pass through it, so the pages see what the file holds.
    Object.assign(manifest.scores, JSON.parse(JSON.stringify(summary.manifest.scores)));
    build.scoreManifest = manifest;
    build.manifestText = serializeScoreManifest(manifest);
    build.manifestFile = path.join(build.scoresDir, 'build-manifest.json');
    mkdirSync(build.scoresDir, { recursive: true });
    writeFileSync(build.manifestFile, build.manifestText);
    shareScoreManifest(build.manifestFile, manifest);
    build.scores = summary;
    build.compressing = build.beside('compress', precompressScores(path.join(build.scoresDir, 'files'), 1), 'stage');
    if (!options.quiet)
      console.log(
        `[build] scores: ${summary.rendered} rendered, ${summary.failed} failed; ${summary.engraved} engraved, ${summary.fromCache} from the render cache (${summary.fromView} linked from its view)`,
      );
  },
};
