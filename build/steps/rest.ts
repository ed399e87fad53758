/**
 * Step "rest": the files beside `client/` that need the catalog but not the pages: which blobs
 * public records link to (`published-blobs.json`), the signed-in files under `protected/` (the
 * base's linked, the scope's copied again), the catalog snapshot of a build without a base (the
 * next build re-parses only what its change touches; with a base, the beside step writes it,
 * copying the unchanged works' lines from the base's file), and what the zips need of each work in
 * scope. Each file is written as a new
 * inode: a folder may share inodes with its base.
 */
import { cpSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Catalog } from '../../src/domain/catalog.ts';
import { protectedAssets, publishedBlobs } from '../../src/domain/records.ts';
import { zipWorkOf } from '../../src/lib/site/work-zips.ts';
import { writeSnapshot } from '../catalog-snapshot.ts';
import type { Step } from '../runner.ts';
import { hardLinkCopy } from '../link-base.ts';

/** Write a file as a new inode (the folder may share inodes with its base build). */
export function writeNew(file: string, data: string | Buffer): void {
  rmSync(file, { force: true });
  writeFileSync(file, data);
}

/**
 * Outside client/ too: files that are not public. Signed-in stored files are copied under
 * protected/ for the protected download route (api/signin/); nothing serves that folder publicly.
 * `onlyWorks`: copy only these works' files (an incremental build keeps the others' links).
 */
export function writeProtected(outDir: string, catalog: Catalog, onlyWorks?: Set<string>): void {
  const restricted = protectedAssets(catalog);
  // The works whose files are copied: an apply's few, looked up without a map of every work.
  const bySlug = new Map<string, Catalog['works'][number]>();
  for (const w of catalog.works) if (!onlyWorks || onlyWorks.has(w.content.slug)) bySlug.set(w.content.slug, w);
  for (const [key, asset] of Object.entries(restricted)) {
    if (asset.access !== 'signed-in' || asset.file === undefined) continue;
    const slug = key.slice(0, key.lastIndexOf('/'));
    if (onlyWorks && !onlyWorks.has(slug)) continue;
    const stored = bySlug.get(slug)?.files.get(asset.file);
    if (!stored) continue;
    mkdirSync(path.join(outDir, 'protected', slug), { recursive: true });
    cpSync(stored.absolutePath, path.join(outDir, 'protected', slug, asset.file));
  }
  writeNew(path.join(outDir, 'protected-assets.json'), `${JSON.stringify(restricted)}\n`);
}

export const rest: Step = {
  name: 'rest',
  async run(build) {
    const { plan } = build;
    const base = plan.base;
    const catalog = build.catalog;
    writeNew(path.join(plan.outDir, 'published-blobs.json'), `${JSON.stringify(publishedBlobs(catalog))}\n`);
    if (base) {
      // Signed-in files: the base's copies linked, the scope's copied again.
      const protectedDir = path.join(plan.outDir, 'protected');
      // Through the spawner process, as the base's client/ is linked (a start from this process held its thread).
      if (existsSync(path.join(base.dir, 'protected')))
        await hardLinkCopy(path.join(base.dir, 'protected'), protectedDir, []);
      for (const slug of plan.scope) rmSync(path.join(protectedDir, slug), { recursive: true, force: true });
      writeProtected(plan.outDir, catalog, new Set(plan.scope));
      // The catalog snapshot is being written beside the render (the beside step).
    } else {
      writeProtected(plan.outDir, catalog);
      await writeSnapshot(plan.outDir, catalog);
    }
    build.zipWorks = build.works.map(zipWorkOf);
  },
};
