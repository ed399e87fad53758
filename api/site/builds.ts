/**
 * Build folders under ARCHIVE_DATA_DIR/builds and the rebuild-and-swap path (docs/decisions/0013-rebuild-and-swap.md).
 * A build runs in a child process into a fresh folder keyed by content commit and base URL; the
 * server switches to it in one step only once it is complete, so a failed build leaves the old
 * site serving. Rebuilds are serialised: concurrent callers queue behind the one running.
 */
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { rm } from 'node:fs/promises';
import { setPriority } from 'node:os';
import { runChecked, runCommand } from '../process/spawner.ts';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config.ts';
import type { SiteHandle } from './site-handle.ts';
import { WarmBuilder, type WarmBuildResult } from './warm-builder.ts';
import type { WarmUpResult } from '../../build/warm-up.ts';
import { BUILD_STORE_VARIABLE } from '../../build/protocol.ts';
import { git, serialByKey, SERVICE_GIT_IDENTITY, withContentRepoLock } from './content-repo.ts';
import { moveCheckoutFiles } from './checkout-move.ts';
import { nextReconcileAt, scheduleText, type ReconcileSchedule } from '../../src/domain/reconcile-schedule.ts';
import type { ReconcileCost, ReconcileState, ReconcileStatus, ReconcileTrigger } from '../../src/schemas/reconcile.ts';
import { LAYER_FILE, layerBaseDir } from '../../src/lib/site/layers.ts';
import { compactionDue } from '../../src/domain/site-layers.ts';

const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/**
 * ARCHIVE_DATA_DIR/current: a symbolic link to the build folder being served (`builds/<name>`,
 * relative, so the data folder can move). The generated nginx.conf roots at `current/client`, so
 * nginx in front follows every swap without a reload: the kernel resolves the link on every open.
 * It lives beside builds/, not in it, so nothing that lists build folders (pruning, the base of an
 * incremental build) can take it for one.
 */
export function servedBuildLink(dataDir: string): string {
  return path.join(dataDir, 'current');
}

/** The folder the served-build link is rooted at in nginx.conf. */
export function servedClientDir(dataDir: string): string {
  return path.join(servedBuildLink(dataDir), 'client');
}

/**
 * Point the served-build link at `buildDir` in one step: a new link under a temporary name, then
 * rename(2) over the old one, which replaces it atomically. A reader (nginx) sees the old folder or
 * the new one, never a missing link; a stop (even kill -9) between the two steps leaves the old
 * link and a stray temporary one, which the next call removes.
 */
