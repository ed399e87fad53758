/**
 * The apply pipeline.
 *
 * An apply is acknowledged at once: the item gets `apply.state = "applying"` (its status stays
 * "accepted"), a marker (apply-markers.ts) records the request, and a job does the work under the
 * content-repository lock (rebuild the proposal on main, merge, rebuild-and-swap: apply-steps.ts).
 * The job ends with the item "applied" and `apply.visibleAtUtc`, or `apply.state = "failed"` with
 * main reset and the old site serving. The marker is removed last, so an apply in progress when
 * the server stops is resumed by `resume` on start.
 *
 * Merges share one build: jobs queue here; one loop takes every job waiting and, under the
 * content-repository lock, merges each (a refusal fails only that item), then runs one
 * rebuild-and-swap for all of them. Applies that arrive while a build runs wait for it and share
 * the next build, so n applies in quick succession cost two builds, not n. The lock is held from
 * the first merge to the swap, as for a single apply: nothing else merges into main meanwhile, so
 * a failed build's reset undoes exactly this batch's merges. A failed build of several merges does
 * not fail them all: main goes back to before the batch, each marker forgets its merge, and each
 * item is merged and built alone again, so only what fails alone is recorded failed.
 *
 * A review batch (applyGroup) is one change: its applies are all acknowledged before the loop
 * starts, so they share one pass and one build, and on the local forge they land as ONE tree
 * change: every item's proposal built on main plus the items before it (in memory), one lint,
 * one commit on main (treeGroup; docs/imports.md). Only a batch whose combined change fails the
 * lint merges its items one by one onto a line of their own (mergeGroup).
 */
import { ProblemError } from '../http/problem.ts';
import { utcTimestamp } from '../../src/schemas/envelope.ts';
import { git, isAncestor, moveMain, settleCheckout, withContentRepoLock } from '../site/content-repo.ts';
import type { SwapResult } from '../site/builds.ts';
import type { ItemAndReview, ReviewActor, ReviewCore } from './core.ts';
import { ApplyMarkers, type PendingApply } from './apply-markers.ts';
import { ApplySteps, type MergedApply } from './apply-steps.ts';
import { verificationBlockers } from './verification.ts';
import type { SubmissionKind, SubmissionStatus } from '../../src/schemas/contribution.ts';
import type { AdminActionBody, ReviewRecord } from '../../src/schemas/review.ts';

interface ApplyJob {
  pending: PendingApply;
  resolve: (r: ItemAndReview<ReviewRecord>) => void;
  reject: (err: unknown) => void;
}

/** An item of a batch merged (or committed with the others), with its step. */
interface Landed {
  job: ApplyJob;
  step: MergedApply;
}

/** Merges a batch's items one after another, onto `into` (the batch's line) or main. */
type MergeEach = (jobs: ApplyJob[], into: string | null) => Promise<Landed[]>;

/** Record and marker writes of a batch's items run this many at a time (each is a few fsyncs). */
const RECORD_WRITES_IN_PARALLEL = 8;

