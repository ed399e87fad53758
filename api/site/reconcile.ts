/**
 * The reconcile: a background full build of the served commit that replaces an incremental folder,
 * at the lowest CPU priority, in a process of its own; never more than one at a time. It runs on
 * demand (`request`), on the operator's schedule (ARCHIVE_RECONCILE_SCHEDULE), after each
 * incremental swap once a quiet period passed (the opt-in ARCHIVE_RECONCILE_DELAY_MS), and at once
 * for the rendered audio an apply's build left pending (docs/review.md, docs/audio.md).
 */
import path from 'node:path';
import { nextReconcileAt, scheduleText, type ReconcileSchedule } from '../../src/domain/reconcile-schedule.ts';
import type { ReconcileCost, ReconcileState, ReconcileStatus, ReconcileTrigger } from '../../src/schemas/reconcile.ts';
import { withContentRepoLock } from './content-repo.ts';
import { ensureBuild } from './ensure-build.ts';
import { pruneBuilds } from './prune.ts';
import type { RebuildCore } from './rebuild-core.ts';
import { IDLE, readBuildCost, utc, type ReconcileEvent, type ReconcileRecord } from './reconcile-report.ts';
import { buildKey, compactedBuildDir, readBuildInfo, readerSignInOf } from './served.ts';

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

/** setTimeout's longest delay; a later due time is reached in steps. */
const MAX_TIMER_MS = 2_147_483_647;

export interface ReconcilerOptions {
  reconcileDelayMs: number | null;
  reconcileSchedule?: ReconcileSchedule;
  onReconcile?: (event: ReconcileEvent) => void;
  /** Stop a compaction of the served layer (a reconcile's full build replaces it). */
  cancelCompaction: () => void;
}

export class Reconciler {
  private readonly core: RebuildCore;
  private readonly options: ReconcilerOptions;
  private reconcile: Reconcile | null = null;
  /** The current or last reconcile, for its status. */
  private record: ReconcileRecord = IDLE;
  private scheduleTimer: NodeJS.Timeout | null = null;
  private nextScheduledAt: number | null = null;
  /** A due time of the schedule came while a rebuild ran: act on it when the rebuilds are done. */
  private scheduleDuePending = false;

  constructor(core: RebuildCore, options: ReconcilerOptions) {
    this.core = core;
    this.options = options;
    this.armSchedule();
  }

  /** The reconcile waiting or running, if any (tests). */
  get reconciling(): { commit: string; running: boolean } | null {
    return this.reconcile ? { commit: this.reconcile.commit, running: this.reconcile.running !== null } : null;
  }

  /** The folder the reconcile's full build is written to, while one waits or runs. */
  get busyDir(): string | null {
    return this.reconcile?.dir ?? null;
  }

  /** A rebuild of `commit` is starting: a reconcile of an older commit would be replaced at once, so it stops. */
  supersede(commit: string): void {
    if (this.reconcile && this.reconcile.commit !== commit)
      this.cancel('superseded', `superseded by a build of ${commit.slice(0, 12)}`);
  }

  /** The rebuilds are done: a due time that came while they ran reconciles what they served. */
  rebuildsDone(): void {
    if (!this.scheduleDuePending) return;
    this.scheduleDuePending = false;
    try {
      this.onScheduleDue();
    } catch {
      // Never break the rebuild queue; the next due time tries again.
    }
  }

