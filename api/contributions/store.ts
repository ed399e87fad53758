/**
 * Durable intake of contributions and correction reports over RecordStore (one lowdb document
 * per record, written temp -> fsync -> link/rename -> fsync dir; DESIGN.md 2.8). A promise
 * resolved here means the record is on disk.
 *
 * Idempotency without a lock: the idempotency record (key hash -> content hash, tracking code,
 * receive time) is created exclusively first, then the submission. Whoever finds the
 * idempotency record but no submission -- a concurrent duplicate, or a retry after a crash
 * between the two writes -- writes the submission itself from that record. Both writers produce
 * the same record and exclusive create keeps exactly one, so neither has to wait for the other.
 */
import path from 'node:path';
import { RecordExistsError, RecordStore } from '../storage/record-store.ts';
import type { IdempotencyRecord, MusicContributionInput, StoredContribution } from '../../src/schemas/contribution.ts';
import type { CorrectionReportInput, StoredCorrectionReport } from '../../src/schemas/correction.ts';
import { contentSha256, keySha256 } from '../../src/domain/contributions/content-hash.ts';
import { generateTrackingCode } from '../../src/domain/contributions/tracking-code.ts';
import { newStoredContribution, newStoredCorrectionReport } from '../../src/domain/contributions/tracking.ts';

export type ContributionOutcome =
  | { kind: 'created'; record: StoredContribution }
  | { kind: 'replayed'; record: StoredContribution }
  | { kind: 'conflict'; trackingCode: string };

export interface IntakeStoreOptions {
  now?: () => Date;
  /** Injectable for tests of the (practically impossible) code collision. */
  newCode?: (kind: 'contribution' | 'correction-report') => string;
}

/** Where intake state lives under ARCHIVE_DATA_DIR. */
export function intakeDirs(dataDir: string) {
  const state = path.join(dataDir, 'state');
  return {
    contributions: path.join(state, 'contributions'),
    correctionReports: path.join(state, 'correction-reports'),
    idempotency: path.join(state, 'contribution-idempotency'),
  };
}

export class IntakeStore {
  readonly contributions: RecordStore<StoredContribution>;
  readonly correctionReports: RecordStore<StoredCorrectionReport>;
  readonly idempotency: RecordStore<IdempotencyRecord>;
  private readonly now: () => Date;
  private readonly newCode: (kind: 'contribution' | 'correction-report') => string;

  constructor(dataDir: string, options: IntakeStoreOptions = {}) {
    const dirs = intakeDirs(dataDir);
    this.contributions = new RecordStore(dirs.contributions);
    this.correctionReports = new RecordStore(dirs.correctionReports);
    this.idempotency = new RecordStore(dirs.idempotency);
    this.now = options.now ?? (() => new Date());
    this.newCode = options.newCode ?? generateTrackingCode;
  }

  /** Store a validated contribution once per idempotency key. */
  async submitContribution(submission: MusicContributionInput): Promise<ContributionOutcome> {
    const keyHash = keySha256(submission.idempotencyKey);
    const contentHash = contentSha256(submission);
    for (;;) {
      const existing = await this.idempotency.get(keyHash);
      if (existing) return this.completeFrom(existing, submission, contentHash);
      const trackingCode = await this.unusedCode('contribution', this.contributions);
      const claim: IdempotencyRecord = {
        recordVersion: 1,
        keySha256: keyHash,
        contentSha256: contentHash,
        trackingCode,
        receivedAtUtc: this.now().toISOString(),
      };
      try {
        await this.idempotency.create(keyHash, claim);
      } catch (err) {
        if (err instanceof RecordExistsError) continue; // a concurrent duplicate claimed the key first
        throw err;
      }
      const record = newStoredContribution(submission, trackingCode, claim.receivedAtUtc, contentHash);
      try {
        await this.contributions.create(trackingCode, record);
        return { kind: 'created', record };
      } catch (err) {
        // A duplicate completed our submission from the claim while we were writing it.
        if (err instanceof RecordExistsError) return { kind: 'created', record: (await this.contributions.get(trackingCode)) ?? record };
        throw err;
      }
    }
  }

  /** The key is taken: answer with its submission, writing that first if nobody has yet. */
  private async completeFrom(claim: IdempotencyRecord, submission: MusicContributionInput, contentHash: string): Promise<ContributionOutcome> {
    if (claim.contentSha256 !== contentHash) return { kind: 'conflict', trackingCode: claim.trackingCode };
    const stored = await this.contributions.get(claim.trackingCode);
    if (stored) return { kind: 'replayed', record: stored };
    const record = newStoredContribution(submission, claim.trackingCode, claim.receivedAtUtc, contentHash);
    try {
      await this.contributions.create(claim.trackingCode, record);
      return { kind: 'replayed', record };
    } catch (err) {
      if (!(err instanceof RecordExistsError)) throw err;
      return { kind: 'replayed', record: (await this.contributions.get(claim.trackingCode)) ?? record };
    }
  }

  /** A fresh code not in use; with 79 random bits a retry is practically never needed. */
  private async unusedCode(kind: 'contribution' | 'correction-report', store: { get(id: string): Promise<unknown> }): Promise<string> {
    for (;;) {
      const code = this.newCode(kind);
      if ((await store.get(code)) === null) return code;
    }
  }

  async getContribution(trackingCode: string): Promise<StoredContribution | null> {
    return this.contributions.get(trackingCode);
  }

  /** Store a validated report under a fresh code. */
  async submitCorrectionReport(report: CorrectionReportInput): Promise<StoredCorrectionReport> {
    for (;;) {
      const trackingCode = await this.unusedCode('correction-report', this.correctionReports);
      const record = newStoredCorrectionReport(report, trackingCode, this.now().toISOString());
      try {
        await this.correctionReports.create(trackingCode, record);
        return record;
      } catch (err) {
        if (!(err instanceof RecordExistsError)) throw err;
      }
    }
  }

  async getCorrectionReport(trackingCode: string): Promise<StoredCorrectionReport | null> {
    return this.correctionReports.get(trackingCode);
  }
}
