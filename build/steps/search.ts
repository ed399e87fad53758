/**
 * Step "search": the Pagefind index when it could not be made beside the render (the beside step):
 * a full build of more works than one Astro run takes indexes them now, into `client/pagefind`, so
 * Pagefind's memory never adds to Astro's. Otherwise nothing to do here.
 */
import { buildSearchIndex } from '../../src/lib/site/search-index.ts';
import type { Step } from '../runner.ts';

export const search: Step = {
  name: 'search',
  async run(build) {
    if (build.plan.base || build.searching) return;
    build.searchIndex = await buildSearchIndex(build.plan.clientDir, build.catalog);
  },
};