export function pointServedBuild(link: string, buildDir: string): void {
  const dir = path.dirname(link);
  mkdirSync(dir, { recursive: true });
  const base = path.basename(link);
  for (const name of readdirSync(dir)) {
    if (name.startsWith(`.${base}-`)) rmSync(path.join(dir, name), { force: true });
  }
  const target = path.relative(dir, path.resolve(buildDir));
  const tmp = path.join(dir, `.${base}-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`);
  symlinkSync(target, tmp, 'dir');
  try {
    renameSync(tmp, link);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** The build folder the served-build link names (absolute), or null when there is no link. */
export function servedBuildTarget(link: string): string | null {
  try {
    return path.resolve(path.dirname(link), readlinkSync(link));
  } catch {
    return null;
  }
}

/** Complete: build.json (written last) and the index the server loads; a build by an older version without an index is rebuilt. */
export function isCompleteBuild(outDir: string): boolean {
  if (
    !existsSync(path.join(outDir, 'build.json')) ||
    !existsSync(path.join(outDir, 'client')) ||
    !existsSync(path.join(outDir, 'index', 'catalog.json'))
  )
    return false;
  // A layered build (src/lib/site/layers.ts) is complete with its base: build.json is written
  // after layer.json, and a base is a plain build (the layer of a layer names the same base).
  if (!existsSync(path.join(outDir, LAYER_FILE))) return true;
  const base = layerBaseDir(outDir);
  return base !== null && !existsSync(path.join(base, LAYER_FILE)) && isCompleteBuild(base);
}

/** Reader sign-in changes what records and pages say, so it is part of the key (unchanged keys without it). */
export function buildKey(commit: string, baseUrl: string, readerSignIn: 'github' | 'none' = 'none'): string {
  const input = readerSignIn === 'none' ? baseUrl : `${baseUrl}\nreader-sign-in=${readerSignIn}`;
  return `${commit.slice(0, 12)}-${createHash('sha256').update(input).digest('hex').slice(0, 8)}`;
}

/** The reader sign-in a build for this configuration is written for (part of the build key). */
export function readerSignInOf(config: Config): 'github' | 'none' {
  return config.readerSignIn ? config.readerSignIn.provider : 'none';
}

/** An incremental build's folder: the full build's name with `-inc` (the reconcile's full build takes the plain name). */
export function incrementalBuildDir(config: Config, commit: string): string {
  return path.join(config.dataDir, 'builds', `${buildKey(commit, config.publicBaseUrl, readerSignInOf(config))}-inc`);
}

/**
 * A layered build made plain again by the background compaction (build/compact.ts): the
 * full build's name with `-cmp`. The same view as the layer it was made from, so it stands for the
 * same commit.
 */
export function compactedBuildDir(config: Config, commit: string): string {
  return path.join(config.dataDir, 'builds', `${buildKey(commit, config.publicBaseUrl, readerSignInOf(config))}-cmp`);
}

/** What a complete build folder says about itself (build.json); null when unreadable. */
export function readBuildInfo(dir: string): {
  commit: string | null;
  mode: 'full' | 'incremental';
  fallbackReason?: string | null;
  /** A layered build's paths (its delta's files, the base's files it deletes); null for a plain folder. */
  layerPaths: number | null;
  /** Rendered audio of the build: how many scores' audio it left pending (not in the render cache), and whether a background full build is to render it. */
  audio: { pending: number; later: boolean } | null;
} | null {
  try {
    const info = JSON.parse(readFileSync(path.join(dir, 'build.json'), 'utf8')) as {
      commit?: string | null;
      mode?: 'full' | 'incremental';
      fallbackReason?: string | null;
      incremental?: { layer?: { base: string | null; files?: number; deleted?: number } };
      audio?: { pending?: number; later?: boolean };
    };
    const layer = info.incremental?.layer;
    return {
      commit: info.commit ?? null,
      mode: info.mode ?? 'full',
      fallbackReason: info.fallbackReason ?? null,
      layerPaths: layer?.base ? (layer.files ?? 0) + (layer.deleted ?? 0) : null,
      audio: info.audio ? { pending: info.audio.pending ?? 0, later: info.audio.later === true } : null,
    };
  } catch {
    return null;
  }
}

export interface ChildBuildOptions {
  inheritOutput?: boolean;
  blobsDir?: string;
  /** The folder nginx.conf roots at (the server's: ARCHIVE_DATA_DIR/current/client); default the build's own client/. */
  nginxRoot?: string;
  /** Recorded in build.json; an incremental build needs it. */
  commit?: string;
  /** Build incrementally from this complete build folder (build/plan.ts), or in full when it cannot. */
  incrementalFrom?: string;
  /** Reader sign-in the records and pages are written for. */
  readerSignIn?: 'github' | 'none';
  /** Every record's generatedAtUtc (tests compare an incremental build with a full one of the same time). */
  generatedAtUtc?: string;
  /** Run at the lowest CPU priority (the background reconcile). */
  lowPriority?: boolean;
  /** Stops the child (the folder is removed, the promise rejects). */
  signal?: AbortSignal;
  /** The blob store whose named objects hold the render cache (local folder or S3); none: no cache. */
  renderCache?: Pick<Config, 'dataDir' | 'blobStore' | 's3'>;
  /** The engraving pool's workers and budgets. */
  engrave?: Config['engrave'];
  /**
   * Run the build in this warm build process (api/site/warm-builder.ts) instead of a new one;
   * not for a low-priority build or one whose output goes to the terminal.
   */
  builder?: WarmBuilder | null;
  /** Told which warm process ran the build and how many it had run before. */
  onWarmBuild?: (result: WarmBuildResult) => void;
  /**
   * Warm `builder` up instead of building (build/warm-up.ts): plan the build, render its
   * pages into `outDir`, remove it. Needs `builder`, `commit` and `incrementalFrom`.
   */
  warmUp?: boolean;
}

/** Run scripts/build.ts in a child process; rejects with the build's own error output. */
export function buildInChild(
  contentDir: string,
  outDir: string,
  baseUrl: string,
  options: ChildBuildOptions = {},
): Promise<void> {
  const args = [
    '--content',
    contentDir,
    '--out',
    outDir,
    '--base-url',
    baseUrl,
    '--quiet',
    ...(options.blobsDir ? ['--blobs-dir', options.blobsDir] : []),
    ...(options.nginxRoot ? ['--nginx-root', options.nginxRoot] : []),
    ...(options.commit ? ['--commit', options.commit] : []),
    ...(options.incrementalFrom ? ['--incremental-from', options.incrementalFrom] : []),
    ...(options.warmUp ? ['--warm-up'] : []),
    ...(options.generatedAtUtc ? ['--generated-at', options.generatedAtUtc] : []),
    ...(options.readerSignIn ? ['--reader-sign-in', options.readerSignIn] : []),
    ...(options.renderCache ? ['--render-cache', 'store'] : ['--render-cache', 'none']),
    ...(options.engrave
      ? [
          '--engrave-workers',
          String(options.engrave.size),
          '--engrave-cpu-ms',
          String(options.engrave.cpuMs),
          '--engrave-timeout-ms',
          String(options.engrave.timeoutMs),
          '--engrave-memory-mb',
          String(options.engrave.memoryMb),
        ]
      : []),
  ];
  const storeEnv: Record<string, string> = options.renderCache
    ? {
        [BUILD_STORE_VARIABLE]: JSON.stringify({
          dataDir: options.renderCache.dataDir,
          blobStore: options.renderCache.blobStore,
          s3: options.renderCache.s3,
        }),
      }
    : {};
  if (options.warmUp && (!options.builder || options.lowPriority || options.inheritOutput))
    return Promise.reject(new Error('a warm-up runs in the warm build process only'));
  if (options.builder && !options.lowPriority && !options.inheritOutput) {
    return options.builder.run(args, storeEnv, options.signal).then(
      (result) => options.onWarmBuild?.(result),
      (err: unknown) => {
        void discardFolder(outDir);
        throw err;
      },
    );
  }
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(new Error('build cancelled'));
      return;
    }
    const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'scripts', 'build.ts'), ...args], {
      env: options.renderCache ? { ...process.env, ...storeEnv } : undefined,
      stdio: ['ignore', options.inheritOutput ? 'inherit' : 'pipe', options.inheritOutput ? 'inherit' : 'pipe'],
    });
    if (options.lowPriority && child.pid !== undefined) {
      try {
        setPriority(child.pid, 19);
      } catch {
        // Not permitted here: it still runs, at normal priority.
      }
    }
    const onAbort = () => child.kill('SIGTERM');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('exit', () => options.signal?.removeEventListener('abort', onAbort));
    let output = '';
    child.stdout?.on('data', (d) => (output += String(d)));
    child.stderr?.on('data', (d) => (output += String(d)));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve();
      else {
        void discardFolder(outDir);
        reject(new Error(`build failed (exit ${code}): ${output.trim().slice(-4000)}`));
      }
    });
  });
}

/**
 * Compact the layered build `layerDir` into the plain folder `outDir` (build/compact.ts)
 * in a child at the lowest CPU priority; the folder is removed when it fails or is stopped.
 */
export async function compactInChild(layerDir: string, outDir: string, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) throw new Error('compaction cancelled');
  // Started from the spawner process, at the lowest CPU priority (api/process/spawner.ts).
  const r = await runCommand(
    process.execPath,
    [path.join(PROJECT_ROOT, 'scripts', 'build.ts'), '--compact-from', layerDir, '--out', outDir, '--quiet'],
    { lowPriority: true, signal, stderrLimit: 1024 * 1024 },
  );
  if (r.code === 0) return;
  void discardFolder(outDir);
  const output = `${r.stdout.toString('utf8')}${r.stderr}`;
  throw new Error(`compaction failed (exit ${r.code ?? r.signal}): ${output.trim().slice(-4000)}`);
}

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

/** One user at a time per persistent build worktree (this process). */
const worktreeLocks = new Map<string, Promise<unknown>>();

