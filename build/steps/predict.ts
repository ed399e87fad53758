/**
 * Step "predict", after the scores: with a base, the changed works' records as the pages will
 * hold them (`workRecordFor`, the pages' own maker, reading the score manifest the scores step
 * made), handed to the index worker the beside step started, which merges over them and writes
 * the listing and resolve files while the pages render (api/catalog/build-index.ts: the index
 * step keeps that merge only when the rendered records are these). When no changed work's source
 * scores changed, the beside step has already predicted them from the base's manifest (a record
 * reads of the manifest only its own scores' entries), so the merge starts before the scores step.
 */
import type { ScoreManifest } from '../../src/lib/site/scores.ts';
import { workRecordFor } from '../../src/lib/site-data.ts';
import type { BuildRun, Step } from '../runner.ts';

/**
 * Up to this many works in scope, their records are made for the index worker's early merge
 * (about 1-5 ms each, on the build's thread before the render); a larger scope is merged once the
 * rendered records are read.
 */
const PREDICTED_WORKS = 64;

/**
 * Whether the base's score manifest gives the changed works' records: every one of them was in
 * the base with the same source scores (new works, and changed scores, wait for the scores step).
 */
export function scoresAsBase(build: BuildRun): boolean {
  const base = build.plan.base;
  if (!base?.before || build.plan.scope.length > PREDICTED_WORKS) return false;
  const bySlug = new Map(build.works.map((w) => [w.content.slug, w]));
  return build.plan.scope.every((slug) => {
    const now = bySlug.get(slug);
    const before = base.before!.get(slug);
    return (
      now !== undefined &&
      before !== undefined &&
      JSON.stringify(now.content.sourceAssets) === JSON.stringify(before.content.sourceAssets)
    );
  });
}

/** Hand the index worker the changed works' records, made with `scores`; once per build. */
export function predictRecords(build: BuildRun, scores: ScoreManifest, from: 'base' | 'scores'): void {
  const { plan } = build;
  const indexer = build.indexer;
  if (build.predicted !== null || !plan.base || !indexer || plan.scope.length > PREDICTED_WORKS) return;
  build.predicted = from;
  const catalog = build.catalog;
  const bySlug = new Map(build.works.map((w) => [w.content.slug, w]));
  const options = { baseUrl: plan.options.baseUrl, readerSignIn: plan.options.readerSignIn === 'github', scores };
  indexer.predict(
    plan.scope.flatMap((slug) => {
      const work = bySlug.get(slug);
      return work ? [workRecordFor(work, catalog, options)] : [];
    }),
    plan.outDir,
  );
}

export const predict: Step = {
  name: 'predict',
  async run(build) {
    predictRecords(build, build.scoreManifest, 'scores');
  },
};
