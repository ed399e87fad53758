/**
 * The bookkeeping of an action on a review batch (docs/imports.md, "Batch actions run in the
 * background"): which items it chose, each item's outcome as it is reached, the action's state,
 * and what a resume after a stop has left to do. Pure: the runner (api/imports/actions.ts) does the
 * work and stores what these functions return.
 *
 *   running ──(every chosen item has an outcome)──► completed
 *      └─────(the action itself cannot go on)─────► failed   (items keep the outcome they reached)
 *
 * An item is `waiting` until the action reaches it, then `done` or `failed` (with a problem). Only
 * a running action's waiting items change; an outcome, once recorded, stays.
 */
import type {
  BatchFact,
  BatchActionBrief,
  BatchActionItem,
  BatchActionState,
  BatchActionView,
  BatchItemOutcome,
} from '../schemas/imports.ts';
import type { SubmissionStatus } from '../schemas/contribution.ts';

type Problem = NonNullable<BatchActionItem['problem']>;
type Action = BatchActionView['action'];

/** What is stored per action (state/import-batches/actions/<actionId>.json): the view without counts and links. */
export interface StoredBatchAction {
  recordVersion: 1;
  actionId: string;
  batchId: string;
  action: Action;
  state: BatchActionState;
  actor: string;
  reviewer: string;
  note: string | null;
  approveTerms: boolean;
  /** record-facts: the fact recorded. */
  fact?: BatchFact | null;
  startedAtUtc: string;
  finishedAtUtc: string | null;
  resumedAtUtc: string[];
  error: Problem | null;
  items: BatchActionItem[];
}

/** What a new action starts from: the stored fields it is given, and its items with their status now. */
export type NewBatchAction = Pick<
  StoredBatchAction,
  'actionId' | 'batchId' | 'action' | 'actor' | 'reviewer' | 'note' | 'approveTerms' | 'fact' | 'startedAtUtc'
> & { items: Array<{ trackingCode: string; itemKey: string; status: SubmissionStatus }> };

/** `accept-20261126T220501Z-3f9c`: the action, when, and a random tail (two actions in one second differ). */
export function batchActionId(action: Action, atUtc: string, random: string): string {
  return `${action}-${atUtc.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-${random
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
    .slice(0, 8)}`;
}

export const BATCH_ACTION_ID_PATTERN = /^(accept|decline|apply|merge|record-facts)-[0-9]{8}T[0-9]{6}Z-[a-z0-9]{1,8}$/;

/** A new action, running over its items (completed at once when the action fits no item). */
export function startBatchAction(input: NewBatchAction): StoredBatchAction {
  const empty = input.items.length === 0;
  return {
    recordVersion: 1,
    actionId: input.actionId,
    batchId: input.batchId,
    action: input.action,
    state: empty ? 'completed' : 'running',
    actor: input.actor,
    reviewer: input.reviewer,
    note: input.note,
    approveTerms: input.approveTerms,
    ...(input.fact ? { fact: input.fact } : {}),
    startedAtUtc: input.startedAtUtc,
    finishedAtUtc: empty ? input.startedAtUtc : null,
    resumedAtUtc: [],
    error: null,
    items: input.items.map((i) => ({
      trackingCode: i.trackingCode,
      itemKey: i.itemKey,
      outcome: 'waiting',
      status: i.status,
      finishedAtUtc: null,
      problem: null,
    })),
  };
}

/** The items the action has not reached yet, in order. */
export function waitingItems(a: StoredBatchAction): BatchActionItem[] {
  return a.state === 'running' ? a.items.filter((i) => i.outcome === 'waiting') : [];
}

/**
 * Record one item's outcome. An item already decided, or an action no longer running, is left
 * as it is (an outcome is recorded once). When it was the last waiting item, the action completes.
 */
export function recordItemOutcome(
  a: StoredBatchAction,
  trackingCode: string,
  result: {
    outcome: Exclude<BatchItemOutcome, 'waiting'>;
    status: SubmissionStatus;
    problem: Problem | null;
    report?: string | null;
  },
  atUtc: string,
): StoredBatchAction {
  if (a.state !== 'running') return a;
  let changed = false;
  const items = a.items.map((i) => {
    if (i.trackingCode !== trackingCode || i.outcome !== 'waiting') return i;
    changed = true;
    return {
      ...i,
      outcome: result.outcome,
      status: result.status,
      finishedAtUtc: atUtc,
      problem: result.outcome === 'failed' ? result.problem : null,
      ...(result.report ? { report: result.report } : {}),
    };
  });
  if (!changed) return a;
  const last = items.every((i) => i.outcome !== 'waiting');
  return { ...a, items, ...(last ? { state: 'completed' as const, finishedAtUtc: atUtc } : {}) };
}

