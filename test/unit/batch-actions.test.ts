/**
 * The bookkeeping of a batch action (src/domain/batch-actions.ts): the state machine, the counts,
 * what a resume has left to do, and the tracking view.
 */
import { describe, expect, it } from 'vitest';
import {
  BATCH_ACTION_ID_PATTERN,
  batchActionBrief,
  batchActionCounts,
  batchActionId,
  batchActionProgressLine,
  batchActionView,
  batchAnswerWait,
  failBatchAction,
  recordItemOutcome,
  resumeBatchAction,
  runningActionConflict,
  startBatchAction,
  waitingItems,
  type StoredBatchAction,
} from '../../src/domain/batch-actions.ts';
import { validate } from '../../src/domain/validation.ts';
import { BatchActionView } from '../../src/schemas/imports.ts';

const T0 = '2026-11-26T22:05:01.123Z';
const problem = (detail: string) => ({
  type: 'https://archive.example/problems/conflict',
  title: 'Conflict',
  status: 409,
  detail,
  instance: '/api/v1/admin/contributions/C-2',
});

function three(): StoredBatchAction {
  return startBatchAction({
    actionId: batchActionId('accept', T0, 'ab12cd34'),
    batchId: 'openscore-lieder',
    action: 'accept',
    actor: 'alice',
    reviewer: 'Alice',
    note: null,
    approveTerms: false,
    startedAtUtc: T0,
    items: ['C-1', 'C-2', 'C-3'].map((c, n) => ({ trackingCode: c, itemKey: `lc${n}`, status: 'pending' as const })),
  });
}

