/**
 * Linking a base build's files into a new folder: one `cp -al` in its own process (the build's
 * thread goes on meanwhile), and the compaction's linked copy of a layered base's whole view.
 */
import { spawn } from 'node:child_process';
import { linkSync, mkdirSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import type { LayerManifest } from '../../src/domain/site-layers.ts';
import type { SiteView } from '../../src/lib/site/layers.ts';
import { FullBuildNeeded } from './plan.ts';

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
    const child = spawn('cp', ['-al', ...entries, to], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString('utf8')));
    child.on('error', (err) => reject(new FullBuildNeeded(`cannot hard-link the base build: ${err.message}`)));
    child.on('close', (code) =>
      code === 0
        ? resolve()
        : reject(new FullBuildNeeded(`cannot hard-link the base build: ${stderr.trim() || `cp exited with ${code}`}`)),
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
