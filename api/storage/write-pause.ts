/**
 * A brief pause of state writes that `npm run backup` may ask for, honoured by every record write
 * of this process (all of them start in `writeTempFile`). The backup copies the state tree until
 * one pass sees no change; under steady writes that may never happen, so after a few passes it
 * writes `<state>/.write-pause.tmp` (`{"untilMs": ...}`), and writes that start meanwhile wait
 * until the file is gone or its time has passed. Writes already under way finish (a rename takes
 * milliseconds), the next pass sees no change, and the backup removes the file.
 *
 * The file names its own end and its writer's process id, so a backup killed while pausing holds
 * writes up to that time and never longer, and once that time has passed or the backup is gone
 * the file is removed by the next write that finds it (and by the server's start-up sweep); a
 * pause is capped at MAX_PAUSE_MS whatever the file says. The name ends in `.tmp`, so the backup
 * never copies it.
 */
import { promises as fs, rmSync } from 'node:fs';
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

interface Pause {
  untilMs: number;
  pid: number | null;
}

async function readPause(file: string): Promise<Pause | null> {
  try {
    const { untilMs, pid } = JSON.parse(await fs.readFile(file, 'utf8')) as { untilMs?: unknown; pid?: unknown };
    return {
      untilMs: typeof untilMs === 'number' ? untilMs : 0,
      pid: typeof pid === 'number' && Number.isSafeInteger(pid) && pid > 0 ? pid : null,
    };
  } catch {
    return null; // no pause (or a file being written: treated as none, the next write sees it)
  }
}

function alive(pid: number): boolean {
  if (pid === process.pid) return true;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A pause whose time has passed, or whose backup process is gone (killed while pausing), holds nothing. */
function stale(pause: Pause): boolean {
  return pause.untilMs <= Date.now() || (pause.pid !== null && !alive(pause.pid));
}

/**
 * Remove the pause file of `stateDir` when it is stale: its time has passed or the backup that
 * wrote it is gone (a backup killed during its pause cannot remove it itself). The server does so
 * at start and whenever a write finds one; returns whether a file was removed.
 */
export async function removeStalePause(stateDir: string): Promise<boolean> {
  const file = path.join(stateDir, WRITE_PAUSE_FILE);
  const pause = await readPause(file);
  if (pause === null || !stale(pause)) return false;
  await fs.rm(file, { force: true });
  return true;
}

/** Wait while a backup pauses writes under the state folder that holds `target`. */
export async function waitWhileWritesPaused(target: string): Promise<void> {
  const file = pauseFileFor(path.resolve(target));
  if (file === null) return;
  const started = Date.now();
  for (;;) {
    const pause = await readPause(file);
    if (pause === null) return;
    if (stale(pause)) {
      await fs.rm(file, { force: true }).catch(() => undefined);
      return;
    }
    const until = Math.min(pause.untilMs, started + MAX_PAUSE_MS);
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
  // Stopped by a signal while pausing: the file goes first (a kill -9 leaves it to the server's sweep).
  const onSignal = (signal: NodeJS.Signals) => {
    rmSync(file, { force: true });
    process.kill(process.pid, signal);
  };
  process.once('SIGTERM', onSignal);
  process.once('SIGINT', onSignal);
  return () => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
    return fs.rm(file, { force: true });
  };
}