describe('batch action bookkeeping', () => {
  it('names an action by what, when (UTC, seconds) and a random tail', () => {
    const id = batchActionId('accept', T0, 'AB12-cd34');
    expect(id).toBe('accept-20261126T220501Z-ab12cd34');
    expect(BATCH_ACTION_ID_PATTERN.test(id)).toBe(true);
    expect(BATCH_ACTION_ID_PATTERN.test('../accept-20261126T220501Z-ab12')).toBe(false);
  });

  it('runs until every item has its outcome, then completes at the last one', () => {
    let a = three();
    expect(a.state).toBe('running');
    expect(waitingItems(a).map((i) => i.trackingCode)).toEqual(['C-1', 'C-2', 'C-3']);
    a = recordItemOutcome(a, 'C-1', { outcome: 'done', status: 'accepted', problem: null }, '2026-11-26T22:05:02.000Z');
    a = recordItemOutcome(
      a,
      'C-2',
      { outcome: 'failed', status: 'pending', problem: problem('C-2 is declined') },
      '2026-11-26T22:05:03.000Z',
    );
    expect(a.state).toBe('running');
    expect(a.finishedAtUtc).toBeNull();
    expect(batchActionCounts(a)).toEqual({ total: 3, done: 2, actedOn: 1, failed: 1 });
    expect(waitingItems(a).map((i) => i.trackingCode)).toEqual(['C-3']);
    a = recordItemOutcome(a, 'C-3', { outcome: 'done', status: 'accepted', problem: null }, '2026-11-26T22:05:04.000Z');
    expect(a.state).toBe('completed');
    expect(a.finishedAtUtc).toBe('2026-11-26T22:05:04.000Z');
    expect(waitingItems(a)).toEqual([]);
    expect(a.items[1]).toMatchObject({ outcome: 'failed', problem: { detail: 'C-2 is declined' } });
    expect(a.items[0]).toMatchObject({ outcome: 'done', status: 'accepted', problem: null });
  });

  it('records an outcome once: a repeat, an unknown item or a finished action changes nothing', () => {
    let a = three();
    a = recordItemOutcome(a, 'C-1', { outcome: 'done', status: 'accepted', problem: null }, T0);
    const again = recordItemOutcome(a, 'C-1', { outcome: 'failed', status: 'pending', problem: problem('x') }, T0);
    expect(again).toBe(a);
    expect(recordItemOutcome(a, 'C-9', { outcome: 'done', status: 'accepted', problem: null }, T0)).toBe(a);
    const failed = failBatchAction(a, problem('the batch is gone'), '2026-11-26T22:06:00.000Z');
    expect(failed).toMatchObject({ state: 'failed', finishedAtUtc: '2026-11-26T22:06:00.000Z' });
    expect(failed.error?.detail).toBe('the batch is gone');
    // Items keep what they reached; nothing is left to do for a failed action.
    expect(failed.items.map((i) => i.outcome)).toEqual(['done', 'waiting', 'waiting']);
    expect(waitingItems(failed)).toEqual([]);
    expect(recordItemOutcome(failed, 'C-2', { outcome: 'done', status: 'accepted', problem: null }, T0)).toBe(failed);
    expect(failBatchAction(failed, problem('again'), T0)).toBe(failed);
  });

  it('an action that fits no item completes at once', () => {
    const a = startBatchAction({ ...three(), items: [] });
    expect(a).toMatchObject({ state: 'completed', finishedAtUtc: T0 });
    expect(batchActionCounts(a)).toEqual({ total: 0, done: 0, actedOn: 0, failed: 0 });
  });

  it('a resume notes when, and leaves exactly the items not reached', () => {
    let a = three();
    a = recordItemOutcome(a, 'C-1', { outcome: 'done', status: 'accepted', problem: null }, T0);
    const r = resumeBatchAction(a, '2026-11-26T23:00:00.000Z');
    expect(r.resumedAtUtc).toEqual(['2026-11-26T23:00:00.000Z']);
    expect(waitingItems(r).map((i) => i.trackingCode)).toEqual(['C-2', 'C-3']);
    const done = recordItemOutcome(
      recordItemOutcome(r, 'C-2', { outcome: 'done', status: 'accepted', problem: null }, T0),
      'C-3',
      { outcome: 'done', status: 'accepted', problem: null },
      T0,
    );
    expect(resumeBatchAction(done, T0)).toBe(done);
  });

  it('the view has counts and links, and matches its schema; the brief leaves the items out', () => {
    let a = three();
    a = recordItemOutcome(a, 'C-1', { outcome: 'done', status: 'accepted', problem: null }, T0);
    const v = batchActionView(a, 'https://archive.example');
    expect(validate(BatchActionView, v)).toEqual([]);
    expect(v).toMatchObject({ total: 3, done: 1, actedOn: 1, failed: 0, state: 'running', actor: 'alice' });
    expect(v.links.self).toBe(
      'https://archive.example/api/v1/admin/batches/openscore-lieder/actions/accept-20261126T220501Z-ab12cd34',
    );
    expect('items' in batchActionBrief(a, 'https://archive.example')).toBe(false);
    expect(batchActionProgressLine(v)).toBe('accept openscore-lieder: 1 of 3 done, running');
    expect(runningActionConflict(a)).toContain('accept accept-20261126T220501Z-ab12cd34 (asked by alice');
  });

  it('the answer waits at most 20 s and a third of the idle timeout; respond-async not at all; wait=N shortens it', () => {
    expect(batchAnswerWait('', 60_000)).toEqual({ ms: 20_000, respondAsync: false });
    expect(batchAnswerWait('', 30_000)).toEqual({ ms: 10_000, respondAsync: false });
    expect(batchAnswerWait('respond-async', 60_000)).toEqual({ ms: 0, respondAsync: true });
    expect(batchAnswerWait('return=minimal, Respond-Async', 60_000)).toEqual({ ms: 0, respondAsync: true });
    expect(batchAnswerWait('respond-asynchronously', 60_000)).toEqual({ ms: 20_000, respondAsync: false });
    expect(batchAnswerWait('wait=5', 60_000)).toEqual({ ms: 5_000, respondAsync: false });
    expect(batchAnswerWait('wait=600', 60_000)).toEqual({ ms: 20_000, respondAsync: false });
    expect(batchAnswerWait('wait=0', 60_000)).toEqual({ ms: 0, respondAsync: false });
  });
});