/** Run `fn` over `items`, at most `limit` at a time; rejects with the first error once all settled. */
async function inParallel<T>(
  items: readonly T[],
  limit: number,
  fn: (item: T, index: number) => Promise<void>,
): Promise<void> {
  let next = 0;
  let failure: unknown = null;
  const worker = async () => {
    while (next < items.length) {
      const i = next++;
      try {
        await fn(items[i]!, i);
      } catch (err) {
        failure ??= err;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  if (failure !== null) throw failure;
}

/**
 * The commit message of a review batch's works landing together: the works, the batch, every
 * reviewer, and with `trackingCodes` a Tracking-Code trailer per work.
 */
function batchMessage(group: string, steps: readonly MergedApply[], trackingCodes: boolean): string {
  const actors = [...new Set(steps.map((s) => s.actor.label))];
  return [
    `Apply ${steps.length} works of the review batch ${group}`,
    '',
    ...steps.map((s) => `- ${s.pending.trackingCode}`),
    '',
    `Batch: ${group}`,
    ...actors.map((a) => `Reviewed-By: ${a}`),
    ...(trackingCodes ? steps.map((s) => `Tracking-Code: ${s.pending.trackingCode}`) : []),
    '',
  ].join('\n');
}

export class ReviewApplies {
  private readonly core: ReviewCore;
  private readonly markers: ApplyMarkers;
  private readonly steps: ApplySteps;
  private readonly jobs = new Map<string, Promise<ItemAndReview<ReviewRecord>>>();
  private readonly requests = new Map<string, Promise<unknown>>();
  private readonly queue: ApplyJob[] = [];
  private loop: Promise<void> | null = null;
  /** Open holds (applyGroup): while any is open, queued jobs wait so a group starts as one. */
  private held = 0;

  constructor(core: ReviewCore) {
    this.core = core;
    this.markers = new ApplyMarkers(core.ctx.config.dataDir);
    this.steps = new ApplySteps(core, this.markers);
  }

  /** Applies still running (tests and a graceful stop wait for them). */
  async settled(): Promise<void> {
    while (this.jobs.size > 0) await Promise.allSettled([...this.jobs.values()]);
  }

  /**
   * Resume every apply acknowledged before the server stopped: one already merged is finished
   * (the start-up build serves main), one not yet merged runs again. Returns the tracking codes.
   */
  async resume(log: (line: string) => void = () => undefined): Promise<string[]> {
    const codes: string[] = [];
    for (const name of await this.markers.names()) {
      let pending: PendingApply;
      try {
        pending = await this.markers.read(name);
      } catch (err) {
        log(`apply marker ${name} is unreadable and was left in place: ${(err as Error).message}`);
        continue;
      }
      codes.push(pending.trackingCode);
      log(
        `resuming the apply of ${pending.trackingCode} requested at ${pending.requestedAtUtc}${pending.merged ? ` (merged as ${pending.merged.slice(0, 12)})` : ''}`,
      );
      this.startJob(pending).catch((err: unknown) =>
        log(`the resumed apply of ${pending.trackingCode} did not finish: ${(err as Error).message.split('\n')[0]}`),
      );
    }
    return codes;
  }

  /**
   * Apply a review batch's items as one change: every apply is acknowledged first (each refused
   * one answers its own problem), and only then does the queue start, so all of them are merged
   * in one loop, land on main as ONE commit (local forge) and are served by ONE rebuild. The
   * answers come once each is visible or failed, in the order given.
   */
  async applyGroup(
    group: string,
    items: Array<{ kind: SubmissionKind; code: string; body: AdminActionBody; actor: ReviewActor }>,
  ): Promise<Array<PromiseSettledResult<ItemAndReview>>> {
    this.held++;
    const started: Array<Promise<ItemAndReview>> = [];
    try {
      for (const i of items) {
        const job = this.apply(i.kind, i.code, i.body, i.actor, true, group);
        job.catch(() => undefined);
        // Acknowledged (marker written, item "applying", job queued) before the next is requested.
        await this.requests.get(i.code);
        started.push(job);
      }
    } finally {
      this.held--;
      this.kick();
    }
    return Promise.allSettled(started);
  }

  /** Apply requests for one item run one after another (two reviewers clicking at once). */
  apply(
    kind: SubmissionKind,
    code: string,
    body: AdminActionBody,
    actor: ReviewActor,
    wait: boolean,
    group: string | null = null,
  ): Promise<ItemAndReview> {
    const previous = this.requests.get(code) ?? Promise.resolve();
    const mine = previous.then(() => this.request(kind, code, body, actor, group));
    const tail = mine.catch(() => undefined);
    this.requests.set(code, tail);
    void tail.then(() => {
      if (this.requests.get(code) === tail) this.requests.delete(code);
    });
    return mine.then((started) => (wait ? started.job : started.now));
  }

  private startJob(pending: PendingApply): Promise<ItemAndReview<ReviewRecord>> {
    const running = this.jobs.get(pending.trackingCode);
    if (running) return running;
    const job = this.run(pending).finally(() => this.jobs.delete(pending.trackingCode));
    this.jobs.set(pending.trackingCode, job);
    // A caller that does not wait must not see an unhandled rejection; the outcome is recorded.
    job.catch(() => undefined);
    return job;
  }

  /** Acknowledge an apply: refuse at once what needs no merge, else mark it applying and start its job. */
  private async request(
    kind: SubmissionKind,
    code: string,
    body: AdminActionBody,
    actor: ReviewActor,
    group: string | null = null,
  ): Promise<{ job: Promise<ItemAndReview<ReviewRecord>>; now: ItemAndReview }> {
    const core = this.core;
    const { record } = await core.get(kind, code);
    if (this.jobs.has(code) || record.apply?.state === 'applying') {
      // One apply per item: the second of two at once is refused, as when applies ran inline.
      throw new ProblemError(
        'conflict',
        `${code} is being applied${record.apply?.requestedAtUtc ? ` (since ${record.apply.requestedAtUtc})` : ''}; wait until it is visible or has failed.`,
        { currentStatus: record.status },
      );
    }
    const state = await core.loadReview(kind, code);
    // Refusals that need no merge answer at once, as before.
    const blocked = verificationBlockers(state.verification);
    if (blocked.length > 0) {
      core.recordAssertions(state, body, actor);
      throw await this.steps.refuse(state, body, actor, record.status, code, blocked);
    }
    const requestedAtUtc = utcTimestamp(core.now());
    const pending: PendingApply = {
      recordVersion: 1,
      trackingCode: code,
      kind,
      body,
      actor,
      requestedAtUtc,
      before: null,
      merged: null,
      ...(group !== null ? { group } : {}),
    };
    // The marker first: once the item shows "applying", a restart finds the marker and resumes.
    await this.markers.write(pending);
    let illegal: SubmissionStatus | null = null;
    const marked = await core.store(kind).update(code, (current) => {
      if (current.status !== 'accepted') {
        illegal = current.status;
        return undefined;
      }
      return { ...current, apply: { state: 'applying', requestedAtUtc, visibleAtUtc: null, failedAtUtc: null } };
    });
    if (illegal !== null || !marked) {
      await this.markers.drop(code);
      throw new ProblemError(
        'conflict',
        `${code} is "${illegal ?? 'gone'}" now; only an accepted item can be applied.`,
        { currentStatus: illegal ?? record.status },
      );
    }
    return { job: this.startJob(pending), now: { record: marked, review: state } };
  }

  private run(pending: PendingApply): Promise<ItemAndReview<ReviewRecord>> {
    return new Promise((resolve, reject) => {
      this.queue.push({ pending, resolve, reject });
      this.kick();
    });
  }

  private kick(): void {
    if (this.loop || this.held > 0) return;
    this.loop = this.drain().finally(() => {
      this.loop = null;
      // A job queued after the loop's last look but before this ran starts a new loop.
      if (this.queue.length > 0) this.kick();
    });
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const batch = this.queue.splice(0);
      await withContentRepoLock(this.core.ctx.config.contentRepo, () => this.applyBatch(batch)).catch(
        (err: unknown) => {
          for (const job of batch) job.reject(err);
        },
      );
    }
  }

  private async applyBatch(batch: ApplyJob[]): Promise<void> {
    const merged: Landed[] = [];
    const mergeEach = async (jobs: ApplyJob[], into: string | null) => {
      const out: Landed[] = [];
      for (const job of jobs) {
        try {
          const step = await this.steps.merge(job.pending, into);
          if ('done' in step) job.resolve(step.done);
          else out.push({ job, step });
        } catch (err) {
          job.reject(err);
        }
      }
      return out;
    };
    // Review batches (applyGroup) on the local forge: their works merge one after another onto a
    // line of their own, which lands on main as one merge commit (one change). Singles, and
    // batches on GitHub (one pull request each), merge into main one by one.
    const groups = new Map<string, ApplyJob[]>();
    const singles: ApplyJob[] = [];
    const local = (await this.core.forge()) === this.core.local;
    for (const job of batch) {
      const g = job.pending.group ?? null;
      if (g !== null && local) {
        const list = groups.get(g) ?? [];
        list.push(job);
        groups.set(g, list);
      } else singles.push(job);
    }
    for (const jobs of groups.values()) if (jobs.length < 2) singles.push(...jobs.splice(0));
    merged.push(...(await mergeEach(singles, null)));
    for (const [g, jobs] of groups) {
      if (jobs.length === 0) continue;
      merged.push(...(await this.treeGroup(g, jobs, mergeEach)));
    }
    if (merged.length === 0) return;
    let swapped: SwapResult | undefined;
    const t = Date.now();
    try {
      swapped = await this.core.ctx.rebuilder.rebuildAndSwap();
    } catch (err) {
      if (merged.length === 1) {
        const { job, step } = merged[0]!;
        await this.steps.fail(step, err).then(job.resolve, job.reject);
        return;
      }
      // Which merge broke the build is not known: undo the batch and apply each alone.
      // main first, then the markers: a stop between the two leaves markers naming merges main no
      // longer holds, which a resume treats as not merged (the merge step checks ancestry).
      const target = await this.earliest(
        merged.map((m) => m.step.pending.before).filter((b): b is string => b !== null),
      );
      const local = this.core.local;
      if (target !== null && (await local.main()) !== target) await local.resetMain(target);
      for (const { step } of merged) {
        step.pending.before = null;
        step.pending.merged = null;
        await this.markers.write(step.pending);
      }
      for (const { job, step } of merged) await this.applyBatch([{ ...job, pending: step.pending }]);
      return;
    }
    const rebuild = { ...swapped?.phases, mode: swapped?.mode, rebuildMs: Date.now() - t, applies: merged.length };
    // The main checkout followed the merges while the site was built (deferCheckout); an item is
    // "visible" only once the checkout holds it too (normally long since: a few changed files).
    await settleCheckout(this.core.ctx.config.contentRepo);
    await inParallel(merged, RECORD_WRITES_IN_PARALLEL, async ({ job, step }) => {
      step.phases.rebuild = rebuild;
      await this.steps.finish(step, swapped?.commit ?? null, merged.length).then(job.resolve, job.reject);
    });
  }

  /**
   * A review batch's works as ONE tree change: each item's proposal is built in turn on main plus
   * the files the items before it change (an in-memory overlay), so a new work whose slug exists
   * by then, or a field whose value moved, is refused (back in review with the reason) and never
   * overwritten; then every change is written, linted once and committed as one commit on main
   * (one parent; a `Tracking-Code:` line per item, by which a resume finds each one merged).
   * Cost: one proposal build per item (files read from the checkout, no git process) plus one
   * lint, one tree and one commit for the batch, where merging each work onto a line of its own
   * cost about 1.6 s per work. A batch whose combined change fails the lint falls back to
   * merging one by one (`mergeGroup`), which names the item that breaks it.
   */
  private async treeGroup(group: string, jobs: ApplyJob[], mergeEach: MergeEach): Promise<Landed[]> {
    const repo = this.core.ctx.config.contentRepo;
    const local = this.core.local;
    const base = await local.main();
    const overlay = new Map<string, string | Buffer | null>();
    const already: Landed[] = [];
    const proposed: Array<{ job: ApplyJob; step: MergedApply; changes: number }> = [];
    const t0 = Date.now();
    for (const job of jobs) {
      try {
        const r = await this.steps.propose(job.pending, overlay);
        if ('done' in r) job.resolve(r.done);
        else if ('merged' in r) already.push({ job, step: r.merged });
        else {
          for (const c of r.input.changes) overlay.set(c.path.replace(/^\.\//, ''), c.content);
          proposed.push({ job, step: r.step, changes: r.input.changes.length });
        }
      } catch (err) {
        job.reject(err);
      }
    }
    if (proposed.length === 0) return already;
    const proposeMs = Date.now() - t0;
    const message = batchMessage(
      group,
      proposed.map((p) => p.step),
      true,
    );
    const t1 = Date.now();
    const label = `batch-${group.replace(/[^a-z0-9-]+/gi, '-').slice(0, 60)}`;
    let made: Awaited<ReturnType<typeof local.commitCombined>>;
    try {
      made = await local.commitCombined(
        base,
        label,
        [...overlay].map(([p, content]) => ({ path: p, content })),
        message,
      );
    } catch (err) {
      for (const { job, step } of proposed) await this.steps.fail(step, err).then(job.resolve, job.reject);
      return already;
    }
    if ('lint' in made) {
      // Which item breaks the lint is not known: each is merged alone onto the batch's line, as before.
      for (const p of proposed) p.step.pending.before = null;
      return [
        ...already,
        ...(await this.mergeGroup(
          group,
          proposed.map((p) => p.job),
          mergeEach,
        )),
      ];
    }
    const commitMs = Date.now() - t1;
    // Every item's marker names the main it lands on before main moves: a stop from here on is
    // resumed by finding each item's Tracking-Code line on main after `before`.
    const t2 = Date.now();
    const refs = await local.pointReviewBranches(
      proposed.map((p) => p.step.pending.trackingCode),
      made.commit,
    );
    await inParallel(proposed, RECORD_WRITES_IN_PARALLEL, async ({ step }, i) => {
      step.state.ref = refs[i]!;
      step.state.forge = local.name;
      step.pending.before = base;
      step.pending.merged = null;
      await this.core.saveReview(step.state);
      await this.markers.write(step.pending);
    });
    const recordMs = Date.now() - t2;
    try {
      await moveMain(repo, base, made.commit, `apply the review batch ${group}`);
    } catch (err) {
      // Main did not move: nothing of the batch landed; each work is recorded failed.
      for (const { job, step } of proposed) await this.steps.fail(step, err).then(job.resolve, job.reject);
      return already;
    }
    await inParallel(proposed, RECORD_WRITES_IN_PARALLEL, async ({ step }) => {
      step.pending.merged = made.commit;
      step.merged = made.commit;
      step.phases.batch = { items: proposed.length, proposeMs, commitMs, recordMs, lintScope: made.lintScope };
      await this.markers.write(step.pending);
    });
    return [...already, ...proposed.map(({ job, step }) => ({ job, step }))];
  }

  /**
   * Merge a batch's works onto `refs/apply-batches/<group>` (started at main), then that line
   * into main with one merge commit naming every work. A work that cannot be merged (a conflict
   * with one merged before it) fails alone; the rest land. Main moves once, at the end, so a
   * stop before that leaves main untouched and each marker's merge unreachable from it (a resume
   * applies each again).
   */
  private async mergeGroup(group: string, jobs: ApplyJob[], mergeEach: MergeEach): Promise<Landed[]> {
    const repo = this.core.ctx.config.contentRepo;
    const ref = `refs/apply-batches/${group.replace(/[^a-z0-9-]+/gi, '-')}`;
    const base = await this.core.local.main();
    await git(repo, ['update-ref', ref, base]);
    try {
      const merged = await mergeEach(jobs, ref);
      if (merged.length === 0) return merged;
      const tip = await git(repo, ['rev-parse', ref]);
      const message = batchMessage(
        group,
        merged.map((m) => m.step),
        false,
      );
      const tree = await git(repo, ['rev-parse', `${tip}^{tree}`]);
      const commit = await git(repo, ['commit-tree', tree, '-p', base, '-p', tip, '-m', message]);
      try {
        await moveMain(repo, base, commit, `apply the review batch ${group}`);
      } catch (err) {
        // Main did not move: nothing of the batch landed; each work is recorded failed.
        for (const { job, step } of merged) await this.steps.fail(step, err).then(job.resolve, job.reject);
        return [];
      }
      return merged;
    } finally {
      await git(repo, ['update-ref', '-d', ref]).catch(() => undefined);
    }
  }

  /** Of commits on one line of history, the oldest (each an ancestor of the others); null for none. */
  private async earliest(all: string[]): Promise<string | null> {
    const repo = this.core.ctx.config.contentRepo;
    // A batch's works share one "before": compare distinct commits only (pairs grow with the square).
    const commits = [...new Set(all)];
    for (const c of commits) {
      let oldest = true;
      for (const other of commits) {
        if (other !== c && !(await isAncestor(repo, c, other))) oldest = false;
      }
      if (oldest) return c;
    }
    return commits[0] ?? null;
  }
}
