/**
 * Review actions on one item run in the background as action records (docs/review.md, "Long
 * actions are action records"). Accepting fetches and checks every file and opens the review:
 * for a 96-page quartet, a 200-part or a 20,000-measure score that took minutes, and a request
 * that waited for it was cut by the server's own idle timeout (ARCHIVE_IDLE_TIMEOUT_MS), losing the
 * answer. So the action is acknowledged once its record is durable and runs here, while its
 * tracking resource (`GET /api/v1/admin/{contributions|correction-reports}/{code}/actions/{id}`)
 * shows its progress and then its outcome; the POST waits for it only as long as the idle timeout
 * allows (src/domain/batch-actions.ts, `batchAnswerWait`).
 *
 * - The checks every action passes (status, assertions, listening approval) run before the
 *   record is written: a refusal is answered at once and nothing is stored.
 * - One action per item at a time: a second is refused (409 naming the running one).
 * - A stop (SIGTERM drain) lets a running action finish; a kill -9 leaves its record `running`,
 *   and the next start resumes it: an item the review log shows acted on since the action started
 *   counts as done, any other is acted on again (accept is repeatable: it fetches, checks and
 *   rewrites its review).
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import type { AppContext } from '../context.ts';
import { ProblemError, problemBody } from '../http/problem.ts';
import { isOperatorLabel } from '../http/auth.ts';
import { RecordStore } from '../storage/record-store.ts';
import type { ReviewActor, ReviewService } from './service.ts';
import { ActionRunner, type RunningAction } from './action-runner.ts';
import {
  completeItemAction,
  failItemAction,
  ITEM_ACTION_ID_PATTERN,
  itemActionId,
  itemActionPath,
  progressItemAction,
  resumeItemAction,
  runningItemActionConflict,
  startItemAction,
  type StoredItemAction,
} from '../../src/domain/review/item-actions.ts';
import type { AdminActionBody, ItemActionName } from '../../src/schemas/review.ts';
import type { SubmissionKind, SubmissionStatus } from '../../src/schemas/contribution.ts';

/** How often, at most, a running action's progress is written. */
const WRITE_EVERY_MS = 1000;

const TARGET: Record<ItemActionName, SubmissionStatus> = {
  accept: 'accepted',
  'request-information': 'needs-information',
  decline: 'declined',
};

type Running = RunningAction<StoredItemAction>;

export class ItemActions extends ActionRunner<StoredItemAction> {
  private readonly reviews: ReviewService;
  readonly store: RecordStore<StoredItemAction>;

  constructor(ctx: AppContext, reviews: ReviewService, now: () => Date = () => new Date()) {
    super(ctx, now);
    this.reviews = reviews;
    this.store = new RecordStore<StoredItemAction>(path.join(ctx.config.dataDir, 'state', 'review-actions'));
  }

  /**
   * Check the action, write its record and start it. Resolves with the record as acknowledged and
   * a promise of its end (which never rejects); a refusal rejects with its problem, nothing stored.
   */
  async start(
    kind: SubmissionKind,
    code: string,
    action: ItemActionName,
    body: AdminActionBody,
    actor: ReviewActor,
  ): Promise<{ record: StoredItemAction; finished: Promise<void> }> {
    await this.resumed;
    this.refuseWhileStopping();
    const busy = this.running.get(code);
    if (busy && busy.record.state === 'running') throw this.conflict(busy.record);
    const another = `${code} already has an action being started. One action per item at a time: wait until it has finished, then ask again.`;
    return this.reserving(code, another, async () => {
      await this.reviews.check(kind, code, action, body, actor);
      const { record: item } = await this.reviews.get(kind, code);
      const startedAtUtc = this.stamp();
      const record = startItemAction({
        actionId: itemActionId(action, startedAtUtc, randomBytes(4).toString('hex')),
        kind,
        trackingCode: code,
        action,
        actor: actor.label,
        body,
        startedAtUtc,
        status: item.status,
      });
      // Durable before it is acknowledged: a stop from here on resumes it.
      await this.store.create(record.actionId, record);
      const finished = this.launch(record, actor);
      return { record: this.running.get(code)?.record ?? record, finished };
    });
  }

  private conflict(running: StoredItemAction): ProblemError {
    const where = itemActionPath(running.kind, running.trackingCode, running.actionId);
    return this.conflictWith(runningItemActionConflict(running), running, where);
  }

