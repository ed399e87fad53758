/**
 * The review workflow (docs/review.md): accept, request-information, decline and apply for
 * contributions and correction reports, over the intake records, a forge and the content
 * repository. This class is the one entry the routes, the desk and the GitHub wiring use; the
 * work is done in rooms, one module per job:
 *
 *   core.ts          what the rooms share: records, the forge, status moves, the proposal on main
 *   queue.ts         the queue index (paged, counted by status)
 *   actions.ts       reviewers' actions: the checks every action passes, accept, request-information, decline
 *   answers.ts       the submitter's answer to a request for information (response token)
 *   apply.ts         the apply pipeline: acknowledge, batch merges into one build, bisect a failed
 *                    batch, resume on start (apply-steps.ts: merge / finish / fail one item;
 *                    apply-markers.ts: the durable markers a resume reads)
 *   verification.ts  fetch and check a contribution's files at accept; the blockers they raise
 *   proposal.ts      the proposal built on main, and why one could not be opened
 *
 * Review state beyond the tracking record (verification, blockers, assertions, errors) lives in
 * its own collection, ARCHIVE_DATA_DIR/state/reviews, keyed by tracking code.
 */
import type { AppContext } from '../context.ts';
import { git } from '../site/content-repo.ts';
import type { IntakeStore } from '../contributions/store.ts';
import type { RecordStore } from '../storage/record-store.ts';
import type { Forge } from '../forge/types.ts';
import { ReviewCore, type ItemAndReview, type ReviewActor, type ReviewServiceOverrides, type Stored } from './core.ts';
import { ReviewQueue, type QueueSource } from './queue.ts';
import { ReviewActions, type ProgressReport } from './actions.ts';
import { ReviewAnswers } from './answers.ts';
import { ReviewApplies } from './apply.ts';
import type { QueueEntry, QueueFilter } from '../../src/domain/review/queue.ts';
import type { MusicContributionInput, SubmissionKind } from '../../src/schemas/contribution.ts';
import type { AdminActionBody, ReviewRecord } from '../../src/schemas/review.ts';

export type { ReviewActor, ReviewServiceOverrides, ProgressReport };

/** The actor of actions that arrive from GitHub (a merged or closed pull request, signed webhook). */
export const GITHUB_ACTOR: ReviewActor = { label: 'github-webhook', operatorLabeled: false };

export class ReviewService {
  readonly intake: IntakeStore;
  readonly reviews: RecordStore<ReviewRecord>;
  private readonly core: ReviewCore;
  private readonly queueRoom: ReviewQueue;
  private readonly actions: ReviewActions;
  private readonly answers: ReviewAnswers;
  private readonly applies: ReviewApplies;
  private resuming: Promise<string[]> | null = null;

  constructor(ctx: AppContext, overrides: ReviewServiceOverrides = {}) {
    this.core = new ReviewCore(ctx, overrides);
    this.intake = this.core.intake;
    this.reviews = this.core.reviews;
    this.queueRoom = new ReviewQueue(this.core);
    this.applies = new ReviewApplies(this.core);
    this.actions = new ReviewActions(this.core, this.applies, this.queueRoom);
    this.answers = new ReviewAnswers(this.core);
  }

  /** Where each apply's phases are logged (the server's pino logger; none in tests that do not set it). */
  get logger(): { info(obj: object, msg: string): void } | null {
    return this.core.logger;
  }
  set logger(logger: { info(obj: object, msg: string): void } | null) {
    this.core.logger = logger;
  }

  /** Read every stored submission once into the queue index; writes seen meanwhile win. */
  loadQueue(): Promise<void> {
    return this.queueRoom.load();
  }

  /** More items for the queue (pull requests people opened on GitHub; api/forge/pull-requests.ts): loaded with it, kept current by their writes. */
  addQueueSource(source: QueueSource): void {
    this.queueRoom.addSource(source);
  }

  forge(): Promise<Forge> {
    return this.core.forge();
  }

  get(kind: SubmissionKind, code: string): Promise<{ record: Stored; review: ReviewRecord | null }> {
    return this.core.get(kind, code);
  }

  /** One page of the queue (open items by default), oldest first, with per-status counts. */
  queue(
    filter: QueueFilter,
    page: number,
    pageSize: number,
  ): Promise<{ items: QueueEntry[]; total: number; counts: Record<string, number> }> {
    return this.queueRoom.page(filter, page, pageSize);
  }

  /**
   * `wait` (the default) answers an apply once it is visible or failed; without it the answer is
   * the item in `apply.state = "applying"`, at once.
   */
  act(...args: Parameters<ReviewActions['act']>): Promise<ItemAndReview> {
    return this.actions.act(...args);
  }

  /** The checks an action passes before anything is done; throws the problem that refuses it. */
  check(...args: Parameters<ReviewActions['check']>): Promise<void> {
    return this.actions.check(...args);
  }

  /**
   * Apply a review batch's accepted items as one change: one commit on main (local forge) and one
   * rebuild; each answer once that item is visible or failed (api/review/apply.ts).
   */
  applyGroup(
    group: string,
    items: Array<{ code: string; kind?: SubmissionKind; body: AdminActionBody; actor: ReviewActor }>,
  ): Promise<Array<PromiseSettledResult<ItemAndReview>>> {
    return this.applies.applyGroup(
      group,
      items.map((i) => ({ ...i, kind: i.kind ?? ('contribution' as const) })),
    );
  }

  /**
   * Merge a new work (a probable duplicate) into an existing work: accepted like `accept`, and
   * applied as another source score of `workSlug` (no second work).
   */
  merge(code: string, workSlug: string, body: AdminActionBody, actor: ReviewActor): Promise<ItemAndReview> {
    return this.actions.merge(code, workSlug, body, actor);
  }

  /** The item, when `token` is its response token; else the problem (404 unknown code, 401 token). */
  authorizeAnswer(kind: SubmissionKind, code: string, token: string | undefined): Promise<Stored> {
    return this.answers.authorize(kind, code, token);
  }

  answer(
    kind: SubmissionKind,
    code: string,
    token: string | undefined,
    input: { message: string; submission?: MusicContributionInput },
  ): Promise<Stored> {
    return this.answers.answer(kind, code, token, input);
  }

  /** Applies still running (tests and a graceful stop wait for them). */
  settled(): Promise<void> {
    return this.applies.settled();
  }

  /**
   * Resume every apply acknowledged before the server stopped: one already merged is finished
   * (the start-up build serves main), one not yet merged runs again. Returns the tracking codes.
   */
  resumeApplies(log: (line: string) => void = () => undefined): Promise<string[]> {
    // Once per server start: a resumed batch action waits on the same resume (api/imports/actions.ts).
    return (this.resuming ??= this.applies.resume(log));
  }
}

/** Read the branch's commit log line by line (tests and the CLI's show). */
export async function reviewLog(repo: string, branch: string): Promise<string> {
  return git(repo, ['log', '--format=%H %an%n%B', '-n', '1', branch]);
}
