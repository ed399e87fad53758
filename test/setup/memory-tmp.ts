/**
 * Where the fast tier's temporary folders go (vitest.config.ts, project "fast"): a folder on the
 * machine's memory file system (`/dev/shm`) when it is a tmpfs with room to spare, so that the
 * tier's thousands of temporary repositories, catalogs and data folders are made and removed
 * without the disk (on this project's machines, removing a generated 1,300-work catalog took
 * 2.4 s on the disk against 0.04 s in memory). Elsewhere, or when `TMPDIR` is set, the tier uses
 * the usual temporary folder. The folder is named after the vitest process, made by the tier's
 * global setup and removed by its teardown; one left by a killed run is removed by the next.
 */
import { existsSync, mkdirSync, readdirSync, rmSync, statfsSync } from 'node:fs';
import path from 'node:path';

const MEMORY_FS = '/dev/shm';
const TMPFS_MAGIC = 0x01021994;
/** Free room the memory file system must have (the tier's peak use is far below it). */
const MIN_FREE_BYTES = 4 * 1024 ** 3;
const PREFIX = 'pdma-fast-tier-';

/** The fast tier's temporary folder for this vitest process, or undefined for the usual one. */
export function fastTierTmpDir(): string | undefined {
  if (process.env.TMPDIR) return undefined;
  try {
    const fs = statfsSync(MEMORY_FS);
    if (fs.type !== TMPFS_MAGIC || fs.bavail * fs.bsize < MIN_FREE_BYTES) return undefined;
  } catch {
    return undefined;
  }
  return path.join(MEMORY_FS, `${PREFIX}${process.pid}`);
}

/** Make this process's folder (removing those of processes that are gone); undefined when none is used. */
export function makeFastTierTmpDir(): string | undefined {
  const dir = fastTierTmpDir();
  if (dir === undefined) return undefined;
  for (const name of readdirSync(MEMORY_FS)) {
    const pid = Number(name.slice(PREFIX.length));
    if (name.startsWith(PREFIX) && Number.isInteger(pid) && pid !== process.pid && !alive(pid))
      rmSync(path.join(MEMORY_FS, name), { recursive: true, force: true });
  }
  mkdirSync(dir, { recursive: true });
  return dir;
}

export function removeFastTierTmpDir(dir: string | undefined): void {
  if (dir !== undefined && existsSync(dir)) rmSync(dir, { recursive: true, force: true });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
