/**
 * Reviewers' actions on one item: the checks every action passes first (status transition,
 * assertion scope, who may assert listening approval), then
 *
 *   accept              fetch + verify every contributor file into the blob store, run the
 *                       technical checks, open (or rewrite) the review branch / PR, -> accepted.
 *                       A digest mismatch, a failed check or a proposal that cannot be built does
 *                       not block accept: it is recorded as a blocker and blocks apply.
 *   request-information -> needs-information with the public note.
 *   decline             close the review (branch kept), -> declined.
 *   apply               handed to the apply pipeline (apply.ts).
 *   merge               (a batch's probable duplicate) accept as another source score of an existing work.
 */
import { existsSync } from 'node:fs';
import path from 'node:path';
import { ProblemError } from '../http/problem.ts';
import { utcTimestamp } from '../../src/schemas/envelope.ts';
import { git, serialByKey } from '../site/content-repo.ts';

/** Accepts running, per content repository and item: one at a time for each item. */
const acceptsInFlight = new Map<string, Promise<unknown>>();
import { illegalHint, type ItemAndReview, type ReviewActor, type ReviewCore, type Stored } from './core.ts';
import type { ReviewQueue } from './queue.ts';
import type { ReviewApplies } from './apply.ts';
import { reasonsOf } from './proposal.ts';
import { newWorkSlug, ProposalError } from '../../src/domain/review/proposal.ts';
import { performedSeconds, verificationBlockers, verifyContribution } from './verification.ts';
import { canTransition } from '../../src/domain/contributions/status.ts';
import { proposedTermLabels } from '../../src/domain/review/new-terms.ts';
import { annotateMeasurements } from '../../src/domain/review/measured.ts';
import type { SubmissionKind, SubmissionStatus } from '../../src/schemas/contribution.ts';
import type { AdminAction, AdminActionBody, ReviewRecord } from '../../src/schemas/review.ts';

/** How far an action has come: a step in words, steps done, steps in all. */
export type ProgressReport = (progress: { step: string; done: number; total: number }) => void;

export class ReviewActions {
  private readonly core: ReviewCore;
  private readonly applies: ReviewApplies;
  private readonly queue: ReviewQueue;

  constructor(core: ReviewCore, applies: ReviewApplies, queue: ReviewQueue) {
    this.core = core;
    this.applies = applies;
    this.queue = queue;
  }

  /**
   * Other open items that would create the same new work as this one: only the first applied can
   * land (the others are refused at apply), so the reviewer is told at accept, with their codes.
   */
  private async claimWarnings(record: Stored, state: ReviewRecord): Promise<string[]> {
    if (record.kind !== 'contribution' || state.mergeInto) return [];
    const slug = newWorkSlug(record.submission);
    if (slug === null) return [];
    const others: string[] = [];
    for (const e of await this.queue.claimants(slug, record.trackingCode)) {
      // An item an editor merged into another work creates no work of its own.
      if ((await this.core.reviews.get(e.trackingCode))?.mergeInto) continue;
      others.push(`${e.trackingCode} (${e.status})`);
      if (others.length >= 20) break;
    }
    if (others.length === 0) return [];
    return [
      `Another open item also proposes the new work "${slug}": ${others.join(', ')}. Only the first applied creates it; the others are then refused at apply, and nothing of theirs is written. If they are the same work, merge the others into it as further source scores (or decline them); if they are different works, one needs another slug.`,
    ];
  }

  /**
   * `wait` (the default) answers an apply once it is visible or failed; without it the answer is
   * the item in `apply.state = "applying"`, at once.
   */
  async act(
    kind: SubmissionKind,
    code: string,
    action: AdminAction,
    body: AdminActionBody,
    actor: ReviewActor,
    options: { wait?: boolean; progress?: ProgressReport } = {},
  ): Promise<ItemAndReview> {
    await this.check(kind, code, action, body, actor);
    switch (action) {
      case 'accept':
        return this.accept(kind, code, body, actor, null, options.progress);
      case 'request-information':
        return this.simpleMove(
          kind,
          code,
          'needs-information',
          body,
          body.note ?? 'A reviewer needs more information before deciding.',
          actor,
        );
      case 'decline':
        return this.decline(kind, code, body, actor);
      case 'apply':
        return this.applies.apply(kind, code, body, actor, options.wait ?? true);
    }
  }

