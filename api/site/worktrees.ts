/**
 * The persistent build checkouts (ARCHIVE_DATA_DIR/worktrees/<name>-checkout): one per user (the
 * rebuilds' "rebuild", the reconcile's "reconcile"), moved from commit to commit instead of a
 * scratch worktree of the whole tree per build; one user at a time in this process.
 */
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { runChecked } from '../process/spawner.ts';
import type { Config } from '../config.ts';
import { git, serialByKey, SERVICE_GIT_IDENTITY } from './content-repo.ts';
import { moveCheckoutFiles } from './checkout-move.ts';
import { discardFolder } from './prune.ts';

/** One user at a time per persistent build worktree (this process). */
const worktreeLocks = new Map<string, Promise<unknown>>();

export function withWorktree<T>(worktree: string, fn: () => Promise<T>): Promise<T> {
  return serialByKey(worktreeLocks, worktree, fn);
}

/** In a persistent checkout's `.git`: a move between two commits is under way (`checkoutPersistent`). */
const MOVE_MARKER = 'archive-moving';

/** ARCHIVE_DATA_DIR/worktrees/<name>-checkout: a persistent build checkout (see `checkoutPersistent`). */
export function persistentWorktreePath(config: Config, name: string): string {
  return path.join(config.dataDir, 'worktrees', `${name}-checkout`);
}

/**
 * The commit a persistent checkout's detached HEAD names, read from `.git/HEAD` (a process start
 * less per apply; git is asked when the file holds anything else, such as a branch).
 */
async function detachedHead(dir: string): Promise<string> {
  const text = readFileSync(path.join(dir, '.git', 'HEAD'), 'utf8').trim();
  return /^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(text) ? text : git(dir, ['rev-parse', '--verify', 'HEAD']);
}

/**
 * Point a persistent checkout's HEAD at `commit`, detached: what `git update-ref --no-deref HEAD`
 * writes (the file, replaced in one rename), without a git process or a reflog entry, which
 * nothing reads in this checkout.
 */
function setDetachedHead(dir: string, commit: string): void {
  const head = path.join(dir, '.git', 'HEAD');
  writeFileSync(`${head}.lock`, `${commit}\n`);
  renameSync(`${head}.lock`, head);
}

/**
 * Move the persistent build checkout `dir` to `commit`: only the paths that differ between the
 * commit it holds and `commit` are written or removed (api/site/checkout-move.ts: one changed
 * work for an apply, without reading or writing git's index), where a fresh `git worktree add`
 * writes the whole catalog. The checkout is a clone of the content repository that borrows its
 * objects (`git clone --shared`: no object is copied, every commit of the content repository is
 * readable at once), not one of its registered worktrees, so the content repository's own
 * worktree list stays as it was. A marker in its `.git` brackets each move (`<from> <to>`); after
 * a stop inside one, the same move is done again first (it writes and removes the same files).
 * When it cannot be moved (first use, a marker that names no move, a change it does not handle),
 * it is made again, so a stop at any point costs at most one full checkout, never a wrong tree.
 */
export async function checkoutPersistent(
  config: Config,
  dir: string,
  commit: string,
  signal?: AbortSignal,
): Promise<'moved' | 'added'> {
  // Its index is written by the full checkout only, at its end (the moves never write it): a
  // checkout without one was stopped before its files were all written (earlier versions cloned
  // in place, so a stop between the clone and its checkout left one, with no files but a HEAD).
  if (existsSync(path.join(dir, '.git', 'index'))) {
    const moving = path.join(dir, '.git', MOVE_MARKER);
    try {
      let head = await detachedHead(dir);
      if (existsSync(moving)) {
        const [from, to, ...rest] = readFileSync(moving, 'utf8').trim().split(' ');
        if (rest.length > 0 || !/^[0-9a-f]{40,64}$/.test(from ?? '') || !/^[0-9a-f]{40,64}$/.test(to ?? ''))
          throw new Error('the move marker names no move');
        await moveCheckoutFiles(dir, from!, to!);
        setDetachedHead(dir, to!);
        rmSync(moving);
        head = to!;
      }
      if (head === commit) return 'moved';
      writeFileSync(moving, `${head} ${commit}\n`);
      await moveCheckoutFiles(dir, head, commit);
      setDetachedHead(dir, commit);
      rmSync(moving);
      return 'moved';
    } catch {
      // Made again below.
    }
  }
  // Made beside it and renamed into place once checked out: a clone stopped before its checkout
  // has a `.git` whose HEAD names a commit but no files, which the move above would take for a
  // checkout of that commit. Moved aside at once (100,000 works' files are deleted in the
  // background); only when it could not be moved is its deletion waited for.
  const adding = `${dir}.adding`;
  for (const stale of [dir, adding]) {
    const gone = discardFolder(stale);
    if (existsSync(stale)) await gone;
  }
  // The two long steps stop with `signal` (a server stopping during its start's checkout); what
  // they leave is the `.adding` folder, discarded above next time.
  const long = (cwd: string, args: string[]) =>
    runChecked('git', [...SERVICE_GIT_IDENTITY, '-C', cwd, ...args], signal ? { signal } : {});
  await long(config.contentRepo, [
    'clone',
    '--quiet',
    '--shared',
    '--no-checkout',
    path.resolve(config.contentRepo),
    path.resolve(adding),
  ]);
  await long(adding, ['checkout', '--quiet', '--detach', '--force', commit]);
  renameSync(adding, dir);
  return 'added';
}
