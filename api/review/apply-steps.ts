/**
 * The steps of one item's apply, run by the pipeline (apply.ts) under the content-repository lock:
 * merge (rebuild the proposal on main and merge it, or find the merge a stopped apply made),
 * then either finish (the build that serves it is swapped in: "applied", visible) or fail (main
 * reset to before this item's merge, the old site serving, the item stays "accepted" with the
 * error recorded). A refusal that needs no merge (blockers, a proposal that cannot be built on
 * the current main) is recorded by `refuse`.
 */
import { ProblemError } from '../http/problem.ts';
import { utcTimestamp } from '../../src/schemas/envelope.ts';
import { git, isAncestor, mergeIntoRef } from '../site/content-repo.ts';
import type { ItemAndReview, ReviewActor, ReviewCore, Stored } from './core.ts';
import type { ApplyMarkers, PendingApply } from './apply-markers.ts';
import { reasonsOf } from './proposal.ts';
import { verificationBlockers } from './verification.ts';
import type { ProposalInput } from '../forge/types.ts';
import { mergeMessage } from '../../src/domain/review/messages.ts';
import type { ApplyProgress, SubmissionKind, SubmissionStatus } from '../../src/schemas/contribution.ts';
import type { AdminActionBody, ReviewRecord } from '../../src/schemas/review.ts';

/** An apply merged (or found merged) and waiting for the build that serves it. */
export interface MergedApply {
  pending: PendingApply;
  actor: ReviewActor;
  record: Stored;
  state: ReviewRecord;
  started: number;
  phases: Record<string, unknown>;
  merged: string;
}

export class ApplySteps {
  private readonly core: ReviewCore;
  private readonly markers: ApplyMarkers;

  constructor(core: ReviewCore, markers: ApplyMarkers) {
    this.core = core;
    this.markers = markers;
  }

  /** Record a refused apply on the review and return the problem to throw (nothing was merged). */
  async refuse(
    state: ReviewRecord,
    body: AdminActionBody,
    actor: ReviewActor,
    status: SubmissionStatus,
    code: string,
    reasons: string[],
  ): Promise<ProblemError> {
    state.blockers = reasons;
    state.actions.push({
      action: 'apply',
      reviewer: body.reviewer,
      actor: actor.label,
      atUtc: utcTimestamp(this.core.now()),
      note: body.note ?? null,
      outcome: `refused: ${reasons.join(' ')}`,
    });
    await this.core.saveReview(state);
    return new ProblemError('conflict', `${code} was not applied and nothing was merged: ${reasons.join(' ')}`, {
      currentStatus: status,
      reasons,
    });
  }

  /** Set the item's apply progress without a status change (the status history is untouched). */
  private async setApply(kind: SubmissionKind, code: string, apply: ApplyProgress): Promise<Stored | null> {
    return this.core.store(kind).update(code, (current) => ({ ...current, apply }));
  }

  /**
   * The merge a stopped apply made that main still holds: the marker's, else the commit of `code`
   * on main after `before`; null when there is none. A git command that fails throws (tried three
   * times): taking a failure for "not merged" would build the proposal again on a main that holds
   * it, and refuse the apply.
   */
  private async mergedOnMain(pending: PendingApply): Promise<string | null> {
    const repo = this.core.ctx.config.contentRepo;
    for (let attempt = 1; ; attempt++) {
      try {
        const merged =
          pending.merged ??
          (pending.before
            ? (await git(repo, [
                'log',
                '--format=%H',
                '--fixed-strings',
                `--grep=Tracking-Code: ${pending.trackingCode}`,
                '-n',
                '1',
                `${pending.before}..refs/heads/main`,
              ])) || null
            : null);
        // A merge main no longer holds (reset after a failed build, before the marker said so) is no merge.
        return merged !== null && (await isAncestor(repo, merged, 'refs/heads/main')) ? merged : null;
      } catch (err) {
        if (attempt >= 3) throw err;
        await new Promise((resolve) => setTimeout(resolve, 200 * attempt));
      }
    }
  }

