/**
 * The review queue: an in-memory index (src/domain/review/queue.ts) of every submission and of
 * other sources' items (pull requests people opened on GitHub: api/forge/pull-requests.ts), paged
 * and counted by status. Every write of a submission keeps the index current (this process is the
 * only writer of its data folder); what was stored before is loaded once, on first use.
 */
import type { ReviewCore, Stored } from './core.ts';
import { QueueIndex, queueEntryOf, type QueueEntry, type QueueFilter } from '../../src/domain/review/queue.ts';

export interface QueueSource {
  all(): AsyncIterable<QueueEntry>;
  watch(onWrite: (entry: QueueEntry) => void): void;
}

export class ReviewQueue {
  private readonly core: ReviewCore;
  private readonly index = new QueueIndex();
  private loaded: Promise<void> | null = null;
  private readonly sources: { all(): AsyncIterable<QueueEntry> }[] = [];

  constructor(core: ReviewCore) {
    this.core = core;
    const onWrite = (_id: string, value: Stored) => this.index.put(queueEntryOf(value));
    core.intake.contributions.watch(onWrite);
    core.intake.correctionReports.watch(onWrite);
  }

  /** Read every stored submission once into the queue index; writes seen meanwhile win. */
  load(): Promise<void> {
    this.loaded ??= (async () => {
      for (const kind of ['contribution', 'correction-report'] as const) {
        for await (const r of this.core.store(kind).all()) this.index.putIfAbsent(queueEntryOf(r));
      }
      for (const source of this.sources) for await (const e of source.all()) this.index.putIfAbsent(e);
    })();
    return this.loaded;
  }

  /** More items for the queue: loaded with it, kept current by their writes. */
  addSource(source: QueueSource): void {
    this.sources.push(source);
    source.watch((e) => this.index.put(e));
  }

  /** Open new-work items, oldest first, that would create the work `slug` (but for `except`). */
  async claimants(slug: string, except: string): Promise<QueueEntry[]> {
    await this.load();
    return this.index.claimants(slug, except);
  }

  /** One page of the queue (open items by default), oldest first, with per-status counts. */
  async page(
    filter: QueueFilter,
    page: number,
    pageSize: number,
  ): Promise<{ items: QueueEntry[]; total: number; counts: Record<string, number> }> {
    await this.load();
    return { ...this.index.page(filter, page, pageSize), counts: this.index.counts() };
  }
}
