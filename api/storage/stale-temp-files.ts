/**
 * Start-up sweep of temporary files a killed process left behind (a kill -9 under load once
 * left hundreds of `.tmp` files that nothing ever removed). Record writes go to a temporary file,
 * then are renamed or hard-linked into place (durable-json-file.ts); a file still named like a
 * temporary file was never acknowledged, so removing it loses nothing.
 *
 * Runs before the server listens, over `ARCHIVE_DATA_DIR/state` only (where every record lives).
 * A temporary file whose writer process is still alive (another process, not this one) is left
 * alone. The walk is bounded in depth; the tree is the server's own.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { TEMP_FILE_NAME } from './durable-json-file.ts';
import { removeStalePause } from './write-pause.ts';

const MAX_DEPTH = 6;

function alive(pid: number): boolean {
  if (pid === process.pid) return false; // nothing of ours is being written before we start
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Remove stale temporary record files under `dataDir/state`; returns how many were removed. */
export async function removeStaleTempFiles(dataDir: string): Promise<number> {
  let removed = 0;
  const visit = async (dir: string, depth: number): Promise<void> => {
    let entries;
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return;
      throw err;
    }
    for (const e of entries) {
      const full = path.join(dir, e.name);
      if (e.isDirectory()) {
        if (depth < MAX_DEPTH) await visit(full, depth + 1);
        continue;
      }
      const m = TEMP_FILE_NAME.exec(e.name);
      if (!m || !e.isFile() || alive(Number(m[1]))) continue;
      await fs.unlink(full).then(
        () => removed++,
        (err: NodeJS.ErrnoException) => {
          if (err.code !== 'ENOENT') throw err;
        },
      );
    }
  };
  await visit(path.join(dataDir, 'state'), 0);
  // A backup killed during its write pause leaves its pause file: gone once its writer is.
  if (await removeStalePause(path.join(dataDir, 'state'))) removed++;
  return removed;
}
