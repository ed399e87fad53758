/**
 * Step "astro": the pages and records. Without a base, every page, straight into `client/` (one
 * Astro run, or one per batch of works: build/astro.ts). With a base, the pages the scope
 * touches (ARCHIVE_BUILD_SCOPE, src/lib/site-data.ts): the works' pages and records, the browse
 * pages of the values they left or joined, their composer's page, the pages of the profiles
 * their arrangements use(d) and the records of those whose usage the change alters, every
 * catalog-wide page, and the works-index pages whose key changed;
 * into a scratch folder (`.partial`) that the stage step moves in, through the warm renderer when
 * this process holds the compiled pages of the same site code (build/warm-render.ts).
 * Either way the works-index and browse pages' keys are kept beside `client/` for the next build;
 * pages 2.. of a browse value in scope are rendered only where their key changed.
 */
import { rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import {
  browsePagesOfRun,
  readBrowseKeys,
  resetBrowsePages,
  writeBrowseKeys,
} from '../../src/lib/site/browse-pages.ts';
import {
  readWorksIndexKeys,
  resetWorksIndexPages,
  worksIndexPagesOfRun,
  writeWorksIndexKeys,
} from '../../src/lib/site/works-index.ts';
import { dropScopeBases, shareScopeBases, siteDataMade } from '../../src/lib/site-data.ts';
import { renderAllPages, runAstro, type AstroRun } from '../astro.ts';
import type { Step } from '../runner.ts';

export const render: Step = {
  name: 'astro',
  async run(build) {
    const { plan } = build;
    const base = plan.base;
    const run: AstroRun = {
      contentDir: plan.contentDir,
      baseUrl: plan.options.baseUrl,
      generatedAtUtc: plan.generatedAtUtc,
      workDir: plan.outDir,
      clientDir: plan.clientDir,
      scoresManifest: build.manifestFile,
      quiet: plan.options.quiet,
      catalog: build.catalog,
      readerSignIn: plan.options.readerSignIn,
      siteCode: plan.siteCode,
    };
    resetWorksIndexPages();
    resetBrowsePages();
    // The base's browse page keys: pages 2.. of a value whose key is unchanged are not rendered.
    const browseBase = base ? readBrowseKeys(base.dir) : null;
    if (!base) {
      build.renderDir = plan.clientDir;
      const done = await renderAllPages({ ...run, catalog: build.catalog }, plan.batchWorks, (message) => {
        if (!plan.options.quiet) console.log(`[build] ${message}`);
      });
      build.astroRuns = done.runs;
      build.warmRuns = done.warm;
    } else {
      build.renderDir = path.join(plan.outDir, '.partial');
      // The base's works-index keys: pages 2.. of the index whose key is unchanged are not rendered.
      const worksIndexBase = readWorksIndexKeys(base.dir);
      const scopeFile = path.join(plan.outDir, '.scope.json');
      writeFileSync(
        scopeFile,
        JSON.stringify({
          works: base.change.works,
          facets: base.change.facets,
          profiles: base.change.profiles,
          profileRecords: base.change.profileRecords,
          bases: 'shared',
          ...(build.warmUp ? { warmUp: true } : {}),
        }),
      );
      // The base's page keys go to the run in memory (the run is in this process).
      shareScopeBases({ ...(worksIndexBase ? { worksIndexBase } : {}), ...(browseBase ? { browseBase } : {}) });
      try {
        build.renderer = await runAstro({
          ...run,
          clientDir: build.renderDir,
          scopeFile,
          warm: true,
          patchSiteData: true,
        });
      } finally {
        rmSync(scopeFile, { force: true });
        dropScopeBases();
      }
      build.siteData = siteDataMade(build.catalog);
      build.astroRuns = 1;
      build.warmRuns = build.renderer.kind === 'warm' ? 1 : 0;
    }
    build.worksIndexKeys = writeWorksIndexKeys(plan.outDir);
    const { rendered } = worksIndexPagesOfRun();
    build.worksIndexPages = { title: rendered.title?.length ?? 0, composer: rendered.composer?.length ?? 0 };
    // A value the runs did not render keeps its base's keys (it did not change).
    build.browseKeys = writeBrowseKeys(plan.outDir, browseBase);
    build.browsePages = browsePagesOfRun().rendered;
    build.browseKeysHashed = browsePagesOfRun().hashed;
  },
};
