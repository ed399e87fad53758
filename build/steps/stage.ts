/**
 * Step "stage": once the tasks beside the render are done (the link, Pagefind, the compressed
 * pages; with a base, the index worker, which reads the rendered records where they lie), the new
 * files are put in place:
 *   - with a base, what the scope can remove goes from the folder (a work's pages, score pages and
 *     files; a browse value no work has any more; browse and works-index pages past the new last
 *     page); in a layer the base's files there are deleted from the view unless rendered again;
 *     then every rendered file is moved in as a new inode (a linked file is never written in
 *     place, so the base keeps serving unchanged);
 *   - the engraved scores are moved in (they are most of a real catalog's bytes), and those found
 *     in the render view linked;
 *   - the new Pagefind index (or the new shards) replaces the old.
 */
import { existsSync, renameSync, rmSync } from 'node:fs';
import path from 'node:path';
import { moveTree } from '../../src/lib/site/move-tree.ts';
import { filesBelow, SiteView } from '../../src/lib/site/layers.ts';
import { placeViewedScores } from '../../src/lib/site/render-scores.ts';
import type { writeWorksIndexKeys } from '../../src/lib/site/works-index.ts';
import type { Step } from '../runner.ts';
import { inShard } from '../search-reuse.ts';

/** The works-index page folders of a view past the new last page of each order (works were removed). */
function pagesPast(view: SiteView, keys: ReturnType<typeof writeWorksIndexKeys>): string[] {
  const out: string[] = [];
  for (const [sort, folder] of [
    ['title', 'works/by-title'],
    ['composer', 'works/by-composer'],
  ] as const)
    for (const name of view.listDirs(folder))
      if (/^[0-9]+$/.test(name) && Number(name) > keys[sort].length) out.push(`${folder}/${name}`);
  return out;
}

export const stage: Step = {
  name: 'stage',
  async run(build) {
    const { plan } = build;
    const base = plan.base;
    const clientDir = plan.clientDir;
    // Settled (the runner joined them before this step): their results, or their errors.
    build.compressedPages = await build.compressing;
    const searched = build.searching ? await build.searching : null;
    if (searched) {
      const { unwritten: _unwritten, ...summary } = searched;
      build.searchIndex = summary;
    }
    if (base) {
      build.catalogIndex = await build.indexing;
      build.searchIndex ??= { pages: base.info.searchIndex.pages, durationMs: 0 };
      const layered = base.kind === 'layer';
      const replaced: string[] = [];
      for (const slug of plan.scope) replaced.push(`works/${slug}`, `api/v1/works/${slug}`);
      const view = layered ? base.view : SiteView.plain(clientDir);
      // A browse value the change touched: the whole folder when the value is gone, else its pages
      // past its new last page (page 1 and the pages whose key changed were rendered again).
      for (const key of base.change.facets) {
        if (key.startsWith('composer/')) continue;
        const pages = build.browseKeys![key]?.length;
        if (pages === undefined) replaced.push(`browse/${key}`);
        else
          for (const name of view.listDirs(`browse/${key}`))
            if (/^[0-9]+$/.test(name) && Number(name) > pages) replaced.push(`browse/${key}/${name}`);
      }
      replaced.push(...pagesPast(view, build.worksIndexKeys!));
      for (const dir of replaced) {
        rmSync(path.join(clientDir, dir), { recursive: true, force: true });
        if (layered) build.removedBase.push(...base.view.baseFilesUnder(dir));
      }
      build.renderedFiles = moveTree(build.renderDir, clientDir);
    }
    const scoresDir = build.scoresDir;
    if (existsSync(path.join(scoresDir, 'files'))) moveTree(path.join(scoresDir, 'files'), clientDir);
    build.scores!.linkedFiles += placeViewedScores(build.scores!.deferred, clientDir);
    if (!searched) return;
    const scratch = path.join(build.searchScratch, 'pagefind');
    if (base?.kind === 'layer') {
      // The shards indexed again replace theirs; every shard when the whole index was made again.
      const dirty = build.shardReuse ? build.shardReuse.dirty : null;
      const inDirty = (rel: string) => dirty === null || dirty.some((k) => inShard(rel, k));
      // Files of those shards the base's view held with the same bytes were not written
      // (`unwritten`): each stays where the view has it, in the delta linked from the base's or in
      // the plain base. The rest of those shards' files go.
      const unwritten = new Set(searched.unwritten ?? []);
      for (const rel of filesBelow(clientDir, 'pagefind'))
        if (inDirty(rel) && !unwritten.has(rel)) rmSync(path.join(clientDir, rel));
      // The base's files of those shards only: shard 0's folder holds the others' folders.
      const folders = dirty === null ? ['pagefind'] : dirty.map((k) => (k === 0 ? 'pagefind' : `pagefind/shard-${k}`));
      const otherShard = (folder: string) => /^pagefind\/shard-\d+$/.test(folder);
      for (const folder of folders)
        for (const rel of base.view.baseFilesUnder(
          folder,
          folder === 'pagefind' && dirty !== null ? otherShard : undefined,
        ))
          if (!unwritten.has(rel)) build.removedBase.push(rel);
      if (existsSync(scratch)) moveTree(scratch, path.join(clientDir, 'pagefind'));
    } else {
      rmSync(path.join(clientDir, 'pagefind'), { recursive: true, force: true });
      renameSync(scratch, path.join(clientDir, 'pagefind'));
    }
  },
};
