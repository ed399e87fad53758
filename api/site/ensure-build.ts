/**
 * Making sure a complete build of a commit exists (docs/decisions/0013-rebuild-and-swap.md): the
 * folder already there, else a build from a checkout of the commit in a child, in full or
 * incrementally from a served build (docs/decisions/0039-incremental-apply-byte-identical.md).
 */
import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import type { WarmBuilder } from './warm-builder.ts';
import { git } from './content-repo.ts';
import { buildInChild, type ChildBuildOptions } from './child-builds.ts';
import { checkoutPersistent, persistentWorktreePath, withWorktree } from './worktrees.ts';
import {
  buildKey,
  compactedBuildDir,
  incrementalBuildDir,
  isCompleteBuild,
  readBuildInfo,
  readerSignInOf,
  servedClientDir,
} from './served.ts';

export interface EnsureBuildOptions {
  inheritOutput?: boolean;
  /** Told when a build starts; `incrementalFrom` names the base folder of an incremental one. */
  onBuildStart?: (info: { incrementalFrom?: string }) => void;
  /**
   * With no complete build of the commit, build it incrementally from the newest complete build
   * folder of the same base URL (and reader sign-in) in builds/ when there is one (the start-up
   * build after the content repository moved on): `latestCompleteBuild`. A failed incremental
   * build is followed by a full one.
   */
  incrementalFromLatest?: boolean;
  /** Told when the incremental build of `incrementalFromLatest` failed and a full build follows. */
  onIncrementalFailed?: (err: Error) => void;
  /** Accept a complete incremental build of the commit when there is no full one (default true; the reconcile wants the full one). */
  acceptIncremental?: boolean;
  lowPriority?: boolean;
  signal?: AbortSignal;
  /** Wraps the git worktree commands (the reconcile takes the content-repository lock for them). */
  gitLock?: <T>(fn: () => Promise<T>) => Promise<T>;
  /** Filled with the time of each step (checkoutWaitMs, checkoutMs, buildMs), for the apply's log. */
  timings?: Record<string, number>;
  /**
   * Build from this persistent checkout (ARCHIVE_DATA_DIR/worktrees/<name>-checkout), moved to the
   * commit, instead of a scratch worktree of the whole tree per build. Callers that may run at the
   * same time use different names (in one process, builds on one name wait for each other).
   */
  worktree?: string;
  /** Build in this warm build process (api/site/warm-builder.ts) rather than a new one. */
  builder?: WarmBuilder | null;
}

/**
 * What every build the server makes passes its build child, from the configuration: one place, so
 * the warm-up's build (`Rebuilder.prepare`) runs with exactly the arguments and environment the
 * applies' builds do (the warm renderer keys its compiled pages by them: build/warm-render.ts).
 */
export function serverBuildOptions(config: Config): ChildBuildOptions {
  return {
    blobsDir: path.join(config.dataDir, 'blobs'),
    // nginx in front serves whatever build the server serves, through the served-build link.
    nginxRoot: path.resolve(servedClientDir(config.dataDir)),
    readerSignIn: readerSignInOf(config),
    renderCache: config,
    engrave: config.engrave,
  };
}

/**
 * Build `commit` from a worktree of it (the content repository may move on while we build): the
 * persistent worktree named `options.worktree` when given (the rebuilder's "rebuild" and the
 * reconcile's "reconcile": each has its own, so they never share one), else a scratch worktree
 * added and removed around the build.
 */
async function buildFromWorktree(
  config: Config,
  commit: string,
  dir: string,
  options: EnsureBuildOptions & { incrementalFrom?: string },
): Promise<void> {
  mkdirSync(path.dirname(dir), { recursive: true });
  options.onBuildStart?.({ incrementalFrom: options.incrementalFrom });
  const locked = options.gitLock ?? (<T>(fn: () => Promise<T>) => fn());
  const build = (worktree: string) =>
    buildInChild(worktree, dir, config.publicBaseUrl, {
      ...serverBuildOptions(config),
      inheritOutput: options.inheritOutput,
      commit,
      incrementalFrom: options.incrementalFrom,
      lowPriority: options.lowPriority,
      signal: options.signal,
      builder: options.builder,
      onWarmBuild: (r) => {
        // The build ran in a process that had built before: Node, the scripts and Astro were loaded.
        // Its memory after the build (MiB) and whether it retires now (the next apply starts cold).
        if (options.timings) {
          options.timings.warmBuild = r.earlierBuilds > 0 ? 1 : 0;
          options.timings.warmRssMb = Math.round(r.rssBytes / 1048576);
          options.timings.warmRetired = r.retired ? 1 : 0;
        }
      },
    });
  if (options.worktree) {
    const worktree = persistentWorktreePath(config, options.worktree);
    mkdirSync(path.dirname(worktree), { recursive: true });
    const asked = Date.now();
    return withWorktree(worktree, async () => {
      let t = Date.now();
      // Behind another user of this checkout: the start's preparation (`prepare`: checkout, warm-up) or an earlier build.
      if (options.timings) options.timings.checkoutWaitMs = t - asked;
      const how = await locked(() => checkoutPersistent(config, worktree, commit));
      if (options.timings) {
        options.timings.checkoutMs = Date.now() - t;
        options.timings.checkout = how === 'moved' ? 1 : 0;
      }
      t = Date.now();
      await build(worktree);
      if (options.timings) options.timings.buildMs = Date.now() - t;
    });
  }
  const worktree = path.join(config.dataDir, 'worktrees', `${path.basename(dir)}-${process.pid}-${Date.now()}`);
  let t = Date.now();
  await locked(() => git(config.contentRepo, ['worktree', 'add', '--detach', '--force', worktree, commit]));
  if (options.timings) options.timings.checkoutMs = Date.now() - t;
  t = Date.now();
  try {
    await build(worktree);
    if (options.timings) options.timings.buildMs = Date.now() - t;
  } finally {
    await locked(() => git(config.contentRepo, ['worktree', 'remove', '--force', worktree])).catch(() =>
      rmSync(worktree, { recursive: true, force: true }),
    );
  }
}