  /**
   * Reconcile the served build now, if it is incremental: a waiting reconcile starts at once, a
   * running one carries on (the answer is its status), and a served full build needs nothing
   * (`not-needed`). Never throws.
   */
  request(): ReconcileStatus {
    if (this.core.closed) return this.status();
    const info = this.reconcileNow('on-demand');
    if (info !== 'under-way') {
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
    return this.status();
  }

  /** The current or last reconcile, and the schedule. */
  status(): ReconcileStatus {
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

  /** Stop the schedule and a waiting or running reconcile (server stop). */
  close(): void {
    if (this.scheduleTimer) clearTimeout(this.scheduleTimer);
    this.scheduleTimer = null;
    this.nextScheduledAt = null;
    this.cancel('cancelled', 'the server stopped');
  }

  /** Wait for the next due time of the schedule, then reconcile a served incremental build. */
  private armSchedule(): void {
    const schedule = this.options.reconcileSchedule;
    if (!schedule || this.core.closed) return;
    const due = nextReconcileAt(schedule, Date.now());
    if (due === null) return;
    this.nextScheduledAt = due;
    const wait = () => {
      const left = due - Date.now();
      this.scheduleTimer = setTimeout(
        () => {
          if (this.core.closed) return;
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
    if (this.core.closed) return;
    // The served build is about to change: a reconcile of it now would be superseded at once.
    if (this.core.rebuildsInFlight > 0) {
      this.scheduleDuePending = true;
      return;
    }
    // A served full build: nothing to do, and nothing recorded (the last reconcile stays reported).
    this.reconcileNow('schedule');
  }

  /**
   * A reconcile under way now, for `trigger`: one waiting for its quiet period runs at once (a
   * running one is already doing the work), else a new one when the served build is incremental.
   * `under-way` then; else the served full build's info (null when it has none): nothing started.
   */
  private reconcileNow(trigger: ReconcileTrigger): 'under-way' | ReturnType<typeof readBuildInfo> {
    const r = this.reconcile;
    if (r) {
      if (r.timer) {
        clearTimeout(r.timer);
        r.timer = null;
        r.record.trigger = trigger;
        this.start(r);
      }
      return 'under-way';
    }
    const dir = this.core.handle.current.dir;
    const info = readBuildInfo(dir);
    if (info?.mode !== 'incremental' || !info.commit) return info;
    this.start(this.newReconcile(info.commit, dir, trigger));
    return 'under-way';
  }

  private newReconcile(commit: string, incrementalDir: string, trigger: ReconcileTrigger): Reconcile {
    this.cancel('superseded', `superseded by a reconcile of ${commit.slice(0, 12)}`);
    const { config } = this.core;
    const record: ReconcileRecord = { ...IDLE, state: 'waiting', trigger, commit, requestedAt: Date.now() };
    const r: Reconcile = {
      commit,
      incrementalDir,
      dir: path.join(config.dataDir, 'builds', buildKey(commit, config.publicBaseUrl, readerSignInOf(config))),
      timer: null,
      abort: new AbortController(),
      running: null,
      record,
    };
    this.reconcile = r;
    this.record = record;
    return r;
  }

  private start(r: Reconcile): void {
    r.record.state = 'running';
    r.record.startedAt = Date.now();
    r.running = this.run(r);
  }

  private cancel(outcome: 'superseded' | 'cancelled', detail: string): void {
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
  renderPendingAudio(commit: string, incrementalDir: string): void {
    if (this.core.closed) return;
    const r = this.reconcile;
    if (r?.commit === commit) {
      if (r.timer) {
        clearTimeout(r.timer);
        r.timer = null;
        this.start(r);
      }
      return;
    }
    this.start(this.newReconcile(commit, incrementalDir, 'after-apply'));
  }

  /** The "after each apply" mode: reconcile `commit` once no other rebuild came for the delay. */
  schedule(commit: string, incrementalDir: string, trigger: 'after-apply' | 'start'): void {
    const delay = this.options.reconcileDelayMs;
    if (delay === null || delay === undefined || this.core.closed) return;
    if (this.reconcile?.commit === commit) return;
    const r = this.newReconcile(commit, incrementalDir, trigger);
    r.timer = setTimeout(() => {
      r.timer = null;
      this.start(r);
    }, delay);
    r.timer.unref();
  }

  private async run(r: Reconcile): Promise<void> {
    const { config } = this.core;
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
      this.core.builder?.release();
      const dir = await ensureBuild(config, r.commit, {
        acceptIncremental: false,
        lowPriority: true,
        signal: r.abort.signal,
        worktree: 'reconcile',
        gitLock: (fn) => withContentRepoLock(config.contentRepo, fn),
      });
      // Switch in the rebuild queue, only if nothing was served since: else a newer build won.
      const swapped = await this.core.switchInQueue(async () => {
        // The served build must still be the incremental one, or its compaction (the same view).
        const served = this.core.handle.current.dir;
        if (this.reconcile !== r) return false;
        if (served !== r.incrementalDir && served !== compactedBuildDir(config, r.commit)) return false;
        this.options.cancelCompaction();
        await this.core.handle.swap(dir);
        void pruneBuilds(config, [dir, served]);
        return true;
      });
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
