/**
 * Batch actions run in the background (docs/imports.md, "Batch actions run in the background").
 * Accepting a whole corpus fetches and checks every work (minutes to hours), far longer than a
 * connection may stay silent, so a batch action is acknowledged once its record is durable and
 * then runs here, item after item, while the tracking resource
 * (`GET /api/v1/admin/batches/{batchId}/actions/{actionId}`) shows its progress.
 *
 * - One action per batch at a time: a second one is refused (409 naming the running one) until it
 *   has completed. The check and the reservation happen before any await, in this one process.
 * - Each item's accept, decline or merge is its own durable step in the review service; the action
 *   records the item's outcome after it (the record is written at most once a second while items
 *   go by, and always at the start, at the end and at a stop). An accept's items run several at
 *   a time (their fetches and checks in the worker pool), so two batches can be accepted side
 *   by side and neither waits for the other's items, nor for an apply's build (an accept builds
 *   its proposal on a snapshot of main, without the content repository's lock).
 * - A stop (SIGTERM drain) lets the item in progress finish and leaves the action `running` on
 *   disk; so does a kill -9, at worst with the last outcomes not yet written. On start every
 *   running action resumes: an item already in the state the action leads to counts as done, the
 *   others are acted on. Nothing acknowledged is lost and no item is acted on twice.
 * - Apply lands every chosen item as one change (api/review/apply.ts): its outcomes come together.
 */
import { randomBytes } from 'node:crypto';
import type { AppContext } from '../context.ts';
import { ProblemError, problemBody } from '../http/problem.ts';
import { isOperatorLabel } from '../http/auth.ts';
import type { ReviewActor } from '../review/service.ts';
import { ActionRunner, type RunningAction } from '../review/action-runner.ts';
import type { BatchAction, BatchService, BatchItemResult } from './service.ts';
import type { ImportStore } from './store.ts';
import type { BatchActionBody } from '../../src/schemas/imports.ts';
import {
  BATCH_ACTION_ID_PATTERN,
  batchActionId,
  batchActionPath,
  failBatchAction,
  recordItemOutcome,
  resumeBatchAction,
  runningActionConflict,
  startBatchAction,
  waitingItems,
  type StoredBatchAction,
} from '../../src/domain/batch-actions.ts';

/** How often, at most, a running action's record is written while items go by. */
const WRITE_EVERY_MS = 1000;

type Running = RunningAction<StoredBatchAction>;

export class BatchActions extends ActionRunner<StoredBatchAction> {
  private readonly service: BatchService;
  private readonly store: ImportStore;

  constructor(ctx: AppContext, service: BatchService, now: () => Date = () => new Date()) {
    super(ctx, now);
    this.service = service;
    this.store = service.store;
  }

  /**
   * Start an action: the items are chosen now (a request error is a 400 and nothing starts), the
   * record is written, and the run begins. Resolves with the record as acknowledged and a promise
   * of the run's end.
   */
  async start(
    batchId: string,
    action: BatchAction,
    body: BatchActionBody,
    actor: ReviewActor,
  ): Promise<{ record: StoredBatchAction; finished: Promise<void> }> {
    await this.resumed;
    this.refuseWhileStopping();
    // An action whose last item is done says "completed" (its tracking resource too) while its end
    // is still being written: wait for that rather than refuse, since the caller did what the
    // conflict asks (wait until it has completed). Found by a fresh-clone CI run, where the second
    // accept of test/imports/batch-terms.slow.test.ts came inside that window and got a 409.
    for (let busy = this.running.get(batchId); busy; busy = this.running.get(batchId)) {
      if (busy.record.state === 'running') throw this.conflict(busy.record);
      await busy.finished;
    }
    this.refuseWhileStopping();
    const another =
      'The batch already has an action being started. One action per batch at a time: wait until it has completed, then ask again.';
    return this.reserving(batchId, another, async () => {
      const { chosen } = await this.service.plan(batchId, action, body);
      const startedAtUtc = this.stamp();
      const record = startBatchAction({
        actionId: batchActionId(action, startedAtUtc, randomBytes(4).toString('hex')),
        batchId,
        action,
        actor: actor.label,
        reviewer: body.reviewer ?? actor.label,
        note: body.note ?? null,
        approveTerms: body.approveTerms === true,
        ...(action === 'record-facts' && body.fact ? { fact: body.fact } : {}),
        startedAtUtc,
        items: chosen.map((i) => ({ trackingCode: i.trackingCode, itemKey: i.itemKey, status: i.status })),
      });
      // Durable before it is acknowledged: a stop from here on resumes it.
      await this.store.actions.create(record.actionId, record);
      const finished = this.launch(record, actor, false);
      return { record: this.running.get(batchId)?.record ?? record, finished };
    });
  }

  private conflict(running: StoredBatchAction): ProblemError {
    return this.conflictWith(
      runningActionConflict(running),
      running,
      batchActionPath(running.batchId, running.actionId),
    );
  }

  /** Run the action's waiting items in the background; the returned promise never rejects. */
  private launch(record: StoredBatchAction, actor: ReviewActor, resumed: boolean): Promise<void> {
    if (record.state !== 'running') return Promise.resolve();
    const entry: Running = { record, finished: Promise.resolve() };
    this.running.set(record.batchId, entry);
    entry.finished = this.run(entry, actor, resumed)
      .catch(async (err: unknown) => {
        const failed = failBatchAction(
          entry.record,
          problemBody(
            this.ctx.config.publicBaseUrl,
            'internal-error',
            batchActionPath(record.batchId, record.actionId),
            `The action stopped: ${(err as Error).message ?? String(err)}`,
          ),
          this.stamp(),
        );
        entry.record = failed;
        await this.write(failed).catch(() => undefined);
      })
      .finally(() => {
        if (this.running.get(record.batchId) === entry) this.running.delete(record.batchId);
      });
    return entry.finished;
  }

