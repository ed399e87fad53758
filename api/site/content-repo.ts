/**
 * The runtime content repository (docs/decisions/0012-service-never-writes-into-the-project-tree.md): created on first start under ARCHIVE_DATA_DIR
 * from the shipped `content/` as its first commit, so the running service never writes into the
 * project tree. Every git call goes through `git()` with a fixed identity, so it also works on a
 * machine with no git configuration.
 */
import { cpSync, existsSync, mkdirSync, readdirSync, rmdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { CommandError, runChecked } from '../process/spawner.ts';

export const SERVICE_GIT_IDENTITY = [
  '-c',
  'user.name=Archive Service',
  '-c',
  'user.email=archive-service@localhost',
  '-c',
  'commit.gpgsign=false',
];

/**
 * git in `repo`; its trimmed output. Started from the spawner process (api/process/spawner.ts):
 * an apply runs dozens of these, and each start from the server's own process held its thread.
 * Rejects with a CommandError (exit, stdout, stderr) on a non-zero exit.
 */
export async function git(repo: string, args: string[]): Promise<string> {
  return (await runChecked('git', [...SERVICE_GIT_IDENTITY, '-C', repo, ...args])).toString('utf8').trim();
}

/**
 * Whether `ancestor` is an ancestor of (or is) `descendant`. Only git's answer "no" (exit 1) is
 * false: any other failure throws, so a command that could not run is never taken for "not
 * merged" (a resumed apply would then build its proposal again on a main that holds it).
 */
export async function isAncestor(repo: string, ancestor: string, descendant: string): Promise<boolean> {
  try {
    await git(repo, ['merge-base', '--is-ancestor', ancestor, descendant]);
    return true;
  } catch (err) {
    if (err instanceof CommandError && err.code === 1) return false;
    throw err;
  }
}

/**
 * Move `main` from `from` to `to` without a whole-tree checkout. The ref moves first, atomically
 * and only if it still names `from` (update-ref's compare-and-swap), so a crash leaves main at
 * one commit or the other, never between. The main checkout then follows with a two-tree
 * `read-tree -m -u`, which writes only the paths that differ between the two commits; `git merge`
 * and `git reset --hard` refresh every index entry against the disk, about 18 s at 100,000 works.
 * When the checkout no longer matches `from` (a stop between the two steps, or a hand edit), it
 * is reset in full instead: slow but correct, and only then.
 */
export async function moveMain(
  repo: string,
  from: string,
  to: string,
  reason: string,
  options: { deferCheckout?: boolean } = {},
): Promise<void> {
  await settleCheckout(repo);
  await git(repo, ['update-ref', '-m', reason, 'refs/heads/main', to, from]);
  if (!options.deferCheckout) return syncCheckout(repo, from, to);
  // The checkout follows while the caller goes on (an apply's build reads its own checkout, not
  // this one); the next move, a proposal and the repository's lock wait for it (settleCheckout).
  const key = path.resolve(repo);
  const sync: Promise<void> = syncCheckout(repo, from, to)
    .catch(() => undefined)
    .finally(() => {
      if (pendingCheckouts.get(key) === sync) pendingCheckouts.delete(key);
    });
  pendingCheckouts.set(key, sync);
}

/** The main checkout's syncs still running after moveMain returned (`deferCheckout`), per repository. */
const pendingCheckouts = new Map<string, Promise<void>>();

/**
 * Wait until the main checkout holds main again after a move whose checkout was deferred; at once
 * when none is pending. Never rejects: a sync that failed leaves a checkout the next move puts
 * right (syncCheckout's full reset).
 */
export function settleCheckout(repo: string): Promise<void> {
  return pendingCheckouts.get(path.resolve(repo)) ?? Promise.resolve();
}

/**
 * Bring the main checkout (index and files) from commit `from` to commit `to`, HEAD unchanged,
 * touching only the paths that differ, with plumbing only (no checkout, so no hooks run). The
 * fast path needs the index to hold exactly `from`'s tree (write-tree answers from the index's
 * cached trees, so the check costs little); diff-tree names the changed paths; update-index
 * sets their entries, checkout-index writes the added and changed files, deleted files are
 * unlinked. At 100,000 works that is about 1 s of CPU, where `git merge` spends about 2 s
 * (it refreshes every index entry against the disk). Anything unexpected resets the checkout in full.
 */
async function syncCheckout(repo: string, from: string, to: string): Promise<void> {
  try {
    const [indexTree, fromTree] = await Promise.all([
      git(repo, ['write-tree']),
      git(repo, ['rev-parse', `${from}^{tree}`]),
    ]);
    if (indexTree !== fromTree) throw new Error('the index does not hold the commit main was at');
    // --raw -z: ":<old mode> <new mode> <old sha> <new sha> <status>\0<path>\0" per change.
    const fields = (await git(repo, ['diff-tree', '-r', '-z', '--no-renames', '--raw', from, to]))
      .split('\0')
      .filter((f) => f !== '');
    const cacheinfo: string[] = [];
    const written: string[] = [];
    const deleted: string[] = [];
    for (let i = 0; i + 1 < fields.length; i += 2) {
      const [, newMode, , newSha, status] = fields[i]!.slice(1).split(' ');
      const file = fields[i + 1]!;
      if (status === 'D') deleted.push(file);
      else {
        cacheinfo.push('--cacheinfo', `${newMode},${newSha},${file}`);
        written.push(file);
      }
    }
    for (let i = 0; i < deleted.length; i += PATHS_PER_CALL)
      await git(repo, ['update-index', '--force-remove', '--', ...deleted.slice(i, i + PATHS_PER_CALL)]);
    for (const file of deleted) removeWithEmptyParents(repo, file);
    for (let i = 0; i < cacheinfo.length; i += 2 * PATHS_PER_CALL)
      await git(repo, ['update-index', '--add', ...cacheinfo.slice(i, i + 2 * PATHS_PER_CALL)]);
    for (let i = 0; i < written.length; i += PATHS_PER_CALL)
      await git(repo, ['checkout-index', '-f', '--', ...written.slice(i, i + PATHS_PER_CALL)]);
    const after = await git(repo, ['write-tree']);
    if (after !== (await git(repo, ['rev-parse', `${to}^{tree}`])))
      throw new Error('the checkout did not reach the commit');
  } catch {
    await git(repo, ['reset', '--hard', '--quiet', to]);
  }
}

/** Paths per git call, well under the system's argument-length limit. */
const PATHS_PER_CALL = 500;

/** Unlink a deleted file and the folders it leaves empty, up to the repository (as a checkout does). */
function removeWithEmptyParents(repo: string, file: string): void {
  rmSync(path.join(repo, file), { force: true });
  let dir = path.dirname(file);
  for (let depth = 0; dir !== '.' && dir !== '' && depth < 64; depth++, dir = path.dirname(dir)) {
    const full = path.join(repo, dir);
    if (!existsSync(full) || readdirSync(full).length > 0) break;
    rmdirSync(full);
  }
}

/**
 * The merge commit of `theirs` into `head`, made by plumbing: `merge-tree --write-tree` writes
 * the merged tree without a checkout (it fails on a conflict, leaving everything as it was) and
 * `commit-tree` makes the commit. No ref moves. A conflict throws, naming the files and what they
 * conflict with (`against`).
 */
async function mergeCommit(repo: string, head: string, theirs: string, message: string, against: string) {
  let tree: string;
  try {
    tree = (await git(repo, ['merge-tree', '--write-tree', '--no-messages', head, theirs])).split('\n')[0]!;
  } catch (err) {
    const out = (err as { stdout?: string }).stdout ?? '';
    const conflicted = out.split('\n').slice(1).filter(Boolean);
    throw new Error(
      conflicted.length > 0
        ? `the branch conflicts with ${against} in ${conflicted.join(', ')}`
        : (err as Error).message,
    );
  }
  return git(repo, ['commit-tree', tree, '-p', head, '-p', theirs, '-m', message]);
}

/**
 * Merge `branch` into `main` with a merge commit made by plumbing; moveMain moves main and the
 * checkout (with `deferCheckout`, the checkout follows after this returns: settleCheckout).
 */
export async function mergeIntoMain(
  repo: string,
  branch: string,
  message: string,
  options: { deferCheckout?: boolean } = {},
): Promise<string> {
  const head = await git(repo, ['rev-parse', '--verify', 'refs/heads/main']);
  const theirs = await git(repo, ['rev-parse', '--verify', `${branch}^{commit}`]);
  const commit = await mergeCommit(repo, head, theirs, message, 'main');
  await moveMain(repo, head, commit, `merge ${branch}`, options);
  return commit;
}

/**
 * Merge `branch` into the ref `target` (not main: no checkout moves) as mergeIntoMain does; the
 * ref moves only if it still names the commit merged into. A conflict throws and leaves the ref
 * as it was. Returns the merge commit.
 */
export async function mergeIntoRef(repo: string, branch: string, message: string, target: string): Promise<string> {
  const head = await git(repo, ['rev-parse', '--verify', `${target}^{commit}`]);
  const theirs = await git(repo, ['rev-parse', '--verify', `${branch}^{commit}`]);
  const commit = await mergeCommit(repo, head, theirs, message, 'the works merged before it');
  await git(repo, ['update-ref', '-m', `merge ${branch}`, target, commit, head]);
  return commit;
}

/**
 * `prepare` runs on a new repository's files after the seed is copied and before the first
 * commit (the server adds the content lint for GitHub CI there; api/site/content-lint-ci.ts).
 */
export async function ensureContentRepo(
  repo: string,
  seedDir: string,
  prepare?: (dir: string) => Promise<unknown>,
): Promise<{ created: boolean; head: string }> {
  if (existsSync(path.join(repo, '.git'))) return { created: false, head: await git(repo, ['rev-parse', 'HEAD']) };
  if (existsSync(repo) && !existsSync(path.join(repo, '.git'))) {
    throw new Error(`${repo} exists but is not a git repository; remove it or point ARCHIVE_CONTENT_REPO at a clone`);
  }
  mkdirSync(repo, { recursive: true });
  cpSync(seedDir, repo, { recursive: true });
  if (prepare) await prepare(repo);
  await git(repo, ['init', '--quiet', '--initial-branch=main']);
  await git(repo, ['add', '--all']);
  await git(repo, ['commit', '--quiet', '-m', 'Seed the content repository from the shipped catalog']);
  return { created: true, head: await git(repo, ['rev-parse', 'HEAD']) };
}

/**
 * Run `fn` after every earlier call with the same key in `locks` has settled (a promise chain per
 * key, dropped once idle): this process's lock on one resource.
 */
export function serialByKey<T>(locks: Map<string, Promise<unknown>>, key: string, fn: () => Promise<T>): Promise<T> {
  const previous = locks.get(key) ?? Promise.resolve();
  const run = previous.then(fn);
  const settled = run.catch(() => undefined);
  locks.set(key, settled);
  void settled.then(() => {
    if (locks.get(key) === settled) locks.delete(key);
  });
  return run;
}

const repoLocks = new Map<string, Promise<unknown>>();

/**
 * Run `fn` while holding this process's lock on the content repository, so a publication, an
 * apply and a review branch never interleave their git commands. The write API is single-writer
 * per content repository (docs/decisions/0066-scale-path.md).
 */
export function withContentRepoLock<T>(repo: string, fn: () => Promise<T>): Promise<T> {
  // A main checkout still following a merge is part of the holder's work: the next holder finds it done.
  return serialByKey(repoLocks, path.resolve(repo), async () => {
    try {
      return await fn();
    } finally {
      await settleCheckout(repo);
    }
  });
}