/**
 * The complete build of `commit` for this configuration that `ensureBuild` would serve without
 * building (the full build's folder, else its compaction, else the incremental one); null when
 * there is none yet.
 */
export function completeBuildOf(config: Config, commit: string): string | null {
  const dir = path.join(config.dataDir, 'builds', buildKey(commit, config.publicBaseUrl, readerSignInOf(config)));
  if (isCompleteBuild(dir)) return dir;
  for (const other of [compactedBuildDir(config, commit), incrementalBuildDir(config, commit)])
    if (isCompleteBuild(other)) return other;
  return null;
}

/** Make sure a complete build of `commit` exists; returns its folder (a full build's, else a complete incremental one's). */
export async function ensureBuild(config: Config, commit: string, options: EnsureBuildOptions = {}): Promise<string> {
  const dir = path.join(config.dataDir, 'builds', buildKey(commit, config.publicBaseUrl, readerSignInOf(config)));
  if (isCompleteBuild(dir)) return dir;
  // After a stop (even kill -9) during or after an incremental swap, the incremental folder is a
  // complete build of the same commit: serve it at once (build.json is written last).
  // Its compaction first (a plain folder of the same view), then the layer itself.
  const compacted = compactedBuildDir(config, commit);
  if (options.acceptIncremental !== false && isCompleteBuild(compacted)) return compacted;
  const incremental = incrementalBuildDir(config, commit);
  if (options.acceptIncremental !== false && isCompleteBuild(incremental)) return incremental;
  if (options.incrementalFromLatest && options.acceptIncremental !== false) {
    const base = await latestCompleteBuild(config);
    if (base) {
      try {
        await buildFromWorktree(config, commit, incremental, { ...options, incrementalFrom: base });
        return incremental;
      } catch (err) {
        if (options.signal?.aborted) throw err;
        options.onIncrementalFailed?.(err as Error);
      }
    }
  }
  await buildFromWorktree(config, commit, dir, { ...options, incrementalFrom: undefined });
  return dir;
}

/**
 * The newest complete build folder (by its build.json's time) made for this configuration's
 * base URL and reader sign-in, whose commit the content repository still has; null when none.
 * Any such folder is a correct base for an incremental build (it diffs the two commits, and falls
 * back to a full build by itself when the change needs one); the newest is usually the nearest.
 */
export async function latestCompleteBuild(config: Config): Promise<string | null> {
  const buildsDir = path.join(config.dataDir, 'builds');
  if (!existsSync(buildsDir)) return null;
  // "<commit12>-<hash8>", or with "-inc" or "-cmp": the hash is the configuration's part of the key.
  const suffix = buildKey('0'.repeat(12), config.publicBaseUrl, readerSignInOf(config)).slice(12);
  const candidates: { dir: string; commit: string; time: number }[] = [];
  for (const name of readdirSync(buildsDir)) {
    if (!/^[0-9a-f]{12}-[0-9a-f]{8}(-inc|-cmp)?$/.test(name) || !name.slice(12).startsWith(suffix)) continue;
    const dir = path.join(buildsDir, name);
    if (!isCompleteBuild(dir)) continue;
    const commit = readBuildInfo(dir)?.commit;
    if (!commit) continue;
    try {
      candidates.push({ dir, commit, time: statSync(path.join(dir, 'build.json')).mtimeMs });
    } catch {
      // Gone meanwhile.
    }
  }
  candidates.sort((a, b) => b.time - a.time);
  for (const c of candidates) {
    try {
      await git(config.contentRepo, ['cat-file', '-e', `${c.commit}^{commit}`]);
      return c.dir;
    } catch {
      // A commit the repository no longer has (a repository made again): not a base.
    }
  }
  return null;
}

/**
 * Make sure a complete build of `commit` exists, building it incrementally from the complete
 * build folder `baseDir` when there is none (build/plan.ts; the child falls back
 * to a full build by itself when the change needs one, and says why in build.json).
 */
export async function ensureIncrementalBuild(
  config: Config,
  commit: string,
  baseDir: string,
  options: EnsureBuildOptions = {},
): Promise<string> {
  const full = path.join(config.dataDir, 'builds', buildKey(commit, config.publicBaseUrl, readerSignInOf(config)));
  if (isCompleteBuild(full)) return full;
  const compacted = compactedBuildDir(config, commit);
  if (isCompleteBuild(compacted)) return compacted;
  const dir = incrementalBuildDir(config, commit);
  if (isCompleteBuild(dir)) return dir;
  await buildFromWorktree(config, commit, dir, { ...options, incrementalFrom: baseDir });
  return dir;
}