  /** Run the action in the background; the returned promise never rejects. */
  private launch(record: StoredItemAction, actor: ReviewActor): Promise<void> {
    const entry: Running = { record, finished: Promise.resolve() };
    this.running.set(record.trackingCode, entry);
    entry.finished = this.run(entry, actor)
      .catch(() => undefined)
      .finally(() => {
        if (this.running.get(record.trackingCode) === entry) this.running.delete(record.trackingCode);
      });
    return entry.finished;
  }

  private async write(record: StoredItemAction): Promise<void> {
    await this.store.update(record.actionId, () => record);
  }

  private async run(entry: Running, actor: ReviewActor): Promise<void> {
    const a = entry.record;
    const instance = itemActionPath(a.kind, a.trackingCode, a.actionId);
    let lastWrite = 0;
    let writing: Promise<void> = Promise.resolve();
    const progress = (p: { step: string; done: number; total: number }) => {
      entry.record = progressItemAction(entry.record, p);
      if (Date.now() - lastWrite < WRITE_EVERY_MS) return;
      lastWrite = Date.now();
      const snapshot = entry.record;
      writing = writing.then(() => this.write(snapshot)).catch(() => undefined);
    };
    try {
      const { record: item } = await this.reviews.act(a.kind, a.trackingCode, a.action, a.body, actor, { progress });
      entry.record = completeItemAction(entry.record, item.status, this.stamp());
    } catch (err) {
      const problem =
        err instanceof ProblemError
          ? problemBody(this.ctx.config.publicBaseUrl, err.problem, instance, err.message, err.extras)
          : problemBody(
              this.ctx.config.publicBaseUrl,
              'conflict',
              instance,
              `The action could not be completed and nothing was changed: ${(err as Error).message}`,
            );
      entry.record = failItemAction(entry.record, problem, this.stamp());
    }
    await writing;
    await this.write(entry.record);
  }

  /**
   * Resume, on start, every action a stop left running: one whose item the review log shows acted
   * on since the action started is completed as it stands; any other runs again.
   */
  resume(log: (line: string) => void = () => undefined): Promise<void> {
    this.resumed = (async () => {
      const open: StoredItemAction[] = [];
      for await (const a of this.store.all()) if (a.state === 'running') open.push(a);
      open.sort((a, b) => a.startedAtUtc.localeCompare(b.startedAtUtc));
      for (const a of open) {
        const at = this.stamp();
        const again = resumeItemAction(a, at);
        const review = await this.reviews.reviews.get(a.trackingCode).catch(() => null);
        const { record: item } = await this.reviews.get(a.kind, a.trackingCode).catch(() => ({ record: null }));
        const logged = (review?.actions ?? []).some(
          (x) =>
            x.atUtc >= a.startedAtUtc &&
            (x.action === a.action || (a.action === 'accept' && x.action === 'merge')) &&
            x.actor === a.actor,
        );
        if (item && logged && item.status === TARGET[a.action]) {
          await this.write(completeItemAction(again, item.status, at));
          continue;
        }
        if (this.running.has(a.trackingCode) || !item) {
          await this.write(
            failItemAction(
              again,
              problemBody(
                this.ctx.config.publicBaseUrl,
                'conflict',
                itemActionPath(a.kind, a.trackingCode, a.actionId),
                item
                  ? 'Another action on the item was resumed first; this one was not resumed.'
                  : 'The item is gone; the action was not resumed.',
              ),
              at,
            ),
          );
          continue;
        }
        await this.write(again);
        log(`resuming the ${a.action} of ${a.trackingCode} (${a.actionId})`);
        // The key that asked is not kept; its label is, and that is what the item records.
        void this.launch(again, { label: a.actor, operatorLabeled: isOperatorLabel(a.actor) });
      }
    })().catch((err: unknown) => log(`review actions could not be resumed: ${(err as Error).message}`));
    return this.resumed;
  }

  /** The action as it stands (the live record while it runs), when it is this item's. */
  async get(kind: SubmissionKind, code: string, actionId: string): Promise<StoredItemAction | null> {
    const live = this.running.get(code);
    if (live && live.record.actionId === actionId) return live.record;
    if (!ITEM_ACTION_ID_PATTERN.test(actionId)) return null;
    const stored = await this.store.get(actionId);
    return stored && stored.trackingCode === code && stored.kind === kind ? stored : null;
  }

  /** The item's running action, if any. */
  current(code: string): StoredItemAction | null {
    return this.running.get(code)?.record ?? null;
  }
}
