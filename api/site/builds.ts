/**
 * Build folders under ARCHIVE_DATA_DIR/builds and the rebuild-and-swap path (docs/decisions/0013-rebuild-and-swap.md).
 * A build runs in a child process into a fresh folder keyed by content commit and base URL; the
 * server switches to it in one step only once it is complete, so a failed build leaves the old
 * site serving. Rebuilds are serialised: concurrent callers queue behind the one running.
 *
 * `Rebuilder` is the one entry the server uses; the work is done in rooms, one module per job:
 *
 *   served.ts            the served-build link nginx follows, the folders' names, complete or not, build.json
 *   child-builds.ts      a build (or a compaction) in a child process or the warm build process
 *   worktrees.ts         the persistent build checkouts, moved from commit to commit
 *   ensure-build.ts      a complete build of a commit: the folder there, else a full or incremental build
 *   prune.ts             pruning build folders, deleted in the background
 *   reconcile.ts         the background full build that replaces an incremental folder
 *                        (reconcile-report.ts: its record, cost and log line)
 *   compaction.ts        the background compaction of a served layer
 *   warm-up.ts           the start's preparation: the checkout, the warm build process's warm-up
 *   rebuild-core.ts      what they share: configuration, served build, warm build process, rebuild queue
 */
import type { Config } from '../config.ts';
import type { ReconcileSchedule } from '../../src/domain/reconcile-schedule.ts';
import type { ReconcileStatus } from '../../src/schemas/reconcile.ts';
import { Compactor, type CompactionEvent } from './compaction.ts';
import { git } from './content-repo.ts';
import { ensureBuild, ensureIncrementalBuild } from './ensure-build.ts';
import { pruneBuilds } from './prune.ts';
import { RebuildCore } from './rebuild-core.ts';
import { Reconciler } from './reconcile.ts';
import type { ReconcileEvent } from './reconcile-report.ts';
import { isCompleteBuild, readBuildInfo } from './served.ts';
import type { SiteHandle } from './site-handle.ts';
import { StartPreparation, type WarmUpEvent } from './warm-up.ts';

