/**
 * The bookkeeping of one review action on one item (docs/review.md, "Long actions are action
 * records"): accept fetches and checks every file and opens the review, which for a long score
 * takes minutes, so the action is a durable record the client can follow instead of a request
 * that must stay open. Pure: the runner (api/review/item-actions.ts) does the work and stores what
 * these functions return.
 *
 *   running ──(the review service moved the item)──► completed
 *      └─────(it refused or failed; nothing changed)──► failed   (error: the problem)
 */
import type { AdminActionBody, ItemActionName, ItemActionProgress, ItemActionView } from '../../schemas/review.ts';
import type { SubmissionKind, SubmissionStatus } from '../../schemas/contribution.ts';

type Problem = NonNullable<ItemActionView['error']>;

/** What is stored per action (state/review-actions/<actionId>.json): the view without links, plus the request body (a resume needs it). */
export interface StoredItemAction {
  recordVersion: 1;
  actionId: string;
  kind: SubmissionKind;
  trackingCode: string;
  action: ItemActionName;
  state: ItemActionView['state'];
  actor: string;
  reviewer: string;
  body: AdminActionBody;
  startedAtUtc: string;
  finishedAtUtc: string | null;
  resumedAtUtc: string[];
  progress: ItemActionProgress;
  status: SubmissionStatus;
  error: Problem | null;
}

/** `accept-20261207T101500Z-3f9c`: the action, when, and a random tail. */
export function itemActionId(action: ItemActionName, atUtc: string, random: string): string {
  return `${action}-${atUtc.replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z')}-${random
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
    .slice(0, 8)}`;
}

export const ITEM_ACTION_ID_PATTERN = /^(accept|request-information|decline)-[0-9]{8}T[0-9]{6}Z-[a-z0-9]{1,8}$/;

export function startItemAction(input: {
  actionId: string;
  kind: SubmissionKind;
  trackingCode: string;
  action: ItemActionName;
  actor: string;
  body: AdminActionBody;
  startedAtUtc: string;
  status: SubmissionStatus;
}): StoredItemAction {
  return {
    recordVersion: 1,
    actionId: input.actionId,
    kind: input.kind,
    trackingCode: input.trackingCode,
    action: input.action,
    state: 'running',
    actor: input.actor,
    reviewer: input.body.reviewer,
    body: input.body,
    startedAtUtc: input.startedAtUtc,
    finishedAtUtc: null,
    resumedAtUtc: [],
    progress: { step: 'waiting to start', done: 0, total: 0 },
    status: input.status,
    error: null,
  };
}

/** Progress while it runs; a finished action keeps what it has. */
export function progressItemAction(a: StoredItemAction, progress: ItemActionProgress): StoredItemAction {
  return a.state === 'running' ? { ...a, progress } : a;
}

export function completeItemAction(a: StoredItemAction, status: SubmissionStatus, atUtc: string): StoredItemAction {
  if (a.state !== 'running') return a;
  const total = Math.max(a.progress.total, a.progress.done, 1);
  return { ...a, state: 'completed', status, finishedAtUtc: atUtc, progress: { step: 'done', done: total, total } };
}

export function failItemAction(a: StoredItemAction, error: Problem, atUtc: string): StoredItemAction {
  if (a.state !== 'running') return a;
  return { ...a, state: 'failed', error, finishedAtUtc: atUtc, progress: { ...a.progress, step: 'failed' } };
}

export function resumeItemAction(a: StoredItemAction, atUtc: string): StoredItemAction {
  return a.state === 'running' ? { ...a, resumedAtUtc: [...a.resumedAtUtc, atUtc] } : a;
}

const SEGMENT: Record<SubmissionKind, string> = {
  contribution: 'contributions',
  'correction-report': 'correction-reports',
};

export function itemActionPath(kind: SubmissionKind, code: string, actionId: string): string {
  return `/api/v1/admin/${SEGMENT[kind]}/${encodeURIComponent(code)}/actions/${encodeURIComponent(actionId)}`;
}

export function itemActionView(a: StoredItemAction, base: string): ItemActionView {
  const { recordVersion: _v, body: _body, ...rest } = a;
  return {
    ...rest,
    links: {
      self: `${base}${itemActionPath(a.kind, a.trackingCode, a.actionId)}`,
      item: `${base}/api/v1/admin/${SEGMENT[a.kind]}/${encodeURIComponent(a.trackingCode)}`,
      desk: `${base}/admin/${SEGMENT[a.kind]}/${encodeURIComponent(a.trackingCode)}`,
    },
  };
}

/** The detail of the 409 a second action on an item gets while one runs. */
export function runningItemActionConflict(
  a: Pick<StoredItemAction, 'action' | 'actionId' | 'actor' | 'startedAtUtc' | 'progress' | 'trackingCode'>,
): string {
  return `${a.trackingCode} already has an action running: ${a.action} ${a.actionId} (asked by ${a.actor} at ${a.startedAtUtc}; now ${a.progress.step}). One action per item at a time: wait until it has finished, then ask again.`;
}
