/**
 * Step "index": the server's index files (`index/`: listing, search and resolve indexes), made from
 * the records just rendered so the server's index never disagrees with a static record.
 *   - With a base, the index worker (started by the beside step with the base's records of the
 *     works out of scope) reads the new records where the render left them, beside the rest step;
 *     the stage step, which moves those records, waits for it.
 *   - Without a base, every record is read back once the rest step is done and the catalog is let
 *     go, one batch at a time, each let go once the index builder took its listing entry and
 *     resolve row (`indexBuild`), so the catalog is never in memory twice, nor its records once;
 *     beside the stage and zips steps, joined before the record step.
 */
import { indexBuild } from '../../api/catalog/build-index.ts';
import type { Step } from '../runner.ts';
import { distinctSorted } from '../../src/domain/resolve/catalog.ts';

export const indexFiles: Step = {
  name: 'index',
  run(build) {
    const { plan } = build;
    if (plan.base) {
      build.indexing = build.beside('index', build.indexer!.finish(plan.outDir, build.renderDir), 'stage');
      return;
    }
    // The genres and periods the resolve rows' vocabulary is made from, known before the records are read.
    const works = build.catalog.works;
    const expected = {
      genres: distinctSorted(works.map((w) => w.content.genre)),
      periods: distinctSorted(works.map((w) => w.content.period)),
    };
    build.indexing = build.beside(
      'index',
      build.after('rest').then(() => {
        build.releaseCatalog();
        return indexBuild(plan.outDir, expected);
      }),
      'record',
    );
  },
};
