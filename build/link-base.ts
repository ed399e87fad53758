/**
 * Linking a base build's files into a new folder: one `cp -al` in its own process (the build's
 * thread goes on meanwhile; started by the spawner process, api/process/spawner.ts), and the
 * compaction's linked copy of a layered base's whole view.
 */
import { linkSync, mkdirSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { LayerManifest } from '../src/domain/site-layers.ts';
import type { SiteView } from '../src/lib/site/layers.ts';
import { FullBuildNeeded } from './plan.ts';
import { runCommand } from '../api/process/spawner.ts';

/**
 * A hard-linked copy of the folder `from` at `to` but for its entries named in `except` (one
 * `cp -al`), without blocking this process (Astro renders meanwhile).
 */
export function hardLinkCopy(from: string, to: string, except: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    let entries: string[];
    try {
      entries = readdirSync(from)
        .filter((name) => !except.includes(name))
        .map((name) => path.join(from, name));
      mkdirSync(to, { recursive: true });
    } catch (err) {
      reject(new FullBuildNeeded(`cannot hard-link the base build: ${(err as Error).message}`));
      return;
    }
    if (entries.length === 0) {
      resolve();
      return;
    }
    // Started by the spawner process: a start from this 2-3 GB process held its thread about 80 ms.
    runCommand('cp', ['-al', ...entries, to]).then(
      (r) =>
        r.code === 0
          ? resolve()
          : reject(
              new FullBuildNeeded(
                `cannot hard-link the base build: ${r.stderr.trim() || `cp exited with ${r.code ?? r.signal}`}`,
              ),
            ),
      (err: unknown) => reject(new FullBuildNeeded(`cannot hard-link the base build: ${(err as Error).message}`)),
    );
  });
}

/**
 * A linked copy of a layered base's whole view at `to` (the compaction): its base's files but the
 * deleted ones, then its delta's over them (bounded by ARCHIVE_LAYER_MAX_PATHS).
 */
export async function materializeView(view: SiteView, layer: LayerManifest, to: string): Promise<void> {
  await hardLinkCopy(view.base!, to, []);
  for (const rel of layer.deleted) {
    rmSync(path.join(to, rel), { force: true });
    // A folder left empty (a removed work's) goes too, as a full build would not have it.
    for (let dir = path.dirname(rel); dir !== '.'; dir = path.dirname(dir)) {
      try {
        rmdirSync(path.join(to, dir));
      } catch {
        break; // not empty
      }
    }
  }
  for (const rel of layer.files) {
    const dest = path.join(to, rel);
    rmSync(dest, { force: true, recursive: true });
    mkdirSync(path.dirname(dest), { recursive: true });
    linkSync(path.join(view.client, rel), dest);
  }
}
