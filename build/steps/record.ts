/**
 * Step "record": `build.json`, last, once every task beside the steps is done: what was built
 * from what, by which code, each step's time, and the counts. A folder without it is never taken
 * for a site (api/site/builds.ts).
 */
import path from 'node:path';
import type { Step } from '../runner.ts';
import { scoreCounts, type BuildInfo } from '../types.ts';
import { writeNew } from './rest.ts';

export const record: Step = {
  name: 'record',
  async run(build) {
    const { plan } = build;
    const base = plan.base;
    // Settled before this step (the runner joined them): their results.
    if (build.zipping) build.zips = await build.zipping;
    if (!base) build.catalogIndex = await build.indexing;
    const { options } = plan;
    const info: BuildInfo = {
      baseUrl: options.baseUrl,
      readerSignIn: options.readerSignIn ?? 'none',
      contentDir: plan.contentDir,
      commit: plan.commit,
      siteCode: plan.siteCode,
      mode: base ? 'incremental' : 'full',
      ...(base ? { fallbackReason: null } : {}),
      ...(base
        ? {
            incremental: {
              base: path.basename(base.dir),
              baseCommit: base.info.commit!,
              changedFiles: base.change.changedFiles.length,
              works: plan.scope,
              reparsedWorks: base.reparsed,
              snapshot: base.snapshot === null ? null : base.snapshot.fromMemory ? 'memory' : 'file',
              scoreManifest: base.scores.fromMemory ? 'memory' : 'file',
              renderedFiles: build.renderedFiles,
              renderer: build.renderer,
              siteData: build.siteData ?? null,
              searchIndexKept: build.keepSearch,
              searchShardsIndexed: build.keepSearch ? [] : build.shardReuse ? build.shardReuse.dirty : null,
              layer: build.layer
                ? { base: build.layer.base, files: build.layer.files.length, deleted: build.layer.deleted.length }
                : { base: null, compacted: base.layer !== null },
              worksIndexPages: build.worksIndexPages,
              browsePages: build.browsePages,
              browseKeysHashed: build.browseKeysHashed,
              prediction: build.predicted,
              phases: build.phases,
              background: build.background,
            },
          }
        : {}),
      generatedAtUtc: plan.generatedAtUtc,
      works: build.counts.works,
      profiles: build.counts.profiles,
      scores: scoreCounts(build.scores!),
      ...(build.audio ? { audio: build.audio } : {}),
      compressedPages: build.compressedPages,
      searchIndex: build.searchIndex!,
      catalogIndex: build.catalogIndex!,
      zips: build.zips!,
      phases: build.phases,
      background: build.background,
      astroRuns: build.astroRuns,
      warmRuns: build.warmRuns,
      peakRssBytes: process.resourceUsage().maxRSS * 1024,
      durationMs: Date.now() - build.started,
    };
    build.info = info;
    writeNew(path.join(plan.outDir, 'build.json'), `${JSON.stringify(info, null, 2)}\n`);
  },
};