/** The action could not go on: failed, with why; items keep the outcome they reached (waiting ones stay waiting). */
export function failBatchAction(a: StoredBatchAction, error: Problem, atUtc: string): StoredBatchAction {
  if (a.state !== 'running') return a;
  return { ...a, state: 'failed', error, finishedAtUtc: atUtc };
}

/** A server start resumes a running action: noted, and its waiting items are what is left to do. */
export function resumeBatchAction(a: StoredBatchAction, atUtc: string): StoredBatchAction {
  if (a.state !== 'running') return a;
  return { ...a, resumedAtUtc: [...a.resumedAtUtc, atUtc] };
}

export function batchActionCounts(a: StoredBatchAction): {
  total: number;
  done: number;
  actedOn: number;
  failed: number;
} {
  let actedOn = 0;
  let failed = 0;
  for (const i of a.items) {
    if (i.outcome === 'done') actedOn++;
    else if (i.outcome === 'failed') failed++;
  }
  return { total: a.items.length, done: actedOn + failed, actedOn, failed };
}

/** The view answered over HTTP: counts derived from the items, links from the base URL. */
export function batchActionView(a: StoredBatchAction, base: string): BatchActionView {
  const { recordVersion: _v, items, ...rest } = a;
  return { ...rest, ...batchActionCounts(a), items, links: batchActionLinks(a, base) };
}

export function batchActionBrief(a: StoredBatchAction, base: string): BatchActionBrief {
  const { recordVersion: _v, items: _items, ...rest } = a;
  return { ...rest, ...batchActionCounts(a), links: batchActionLinks(a, base) };
}

export function batchActionPath(batchId: string, actionId: string): string {
  return `/api/v1/admin/batches/${encodeURIComponent(batchId)}/actions/${encodeURIComponent(actionId)}`;
}

function batchActionLinks(a: StoredBatchAction, base: string): BatchActionView['links'] {
  return {
    self: `${base}${batchActionPath(a.batchId, a.actionId)}`,
    batch: `${base}/api/v1/admin/batches/${encodeURIComponent(a.batchId)}`,
    desk: `${base}/admin/batches/${encodeURIComponent(a.batchId)}`,
  };
}

/** One line of progress for people: "accept openscore-lieder: 12 of 100 done (1 failed), running". */
export function batchActionProgressLine(
  v: Pick<BatchActionView, 'action' | 'batchId' | 'state' | 'total' | 'done' | 'failed'>,
): string {
  return `${v.action} ${v.batchId}: ${v.done} of ${v.total} done${v.failed > 0 ? ` (${v.failed} failed)` : ''}, ${v.state}`;
}

/** The detail of the 409 a second action on a batch gets while one runs. */
export function runningActionConflict(
  running: Pick<StoredBatchAction, 'action' | 'actionId' | 'actor' | 'startedAtUtc' | 'items'>,
): string {
  const c = batchActionCounts(running as StoredBatchAction);
  return `The batch already has an action running: ${running.action} ${running.actionId} (asked by ${running.actor} at ${running.startedAtUtc}; ${c.done} of ${c.total} done). One action per batch at a time: wait until it has completed, then ask again.`;
}

/**
 * Without `Prefer: respond-async`, a batch action's answer waits this long at most for the action
 * to finish (200 with its outcome), and then answers 202 with the running action: long enough for
 * a small batch, and always well inside the server's idle-socket timeout (a third of it), so the
 * connection is never cut while the server goes on. `Prefer: wait=N` (RFC 7240) shortens it.
 */
export const SYNC_WAIT_MS = 20_000;

/** How long to wait for the action before answering, from the Prefer header (RFC 7240). */
export function batchAnswerWait(prefer: string, idleTimeoutMs: number): { ms: number; respondAsync: boolean } {
  const respondAsync = /(^|[,;\s])respond-async($|[,;\s])/i.test(prefer);
  if (respondAsync) return { ms: 0, respondAsync };
  const wait = /(?:^|[,;\s])wait=([0-9]{1,6})(?:$|[,;\s])/i.exec(prefer);
  const asked = wait ? Number(wait[1]) * 1000 : Infinity;
  return { ms: Math.max(0, Math.min(SYNC_WAIT_MS, Math.floor(idleTimeoutMs / 3), asked)), respondAsync };
}
