/**
 * Durable intake of contributions and correction reports over RecordStore (one lowdb document
 * per record, written temp -> fsync -> link/rename -> fsync dir; docs/decisions/0015-state-store.md). A promise
 * resolved here means the record is on disk.
 *
 * Idempotency without a lock: the idempotency record (key hash -> content hash, tracking code,
 * receive time) is created exclusively first, then the submission. Whoever finds the
 * idempotency record but no submission -- a concurrent duplicate, or a retry after a crash
 * between the two writes -- writes the submission itself from that record. Both writers produce
 * the same record and exclusive create keeps exactly one, so neither has to wait for the other.
 */
import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { RecordExistsError, RecordStore } from '../storage/record-store.ts';
import { fsyncDir, writeTempFile } from '../storage/durable-json-file.ts';
import { deriveResponseToken, responseTokenSha256 } from '../../src/domain/contributions/response-token.ts';
import type { IdempotencyRecord, MusicContributionInput, StoredContribution } from '../../src/schemas/contribution.ts';
import type { CorrectionReportInput, StoredCorrectionReport } from '../../src/schemas/correction.ts';
import { contentSha256, keySha256 } from '../../src/domain/contributions/content-hash.ts';
import { generateTrackingCode } from '../../src/domain/contributions/tracking-code.ts';
import { newStoredContribution, newStoredCorrectionReport } from '../../src/domain/contributions/tracking.ts';

export type ContributionOutcome =
  | { kind: 'created'; record: StoredContribution; responseToken: string }
  | { kind: 'replayed'; record: StoredContribution; responseToken: string }
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
    /** The server secret response tokens are derived with (state/secrets/response-token.key, mode 0600). */
    responseTokenSecret: path.join(state, 'secrets', 'response-token.key'),
  };
}

/**
 * The response-token secret: read, or made once (32 random bytes, hex) and written durably with an
 * exclusive create, so concurrent first submissions agree on one secret. It lives under state/,
 * so a backup carries it and restored submissions keep their tokens.
 */
async function loadOrCreateSecret(file: string): Promise<Buffer> {
  const read = async () => {
    const hex = (await fs.readFile(file, 'utf8')).trim();
    if (!/^[0-9a-f]{64,}$/.test(hex))
      throw new Error(
        `${file} is not a response-token secret (64+ hexadecimal characters); remove it to make a new one (earlier response tokens then stop matching until a replay re-issues them)`,
      );
    return Buffer.from(hex, 'hex');
  };
  try {
    return await read();
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
  }
  await fs.mkdir(path.dirname(file), { recursive: true, mode: 0o700 });
  const temp = await writeTempFile(file, `${randomBytes(32).toString('hex')}\n`);
  try {
    await fs.chmod(temp, 0o600);
    await fs.link(temp, file);
    await fsyncDir(path.dirname(file));
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'EEXIST') throw err;
  } finally {
    await fs.rm(temp, { force: true });
  }
  return read();
}

export class IntakeStore {
  readonly contributions: RecordStore<StoredContribution>;
  readonly correctionReports: RecordStore<StoredCorrectionReport>;
  readonly idempotency: RecordStore<IdempotencyRecord>;
  private readonly now: () => Date;
  private readonly newCode: (kind: 'contribution' | 'correction-report') => string;
  private readonly secretFile: string;
  private secret: Promise<Buffer> | null = null;

  constructor(dataDir: string, options: IntakeStoreOptions = {}) {
    const dirs = intakeDirs(dataDir);
    this.secretFile = dirs.responseTokenSecret;
    this.contributions = new RecordStore(dirs.contributions);
    this.correctionReports = new RecordStore(dirs.correctionReports);
    this.idempotency = new RecordStore(dirs.idempotency);
    this.now = options.now ?? (() => new Date());
    this.newCode = options.newCode ?? generateTrackingCode;
  }

  /**
   * The response token of a submission: derived from its tracking code with the server secret, so
   * it is the same for every answer to the same submission and is never stored (records keep its
   * SHA-256). Only the routes that answer a submission's own POST hand it out.
   */
  async responseToken(trackingCode: string): Promise<string> {
    return deriveResponseToken(await this.secretBytes(), trackingCode);
  }