export {
  buildKey,
  compactedBuildDir,
  incrementalBuildDir,
  isCompleteBuild,
  pointServedBuild,
  readBuildInfo,
  readerSignInOf,
  servedBuildLink,
  servedBuildTarget,
  servedClientDir,
} from './served.ts';
export { buildInChild, compactInChild, type ChildBuildOptions } from './child-builds.ts';
export { persistentWorktreePath } from './worktrees.ts';
export {
  completeBuildOf,
  ensureBuild,
  ensureIncrementalBuild,
  latestCompleteBuild,
  type EnsureBuildOptions,
} from './ensure-build.ts';
export { discardFolder, pruneBuilds } from './prune.ts';
export { readBuildCost, reconcileLogLine, type ReconcileEvent, type ReconcileOutcome } from './reconcile-report.ts';
export { compactionLogLine, type CompactionEvent } from './compaction.ts';
export { warmUpLogLine, type WarmUpEvent } from './warm-up.ts';

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
  /** The warm build process's memory budget (ARCHIVE_WARM_BUILDER_MAX_RSS_MB; default api/config-table.ts). */
  warmBuilderMaxRssBytes?: number;
  /**
   * With `warmBuilder`: `prepare()` warms the process up on the served build (ARCHIVE_WARM_BUILDER_WARM_UP,
   * the server's default on; build/warm-up.ts). Default off here.
   */
  warmUp?: boolean;
  /** Told when the warm-up ends (logs, tests). */
  onWarmUp?: (event: WarmUpEvent) => void;
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
  private readonly core: RebuildCore;
  private readonly incremental: boolean;
  private readonly reconciler: Reconciler;
  private readonly compactor: Compactor;
  private readonly preparation: StartPreparation;
  /** A rebuild queued behind the running one and not started yet: later callers share it (it builds HEAD as of its start). */
  private waiting: Promise<SwapResult> | null = null;

  constructor(config: Config, handle: SiteHandle, options: RebuilderOptions = {}) {
    this.core = new RebuildCore(config, handle, {
      warm: options.warmBuilder ?? false,
      maxRssBytes: options.warmBuilderMaxRssBytes,
    });
    this.incremental = options.incremental ?? true;
    this.compactor = new Compactor(this.core, {
      layerMaxPaths: options.layerMaxPaths ?? config.layerMaxPaths,
      onCompaction: options.onCompaction,
      othersBusy: () => (this.reconciler.busyDir ? [this.reconciler.busyDir] : []),
    });
    this.preparation = new StartPreparation(this.core, { warmUp: options.warmUp, onWarmUp: options.onWarmUp });
    this.reconciler = new Reconciler(this.core, {
      reconcileDelayMs: options.reconcileDelayMs ?? null,
      reconcileSchedule: options.reconcileSchedule,
      onReconcile: options.onReconcile,
      cancelCompaction: () => this.compactor.cancel(),
    });
  }

  rebuildAndSwap(): Promise<SwapResult> {
    if (this.waiting) return this.waiting;
    const queued = Date.now();
    const config = this.core.config;
    const run = this.core.queue.then(async () => {
      this.waiting = null;
      const started = Date.now();
      const phases: Record<string, number> = { waitMs: started - queued };
      const commit = await git(config.contentRepo, ['rev-parse', 'HEAD']);
      const previous = this.core.handle.current.dir;
      // A compaction of the served layer would be replaced at once: this build supersedes it.
      this.compactor.cancel();
      // A reconcile of an older commit would be replaced at once: stop it, this build supersedes it.
      this.reconciler.supersede(commit);
      const buildDir =
        this.incremental && isCompleteBuild(previous)
          ? await ensureIncrementalBuild(config, commit, previous, {
              timings: phases,
              worktree: 'rebuild',
              builder: this.core.builder,
            })
          : await ensureBuild(config, commit, { timings: phases, worktree: 'rebuild', builder: this.core.builder });
      if (buildDir !== previous) {
        const t = Date.now();
        await this.core.handle.swap(buildDir);
        phases.swapMs = Date.now() - t;
        // Keep the previous folder for requests still streaming from it, and a reconcile's folder; drop older ones.
        const p = Date.now();
        void pruneBuilds(config, [buildDir, previous, ...this.busyDirs()]);
        phases.pruneMs = Date.now() - p;
      }
      const info = readBuildInfo(buildDir);
      // Audio the apply's build left pending is rendered by a background full build now (low
      // priority), whatever the reconcile's own timing: the change is served already. This holds
      // too when the incremental build fell back to a full one (a shared input changed, e.g. a
      // person's record): it still placed only cached audio (`audio.later`), and nothing else
      // would ever render the rest. (The build child takes ARCHIVE_AUDIO_RENDER from the server's
      // environment: scripts/build.ts.)
      if (info && (info.audio?.pending ?? 0) > 0 && info.audio?.later)
        this.reconciler.renderPendingAudio(commit, buildDir);
      else if (info?.mode === 'incremental') this.reconciler.schedule(commit, buildDir, 'after-apply');
      this.compactor.maybeCompact(buildDir);
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
    this.core.rebuildsInFlight++;
    this.core.queue = run
      .catch(() => undefined)
      .finally(() => {
        this.core.rebuildsInFlight--;
        // A due time that came while this rebuild ran: reconcile what it served.
        if (this.core.rebuildsInFlight === 0) this.reconciler.rebuildsDone();
      });
    return run;
  }

  /**
   * Reconcile the served build if it is an incremental one (a start after a stop that left one
   * serving), in the "after each apply" mode only: the same quiet period and background full build
   * as after an incremental swap. Otherwise the schedule or a request reconciles it.
   */
  reconcileServed(): void {
    const dir = this.core.handle.current.dir;
    // And a served layer past half the bound is compacted, whatever the reconcile mode.
    this.compactor.maybeCompact(dir);
    const info = readBuildInfo(dir);
    if (info?.mode === 'incremental' && info.commit) this.reconciler.schedule(info.commit, dir, 'start');
  }

  /** Reconcile the served build now, if it is incremental (api/site/reconcile.ts, `request`). Never throws. */
  requestReconcile(): ReconcileStatus {
    return this.reconciler.request();
  }

  /** The current or last reconcile, and the schedule. */
  reconcileStatus(): ReconcileStatus {
    return this.reconciler.status();
  }

  /** The start's checkout and warm-up (api/site/warm-up.ts). Never rejects. */
  prepare(): Promise<void> {
    return this.preparation.prepare();
  }

  /** The reconcile waiting or running, if any (tests). */
  get reconciling(): { commit: string; running: boolean } | null {
    return this.reconciler.reconciling;
  }

  /** The compaction running, if any (tests). */
  get compacting(): { source: string; dir: string } | null {
    return this.compactor.compacting;
  }

  /**
   * Stop a waiting or running reconcile and the schedule (server stop); the start's preparation
   * is stopped too, and waited for, so no git process of it writes in the data folder afterwards.
   */
  close(): Promise<void> {
    this.core.closed = true;
    this.compactor.cancel();
    this.preparation.stop();
    this.core.builder?.close();
    this.reconciler.close();
    return this.preparation.stopped();
  }

  /** Folders a background job is writing: a prune keeps them. */
  private busyDirs(): string[] {
    return [this.reconciler.busyDir, this.compactor.busyDir].filter((d): d is string => d !== null);
  }
}
