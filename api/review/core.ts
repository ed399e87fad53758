/**
 * What every room of the review service shares (api/review/service.ts lists the rooms): the
 * tracking records (intake store) and the reviewers' records (ARCHIVE_DATA_DIR/state/reviews,
 * keyed by tracking code), the forge, the clock, and the few operations more than one room needs:
 * read an item, load and save its review record, record assertions, move its status, build its
 * proposal on main.
 */
import path from 'node:path';
import type { AppContext } from '../context.ts';
import { ProblemError } from '../http/problem.ts';
import { utcTimestamp } from '../../src/schemas/envelope.ts';
import type { IntakeStore } from '../contributions/store.ts';
import { RecordStore } from '../storage/record-store.ts';
import { createForge } from '../forge/forge.ts';
import { LocalForge } from '../forge/forge-local.ts';
import type { Forge, ProposalInput, ReviewRef } from '../forge/types.ts';
import type { FetchContributorFile, FetchOptions, RunTechnicalChecks } from './types.ts';
import { buildProposalOnMain } from './proposal.ts';
import { formatLintMessage } from '../../src/domain/catalog.ts';
import { lintPartialCopy } from '../../src/domain/content-lint.ts';
import { canTransition, transition } from '../../src/domain/contributions/status.ts';
import type {
  ApplyProgress,
  ReviewLink,
  StoredContribution,
  SubmissionKind,
  SubmissionStatus,
} from '../../src/schemas/contribution.ts';
import type { StoredCorrectionReport } from '../../src/schemas/correction.ts';
import type { AdminActionBody, AssertableState, ReviewRecord } from '../../src/schemas/review.ts';

export type Stored = StoredContribution | StoredCorrectionReport;

/** An item and its reviewers' record, as the routes answer it. */
export interface ItemAndReview<R extends ReviewRecord | null = ReviewRecord | null> {
  record: Stored;
  review: R;
}

/**
 * Who performs a review action: the authenticated admin key's label (what commits, tracking
 * history and the admin view record, so every change names who is accountable for it), and
 * whether the operator named that key (`label=secret`): only such a key may assert listening
 * approval.
 */
export interface ReviewActor {
  label: string;
  operatorLabeled: boolean;
}

export interface ReviewServiceOverrides {
  fetchFile?: FetchContributorFile;
  runChecks?: RunTechnicalChecks;
  /** Merged over the fetch options from the environment (tests trust their own CA this way). */
  fetchOptions?: Partial<FetchOptions>;
  forge?: Forge;
  now?: () => Date;
}

function toLink(ref: ReviewRef): ReviewLink {
  return {
    kind: ref.kind === 'github-pull-request' ? 'pull-request' : 'branch',
    branch: ref.branch,
    url: ref.url,
    openedAtUtc: ref.openedAtUtc,
  };
}

export function illegalHint(status: SubmissionStatus): string {
  switch (status) {
    case 'applied':
    case 'declined':
      return `"${status}" is final`;
    case 'pending':
    case 'needs-information':
      return 'accept it first';
    case 'accepted':
      return 'it is already accepted';
  }
}

export class ReviewCore {
  readonly ctx: AppContext;
  readonly intake: IntakeStore;
  readonly reviews: RecordStore<ReviewRecord>;
  readonly local: LocalForge;
  readonly overrides: ReviewServiceOverrides;
  readonly now: () => Date;
  /** Where each apply's phases are logged (the server's pino logger; none in tests that do not set it). */
  logger: { info(obj: object, msg: string): void } | null = null;
  private forgePromise: Promise<Forge> | null = null;
  /** The commit author of each item's proposal (the submitter), read by the local forge. */
  private readonly authors = new Map<string, string>();

  constructor(ctx: AppContext, overrides: ReviewServiceOverrides = {}) {
    this.ctx = ctx;
    this.overrides = overrides;
    this.now = overrides.now ?? (() => new Date());
    this.intake = ctx.intake;
    this.reviews = new RecordStore(path.join(ctx.config.dataDir, 'state', 'reviews'));
    this.local = new LocalForge({
      contentRepo: ctx.config.contentRepo,
      scratchDir: path.join(ctx.config.dataDir, 'worktrees'),
      lint: (dir, otherWorks) => lintPartialCopy(dir, otherWorks).map(formatLintMessage),
      author: (input) => this.authors.get(input.trackingCode) ?? null,
      now: this.now,
    });
  }

