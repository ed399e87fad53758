/**
 * Apply markers: one durable file per acknowledged apply (ARCHIVE_DATA_DIR/state/applying/<code>.json),
 * written before the item shows "applying" and removed last, so an apply in progress when the
 * server stops is found and resumed on start. The marker also records main before the merge and
 * the merge commit, which is what a resume needs to finish or redo it.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { fsyncDir, writeTempFile } from '../storage/durable-json-file.ts';
import type { ReviewActor } from './core.ts';
import type { SubmissionKind } from '../../src/schemas/contribution.ts';
import type { AdminActionBody } from '../../src/schemas/review.ts';

/** An acknowledged apply not yet finished. */
export interface PendingApply {
  recordVersion: 1;
  trackingCode: string;
  kind: SubmissionKind;
  body: AdminActionBody;
  /** Who asked for the apply (recorded in the merge commit and history when a resume finishes it). */
  actor: ReviewActor;
  requestedAtUtc: string;
  /** main just before the merge (set before merging), and the merge commit once merged. */
  before: string | null;
  merged: string | null;
  /**
   * The review batch the apply was requested with: the batch's applies land on main as one
   * commit (apply.ts). Absent for a single apply; a resumed apply runs alone.
   */
  group?: string | null;
}

export class ApplyMarkers {
  readonly dir: string;

  constructor(dataDir: string) {
    this.dir = path.join(dataDir, 'state', 'applying');
  }

  async write(pending: PendingApply): Promise<void> {
    await fs.mkdir(this.dir, { recursive: true });
    const target = path.join(this.dir, `${pending.trackingCode}.json`);
    await fs.rename(await writeTempFile(target, `${JSON.stringify(pending)}\n`), target);
    await fsyncDir(this.dir);
  }

  async drop(code: string): Promise<void> {
    await fs.rm(path.join(this.dir, `${code}.json`), { force: true });
    await fsyncDir(this.dir).catch(() => undefined);
  }

  /** Every marker's file name, sorted (temporary and hidden files left out). */
  async names(): Promise<string[]> {
    const names = await fs.readdir(this.dir).catch(() => [] as string[]);
    return names.sort().filter((name) => name.endsWith('.json') && !name.startsWith('.'));
  }

  async read(name: string): Promise<PendingApply> {
    return JSON.parse(await fs.readFile(path.join(this.dir, name), 'utf8')) as PendingApply;
  }
}
