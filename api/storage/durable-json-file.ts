/**
 * A lowdb adapter that survives power loss and SIGKILL (docs/decisions/0015-state-store.md): each write goes to a
 * temporary file, is fsynced, renamed over the old file, and the folder is fsynced. A reader sees
 * the old document or the new one, never a torn one. Writes to one file are serialised.
 */
import { waitWhileWritesPaused } from './write-pause.ts';
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { Adapter } from 'lowdb';

export async function fsyncDir(dir: string): Promise<void> {
  const handle = await fs.open(dir, 'r');
  try {
    await handle.sync();
  } finally {
    await handle.close();
  }
}

/**
 * Names of the temporary files below: `.<target>.<pid>.<12 hex>.tmp`. A process killed between
 * writing one and renaming it leaves it behind; `removeStaleTempFiles` clears them at start.
 */
export const TEMP_FILE_NAME = /^\..+\.(\d+)\.[0-9a-f]{12}\.tmp$/;

/**
 * Write `bytes` to a fresh temporary file beside `target`, fsynced; returns its path. Every state
 * write starts here, so this is where a backup's brief write pause is honoured (write-pause.ts).
 */
export async function writeTempFile(target: string, bytes: string | Buffer): Promise<string> {
  await waitWhileWritesPaused(target);
  const temp = path.join(
    path.dirname(target),
    `.${path.basename(target)}.${process.pid}.${randomBytes(6).toString('hex')}.tmp`,
  );
  const handle = await fs.open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(bytes);
    await handle.sync();
  } finally {
    await handle.close();
  }
  return temp;
}

export class DurableJsonFile<T> implements Adapter<T> {
  readonly file: string;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(file: string) {
    this.file = file;
  }

  async read(): Promise<T | null> {
    try {
      return JSON.parse(await fs.readFile(this.file, 'utf8')) as T;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  write(data: T): Promise<void> {
    const run = this.queue.then(async () => {
      await fs.mkdir(path.dirname(this.file), { recursive: true });
      const temp = await writeTempFile(this.file, `${JSON.stringify(data)}\n`);
      await fs.rename(temp, this.file);
      await fsyncDir(path.dirname(this.file));
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}
