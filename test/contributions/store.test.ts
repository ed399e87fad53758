/** The durable intake store: exactly one record per idempotency key, and recovery after a crash between its two writes. */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { IntakeStore, intakeDirs } from '../../api/contributions/store.ts';
import { satieTemplate } from '../helpers/filled-template.ts';
import { contentSha256, keySha256 } from '../../src/domain/contributions/content-hash.ts';
import type { StoredContribution } from '../../src/schemas/contribution.ts';

const dirs: string[] = [];
function dataDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pdma-intake-'));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const submission = (key = 'store-test-key-1') => ({
  ...satieTemplate(),
  idempotencyKey: key,
});

async function all<T extends object>(iter: AsyncGenerator<T>): Promise<T[]> {
  const out: T[] = [];
  for await (const x of iter) out.push(x);
  return out;
}

describe('IntakeStore', () => {
  it('makes exactly one record out of 40 concurrent identical submissions', async () => {
    const dir = dataDir();
    const store = new IntakeStore(dir);
    const outcomes = await Promise.all(Array.from({ length: 40 }, () => store.submitContribution(submission())));
    const codes = new Set(outcomes.map((o) => (o.kind === 'conflict' ? 'conflict' : o.record.trackingCode)));
    expect(codes.size).toBe(1);
    expect(outcomes.filter((o) => o.kind === 'created')).toHaveLength(1);
    expect(await all(store.contributions.all())).toHaveLength(1);
    expect(await all(store.idempotency.all())).toHaveLength(1);
    // No temporary files left behind in any shard.
    const leftovers = readdirSync(intakeDirs(dir).contributions, { recursive: true }).filter((f) =>
      String(f).endsWith('.tmp'),
    );
    expect(leftovers).toEqual([]);
  });

  it('answers a conflict for the same key with changed content, and stores nothing new', async () => {
    const store = new IntakeStore(dataDir());
    const first = await store.submitContribution(submission());
    const changed = { ...submission(), changeSummary: 'Something else.' };
    const second = await store.submitContribution(changed);
    expect(second).toEqual({
      kind: 'conflict',
      trackingCode: first.kind === 'created' ? first.record.trackingCode : '',
    });
    expect(await all(store.contributions.all())).toHaveLength(1);
  });

  it('completes a submission whose idempotency record was written just before a crash', async () => {
    const dir = dataDir();
    const body = submission('crash-between-writes');
    // The state a crash leaves between the two writes: the claim, no submission.
    const store = new IntakeStore(dir);
    await store.idempotency.create(keySha256(body.idempotencyKey), {
      recordVersion: 1,
      keySha256: keySha256(body.idempotencyKey),
      contentSha256: contentSha256(body),
      trackingCode: 'C-2345-6789-ABCD-EFGH',
      receivedAtUtc: '2026-01-01T00:00:00.000Z',
    });
    expect(await store.getContribution('C-2345-6789-ABCD-EFGH')).toBeNull();
    const retried = await new IntakeStore(dir).submitContribution(body);
    expect(retried.kind).toBe('replayed');
    const stored = (await store.getContribution('C-2345-6789-ABCD-EFGH')) as StoredContribution;
    expect(stored).toMatchObject({
      trackingCode: 'C-2345-6789-ABCD-EFGH',
      status: 'pending',
      receivedAtUtc: '2026-01-01T00:00:00.000Z',
      submission: body,
    });
    expect(await all(store.contributions.all())).toHaveLength(1);
  });

  it('draws another code when a drawn one is taken', async () => {
    const codes = ['R-2222-2222-2222-2222', 'R-2222-2222-2222-2222', 'R-3333-3333-3333-3333'];
    const store = new IntakeStore(dataDir(), { newCode: () => codes.shift()! });
    const report = {
      targetType: 'work',
      fieldName: 'year',
      proposedValue: '1888',
      rationale: 'r',
      reporterName: 'n',
      reporterKind: 'Human' as const,
    };
    expect((await store.submitCorrectionReport(report)).trackingCode).toBe('R-2222-2222-2222-2222');
    expect((await store.submitCorrectionReport(report)).trackingCode).toBe('R-3333-3333-3333-3333');
  });
});
