/**
 * The runtime content repository (DESIGN.md 2.5): created on first start under ARCHIVE_DATA_DIR
 * from the shipped `content/` as its first commit, so the running service never writes into the
 * project tree. Every git call goes through `git()` with a fixed identity, so it also works on a
 * machine with no git configuration.
 */
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export const SERVICE_GIT_IDENTITY = [
  '-c',
  'user.name=Archive Service',
  '-c',
  'user.email=archive-service@localhost',
  '-c',
  'commit.gpgsign=false',
];

export async function git(repo: string, args: string[]): Promise<string> {
  const { stdout } = await run('git', [...SERVICE_GIT_IDENTITY, '-C', repo, ...args], { maxBuffer: 64 * 1024 * 1024 });
  return stdout.trim();
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
 * per content repository (DESIGN.md 5).
 */
export function withContentRepoLock<T>(repo: string, fn: () => Promise<T>): Promise<T> {
  return serialByKey(repoLocks, path.resolve(repo), fn);
}
