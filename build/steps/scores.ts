/**
 * Step "scores": the MusicXML scores of the works in scope engraved (or taken from the render
 * cache), before the pages: a work page reserves each image's size, so it needs the engraving's
 * result. The score manifest the pages read is the base's with the scope's entries replaced (every
 * entry without a base), or the base's own, file and all, when the scope's entries are unchanged
 * (build/score-manifest.ts); it is written beside `client/` here, where the build keeps
 * it. Each engraved page's brotli and gzip forms are made beside the steps that follow, on libuv's thread pool, one page at a time (its other threads stay free for the render's
 * file writes).
 */
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { LocalBlobStore } from '../../api/blobs/blob-store.ts';
import { precompressScores } from '../../src/lib/site/precompress.ts';
import { renderScores } from '../../src/lib/site/render-scores.ts';
import { renderAudios } from '../../src/lib/site/render-audio.ts';
import { shareScoreManifest, type ScoreManifest } from '../../src/lib/site/scores.ts';
import type { Step } from '../runner.ts';
import { manifestOver, writeScoreManifest } from '../score-manifest.ts';
import { SCORES_MANIFEST } from '../types.ts';

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
    // Rendered audio of the same scores (and the arrangement scores kept as downloads), after the engravings.
    if (options.audio && options.audio !== 'off') {
      const { entries, summary: audio } = await renderAudios(
        { ...build.catalog, works: build.works },
        build.scoresDir,
        {
          mode: options.audio,
          cache: options.renderCache ?? null,
          poolOptions: options.engrave,
          tools: options.audioTools,
          blobPath: blobs ? (sha) => blobs.pathFor(sha) : undefined,
        },
      );
      for (const [key, entry] of entries) {
        summary.manifest.scores[key] = {
          ...(summary.manifest.scores[key] ?? {
            status: 'not-rendered',
            reason: 'This arrangement score is kept as a download; the build does not engrave it.',
          }),
          audio: entry,
        };
      }
      build.audio = { ...audio, later: options.audioLater === true };
      if (!options.quiet)
        console.log(
          `[build] audio: ${audio.rendered} rendered (${audio.synthesized} synthesized, ${audio.fromCache} from the render cache), ${audio.failed} failed, ${audio.pending} pending${audio.notOffered ? `; not offered: ${audio.notOffered}` : ''}`,
        );
    }
    // The base's entries came from JSON; this run's pass through it, so the pages see what the file holds.
    const fresh = JSON.parse(JSON.stringify(summary.manifest.scores)) as ScoreManifest['scores'];
    const { manifest, text, unchanged } = manifestOver(plan.base?.scores ?? null, plan.scope, fresh);
    build.scoreManifest = manifest;
    // Written where the build keeps it (beside client/), as a link to the base's file when every
    // entry is the base's; the pages read it from memory, an Astro run in its own process from
    // there. Not written in the scratch folder and linked later: the link, then the scratch
    // folder's removal, would change the file's identity and the next build would parse it again.
    mkdirSync(plan.outDir, { recursive: true });
    writeScoreManifest(plan.outDir, manifest, text, unchanged ? plan.base!.scores.file : undefined);
    build.manifestFile = path.join(plan.outDir, SCORES_MANIFEST);
    shareScoreManifest(build.manifestFile, manifest);
    build.scores = summary;
    build.compressing = build.beside('compress', precompressScores(path.join(build.scoresDir, 'files'), 1), 'stage');
    if (!options.quiet)
      console.log(
        `[build] scores: ${summary.rendered} rendered, ${summary.failed} failed; ${summary.engraved} engraved, ${summary.fromCache} from the render cache (${summary.fromView} linked from its view)`,
      );
  },
};