  /**
   * Under the content-repository lock: rebuild the proposal on main and merge it (or find the
   * merge a stopped apply made). `done` when nothing is left to build for it (finished before a
   * stop, decided otherwise, or refused: then recorded failed).
   */
  async merge(
    pending: PendingApply,
    into: string | null = null,
  ): Promise<MergedApply | { done: ItemAndReview<ReviewRecord> }> {
    const core = this.core;
    const begun = await this.begin(pending);
    if ('done' in begun) return begun;
    const { step } = begun;
    const { trackingCode: code, body } = pending;
    const { actor, record, state, phases } = step;
    let t = Date.now();
    const lap = (name: string) => {
      phases[name] = Date.now() - t;
      t = Date.now();
    };
    const forge = await core.forge();
    let merged = await this.mergedOnMain(pending);
    let input: ProposalInput | null = null;
    if (merged === null) {
      const blocked = verificationBlockers(state.verification);
      if (blocked.length > 0) return { done: await this.refused(step, blocked) };
      try {
        // Built on what is there now: main, or the batch's line with the works merged before this
        // one (`into`), so a work that exists by now, or a field that moved, is refused, never
        // overwritten.
        input = await core.proposal(record, state, into);
        lap('proposalMs');
        state.ref = await forge.open(input);
        lap('openMs');
        if (forge === core.local) phases.open = core.local.lastOpenTimings;
        state.forge = forge.name;
      } catch (err) {
        return { done: await this.refused(step, reasonsOf(err)) };
      }
      pending.before = await core.local.main();
      pending.merged = null;
      await core.saveReview(state);
      await this.markers.write(pending);
      lap('recordMs');
      try {
        const message = mergeMessage(code, input.title, actor.label, body.reviewer, body.note ?? null);
        // A batch's works merge one after another onto the batch's line (`into`), which then
        // lands on main as one commit (apply.ts); a single apply merges into main.
        merged =
          into !== null
            ? await mergeIntoRef(core.ctx.config.contentRepo, state.ref!.branch, message, into)
            : (await forge.merge(state.ref!, message)).commit;
      } catch (err) {
        return { done: await this.fail(step, err) };
      }
      pending.merged = merged;
      await this.markers.write(pending);
      lap('mergeMs');
    } else {
      pending.merged = merged;
    }
    step.merged = merged;
    return step;
  }

  /**
   * Under the content-repository lock, for a review batch applied as one tree
   * (api/review/apply.ts, `treeGroup`): build the item's proposal on main plus `overlay` (the
   * files the batch's items before it change), without committing anything. `merged` when a
   * stopped apply already landed it on main; `done` when nothing is left to do for it (decided
   * otherwise, or refused: recorded failed, back in review with the reason); else the step and
   * its changes, which the caller adds to the overlay and commits with the others.
   */
  async propose(
    pending: PendingApply,
    overlay: ReadonlyMap<string, string | Buffer | null>,
  ): Promise<
    { done: ItemAndReview<ReviewRecord> } | { merged: MergedApply } | { step: MergedApply; input: ProposalInput }
  > {
    const begun = await this.begin(pending);
    if ('done' in begun) return begun;
    const { step } = begun;
    const { record, state, phases } = step;
    const merged = await this.mergedOnMain(pending);
    if (merged !== null) {
      pending.merged = merged;
      step.merged = merged;
      return { merged: step };
    }
    const blocked = verificationBlockers(state.verification);
    if (blocked.length > 0) return { done: await this.refused(step, blocked) };
    try {
      const t = Date.now();
      const input = await this.core.proposal(record, state, null, overlay);
      phases.proposalMs = Date.now() - t;
      return { step, input };
    } catch (err) {
      return { done: await this.refused(step, reasonsOf(err)) };
    }
  }

  /**
   * The item's apply as it stands under the lock: `done` when it is applying no longer (finished
   * before the server stopped, its marker not yet removed, or decided otherwise; the marker is
   * dropped), else a fresh step with the reviewer's assertions recorded.
   */
  private async begin(pending: PendingApply): Promise<{ done: ItemAndReview<ReviewRecord> } | { step: MergedApply }> {
    const core = this.core;
    const { kind, trackingCode: code, body } = pending;
    // Markers written before actors were recorded name nobody; the history says so.
    const actor = pending.actor ?? { label: 'unrecorded (resumed apply)', operatorLabeled: false };
    const { record } = await core.get(kind, code);
    const state = await core.loadReview(kind, code);
    if (record.status !== 'accepted' || record.apply?.state !== 'applying') {
      await this.markers.drop(code);
      return { done: { record, review: state } };
    }
    core.recordAssertions(state, body, actor);
    return { step: { pending, actor, record, state, started: Date.now(), phases: {}, merged: '' } };
  }