  private async secretBytes(): Promise<Buffer> {
    this.secret ??= loadOrCreateSecret(this.secretFile);
    try {
      return await this.secret;
    } catch (err) {
      this.secret = null; // a failed read is retried by the next submission
      throw err;
    }
  }

  /** Store a validated contribution once per idempotency key. */
  async submitContribution(submission: MusicContributionInput): Promise<ContributionOutcome> {
    const keyHash = keySha256(submission.idempotencyKey);
    const contentHash = contentSha256(submission);
    for (;;) {
      const existing = await this.idempotency.get(keyHash);
      if (existing) return this.completeFrom(existing, submission, contentHash);
      // The secret before the claim: a claim is never left behind for want of it.
      await this.secretBytes();
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
      const responseToken = await this.responseToken(trackingCode);
      const record = newStoredContribution(
        submission,
        trackingCode,
        claim.receivedAtUtc,
        contentHash,
        responseTokenSha256(responseToken),
      );
      try {
        await this.contributions.create(trackingCode, record);
        return { kind: 'created', record, responseToken };
      } catch (err) {
        // A duplicate completed our submission from the claim while we were writing it.
        if (err instanceof RecordExistsError)
          return { kind: 'created', record: (await this.contributions.get(trackingCode)) ?? record, responseToken };
        throw err;
      }
    }
  }

  /** The key is taken: answer with its submission, writing that first if nobody has yet. */
  private async completeFrom(
    claim: IdempotencyRecord,
    submission: MusicContributionInput,
    contentHash: string,
  ): Promise<ContributionOutcome> {
    if (claim.contentSha256 !== contentHash) return { kind: 'conflict', trackingCode: claim.trackingCode };
    const responseToken = await this.responseToken(claim.trackingCode);
    const tokenHash = responseTokenSha256(responseToken);
    const stored = await this.contributions.get(claim.trackingCode);
    if (stored) return { kind: 'replayed', record: await this.withTokenHash(stored, tokenHash), responseToken };
    const record = newStoredContribution(submission, claim.trackingCode, claim.receivedAtUtc, contentHash, tokenHash);
    try {
      await this.contributions.create(claim.trackingCode, record);
      return { kind: 'replayed', record, responseToken };
    } catch (err) {
      if (!(err instanceof RecordExistsError)) throw err;
      return { kind: 'replayed', record: (await this.contributions.get(claim.trackingCode)) ?? record, responseToken };
    }
  }

  /**
   * A replay proves the submitter (key and identical content): a record stored before response
   * tokens existed, or under another secret, gets the digest of the token this replay answers.
   */
  private async withTokenHash(stored: StoredContribution, tokenHash: string): Promise<StoredContribution> {
    if (stored.responseTokenSha256 === tokenHash) return stored;
    return (
      (await this.contributions.update(stored.trackingCode, (current) => ({
        ...current,
        responseTokenSha256: tokenHash,
      }))) ?? stored
    );
  }

  /** A fresh code not in use; with 79 random bits a retry is practically never needed. */
  private async unusedCode(
    kind: 'contribution' | 'correction-report',
    store: { get(id: string): Promise<unknown> },
  ): Promise<string> {
    for (;;) {
      const code = this.newCode(kind);
      if ((await store.get(code)) === null) return code;
    }
  }

  async getContribution(trackingCode: string): Promise<StoredContribution | null> {
    return this.contributions.get(trackingCode);
  }

  /** Store a validated report under a fresh code (its response token: `responseToken(code)`). */
  async submitCorrectionReport(report: CorrectionReportInput): Promise<StoredCorrectionReport> {
    for (;;) {
      const trackingCode = await this.unusedCode('correction-report', this.correctionReports);
      const record = newStoredCorrectionReport(
        report,
        trackingCode,
        this.now().toISOString(),
        responseTokenSha256(await this.responseToken(trackingCode)),
      );
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
