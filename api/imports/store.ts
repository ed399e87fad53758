/**
 * What the archive keeps about bulk imports (state/import-batches/, one document per record):
 * each submitted item (its batch, item key, tracking code, probable duplicate) and each batch's
 * latest run summary, and each action an editor asked for on a batch (actions/, api/imports/actions.ts).
 * The contributions themselves live in the intake store like any other.
 */
import { createHash } from 'node:crypto';
import path from 'node:path';
import { RecordExistsError, RecordStore } from '../storage/record-store.ts';
import type { DuplicateMatch, FactSource, ImportSummary } from '../../src/schemas/imports.ts';
import type { StoredBatchAction } from '../../src/domain/batch-actions.ts';

export interface StoredBatchItem {
  recordVersion: 1;
  batchId: string;
  itemKey: string;
  trackingCode: string;
  duplicateOf: string | null;
  /** What matched the probable duplicate (absent on items stored before it was recorded). */
  duplicateMatch?: DuplicateMatch | null;
  /** Where the work's facts came from (absent on items stored before it was recorded). */
  factsFrom?: FactSource | null;
  submittedAtUtc: string;
}

/** A fact a batch action recorded for one of its works: the correction report it made and accepted. */
export interface StoredBatchFact {
  recordVersion: 1;
  batchId: string;
  /** The batch item whose work the fact is about. */
  itemKey: string;
  /** The correction report. */
  trackingCode: string;
  field: string;
  value: string;
  person: string | null;
  actionId: string;
  createdAtUtc: string;
}

export interface StoredBatch {
  recordVersion: 1;
  batchId: string;
  title: string;
  createdAtUtc: string;
  lastRun: ImportSummary | null;
}

const itemId = (batchId: string, itemKey: string) => `${batchId}.${itemKey}`.replace(/[^A-Za-z0-9._-]/g, '_');

export class ImportStore {
  readonly items: RecordStore<StoredBatchItem>;
  readonly batches: RecordStore<StoredBatch>;
  readonly actions: RecordStore<StoredBatchAction>;
  /** Facts recorded for batches (record-facts): each one's correction report. */
  readonly facts: RecordStore<StoredBatchFact>;
  /** Batches known to exist (a batch is never removed). */
  private readonly known = new Set<string>();

  constructor(dataDir: string) {
    const dir = path.join(dataDir, 'state', 'import-batches');
    this.items = new RecordStore(path.join(dir, 'items'));
    this.batches = new RecordStore(path.join(dir, 'batches'));
    this.actions = new RecordStore(path.join(dir, 'actions'));
    this.facts = new RecordStore(path.join(dir, 'facts'));
  }

  /** The id of a batch's fact for one item: one report per item, field and value (a resumed action finds it). */
  static factId(batchId: string, itemKey: string, field: string, value: string, person: string | null): string {
    const tail = createHash('sha256')
      .update(`${field}\0${value}\0${person ?? ''}`)
      .digest('hex')
      .slice(0, 16);
    return `${batchId}.${itemKey}.${field}.${tail}`.replace(/[^A-Za-z0-9._-]/g, '_');
  }

  /** The batch's recorded facts, oldest first. */
  async factsOf(batchId: string): Promise<StoredBatchFact[]> {
    const out: StoredBatchFact[] = [];
    for await (const f of this.facts.all()) if (f.batchId === batchId) out.push(f);
    return out.sort((a, b) => a.createdAtUtc.localeCompare(b.createdAtUtc) || a.itemKey.localeCompare(b.itemKey));
  }

  async ensureBatch(batchId: string, title: string, now: string): Promise<void> {
    // Every item of a run names its batch: a read first, so only the first writes (a refused
    // create still writes and syncs its temporary file, which cost every item two fsyncs).
    if (this.known.has(batchId) || (await this.batches.get(batchId))) {
      this.known.add(batchId);
      return;
    }
    try {
      await this.batches.create(batchId, { recordVersion: 1, batchId, title, createdAtUtc: now, lastRun: null });
    } catch (err) {
      if (!(err instanceof RecordExistsError)) throw err;
    }
  }

  /** Record a submitted item once; a replay finds the first record and keeps it. */
  async recordItem(item: StoredBatchItem): Promise<StoredBatchItem> {
    const id = itemId(item.batchId, item.itemKey);
    try {
      await this.items.create(id, item);
      return item;
    } catch (err) {
      if (!(err instanceof RecordExistsError)) throw err;
      const current = await this.items.get(id);
      if (current && current.trackingCode === item.trackingCode) return current;
      // The item was submitted again with new content (a changed file): the newest submission is the item.
      return (await this.items.update(id, () => item)) ?? item;
    }
  }

  async setSummary(summary: ImportSummary): Promise<void> {
    await this.ensureBatch(summary.batchId, summary.title, summary.finishedAtUtc);
    await this.batches.update(summary.batchId, (b) => ({ ...b, title: summary.title, lastRun: summary }));
  }

  async listBatches(): Promise<StoredBatch[]> {
    const out: StoredBatch[] = [];
    for await (const b of this.batches.all()) out.push(b);
    return out.sort((a, b) => a.batchId.localeCompare(b.batchId));
  }

  async getBatch(batchId: string): Promise<StoredBatch | null> {
    return /^[a-z0-9][a-z0-9._-]{2,79}$/.test(batchId) ? this.batches.get(batchId) : null;
  }

  /** The batch's items, in item-key order (bounded by the batch's size: an admin page, not a request-thread path for readers). */
  async itemsOf(batchId: string): Promise<StoredBatchItem[]> {
    const out: StoredBatchItem[] = [];
    for await (const i of this.items.all()) if (i.batchId === batchId) out.push(i);
    return out.sort((a, b) => a.itemKey.localeCompare(b.itemKey, 'en', { numeric: true }));
  }
}