  /**
   * The checks every action passes before anything is done (a problem names the refusal): the
   * item is not being applied, the status may move, assertions fit the item, listening approval
   * comes from an operator-labeled key. An action record is written only after they pass
   * (api/review/item-actions.ts), so a refusal is answered at once.
   */
  async check(
    kind: SubmissionKind,
    code: string,
    action: AdminAction,
    body: AdminActionBody,
    actor: ReviewActor,
  ): Promise<void> {
    const { record } = await this.core.get(kind, code);
    if (record.apply?.state === 'applying' && action !== 'apply') {
      throw new ProblemError(
        'conflict',
        `${code} is being applied (since ${record.apply.requestedAtUtc}); "${action}" can follow once it is visible or has failed.`,
        { currentStatus: record.status },
      );
    }
    const target: SubmissionStatus =
      action === 'accept'
        ? 'accepted'
        : action === 'apply'
          ? 'applied'
          : action === 'decline'
            ? 'declined'
            : 'needs-information';
    // An accepted item is accepted again to approve the vocabulary terms it proposes, or to fetch
    // and check its files again when its review holds blockers (a fetch the allow-list refused, a
    // check that failed, a proposal that could not be built): after the setting or the file was
    // fixed, the item need not be declined and submitted again.
    const again =
      action === 'accept' &&
      record.status === 'accepted' &&
      (body.approveTerms === true || ((await this.core.reviews.get(code))?.blockers.length ?? 0) > 0);
    if (!again && !canTransition(record.status, target)) {
      throw new ProblemError(
        'conflict',
        `${code} is "${record.status}"; "${action}" needs it to be able to become "${target}" (${illegalHint(record.status)}${action === 'accept' && record.status === 'accepted' ? '; an accepted item is accepted again only to approve its terms (approveTerms) or, while its review holds blockers, to fetch and check its files again' : ''}).`,
        { currentStatus: record.status },
      );
    }
    if (body.assert && kind !== 'contribution')
      throw new ProblemError(
        'conflict',
        'Review-state assertions apply to contributed assets only; correction reports carry no assets.',
        { currentStatus: record.status },
      );
    if (
      body.arrangement &&
      (record.kind !== 'contribution' || !['arrangement', 'performance'].includes(record.submission.operation))
    ) {
      throw new ProblemError(
        'conflict',
        'Arrangement facts (body.arrangement) apply to contributions with operation "arrangement" or "performance" only.',
        { currentStatus: record.status },
      );
    }
    const listening =
      body.assert?.arrangement === 'human-listening-approved' ||
      (body.assert?.assets ?? []).some((a) => a.reviewState === 'human-listening-approved');
    if (listening && !actor.operatorLabeled) {
      throw new ProblemError(
        'forbidden',
        `Listening approval is asserted by an accountable person: the key "${actor.label}" has no operator-given label. Configure the key as label=secret in ARCHIVE_ADMIN_KEYS (the label is recorded in the commit and the history) and act with it.`,
      );
    }
  }

  private async simpleMove(
    kind: SubmissionKind,
    code: string,
    to: SubmissionStatus,
    body: AdminActionBody,
    note: string,
    actor: ReviewActor,
  ) {
    const core = this.core;
    const state = await core.loadReview(kind, code);
    const record = await core.move(kind, code, to, note, null, actor);
    if (state.ref) await (await core.forge()).setStatus(state.ref, to).catch(() => undefined);
    state.actions.push({
      action: to === 'needs-information' ? 'request-information' : 'decline',
      reviewer: body.reviewer,
      actor: actor.label,
      atUtc: utcTimestamp(core.now()),
      note: body.note ?? null,
      outcome: to,
    });
    await core.saveReview(state);
    return { record, review: state };
  }

  private async decline(kind: SubmissionKind, code: string, body: AdminActionBody, actor: ReviewActor) {
    const state = await this.core.loadReview(kind, code);
    const note = body.note ?? 'Declined by a reviewer. Nothing in the catalog changed.';
    if (state.ref) await (await this.core.forge()).close(state.ref, note);
    return this.simpleMove(kind, code, 'declined', body, note, actor);
  }

  /**
   * Merge a new work into an existing work (a probable duplicate an import flagged): the item is
   * accepted like any other, with the decision recorded on its review, and its proposal (and so
   * its apply) adds its files as source scores of `workSlug` instead of creating a second work.
   * Only a pending (or needs-information) new-work contribution, into a work main holds.
   */
  async merge(code: string, workSlug: string, body: AdminActionBody, actor: ReviewActor): Promise<ItemAndReview> {
    const core = this.core;
    const { record } = await core.get('contribution', code);
    if (record.kind !== 'contribution' || record.submission.operation !== 'new-work')
      throw new ProblemError(
        'conflict',
        `${code} does not propose a new work; only a new work can be merged into another.`,
        {
          currentStatus: record.status,
        },
      );
    if (record.apply?.state === 'applying' || !canTransition(record.status, 'accepted'))
      throw new ProblemError(
        'conflict',
        `${code} is "${record.status}"${record.apply?.state === 'applying' ? ' and being applied' : ''}; only a pending item can be merged (${illegalHint(record.status)}).`,
        { currentStatus: record.status },
      );
    if (
      !/^[a-z0-9][a-z0-9-]{0,159}$/.test(workSlug) ||
      !existsSync(path.join(core.ctx.config.contentRepo, 'works', workSlug, 'index.md'))
    )
      throw new ProblemError('conflict', `There is no work "${workSlug}" in the catalog to merge ${code} into.`, {
        currentStatus: record.status,
      });
    const state = await core.loadReview('contribution', code);
    state.mergeInto = { workSlug, actor: actor.label, atUtc: utcTimestamp(core.now()) };
    return this.accept('contribution', code, body, actor, state);
  }

