/**
 * Step "beside", the first: what needs only the plan starts here and runs while the scores are
 * engraved and the pages render, each in its own process or thread, joined before the stage step
 * (started in this order: search, link, snapshot, index worker; the search is the longest: with a
 * base, one shard of Pagefind is about 0.6 s on a quiet machine, the longest task of a correction's
 * build, so it starts before the scores step, not after it):
 *   - "link": with a base, the new folder's `client/` starts as the base's files: nothing over a
 *     plain base (a layer; docs/decisions/0051-layers-instead-of-copies.md), the base's delta
 *     linked over a layered one, or the base's whole view linked (`cp -al`) for a copy (layers off,
 *     or the compaction into a new plain base). Without a base, `base` links to the folder's own
 *     `client/` (nginx tries client/ then base/).
 *   - "search": Pagefind indexes the catalog (custom records made from the catalog, not from the
 *     pages) into a scratch folder from a worker thread: with a base, only the shards a changed
 *     record falls in, or nothing when no record changed (the base's index is the new one);
 *     without a base, the whole catalog when it fits in one Astro run (a larger catalog is indexed
 *     after the render by the search step, so Pagefind's memory does not add to Astro's).
 *   - with a base, the index worker reads the base's records of the works out of scope (the
 *     predict step hands it the changed works' records as the pages will hold them, the index
 *     step the rendered ones).
 *   - "snapshot": with a base, the catalog snapshot (build/catalog-snapshot.ts): a layer's is a
 *     delta over its plain base's (the lines of the works changed since it); a copy's the changed
 *     works' lines serialized here, the file written by a worker thread that copies the others'
 *     lines from the base's file.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { startIndexWorker } from '../../api/catalog/build-index.ts';
import { LAYER_DELETED_DIR, SiteView, writePlainBaseLink } from '../../src/lib/site/layers.ts';
import { buildSearchIndexInWorker } from '../../src/lib/site/search-index.ts';
import { writeSnapshot } from '../catalog-snapshot.ts';
import { hardLinkCopy, materializeView } from '../link-base.ts';
import type { Step } from '../runner.ts';
import { predictRecords, scoresAsBase } from './predict.ts';
import { searchRecordChanges, searchShardReuse } from '../search-reuse.ts';

export const beside: Step = {
  name: 'beside',
  async run(build) {
    const { plan } = build;
    const base = plan.base;
    build.searchScratch = path.join(plan.outDir, '.search');
    const catalog = build.catalog;
    if (!base) {
      writePlainBaseLink(plan.outDir);
      if (catalog.works.length <= plan.batchWorks)
        build.searching = build.beside('search', buildSearchIndexInWorker(build.searchScratch, catalog), 'stage');
      return;
    }
    const slugs = catalog.works.map((w) => w.content.slug);
    const changedRecords = searchRecordChanges(catalog, plan.scope, base.before);
    const entryFile = base.view.locate('pagefind/pagefind-entry.json');
    build.keepSearch = changedRecords?.length === 0 && entryFile !== null && existsSync(entryFile);
    const clientDir = plan.clientDir;
    // Pagefind is started first: at 10,000 works one shard's index is the longest of these tasks
    // (about 1 s), so the stage step waits for it; the others start after it.
    let link: (() => Promise<void>) | null = null;
    if (base.kind === 'layer') {
      // The delta so far and its deletion markers (the finish step writes only their difference),
      // or nothing over a plain base; only the dirty shards are indexed, the clean ones stay in the view.
      const reuse = searchShardReuse(base.view, slugs, changedRecords);
      // Pagefind writes only the files of the dirty shards the base's view does not hold as they are.
      build.shardReuse = reuse ? { ...reuse, link: false, view: base.dir } : null;
      link = () =>
        base.layer
          ? Promise.all([
              hardLinkCopy(path.join(base.dir, 'client'), clientDir, []),
              hardLinkCopy(path.join(base.dir, LAYER_DELETED_DIR), path.join(plan.outDir, LAYER_DELETED_DIR), []),
            ]).then(() => undefined)
          : mkdir(clientDir, { recursive: true }).then(() => undefined);
    } else if (base.layer === null) {
      // A plain base copied whole (layers off): its Pagefind folder too when the index is kept.
      build.shardReuse = searchShardReuse(base.view, slugs, changedRecords);
      link = () => hardLinkCopy(path.join(base.dir, 'client'), clientDir, build.keepSearch ? [] : ['pagefind']);
    } else {
      // The compaction: the whole view, linked, before the search index links its clean shards from it.
      const t0 = Date.now();
      await materializeView(base.view, base.layer, clientDir);
      build.background.linkMs = Date.now() - t0;
      build.shardReuse = searchShardReuse(SiteView.plain(clientDir), slugs, changedRecords);
    }
    if (!build.keepSearch)
      build.searching = build.beside(
        'search',
        buildSearchIndexInWorker(build.searchScratch, catalog, { reuse: build.shardReuse ?? undefined }),
        'stage',
      );
    if (link) build.beside('link', link(), 'stage');
    // Kept in memory too, for the next apply in this process. A layer's is a delta over its plain
    // base's (small); a copy's is whole, its base's lines copied by a worker thread.
    const over = base.kind === 'layer' ? (base.layer?.base ?? path.basename(base.dir)) : undefined;
    build.beside(
      'snapshot',
      writeSnapshot(plan.outDir, catalog, {
        reuse: base.snapshot ?? undefined,
        rememberFor: plan.contentDir,
        ...(over !== undefined ? { over } : {}),
      }),
      'stage',
    );
    // A layer's listing index is an overlay over its plain base's files (api/catalog/index-layers.ts).
    const plainBase = base.layer ? path.join(path.dirname(base.dir), base.layer.base) : base.dir;
    build.indexer = startIndexWorker(base.dir, plan.scope, { layerOver: base.kind === 'layer' ? plainBase : null });
    const indexer = build.indexer;
    build.onEnd(() => indexer.close());
    // The index merge starts now when the base's score manifest gives the changed works' records.
    if (scoresAsBase(build)) predictRecords(build, base.scores.manifest, 'base');
  },
};
