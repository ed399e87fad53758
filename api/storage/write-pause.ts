/**
 * A brief pause of state writes that `npm run backup` may ask for, honoured by every record write
 * of this process (all of them start in `writeTempFile`). The backup copies the state tree until
 * one pass sees no change; under steady writes that may never happen, so after a few passes it
 * writes `<state>/.write-pause.tmp` (`{"untilMs": ...}`), and writes that start meanwhile wait
 * until the file is gone or its time has passed. Writes already under way finish (a rename takes
 * milliseconds), the next pass sees no change, and the backup removes the file.
 *
 * The file names its own end, so a backup killed while pausing holds writes up to that time and
 * never longer; a pause is capped at MAX_PAUSE_MS whatever the file says. The name ends in `.tmp`,
 * so the backup never copies it.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';

export const WRITE_PAUSE_FILE = '.write-pause.tmp';
/** No pause holds writes longer than this, whatever the file says. */
export const MAX_PAUSE_MS = 60_000;
const POLL_MS = 20;

/** State folders whose pause file this process honours (one per app's data folder). */
const stateRoots = new Set<string>();

export function honourWritePause(stateDir: string): void {
  stateRoots.add(path.resolve(stateDir));
}

function pauseFileFor(target: string): string | null {
  for (const root of stateRoots) if (target.startsWith(root + path.sep)) return path.join(root, WRITE_PAUSE_FILE);
  return null;
}

async function pausedUntil(file: string): Promise<number> {
  try {
    const { untilMs } = JSON.parse(await fs.readFile(file, 'utf8')) as { untilMs?: unknown };
    return typeof untilMs === 'number' ? untilMs : 0;
  } catch {
    return 0; // no pause (or a file being written: treated as none, the next write sees it)
  }
}

/** Wait while a backup pauses writes under the state folder that holds `target`. */
export async function waitWhileWritesPaused(target: string): Promise<void> {
  const file = pauseFileFor(path.resolve(target));
  if (file === null) return;
  const started = Date.now();
  for (;;) {
    const until = Math.min(await pausedUntil(file), started + MAX_PAUSE_MS);
    if (until <= Date.now()) return;
    await new Promise((r) => setTimeout(r, Math.min(POLL_MS, until - Date.now())));
  }
}

/** The backup's side: pause writes under `stateDir` until `untilMs` (or until `resume`). */
export async function pauseWrites(stateDir: string, untilMs: number): Promise<() => Promise<void>> {
  const file = path.join(stateDir, WRITE_PAUSE_FILE);
  const temp = path.join(stateDir, `.write-pause.${process.pid}.tmp`);
  await fs.writeFile(temp, JSON.stringify({ untilMs, pid: process.pid }));
  await fs.rename(temp, file);
  return () => fs.rm(file, { force: true });
}