  private async write(record: StoredBatchAction): Promise<void> {
    await this.store.actions.update(record.actionId, () => record);
  }

  private async run(entry: Running, actor: ReviewActor, resumed: boolean): Promise<void> {
    const r0 = entry.record;
    const options = {
      actor,
      reviewer: r0.reviewer,
      note: r0.note,
      approveTerms: r0.approveTerms,
      resumed,
    };
    const outcome = async (code: string, result: BatchItemResult) => {
      entry.record = recordItemOutcome(entry.record, code, result, this.stamp());
    };
    if (r0.action === 'apply') {
      const waiting = waitingItems(r0);
      const results = await this.service.applyItems(r0.batchId, waiting, { ...options, since: r0.startedAtUtc });
      for (const item of waiting) {
        const result = results.get(item.trackingCode);
        if (result) await outcome(item.trackingCode, result);
      }
      await this.write(entry.record);
      return;
    }
    const action: Exclude<BatchAction, 'apply'> = r0.action;
    // A merge into another batch item needs that item's slug: the batch as it stands now.
    const batchItems = r0.action === 'merge' ? await this.service.items(r0.batchId) : [];
    let lastWrite = Date.now();
    let writing: Promise<void> = Promise.resolve();
    const waiting = waitingItems(r0);
    let next = 0;
    // Accepts fetch and check their files (the checks engrave in the process's worker pool), so
    // several run side by side: twice the pool's workers, so fetches overlap engravings. Each
    // item's accept is its own durable step, as when they ran one after another. A batch's facts
    // are recorded one after another (a person's fact is recorded once, by the first item naming them).
    const parallel = r0.action === 'accept' ? Math.max(2, 2 * this.ctx.config.engrave.size) : 1;
    const worker = async () => {
      while (next < waiting.length) {
        // A stop lets the items in progress finish and leaves the rest for the resume on start.
        if (this.stopping) return;
        const item = waiting[next++]!;
        const result =
          action === 'record-facts'
            ? await this.service.recordFact(r0.batchId, r0.actionId, item, r0.fact!, options)
            : await this.service.actOne(action, item, batchItems, options);
        await outcome(item.trackingCode, result);
        if (Date.now() - lastWrite >= WRITE_EVERY_MS || entry.record.state !== 'running') {
          lastWrite = Date.now();
          writing = writing.then(() => this.write(entry.record));
          await writing;
        }
      }
    };
    await Promise.all(Array.from({ length: Math.min(parallel, waiting.length) }, worker));
    await writing;
    await this.write(entry.record);
  }

  /**
   * Resume, on start, every action a stop left running. The actions of one batch are resumed
   * oldest first; only one per batch can be running, so a second (none is written, but a
   * hand-edited folder could hold one) is marked failed.
   */
  resume(log: (line: string) => void = () => undefined): Promise<void> {
    this.resumed = (async () => {
      const open: StoredBatchAction[] = [];
      for await (const a of this.store.actions.all()) if (a.state === 'running') open.push(a);
      open.sort((a, b) => a.startedAtUtc.localeCompare(b.startedAtUtc));
      for (const a of open) {
        const at = this.stamp();
        if (this.running.has(a.batchId)) {
          const failed = failBatchAction(
            a,
            problemBody(
              this.ctx.config.publicBaseUrl,
              'conflict',
              batchActionPath(a.batchId, a.actionId),
              'Another action on the batch was resumed first; this one was not resumed.',
            ),
            at,
          );
          await this.write(failed);
          continue;
        }
        const again = resumeBatchAction(a, at);
        await this.write(again);
        log(
          `resuming the ${a.action} of batch ${a.batchId} (${a.actionId}): ${waitingItems(again).length} of ${a.items.length} items left`,
        );
        // The key that asked is not kept; its label is, and that is what every item records.
        void this.launch(again, { label: a.actor, operatorLabeled: isOperatorLabel(a.actor) }, true);
      }
    })().catch((err: unknown) => log(`batch actions could not be resumed: ${(err as Error).message}`));
    return this.resumed;
  }

  /** The action as it stands (the live record while it runs). */
  async get(batchId: string, actionId: string): Promise<StoredBatchAction | null> {
    const live = this.running.get(batchId);
    if (live && live.record.actionId === actionId) return live.record;
    if (!BATCH_ACTION_ID_PATTERN.test(actionId)) return null;
    const stored = await this.store.actions.get(actionId);
    return stored && stored.batchId === batchId ? stored : null;
  }

  /** The batch's actions, newest first (the live record for the running one). */
  async list(batchId: string): Promise<StoredBatchAction[]> {
    const out: StoredBatchAction[] = [];
    const live = this.running.get(batchId)?.record ?? null;
    for await (const a of this.store.actions.all()) {
      if (a.batchId !== batchId) continue;
      out.push(live && live.actionId === a.actionId ? live : a);
    }
    return out.sort((a, b) => b.startedAtUtc.localeCompare(a.startedAtUtc) || b.actionId.localeCompare(a.actionId));
  }

  /** The running action, else the newest one; null when the batch has none. */
  async latest(batchId: string): Promise<StoredBatchAction | null> {
    return this.running.get(batchId)?.record ?? (await this.list(batchId))[0] ?? null;
  }
}

/** Resolves true when `p` settles within `ms`, else false (the timer never keeps the process up). */
export function settledWithin(p: Promise<void>, ms: number): Promise<boolean> {
  if (ms <= 0) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    timer.unref();
    void p.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
