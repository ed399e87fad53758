/**
 * Moving a build checkout from one commit's files to another's without git's index (issue 29,
 * item 5: git without checkouts at scale). A build reads its content folder's files and asks git
 * only about commits (`diff` between two commits, `show` of a blob), never about the index; yet a
 * two-tree `read-tree -m -u` reads and rewrites the whole index (16 MB, 100,000 entries at
 * 100,000 works) and walks both trees: 1.1-1.5 s per apply there. Here the paths that differ come
 * from `git diff-tree` of the two commits (which reads only the trees on the changed paths), their
 * new contents from `git cat-file --batch`, and the files are written, replaced or removed
 * directly: the time follows the change, not the catalog.
 *
 * The checkout's index is therefore left as it was at its last full checkout; nothing reads it
 * (api/site/worktrees.ts, `checkoutPersistent`, which brackets each move with a marker and, after a
 * stop inside one, does the same move again: writing and removing the same files twice gives the
 * same folder).
 */
import { chmodSync, mkdirSync, readdirSync, rmdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runChecked } from '../process/spawner.ts';

export interface TreeChange {
  /** `A` added, `M` modified, `T` type changed, `D` deleted. */
  status: 'A' | 'M' | 'T' | 'D';
  /** The new mode (`000000` for a deletion). */
  mode: string;
  /** The new blob (all zeros for a deletion). */
  blob: string;
  path: string;
}

const RAW_HEADER = /^:(\d{6}) (\d{6}) ([0-9a-f]{40,64}) ([0-9a-f]{40,64}) ([AMTD])$/;

/**
 * The changes of `git diff-tree -r -z --no-renames A B` (raw format: `:<old mode> <new mode>
 * <old blob> <new blob> <status>` NUL `<path>` NUL, per path). Throws on a line of any other shape.
 */
export function parseRawDiff(raw: string): TreeChange[] {
  const parts = raw.split('\0');
  if (parts.at(-1) === '') parts.pop();
  if (parts.length % 2 !== 0) throw new Error('git diff-tree: an entry without its path');
  const changes: TreeChange[] = [];
  for (let i = 0; i < parts.length; i += 2) {
    const m = RAW_HEADER.exec(parts[i]!);
    const file = parts[i + 1]!;
    if (!m || file === '') throw new Error(`git diff-tree: unexpected entry "${parts[i]!.slice(0, 120)}"`);
    changes.push({ status: m[5] as TreeChange['status'], mode: m[2]!, blob: m[4]!, path: file });
  }
  return changes;
}

/** Blobs read per `cat-file --batch` (the spawner keeps at most 64 MiB of a command's output). */
const BLOBS_PER_READ = 200;

/** The file of `relative` inside `root`; throws for a path that would leave it or enter `.git`. */
function inside(root: string, relative: string): string {
  const segments = relative.split('/');
  if (segments.some((s) => s === '' || s === '.' || s === '..' || s === '.git'))
    throw new Error(`refusing to write "${relative}" in a build checkout`);
  return path.join(root, ...segments);
}

/** Remove the folders left empty by a deletion, up to (not including) `root`. */
function pruneEmpty(root: string, dir: string): void {
  for (
    let d = dir, depth = 0;
    d !== root && d.startsWith(root + path.sep) && depth < 64;
    d = path.dirname(d), depth++
  ) {
    try {
      if (readdirSync(d).length > 0) return;
      rmdirSync(d);
    } catch {
      return;
    }
  }
}

/**
 * Make the files of checkout `dir` those of commit `to`, given that they are `from`'s (or a stop
 * left them between the two): removes the paths `to` lacks, writes the paths it adds or changes.
 * Returns the number of paths that differ. Throws (having perhaps written part of the change) on
 * an entry it does not handle (a symbolic link, a submodule) or when git fails; the caller then
 * makes the checkout again.
 */
export async function moveCheckoutFiles(dir: string, from: string, to: string): Promise<number> {
  const root = path.resolve(dir);
  const raw = await runChecked('git', ['-C', root, 'diff-tree', '-r', '-z', '--no-renames', from, to]);
  const changes = parseRawDiff(raw.toString('utf8'));
  const writes: TreeChange[] = [];
  // Removals first: a file that becomes a folder (or the other way round) makes room for it.
  for (const change of changes) {
    if (change.status === 'D') {
      const file = inside(root, change.path);
      rmSync(file, { force: true });
      pruneEmpty(root, path.dirname(file));
    } else if (change.mode === '100644' || change.mode === '100755') writes.push(change);
    else throw new Error(`${change.path}: mode ${change.mode} is not a plain file`);
  }
  for (let at = 0; at < writes.length; at += BLOBS_PER_READ) {
    const batch = writes.slice(at, at + BLOBS_PER_READ);
    const out = await runChecked('git', ['-C', root, 'cat-file', '--batch'], {
      input: `${batch.map((c) => c.blob).join('\n')}\n`,
    });
    let pos = 0;
    for (const change of batch) {
      const eol = out.indexOf(0x0a, pos);
      if (eol < 0) throw new Error('git cat-file: the output ended early');
      const [blob, type, size] = out.toString('latin1', pos, eol).split(' ');
      const length = Number(size);
      if (blob !== change.blob || type !== 'blob' || !Number.isSafeInteger(length) || eol + 1 + length > out.length)
        throw new Error(`git cat-file: unexpected answer for ${change.path}`);
      const file = inside(root, change.path);
      mkdirSync(path.dirname(file), { recursive: true });
      const mode = change.mode === '100755' ? 0o755 : 0o644;
      writeFileSync(file, out.subarray(eol + 1, eol + 1 + length), { mode });
      // An existing file keeps its mode through a write.
      if ((statSync(file).mode & 0o777) !== mode) chmodSync(file, mode);
      pos = eol + 1 + length + 1; // the content, then a line feed
    }
  }
  return changes.length;
}