  private async accept(
    kind: SubmissionKind,
    code: string,
    body: AdminActionBody,
    actor: ReviewActor,
    merging: ReviewRecord | null = null,
    progress: ProgressReport = () => undefined,
  ) {
    const core = this.core;
    const { record } = await core.get(kind, code);
    // Steps: each fetched file is fetched, then checked; then the review is opened.
    const files = record.kind === 'contribution' ? record.submission.assets.filter((a) => a.downloadUrl).length : 0;
    const total = 2 * files + 1;
    let done = 0;
    const step = (words: string) => progress({ step: words, done, total });
    const state = merging ?? (await core.loadReview(kind, code));
    core.recordAssertions(state, body, actor);
    // The facts this item records (a death year, a first publication) carry who accepted them and when.
    state.acceptedBy = { actor: actor.label, atUtc: utcTimestamp(core.now()) };
    const proposedTerms = record.kind === 'contribution' ? proposedTermLabels(record.submission.work?.newTerms) : [];
    if (body.approveTerms === true && proposedTerms.length > 0)
      state.termsApproval = { terms: proposedTerms, actor: actor.label, atUtc: utcTimestamp(core.now()) };
    if (record.kind === 'contribution') {
      // Declared against measured: a disagreement is a warning for the reviewer and lands in the record.
      const measured = annotateMeasurements(
        await verifyContribution(core.ctx, core.overrides, record, (phase, n) => {
          done = 2 * (n - 1) + (phase === 'checking' ? 1 : 0);
          step(`${phase} file ${n} of ${files}`);
        }),
        record.submission,
        performedSeconds(core.ctx.config.contentRepo, record),
      );
      state.verification = measured.entries;
      state.warnings = [...measured.warnings, ...(await this.claimWarnings(record, state))];
    }
    state.blockers = verificationBlockers(state.verification);
    if (proposedTerms.length > 0 && !state.termsApproval)
      state.blockers.push(
        `It proposes new vocabulary terms (${proposedTerms.join('; ')}); they land only when an editor approves them: accept with approveTerms (again, if accepted already), or decline.`,
      );
    // Open (or rewrite) the review on the current main; a proposal that cannot be built is a blocker,
    // except a correction that would change nothing: there is nothing to review, so accept refuses
    // it with the reason and the item stays as it was (apply would only refuse it later).
    let unchanged: ProposalError | null = null;
    done = 2 * files;
    step('opening the review');
    // Built on a snapshot of main, read from git's objects, without the content repository's
    // lock: an apply holds that lock through its build (a batch's can take a while), and the
    // proposal is built again on what is there at apply time anyway. One accept per item at a time.
    await serialByKey(acceptsInFlight, `${core.ctx.config.contentRepo}\0${code}`, async () => {
      try {
        const main = await git(core.ctx.config.contentRepo, ['rev-parse', '--verify', 'refs/heads/main^{commit}']);
        const input = await core.proposal(record, state, main, null, true);
        const forge = await core.forge();
        state.ref = await forge.open(input);
        state.forge = forge.name;
      } catch (err) {
        if (err instanceof ProposalError && err.noChange) unchanged = err;
        else state.blockers.push(...reasonsOf(err));
      }
    });
    if (unchanged !== null)
      throw new ProblemError(
        'conflict',
        `${code} was not accepted: ${(unchanged as ProposalError).reasons.join(' ')} Decline it, or ask the reporter for the value they meant.`,
        { reasons: (unchanged as ProposalError).reasons },
      );
    const into = merging?.mergeInto?.workSlug ?? null;
    const note =
      body.note ??
      (into !== null
        ? `Accepted as another source score of the existing work "${into}" (a probable duplicate); no new work is created.${state.blockers.length > 0 ? ' It cannot be applied until the reviewers resolve the recorded blockers.' : ' Nothing in the catalog has changed yet.'}`
        : null) ??
      (state.blockers.length > 0
        ? 'Accepted for review; it cannot be applied until the reviewers resolve the recorded blockers.'
        : 'Accepted by a reviewer; waiting to be applied. Nothing in the catalog has changed yet.');
    const moved =
      record.status === 'accepted'
        ? await core.setReviewLink(kind, code, state.ref)
        : await core.move(kind, code, 'accepted', note, state.ref, actor);
    const warned = state.warnings?.length
      ? ` and ${state.warnings.length} warning(s): ${state.warnings.join(' ')}`
      : '';
    state.actions.push({
      action: into !== null ? 'merge' : 'accept',
      reviewer: body.reviewer,
      actor: actor.label,
      atUtc: utcTimestamp(core.now()),
      note: body.note ?? null,
      outcome: `${into !== null ? `merged into ${into} as another source score; ` : ''}${state.blockers.length > 0 ? `accepted with ${state.blockers.length} blocker(s)` : 'accepted'}${warned}`,
    });
    await core.saveReview(state);
    return { record: moved, review: state };
  }
}