  forge(): Promise<Forge> {
    this.forgePromise ??= this.overrides.forge
      ? Promise.resolve(this.overrides.forge)
      : createForge(this.ctx.config.github, this.local);
    return this.forgePromise;
  }

  store(kind: SubmissionKind): RecordStore<Stored> {
    return (kind === 'contribution' ? this.intake.contributions : this.intake.correctionReports) as RecordStore<Stored>;
  }

  async get(kind: SubmissionKind, code: string): Promise<ItemAndReview> {
    const record = await this.store(kind).get(code);
    if (!record)
      throw new ProblemError(
        'not-found',
        `No ${kind === 'contribution' ? 'contribution' : 'correction report'} has the tracking code ${code}.`,
      );
    return { record, review: await this.reviews.get(code) };
  }

  async loadReview(kind: SubmissionKind, code: string): Promise<ReviewRecord> {
    return (
      (await this.reviews.get(code)) ?? {
        recordVersion: 1,
        trackingCode: code,
        kind,
        forge: null,
        ref: null,
        verification: [],
        blockers: [],
        assertions: null,
        lastError: null,
        appliedCommit: null,
        actions: [],
      }
    );
  }

  async saveReview(state: ReviewRecord): Promise<void> {
    if ((await this.reviews.update(state.trackingCode, () => state)) === null)
      await this.reviews.create(state.trackingCode, state);
  }

  recordAssertions(state: ReviewRecord, body: AdminActionBody, actor: ReviewActor): void {
    if (body.arrangement) {
      // Each given field replaces the earlier setting; fields left out keep it.
      state.arrangementFacts = {
        actor: actor.label,
        atUtc: utcTimestamp(this.now()),
        facts: { ...(state.arrangementFacts?.facts ?? {}), ...body.arrangement },
      };
    }
    if (!body.assert) return;
    const assets: Record<string, AssertableState> = { ...(state.assertions?.assets ?? {}) };
    for (const a of body.assert.assets ?? []) assets[String(a.index)] = a.reviewState;
    state.assertions = {
      reviewer: body.reviewer,
      actor: actor.label,
      atUtc: utcTimestamp(this.now()),
      assets,
      arrangement: body.assert.arrangement ?? state.assertions?.arrangement ?? null,
    };
  }

  /** Move the tracking record (re-checked under the record's lock) and show it on the review. */
  async move(
    kind: SubmissionKind,
    code: string,
    to: SubmissionStatus,
    note: string | null,
    ref: ReviewRef | null,
    actor: ReviewActor,
    apply?: ApplyProgress,
  ): Promise<Stored> {
    let illegal: SubmissionStatus | null = null;
    const next = await this.store(kind).update(code, (current) => {
      if (!canTransition(current.status, to)) {
        illegal = current.status;
        return undefined;
      }
      const moved = {
        ...transition(current, to, utcTimestamp(this.now()), note, actor.label),
        ...(apply ? { apply } : {}),
      };
      return ref ? { ...moved, review: toLink(ref) } : moved;
    });
    if (illegal !== null)
      throw new ProblemError(
        'conflict',
        `${code} is "${illegal}" now; it cannot become "${to}" (${illegalHint(illegal)}).`,
        { currentStatus: illegal },
      );
    if (!next) throw new ProblemError('not-found', `No record has the tracking code ${code}.`);
    if (ref) await (await this.forge()).setStatus(ref, to).catch(() => undefined);
    return next;
  }

  /** Show the review branch on the tracking record without a status change (an accepted item accepted again). */
  async setReviewLink(kind: SubmissionKind, code: string, ref: ReviewRef | null): Promise<Stored> {
    const next = ref ? await this.store(kind).update(code, (current) => ({ ...current, review: toLink(ref) })) : null;
    return next ?? (await this.get(kind, code)).record;
  }

  /**
   * Build the proposal on the current main, or on `onto` (a review batch's line), as it is now
   * (caller holds the content-repository lock).
   */
  async proposal(
    record: Stored,
    state: ReviewRecord,
    onto: string | null = null,
    overlay: ReadonlyMap<string, string | Buffer | null> | null = null,
    snapshot = false,
  ): Promise<ProposalInput> {
    const built = await buildProposalOnMain(this.ctx, record, state, onto, overlay, snapshot);
    this.authors.set(record.trackingCode, built.author);
    return built.input;
  }
}
