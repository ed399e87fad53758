/**
 * Step "predict", after the scores: with a base, the changed works' records as the pages will
 * hold them (`workRecordFor`, the pages' own maker, reading the score manifest the scores step
 * made), handed to the index worker the beside step started, which merges over them and writes
 * the listing and resolve files while the pages render (api/catalog/build-index.ts: the index
 * step keeps that merge only when the rendered records are these).
 */
import { workRecordFor } from '../../../src/lib/site-data.ts';
import type { Step } from '../runner.ts';

/**
 * Up to this many works in scope, their records are made here for the index worker's early merge
 * (about 1-5 ms each, on the build's thread before the render); a larger scope is merged once the
 * rendered records are read.
 */
const PREDICTED_WORKS = 64;

export const predict: Step = {
  name: 'predict',
  async run(build) {
    const { plan } = build;
    const indexer = build.indexer;
    if (!plan.base || !indexer || plan.scope.length > PREDICTED_WORKS) return;
    const catalog = build.catalog;
    const bySlug = new Map(build.works.map((w) => [w.content.slug, w]));
    const options = {
      baseUrl: plan.options.baseUrl,
      readerSignIn: plan.options.readerSignIn === 'github',
      scores: build.scoreManifest,
    };
    indexer.predict(
      plan.scope.flatMap((slug) => {
        const work = bySlug.get(slug);
        return work ? [workRecordFor(work, catalog, options)] : [];
      }),
      plan.outDir,
    );
  },
};