function withWorktree<T>(worktree: string, fn: () => Promise<T>): Promise<T> {
  return serialByKey(worktreeLocks, worktree, fn);
}

/** In a persistent checkout's `.git`: a move between two commits is under way (`checkoutPersistent`). */
const MOVE_MARKER = 'archive-moving';

/** How long a stopping server waits for its start's checkout and warm-up to end once stopped. */
const PREPARE_STOP_WAIT_MS = 10_000;

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
async function checkoutPersistent(
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

/**
 * Build `commit` from a worktree of it (the content repository may move on while we build): the
 * persistent worktree named `options.worktree` when given (the rebuilder's "rebuild" and the
 * reconcile's "reconcile": each has its own, so they never share one), else a scratch worktree
 * added and removed around the build.
 */
/**
 * What every build the server makes passes its build child, from the configuration: one place, so
 * the warm-up's build (`Rebuilder.prepare`) runs with exactly the arguments and environment the
 * applies' builds do (the warm renderer keys its compiled pages by them: build/warm-render.ts).
 */
function serverBuildOptions(config: Config): ChildBuildOptions {
  return {
    blobsDir: path.join(config.dataDir, 'blobs'),
    // nginx in front serves whatever build the server serves, through the served-build link.
    nginxRoot: path.resolve(servedClientDir(config.dataDir)),
    readerSignIn: readerSignInOf(config),
    renderCache: config,
    engrave: config.engrave,
  };
}

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

/**
 * Remove build folders other than those to keep. Each goes out of builds/ at once (a rename into
 * ARCHIVE_DATA_DIR/builds-trash, so no later build can pick it up) and is deleted afterwards by a
 * separate `rm -rf` at the lowest CPU and I/O priority, a few seconds later: deleting a
 * 10,000-work folder takes many seconds, which an apply should not wait for; a synchronous delete
 * stalled the server meanwhile, and one in this process (fs.rm) took the threads its file reads
 * and fsyncs need. Whatever a stop left in the trash goes with the next prune. Resolves when the
 * deletion has ended (never rejects).
 */
export function pruneBuilds(config: Config, keep: string[], delayMs = PRUNE_DELAY_MS): Promise<void> {
  const buildsDir = path.join(config.dataDir, 'builds');
  if (!existsSync(buildsDir)) return Promise.resolve();
  const trash = path.join(config.dataDir, 'builds-trash');
  mkdirSync(trash, { recursive: true });
  // Never the folder the served-build link names (nginx reads through it), whatever the caller kept.
  const linked = servedBuildTarget(servedBuildLink(config.dataDir));
  const kept = [...keep, ...(linked ? [linked] : [])].map((k) => path.join(buildsDir, path.basename(k)));
  // A layered build reads its base's files: the base stays as long as a kept layer names it.
  const bases = kept.map((k) => layerBaseDir(k)).filter((b): b is string => b !== null);
  const keepNames = new Set([...kept, ...bases].map((k) => path.basename(k)));
  for (const name of readdirSync(buildsDir)) {
    if (keepNames.has(name)) continue;
    try {
      renameSync(
        path.join(buildsDir, name),
        path.join(trash, `${name}-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`),
      );
    } catch {
      rmSync(path.join(buildsDir, name), { recursive: true, force: true });
    }
  }
  const doomed = readdirSync(trash).map((name) => path.join(trash, name));
  return deleteInBackground(doomed, delayMs);
}

/**
 * Delete `doomed` (folders already out of the way) after `delayMs`, by a separate `rm -rf` at the
 * lowest CPU and I/O priority (plain `rm` without ionice, else fs.rm in this process). Resolves
 * when the deletion has ended (never rejects).
 */
function deleteInBackground(doomed: string[], delayMs: number): Promise<void> {
  if (doomed.length === 0) return Promise.resolve();
  return new Promise<void>((resolve) => {
    const timer = setTimeout(() => {
      const inProcess = () =>
        Promise.all(doomed.map((d) => rm(d, { recursive: true, force: true }).catch(() => undefined))).then(() =>
          resolve(),
        );
      // Started from the spawner process (a start from this one holds its thread; api/process/spawner.ts).
      void runCommand('ionice', ['-c', '3', 'rm', '-rf', '--', ...doomed], { lowPriority: true })
        .then((r) => (r.code === 0 ? resolve() : inProcess()))
        // No ionice (not util-linux): plain rm, else in this process.
        .catch(() =>
          runCommand('rm', ['-rf', '--', ...doomed], { lowPriority: true })
            .then(() => resolve())
            .catch(() => inProcess()),
        );
    }, delayMs);
    timer.unref();
  });
}

/**
 * Remove the folder a failed or stopped build (or compaction) left, without blocking this process:
 * it is renamed out of the way at once (into ARCHIVE_DATA_DIR/builds-trash for a folder of builds/,
 * as pruneBuilds does, else beside itself as `.discard-<name>-…`), so nothing finds it under its
 * name, then deleted in the background (`deleteInBackground`). A stopped compaction or reconcile
 * at 100,000 works leaves hundreds of thousands of files: deleting them with rmSync held this
 * process for seconds, every request and the next apply's steps with it (bench/README.md, the
 * apply section's stall probe). Resolves when the deletion has ended (never rejects).
 */
export function discardFolder(dir: string): Promise<void> {
  if (!existsSync(dir)) return Promise.resolve();
  const parent = path.dirname(dir);
  const inBuilds = path.basename(parent) === 'builds';
  const trash = inBuilds ? `${parent}-trash` : parent;
  const aside = path.join(
    trash,
    `${inBuilds ? '' : '.discard-'}${path.basename(dir)}-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`,
  );
  try {
    mkdirSync(trash, { recursive: true });
    renameSync(dir, aside);
  } catch {
    return rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
  return deleteInBackground([aside], 0);
}

/** How long after a swap the pruned folders are deleted (the swap's first requests come first). */
const PRUNE_DELAY_MS = 5_000;

export interface SwapResult {
  commit: string;
  buildDir: string;
  durationMs: number;
  /** How the served folder was made: "incremental", or "full" (with `fallbackReason` when an incremental build was not possible). */
  mode?: 'full' | 'incremental';
  fallbackReason?: string | null;
  /** Where the time went: waitMs (behind an earlier rebuild), checkoutWaitMs (behind another user of the build checkout), checkoutMs, buildMs (the child), swapMs. */
  phases?: Record<string, number>;
}

/** How a reconcile ended: swapped in, built but not swapped (a newer build was served meanwhile), failed, or stopped. */
export type ReconcileOutcome = 'swapped' | 'superseded' | 'failed' | 'cancelled';

export interface ReconcileEvent {
  commit: string;
  outcome: ReconcileOutcome;
  trigger: ReconcileTrigger;
  buildDir?: string;
  error?: string;
  /** From the request to the end (zero for one stopped before its build started). */
  durationMs?: number;
  /** The full build's cost (build.json), when it finished. */
  cost?: ReconcileCost | null;
}

/**
 * How a background compaction of a served layer ended (build/compact.ts): swapped in,
 * made but not swapped (the served build changed meanwhile), failed, or stopped (a rebuild came).
 */
export interface CompactionEvent {
  /** The layer's folder name. */
  layer: string;
  outcome: 'swapped' | 'superseded' | 'failed' | 'cancelled';
  /** The paths the layer carried. */
  layerPaths: number;
  durationMs: number;
  error?: string;
}

/** The server's log line for a compaction's end. */
export function compactionLogLine(event: CompactionEvent): string {
  return `background compaction of ${event.layer} (${event.layerPaths} paths): ${event.outcome} in ${event.durationMs} ms${event.error ? ` (${event.error.split('\n')[0]})` : ''}`;
}

/** The start's warm-up of the warm build process (`Rebuilder.prepare`), for the log. */
export interface WarmUpEvent {
  /** `skipped`: the served build cannot be built on (the first apply is a full build; `result.skipped` says why). */
  outcome: 'done' | 'skipped' | 'failed' | 'cancelled';
  /** The served build it planned on. */
  base: string;
  durationMs: number;
  /** Of it, waiting for the build checkout and moving it to the content's HEAD. */
  checkoutMs: number;
  /** The warm-up's own figures (build/warm-up.ts), when it ran. */
  result?: WarmUpResult;
  error?: string;
}

/** The server's log line for the warm-up's end. */
export function warmUpLogLine(event: WarmUpEvent): string {
  const r = event.result;
  const what = r?.skipped
    ? `: ${r.skipped}`
    : r
      ? `: ${r.works} works, catalog ${r.snapshotRead ? `read in ${r.phases.loadMs ?? 0} ms` : 'already in memory'}, pages ${r.renderer?.kind === 'warm' ? 'already compiled' : `compiled and rendered in ${r.phases.astroMs ?? 0} ms`}, ${r.searchFailed !== undefined ? `no search shard indexed (${r.searchFailed.split('\n')[0]!.slice(0, 200)})` : `one search shard indexed again in ${r.phases.searchMs ?? 0} ms`}`
      : '';
  return `warm build process warm-up on ${event.base}: ${event.outcome} in ${event.durationMs} ms${what}${event.error ? ` (${event.error.split('\n')[0]!.slice(0, 300)})` : ''}`;
}

export interface RebuilderOptions {
  /** Build incrementally from the served build (default true; ARCHIVE_INCREMENTAL_BUILDS=0 turns it off). */
  incremental?: boolean;
  /**
   * The "after each apply" mode: after an incremental swap, wait this long without another rebuild,
   * then build the same commit in full in the background (lowest CPU priority) and switch to it
   * when done; a server started on an incremental folder does the same. null or absent: never
   * (the server's default, ARCHIVE_RECONCILE_DELAY_MS=off). Call `close()` when done with a
   * rebuilder that reconciles.
   */
  reconcileDelayMs?: number | null;
  /**
   * When to reconcile on a schedule (ARCHIVE_RECONCILE_SCHEDULE): at each due time, a served
   * incremental build is replaced by a full build of its commit; a served full build needs nothing.
   * Absent or `off`: never on a schedule.
   */
  reconcileSchedule?: ReconcileSchedule;
  /** Told when a reconcile ends (tests, logs, metrics). */
  onReconcile?: (event: ReconcileEvent) => void;
  /**
   * A served layer is compacted in the background once it carries half this many paths
   * (default: the configuration's ARCHIVE_LAYER_MAX_PATHS; 0: never).
   */
  layerMaxPaths?: number;
  /** Told when a background compaction ends (tests, logs). */
  onCompaction?: (event: CompactionEvent) => void;
  /**
   * Run the rebuilds an apply waits for in one warm build process (ARCHIVE_WARM_BUILDER, default
   * on; api/site/warm-builder.ts), not a new process each; the reconcile keeps its own. Default off
   * here (tests that build many rebuilders); the server passes the setting.
   */
  warmBuilder?: boolean;
  /** The warm build process's memory budget (ARCHIVE_WARM_BUILDER_MAX_RSS_MB; default api/site/warm-builder.ts). */
  warmBuilderMaxRssBytes?: number;
  /**
   * With `warmBuilder`: `prepare()` warms the process up on the served build (ARCHIVE_WARM_BUILDER_WARM_UP,
   * the server's default on; build/warm-up.ts). Default off here.
   */
  warmUp?: boolean;
  /** Told when the warm-up ends (logs, tests). */
  onWarmUp?: (event: WarmUpEvent) => void;
}

interface Reconcile {
  commit: string;
  /** The incremental folder it is to replace. */
  incrementalDir: string;
  /** The full build's folder (kept by pruning while it is being written). */
  dir: string;
  timer: NodeJS.Timeout | null;
  abort: AbortController;
  running: Promise<void> | null;
  /** What GET /api/v1/admin/reconcile reports of it. */
  record: ReconcileRecord;
}

interface ReconcileRecord {
  state: ReconcileState;
  trigger: ReconcileTrigger | null;
  commit: string | null;
  requestedAt: number | null;
  startedAt: number | null;
  finishedAt: number | null;
  detail: string | null;
  cost: ReconcileCost | null;
}

const IDLE: ReconcileRecord = {
  state: 'idle',
  trigger: null,
  commit: null,
  requestedAt: null,
  startedAt: null,
  finishedAt: null,
  detail: null,
  cost: null,
};

/** setTimeout's longest delay; a later due time is reached in steps. */
const MAX_TIMER_MS = 2_147_483_647;

const utc = (ms: number | null): string | null => (ms === null ? null : new Date(ms).toISOString());

/** The cost of a complete full build, from its build.json; null when it cannot be read. */
export function readBuildCost(dir: string): ReconcileCost | null {
  try {
    const info = JSON.parse(readFileSync(path.join(dir, 'build.json'), 'utf8')) as {
      durationMs?: number;
      works?: number;
      searchIndex?: { pages?: number };
      scores?: { rendered?: number; engraved?: number; fromCache?: number; failed?: number };
      peakRssBytes?: number;
    };
    const n = (v: number | undefined) => (typeof v === 'number' && Number.isFinite(v) && v >= 0 ? Math.round(v) : 0);
    return {
      buildMs: n(info.durationMs),
      works: n(info.works),
      pages: n(info.searchIndex?.pages),
      scoresRendered: n(info.scores?.rendered),
      scoresEngraved: n(info.scores?.engraved),
      scoresFromCache: n(info.scores?.fromCache),
      scoresFailed: n(info.scores?.failed),
      peakRssBytes: n(info.peakRssBytes),
    };
  } catch {
    return null;
  }
}

/**
 * The server's log line for a reconcile's end: `background reconcile of <commit12>: <outcome>`,
 * then how it was asked for, its time and its full build's cost.
 */
export function reconcileLogLine(event: ReconcileEvent): string {
  const parts = [`${event.trigger}`];
  if (event.durationMs !== undefined) parts.push(`${event.durationMs} ms`);
  const c = event.cost;
  if (c)
    parts.push(
      `full build ${c.buildMs} ms: ${c.works} works, ${c.pages} pages, ${c.scoresRendered} scores ` +
        `(${c.scoresEngraved} engraved, ${c.scoresFromCache} from the render cache), peak RSS ${Math.round(c.peakRssBytes / 1048576)} MiB`,
    );
  if (event.error && event.outcome === 'failed') parts.push(event.error.split('\n')[0]!.slice(0, 300));
  return `background reconcile of ${event.commit.slice(0, 12)}: ${event.outcome} (${parts.join('; ')})`;
}

/**
 * What the server asks of a rebuilder (AppContext.rebuilder): rebuild the content repository's
 * HEAD and swap the served build. `Rebuilder` is the real one; tests hold rebuilds back or make
 * them fail with a fake of this shape (test/helpers/gated-rebuilder.ts).
 */
export interface SiteRebuilder {
  rebuildAndSwap(): Promise<SwapResult>;
  /** Make the persistent build checkout now rather than at the first rebuild, and warm the build process up. */
  prepare?(): Promise<void>;
  /** Reconcile a served incremental folder (started on one after a stop), when reconciling after applies. */
  reconcileServed?(): void;
  /** Reconcile the served build now if it is incremental (POST /api/v1/admin/reconcile); answers the reconcile's status. */
  requestReconcile(): ReconcileStatus;
  /** The current or last reconcile (GET /api/v1/admin/reconcile). */
  reconcileStatus(): ReconcileStatus;
  /** Stop a waiting or running background reconcile and the schedule. */
  close?(): void | Promise<void>;
}

/**
 * Rebuild the content repository's HEAD and switch the server to it, one at a time: incrementally
 * from the served build when possible (build/plan.ts). A reconcile (a background
 * full build of the same commit that replaces an incremental folder, at the lowest CPU priority)
 * runs on demand (`requestReconcile`), on the operator's schedule, or after each incremental swap
 * once a quiet period passed (the opt-in `reconcileDelayMs`); never more than one at a time.
 */
export class Rebuilder implements SiteRebuilder {
  private readonly config: Config;
  private readonly handle: SiteHandle;
  private readonly options: Required<Pick<RebuilderOptions, 'incremental'>> & RebuilderOptions;
  private queue: Promise<unknown> = Promise.resolve();
  /** A rebuild queued behind the running one and not started yet: later callers share it (it builds HEAD as of its start). */
  private waiting: Promise<SwapResult> | null = null;
  private reconcile: Reconcile | null = null;
  /** The current or last reconcile, for its status. */
  private record: ReconcileRecord = IDLE;
  private scheduleTimer: NodeJS.Timeout | null = null;
  private nextScheduledAt: number | null = null;
  /** Rebuilds queued or running (not counting callers that share one). */
  private rebuildsInFlight = 0;
  /** A due time of the schedule came while a rebuild ran: act on it when the rebuilds are done. */
  private scheduleDuePending = false;
  private closed = false;
  /** The start's preparation (`prepare`) while it runs; `close()` stops and waits for it. */
  private preparing: Promise<void> | null = null;
  private readonly prepareAbort = new AbortController();
  /** The warm build process the rebuilds run in (null: a new process per build). */
  private readonly builder: WarmBuilder | null;
  /** The background compaction of the served layer, while it runs. */
  private compaction: { source: string; dir: string; abort: AbortController; layerPaths: number } | null = null;
  private readonly layerMaxPaths: number;
  /** Stops the start's warm-up (`close()`). */
  private warmUpAbort: AbortController | null = null;

  constructor(config: Config, handle: SiteHandle, options: RebuilderOptions = {}) {
    this.config = config;
    this.handle = handle;
    this.builder = options.warmBuilder ? new WarmBuilder({ maxRssBytes: options.warmBuilderMaxRssBytes }) : null;
    this.layerMaxPaths = options.layerMaxPaths ?? config.layerMaxPaths;
    this.options = {
      ...options,
      incremental: options.incremental ?? true,
      reconcileDelayMs: options.reconcileDelayMs ?? null,
    };
    this.armSchedule();
  }

  rebuildAndSwap(): Promise<SwapResult> {
    if (this.waiting) return this.waiting;
    const queued = Date.now();
    const run = this.queue.then(async () => {
      this.waiting = null;
      const started = Date.now();
      const phases: Record<string, number> = { waitMs: started - queued };
      const commit = await git(this.config.contentRepo, ['rev-parse', 'HEAD']);
      const previous = this.handle.current.dir;
      // A compaction of the served layer would be replaced at once: this build supersedes it.
      this.cancelCompaction();
      // A reconcile of an older commit would be replaced at once: stop it, this build supersedes it.
      if (this.reconcile && this.reconcile.commit !== commit)
        this.cancelReconcile('superseded', `superseded by a build of ${commit.slice(0, 12)}`);
      const buildDir =
        this.options.incremental && isCompleteBuild(previous)
          ? await ensureIncrementalBuild(this.config, commit, previous, {
              timings: phases,
              worktree: 'rebuild',
              builder: this.builder,
            })
          : await ensureBuild(this.config, commit, { timings: phases, worktree: 'rebuild', builder: this.builder });
      if (buildDir !== previous) {
        const t = Date.now();
        await this.handle.swap(buildDir);
        phases.swapMs = Date.now() - t;
        // Keep the previous folder for requests still streaming from it, and a reconcile's folder; drop older ones.
        const p = Date.now();
        void pruneBuilds(this.config, [buildDir, previous, ...this.busyDirs()]);
        phases.pruneMs = Date.now() - p;
      }
      const info = readBuildInfo(buildDir);
      // Audio the apply's build left pending is rendered by a background full build now (low
      // priority), whatever the reconcile's own timing: the change is served already. This holds
      // too when the incremental build fell back to a full one (a shared input changed, e.g. a
      // person's record): it still placed only cached audio (`audio.later`), and nothing else
      // would ever render the rest. (The build child takes ARCHIVE_AUDIO_RENDER from the server's
      // environment: scripts/build.ts.)
      if (info && (info.audio?.pending ?? 0) > 0 && info.audio?.later) this.renderPendingAudio(commit, buildDir);
      else if (info?.mode === 'incremental') this.scheduleReconcile(commit, buildDir, 'after-apply');
      this.maybeCompact(buildDir);
      return {
        commit,
        buildDir,
        durationMs: Date.now() - started,
        mode: info?.mode ?? 'full',
        fallbackReason: info?.fallbackReason ?? null,
        phases,
      };
    });
    this.waiting = run;
    this.rebuildsInFlight++;
    this.queue = run
      .catch(() => undefined)
      .finally(() => {
        this.rebuildsInFlight--;
        // A due time that came while this rebuild ran: reconcile what it served.
        if (this.rebuildsInFlight === 0 && this.scheduleDuePending) {
          this.scheduleDuePending = false;
          try {
            this.onScheduleDue();
          } catch {
            // Never break the rebuild queue; the next due time tries again.
          }
        }
      });
    return run;
  }

  /**
   * Reconcile the served build if it is an incremental one (a start after a stop that left one
   * serving), in the "after each apply" mode only: the same quiet period and background full build
   * as after an incremental swap. Otherwise the schedule or a request reconciles it.
   */
  reconcileServed(): void {
    const dir = this.handle.current.dir;
    // And a served layer past half the bound is compacted, whatever the reconcile mode.
    this.maybeCompact(dir);
    const info = readBuildInfo(dir);
    if (info?.mode === 'incremental' && info.commit) this.scheduleReconcile(info.commit, dir, 'start');
  }

  /**
   * Reconcile the served build now, if it is incremental: a waiting reconcile starts at once, a
   * running one carries on (the answer is its status), and a served full build needs nothing
   * (`not-needed`). Never throws.
   */
  requestReconcile(): ReconcileStatus {
    if (this.closed) return this.reconcileStatus();
    const r = this.reconcile;
    if (r) {
      if (r.timer) {
        clearTimeout(r.timer);
        r.timer = null;
        r.record.trigger = 'on-demand';
        this.startReconcile(r);
      }
      return this.reconcileStatus();
    }
    const dir = this.handle.current.dir;
    const info = readBuildInfo(dir);
    if (info?.mode === 'incremental' && info.commit) {
      this.startReconcile(this.newReconcile(info.commit, dir, 'on-demand'));
    } else {
      const now = Date.now();
      this.record = {
        ...IDLE,
        state: 'not-needed',
        trigger: 'on-demand',
        commit: info?.commit ?? null,
        requestedAt: now,
        finishedAt: now,
        detail: info?.commit
          ? `the served build is already a full build of ${info.commit.slice(0, 12)}`
          : 'the served build is a full build',
      };
    }
    return this.reconcileStatus();
  }

  /** The current or last reconcile, and the schedule. */
  reconcileStatus(): ReconcileStatus {
    const r = this.record;
    const ended = r.finishedAt !== null && r.requestedAt !== null;
    return {
      state: r.state,
      trigger: r.trigger,
      commit: r.commit,
      requestedAtUtc: utc(r.requestedAt),
      startedAtUtc: utc(r.startedAt),
      finishedAtUtc: utc(r.finishedAt),
      durationMs: ended ? r.finishedAt! - (r.startedAt ?? r.requestedAt!) : null,
      detail: r.detail,
      cost: r.cost,
      schedule: scheduleText(this.options.reconcileSchedule ?? { kind: 'off' }),
      nextScheduledAtUtc: utc(this.nextScheduledAt),
    };
  }

  /**
   * On start: make the rebuilder's persistent checkout hold HEAD now (one full checkout in the
   * background when it is new or was left broken), so the first apply only moves it; then, with
   * the warm build process and its warm-up on (`warmUp`), warm the process up on the served build
   * (`warmUpBuilder`). A rebuild that comes meanwhile waits for both (the checkout's lock). Never
   * rejects.
   */
  prepare(): Promise<void> {
    // The warm build process is started at once, before any await: the server calls this while it
    // starts, before it listens (api/site/warm-builder.ts, `prestart`).
    if (this.builder && this.options.warmUp) this.builder.prestart();
    const preparing = this.prepareNow().finally(() => {
      if (this.preparing === preparing) this.preparing = null;
    });
    this.preparing = preparing;
    return preparing;
  }

  private async prepareNow(): Promise<void> {
    const dir = persistentWorktreePath(this.config, 'rebuild');
    const asked = Date.now();
    let head: string;
    try {
      head = await git(this.config.contentRepo, ['rev-parse', 'HEAD']);
      mkdirSync(path.dirname(dir), { recursive: true });
    } catch {
      return; // The next rebuild makes the checkout.
    }
    if (!this.builder || !this.options.warmUp) {
      await withWorktree(dir, () => checkoutPersistent(this.config, dir, head, this.prepareAbort.signal)).catch(
        () => undefined,
      );
      return;
    }
    await this.warmUpBuilder(dir, head, asked);
  }

  /**
   * The warm-up (build/warm-up.ts): in the checkout's lock, the checkout moved to `head`,
   * then the warm build process plans a build of it on the served build and renders its pages into
   * ARCHIVE_DATA_DIR/warm-up, which it removes. It fails (logged, nothing else changes) when the
   * served build is not complete or cannot be built on; `close()` cancels it.
   */
  private async warmUpBuilder(dir: string, head: string, asked: number): Promise<void> {
    const base = this.handle.current.dir;
    const outDir = path.join(this.config.dataDir, 'warm-up');
    const abort = (this.warmUpAbort = new AbortController());
    let checkoutMs = 0;
    const event = (outcome: WarmUpEvent['outcome'], extra: Partial<WarmUpEvent> = {}) =>
      this.options.onWarmUp?.({
        outcome,
        base: path.basename(base),
        durationMs: Date.now() - asked,
        checkoutMs,
        ...extra,
      });
    try {
      await withWorktree(dir, async () => {
        await checkoutPersistent(this.config, dir, head, this.prepareAbort.signal);
        checkoutMs = Date.now() - asked;
        if (this.closed || abort.signal.aborted) throw new Error('build cancelled');
        if (!isCompleteBuild(base)) throw new Error(`the served build ${path.basename(base)} is not complete`);
        await buildInChild(dir, outDir, this.config.publicBaseUrl, {
          ...serverBuildOptions(this.config),
          commit: head,
          incrementalFrom: base,
          builder: this.builder,
          signal: abort.signal,
          warmUp: true,
          onWarmBuild: (r) => event(r.warmUp?.skipped ? 'skipped' : 'done', { result: r.warmUp }),
        });
      });
    } catch (err) {
      rmSync(outDir, { recursive: true, force: true });
      event(abort.signal.aborted || this.closed ? 'cancelled' : 'failed', { error: (err as Error).message });
    } finally {
      if (this.warmUpAbort === abort) this.warmUpAbort = null;
    }
  }

  /** The reconcile waiting or running, if any (tests). */
  get reconciling(): { commit: string; running: boolean } | null {
    return this.reconcile ? { commit: this.reconcile.commit, running: this.reconcile.running !== null } : null;
  }

  /**
   * Stop a waiting or running reconcile and the schedule (server stop); the start's preparation
   * is stopped too, and waited for, so no git process of it writes in the data folder afterwards.
   */
  close(): Promise<void> {
    this.closed = true;
    this.cancelCompaction();
    this.prepareAbort.abort();
    this.warmUpAbort?.abort();
    this.builder?.close();
    if (this.scheduleTimer) clearTimeout(this.scheduleTimer);
    this.scheduleTimer = null;
    this.nextScheduledAt = null;
    this.cancelReconcile('cancelled', 'the server stopped');
    if (!this.preparing) return Promise.resolve();
    // Its git processes end at once on the abort; the wait is bounded all the same.
    let timer: NodeJS.Timeout | undefined;
    return Promise.race([
      this.preparing,
      new Promise<void>((resolve) => (timer = setTimeout(resolve, PREPARE_STOP_WAIT_MS).unref())),
    ]).finally(() => clearTimeout(timer));
  }

  /** The compaction running, if any (tests). */
  get compacting(): { source: string; dir: string } | null {
    return this.compaction ? { source: this.compaction.source, dir: this.compaction.dir } : null;
  }

  /** Folders a background job is writing: a prune keeps them. */
  private busyDirs(): string[] {
    return [...(this.reconcile ? [this.reconcile.dir] : []), ...(this.compaction ? [this.compaction.dir] : [])];
  }

  /**
   * Compact the served layer `dir` in the background once it carries half the bound
   * (`compactionDue`): a plain folder of the same view, made by a child at the lowest CPU priority
   * and swapped in by the rebuild queue only while `dir` is still served, so the next apply is a
   * small layer over it instead of paying the compaction inline at the bound.
   */
  private maybeCompact(dir: string): void {
    if (this.closed || this.compaction) return;
    // The layer's size from build.json (a few KB), not layer.json (every path: about 1 MB at the bound).
    const info = readBuildInfo(dir);
    if (!info?.commit || !compactionDue(info.layerPaths, this.layerMaxPaths)) return;
    const c = {
      source: dir,
      dir: compactedBuildDir(this.config, info.commit),
      abort: new AbortController(),
      layerPaths: info.layerPaths!,
    };
    if (c.dir === dir) return;
    this.compaction = c;
    void this.runCompaction(c);
  }

  private cancelCompaction(): void {
    const c = this.compaction;
    if (!c) return;
    this.compaction = null;
    c.abort.abort('superseded');
  }

  private async runCompaction(c: NonNullable<Rebuilder['compaction']>): Promise<void> {
    const started = Date.now();
    const report = (outcome: CompactionEvent['outcome'], error?: string) =>
      this.options.onCompaction?.({
        layer: path.basename(c.source),
        outcome,
        layerPaths: c.layerPaths,
        durationMs: Date.now() - started,
        ...(error ? { error } : {}),
      });
    try {
      await compactInChild(c.source, c.dir, c.abort.signal);
      // Switch in the rebuild queue, only while the layer is still served (the same view).
      const swapped = (await (this.queue = this.queue
        .then(async () => {
          if (this.compaction !== c || this.handle.current.dir !== c.source) return false;
          await this.handle.swap(c.dir);
          void pruneBuilds(this.config, [c.dir, c.source, ...(this.reconcile ? [this.reconcile.dir] : [])]);
          return true;
        })
        .catch(() => false))) as boolean;
      report(swapped ? 'swapped' : 'superseded');
    } catch (err) {
      report(c.abort.signal.aborted ? 'cancelled' : 'failed', (err as Error).message.slice(0, 2000));
    } finally {
      if (this.compaction === c) this.compaction = null;
    }
  }

  /** Wait for the next due time of the schedule, then reconcile a served incremental build. */
  private armSchedule(): void {
    const schedule = this.options.reconcileSchedule;
    if (!schedule || this.closed) return;
    const due = nextReconcileAt(schedule, Date.now());
    if (due === null) return;
    this.nextScheduledAt = due;
    const wait = () => {
      const left = due - Date.now();
      this.scheduleTimer = setTimeout(
        () => {
          if (this.closed) return;
          if (Date.now() < due) return wait();
          this.scheduleTimer = null;
          this.onScheduleDue();
          this.armSchedule();
        },
        Math.min(Math.max(left, 0), MAX_TIMER_MS),
      );
      this.scheduleTimer.unref();
    };
    wait();
  }

  private onScheduleDue(): void {
    if (this.closed) return;
    // The served build is about to change: a reconcile of it now would be superseded at once.
    if (this.rebuildsInFlight > 0) {
      this.scheduleDuePending = true;
      return;
    }
    const r = this.reconcile;
    if (r) {
      // One waiting for its quiet period runs now; a running one is already doing the work.
      if (r.timer) {
        clearTimeout(r.timer);
        r.timer = null;
        r.record.trigger = 'schedule';
        this.startReconcile(r);
      }
      return;
    }
    const dir = this.handle.current.dir;
    const info = readBuildInfo(dir);
    // A served full build: nothing to do, and nothing recorded (the last reconcile stays reported).
    if (info?.mode === 'incremental' && info.commit)
      this.startReconcile(this.newReconcile(info.commit, dir, 'schedule'));
  }

  private newReconcile(commit: string, incrementalDir: string, trigger: ReconcileTrigger): Reconcile {
    this.cancelReconcile('superseded', `superseded by a reconcile of ${commit.slice(0, 12)}`);
    const record: ReconcileRecord = {
      ...IDLE,
      state: 'waiting',
      trigger,
      commit,
      requestedAt: Date.now(),
    };
    const r: Reconcile = {
      commit,
      incrementalDir,
      dir: path.join(
        this.config.dataDir,
        'builds',
        buildKey(commit, this.config.publicBaseUrl, readerSignInOf(this.config)),
      ),
      timer: null,
      abort: new AbortController(),
      running: null,
      record,
    };
    this.reconcile = r;
    this.record = record;
    return r;
  }

  private startReconcile(r: Reconcile): void {
    r.record.state = 'running';
    r.record.startedAt = Date.now();
    r.running = this.runReconcile(r);
  }

  private cancelReconcile(outcome: 'superseded' | 'cancelled', detail: string): void {
    const r = this.reconcile;
    if (!r) return;
    this.reconcile = null;
    if (r.timer) clearTimeout(r.timer);
    r.abort.abort(detail);
    if (!r.running) {
      r.record.state = 'cancelled';
      r.record.finishedAt = Date.now();
      r.record.detail = detail;
      this.options.onReconcile?.({
        commit: r.commit,
        outcome,
        trigger: r.record.trigger ?? 'after-apply',
        durationMs: 0,
      });
    }
  }

  /**
   * Rendered audio an apply's build left pending (docs/audio.md): a reconcile of `commit` started
   * at once, in the background at low priority; its full build renders the audio and is swapped in.
   */
  private renderPendingAudio(commit: string, incrementalDir: string): void {
    if (this.closed) return;
    const r = this.reconcile;
    if (r?.commit === commit) {
      if (r.timer) {
        clearTimeout(r.timer);
        r.timer = null;
        this.startReconcile(r);
      }
      return;
    }
    this.startReconcile(this.newReconcile(commit, incrementalDir, 'after-apply'));
  }

  /** The "after each apply" mode: reconcile `commit` once no other rebuild came for the delay. */

  private scheduleReconcile(commit: string, incrementalDir: string, trigger: 'after-apply' | 'start'): void {
    const delay = this.options.reconcileDelayMs;
    if (delay === null || delay === undefined || this.closed) return;
    if (this.reconcile?.commit === commit) return;
    const r = this.newReconcile(commit, incrementalDir, trigger);
    r.timer = setTimeout(() => {
      r.timer = null;
      this.startReconcile(r);
    }, delay);
    r.timer.unref();
  }

  private async runReconcile(r: Reconcile): Promise<void> {
    const report = this.options.onReconcile ?? (() => undefined);
    const trigger = r.record.trigger ?? 'after-apply';
    const end = (state: ReconcileState, detail: string | null, cost: ReconcileCost | null) => {
      r.record.state = state;
      r.record.finishedAt = Date.now();
      r.record.detail = detail;
      r.record.cost = cost;
      return r.record.finishedAt - (r.record.startedAt ?? r.record.requestedAt ?? r.record.finishedAt);
    };
    try {
      // The full build runs in a process of its own: the idle warm build process gives its memory back first.
      this.builder?.release();
      const dir = await ensureBuild(this.config, r.commit, {
        acceptIncremental: false,
        lowPriority: true,
        signal: r.abort.signal,
        worktree: 'reconcile',
        gitLock: (fn) => withContentRepoLock(this.config.contentRepo, fn),
      });
      // Switch in the rebuild queue, only if nothing was served since: else a newer build won.
      const swapped = (await (this.queue = this.queue
        .then(async () => {
          // The served build must still be the incremental one, or its compaction (the same view).
          const served = this.handle.current.dir;
          if (this.reconcile !== r) return false;
          if (served !== r.incrementalDir && served !== compactedBuildDir(this.config, r.commit)) return false;
          this.cancelCompaction();
          await this.handle.swap(dir);
          void pruneBuilds(this.config, [dir, served]);
          return true;
        })
        .catch(() => false))) as boolean;
      const cost = readBuildCost(dir);
      const durationMs = swapped
        ? end('completed', null, cost)
        : end('cancelled', 'built, but a newer build was served meanwhile', cost);
      report({
        commit: r.commit,
        outcome: swapped ? 'swapped' : 'superseded',
        trigger,
        buildDir: dir,
        durationMs,
        cost,
      });
    } catch (err) {
      const aborted = r.abort.signal.aborted;
      const message = (err as Error).message.slice(0, 2000);
      const reason = typeof r.abort.signal.reason === 'string' ? r.abort.signal.reason : 'stopped';
      const durationMs = aborted ? end('cancelled', reason, null) : end('failed', message, null);
      report({ commit: r.commit, outcome: aborted ? 'cancelled' : 'failed', trigger, error: message, durationMs });
    } finally {
      if (this.reconcile === r) this.reconcile = null;
    }
  }
}
