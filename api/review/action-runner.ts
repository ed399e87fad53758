/**
 * What the two runners of background actions share: ItemActions (api/review/item-actions.ts, an
 * action on one review item, keyed by tracking code) and BatchActions (api/imports/actions.ts, an
 * action on an import batch, keyed by batch id). One action per key at a time: the running ones
 * and the ones being set up (between the checks and the durable record) are held here, with the
 * stop that lets them finish and the clock that stamps them.
 */
import type { AppContext } from '../context.ts';
import { ProblemError } from '../http/problem.ts';
import { utcTimestamp } from '../../src/schemas/envelope.ts';

export interface RunningAction<R> {
  record: R;
  /** Resolves when the run ends (completed, failed, or stopped with the record still running). */
  finished: Promise<void>;
}

export abstract class ActionRunner<R> {
  protected readonly ctx: AppContext;
  /** Running actions by key. */
  protected readonly running = new Map<string, RunningAction<R>>();
  /** Keys whose action is being set up (between the checks and the record): a second one is a conflict. */
  private readonly starting = new Set<string>();
  protected stopping = false;
  protected resumed: Promise<void> = Promise.resolve();
  private readonly now: () => Date;

  constructor(ctx: AppContext, now: () => Date) {
    this.ctx = ctx;
    this.now = now;
  }

  protected stamp(): string {
    return utcTimestamp(this.now());
  }

  /** No action starts while the server stops. */
  protected refuseWhileStopping(): void {
    if (this.stopping)
      throw new ProblemError('shutting-down', 'The server is stopping; ask again once it has started.');
  }

  /** Set up `key`'s action with `setUp`; refused with `busy` (a 409) while another is being set up. */
  protected async reserving<T>(key: string, busy: string, setUp: () => Promise<T>): Promise<T> {
    if (this.starting.has(key)) throw new ProblemError('conflict', busy);
    this.starting.add(key);
    try {
      return await setUp();
    } finally {
      this.starting.delete(key);
    }
  }

  /** The 409 of a second action while `actionId` runs: `message`, and where its tracking resource is. */
  protected conflictWith(message: string, running: { actionId: string; action: string }, path: string): ProblemError {
    return new ProblemError('conflict', message, {
      runningAction: {
        actionId: running.actionId,
        action: running.action,
        href: `${this.ctx.config.publicBaseUrl}${path}`,
      },
    });
  }

  /**
   * Stop (server close): no action starts; the running ones finish (a batch's its item in
   * progress, the rest waiting for the resume on start).
   */
  async stop(): Promise<void> {
    this.stopping = true;
    await this.resumed;
    await Promise.all([...this.running.values()].map((r) => r.finished));
  }

  /** Every action in progress has ended (tests). */
  async settled(): Promise<void> {
    while (this.running.size > 0) await Promise.all([...this.running.values()].map((r) => r.finished));
  }
}
