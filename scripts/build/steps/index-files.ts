/**
 * Step "index": the server's index files (`index/`: listing, search and resolve indexes), made from
 * the records just rendered so the server's index never disagrees with a static record.
 *   - With a base, the index worker (started by the beside step with the base's records of the
 *     works out of scope) reads the new records where the render left them, beside the rest step;
 *     the stage step, which moves those records, waits for it.
 *   - Without a base, every record is read back once the rest step is done and the catalog is let
 *     go, so only one copy of the catalog is in memory at a time; beside the stage and zips steps,
 *     joined before the record step.
 */
import { indexBuild } from '../../../api/catalog/build-index.ts';
import type { Step } from '../runner.ts';

export const indexFiles: Step = {
  name: 'index',
  run(build) {
    const { plan } = build;
    if (plan.base) {
      build.indexing = build.beside('index', build.indexer!.finish(plan.outDir, build.renderDir), 'stage');
      return;
    }
    build.indexing = build.beside(
      'index',
      build.after('rest').then(() => {
        build.releaseCatalog();
        return indexBuild(plan.outDir);
      }),
      'record',
    );
  },
};
