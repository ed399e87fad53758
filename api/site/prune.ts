/**
 * Pruning build folders: what no one serves or writes any more is moved out of the way at once
 * and deleted in the background, at the lowest CPU and I/O priority.
 */
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { runCommand } from '../process/spawner.ts';
import type { Config } from '../config.ts';
import { layerBaseDir } from '../../src/lib/site/layers.ts';
import { servedBuildLink, servedBuildTarget } from './served.ts';

/**
 * Remove build folders other than those to keep. Each goes out of builds/ at once (a rename into
 * ARCHIVE_DATA_DIR/builds-trash, so no later build can pick it up) and is deleted afterwards by a
 * separate `rm -rf` at the lowest CPU and I/O priority, a few seconds later: deleting a
 * 10,000-work folder takes many seconds, which an apply should not wait for; a synchronous delete
 * stalled the server meanwhile, and one in this process (fs.rm) took the threads its file reads
 * and fsyncs need. Whatever a stop left in the trash goes with the next prune. Resolves when the
 * deletion has ended (never rejects).
 */
export function pruneBuilds(config: Config, keep: string[], delayMs = PRUNE_DELAY_MS): Promise<void> {
  const buildsDir = path.join(config.dataDir, 'builds');
  if (!existsSync(buildsDir)) return Promise.resolve();
  const trash = path.join(config.dataDir, 'builds-trash');
  mkdirSync(trash, { recursive: true });
  // Never the folder the served-build link names (nginx reads through it), whatever the caller kept.
  const linked = servedBuildTarget(servedBuildLink(config.dataDir));
  const kept = [...keep, ...(linked ? [linked] : [])].map((k) => path.join(buildsDir, path.basename(k)));
  // A layered build reads its base's files: the base stays as long as a kept layer names it.
  const bases = kept.map((k) => layerBaseDir(k)).filter((b): b is string => b !== null);
  const keepNames = new Set([...kept, ...bases].map((k) => path.basename(k)));
  for (const name of readdirSync(buildsDir)) {
    if (keepNames.has(name)) continue;
    try {
      renameSync(
        path.join(buildsDir, name),
        path.join(trash, `${name}-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`),
      );
    } catch {
      rmSync(path.join(buildsDir, name), { recursive: true, force: true });
    }
  }
  const doomed = readdirSync(trash).map((name) => path.join(trash, name));
  return deleteInBackground(doomed, delayMs);
}

/**
 * Delete `doomed` (folders already out of the way) after `delayMs`, by a separate `rm -rf` at the
 * lowest CPU and I/O priority (plain `rm` without ionice, else fs.rm in this process). Resolves
 * when the deletion has ended (never rejects).
 */
function deleteInBackground(doomed: string[], delayMs: number): Promise<void> {
  if (doomed.length === 0) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      const inProcess = () =>
        Promise.all(doomed.map((d) => rm(d, { recursive: true, force: true }).catch(() => undefined))).then(() =>
          resolve(),
        );
      // Started from the spawner process (a start from this one holds its thread; api/process/spawner.ts).
      void runCommand('ionice', ['-c', '3', 'rm', '-rf', '--', ...doomed], { lowPriority: true })
        .then((r) => (r.code === 0 ? resolve() : inProcess()))
        // No ionice (not util-linux): plain rm, else in this process.
        .catch(() =>
          runCommand('rm', ['-rf', '--', ...doomed], { lowPriority: true })
            .then(() => resolve())
            .catch(() => inProcess()),
        );
    }, delayMs);
    timer.unref();
  });
}

/**
 * Remove the folder a failed or stopped build (or compaction) left, without blocking this process:
 * it is renamed out of the way at once (into ARCHIVE_DATA_DIR/builds-trash for a folder of builds/,
 * as pruneBuilds does, else beside itself as `.discard-<name>-…`), so nothing finds it under its
 * name, then deleted in the background (`deleteInBackground`). A stopped compaction or reconcile
 * at 100,000 works leaves hundreds of thousands of files: deleting them with rmSync held this
 * process for seconds, every request and the next apply's steps with it (bench/README.md, the
 * apply section's stall probe). Resolves when the deletion has ended (never rejects).
 */
export function discardFolder(dir: string): Promise<void> {
  if (!existsSync(dir)) return Promise.resolve();
  const parent = path.dirname(dir);
  const inBuilds = path.basename(parent) === 'builds';
  const trash = inBuilds ? `${parent}-trash` : parent;
  const aside = path.join(
    trash,
    `${inBuilds ? '' : '.discard-'}${path.basename(dir)}-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
  );
  try {
    mkdirSync(trash, { recursive: true });
    renameSync(dir, aside);
  } catch {
    return rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
  return deleteInBackground([aside], 0);
}

/** How long after a swap the pruned folders are deleted (the swap's first requests come first). */
const PRUNE_DELAY_MS = 5_000;