  /** A refused apply: back in review with the reasons as blockers, recorded failed, the problem thrown. */
  private async refused(step: MergedApply, reasons: string[]): Promise<never> {
    const { pending, state, actor, record } = step;
    const problem = await this.refuse(state, pending.body, actor, record.status, pending.trackingCode, reasons);
    return this.fail(step, problem, false);
  }

  /**
   * Record a failed apply: `apply.state = "failed"`, the marker dropped, the problem thrown. With
   * `reset` (a merge or build failure), main first goes back to where it was before this item's
   * merge and the error is recorded on the review; a refusal was recorded by `refuse` already.
   */
  async fail(step: MergedApply, err: unknown, reset = true): Promise<never> {
    const core = this.core;
    const { pending, state, actor, record } = step;
    const { kind, trackingCode: code, body } = pending;
    let problem: ProblemError;
    if (!reset) problem = err as ProblemError;
    else {
      // Nothing half-merged: main goes back to where it was; the old build keeps serving.
      if (pending.before !== null && (await core.local.main()) !== pending.before)
        await core.local.resetMain(pending.before);
      const message = (err as Error).message.slice(0, 4000);
      state.lastError = { atUtc: utcTimestamp(core.now()), message };
      state.actions.push({
        action: 'apply',
        reviewer: body.reviewer,
        actor: actor.label,
        atUtc: utcTimestamp(core.now()),
        note: body.note ?? null,
        outcome: `failed: ${message.slice(0, 500)}`,
      });
      await core.saveReview(state);
      problem = new ProblemError(
        'conflict',
        `${code} was not applied: ${message.split('\n')[0]} The previous site keeps serving; main was reset and the item stays "accepted" with the error recorded.`,
        {
          currentStatus: record.status,
          reasons: [message],
        },
      );
    }
    await this.setApply(kind, code, {
      state: 'failed',
      requestedAtUtc: pending.requestedAtUtc,
      visibleAtUtc: null,
      failedAtUtc: utcTimestamp(core.now()),
    });
    await this.markers.drop(code);
    throw problem;
  }

  /** The build with this item's merge is served: record it applied and visible. */
  async finish(step: MergedApply, servedCommit: string | null, applies: number): Promise<ItemAndReview<ReviewRecord>> {
    const core = this.core;
    const { pending, state, actor, merged, started, phases } = step;
    const { kind, trackingCode: code, body } = pending;
    const visibleAtUtc = utcTimestamp(core.now());
    const shared = applies > 1 ? `; one build for ${applies} applies` : '';
    const served = servedCommit ? `; served in the build of ${servedCommit.slice(0, 12)}${shared}` : shared;
    // The reviewers' record first, so whoever sees "applied" also sees its commit.
    state.appliedCommit = merged;
    state.blockers = [];
    state.lastError = null;
    state.actions.push({
      action: 'apply',
      reviewer: body.reviewer,
      actor: actor.label,
      atUtc: visibleAtUtc,
      note: body.note ?? null,
      outcome: `applied as ${merged.slice(0, 12)} (merge + rebuild ${Date.now() - started} ms; visible ${visibleAtUtc}${served})`,
    });
    await core.saveReview(state);
    const moved = await core.move(
      kind,
      code,
      'applied',
      body.note ?? 'Applied: the change is in the canonical record (JSON, Markdown and website).',
      state.ref,
      actor,
      {
        state: 'visible',
        requestedAtUtc: pending.requestedAtUtc,
        visibleAtUtc,
        failedAtUtc: null,
      },
    );
    await this.markers.drop(code);
    core.logger?.info(
      { apply: { trackingCode: code, commit: merged, servedCommit, applies, totalMs: Date.now() - started, phases } },
      `apply of ${code} visible after ${Date.now() - started} ms`,
    );
    return { record: moved, review: state };
  }
}
