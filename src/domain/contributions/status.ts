/**
 * The review vocabulary of contributions and correction reports, and which status may follow
 * which (the spec leaves transitions "not shown"; docs/contributions.md records this table).
 * Intake only ever creates `pending`; the review side moves records along this table.
 */
import {
  SUBMISSION_STATUSES,
  type ApplyState,
  type HistoryAction,
  type StatusChange,
  type SubmissionStatus,
} from '../../schemas/contribution.ts';

export { SUBMISSION_STATUSES, type SubmissionStatus };

export const INITIAL_STATUS: SubmissionStatus = 'pending';

/** Allowed moves. `applied` and `declined` are final. */
export const STATUS_TRANSITIONS: Readonly<Record<SubmissionStatus, readonly SubmissionStatus[]>> = {
  pending: ['accepted', 'needs-information', 'declined'],
  // The submitter answered (back to pending), or the reviewer decides without waiting.
  'needs-information': ['pending', 'accepted', 'declined'],
  // Apply can fail (a build error) and leave the record accepted; a reviewer may still decline or ask.
  accepted: ['applied', 'declined', 'needs-information'],
  applied: [],
  declined: [],
};

/** What each status means, for tracking pages and documentation. */
export const STATUS_MEANINGS: Readonly<Record<SubmissionStatus, string>> = {
  pending: 'Received and queued for human review; nothing has changed in the catalog.',
  'needs-information':
    'A reviewer needs more information; the public note in the history says what. Nothing has changed in the catalog.',
  accepted: 'A reviewer accepted it; it is waiting to be applied. Nothing has changed in the catalog yet.',
  applied: 'Applied: the change is in the canonical record (JSON, Markdown and website together).',
  declined: 'Declined; the public note says why. Nothing changed in the catalog. Final.',
};

/**
 * The `apply` field of a tracking record: an apply answers at once, so between a reviewer's apply
 * and the change being served the item is `applying` (its status stays `accepted`, the spec's
 * vocabulary, until the change is visible, then `applied`).
 */
export const APPLY_STATE_MEANINGS: Readonly<Record<ApplyState, string>> = {
  applying:
    'A reviewer applied it; the change is being merged and published. The status stays "accepted" until it is visible.',
  visible:
    'The change is served (JSON, Markdown and website); `visibleAtUtc` says since when. The status is "applied".',
  failed:
    'It could not be published: nothing was merged and the previous site keeps serving. The status stays "accepted"; a reviewer may apply it again.',
};

export function isFinal(status: SubmissionStatus): boolean {
  return STATUS_TRANSITIONS[status].length === 0;
}

export function canTransition(from: SubmissionStatus, to: SubmissionStatus): boolean {
  return STATUS_TRANSITIONS[from].includes(to);
}

export class TransitionError extends Error {
  readonly from: SubmissionStatus;
  readonly to: SubmissionStatus;
  constructor(from: SubmissionStatus, to: SubmissionStatus) {
    const allowed = STATUS_TRANSITIONS[from];
    super(
      allowed.length === 0
        ? `"${from}" is final; it cannot become "${to}".`
        : `"${from}" cannot become "${to}"; allowed next: ${allowed.join(', ')}.`,
    );
    this.from = from;
    this.to = to;
  }
}

export interface Tracked {
  status: SubmissionStatus;
  changedCanonicalData: boolean;
  updatedAtUtc: string;
  history: StatusChange[];
}

/**
 * The record after moving to `to` at `atUtc`, with the public note in its history. Throws
 * TransitionError for a move the table does not allow. `changedCanonicalData` turns true on
 * `applied` and never back.
 */
export function transition<T extends Tracked>(
  record: T,
  to: SubmissionStatus,
  atUtc: string,
  note: string | null = null,
  actor: string | null = null,
): T {
  if (!canTransition(record.status, to)) throw new TransitionError(record.status, to);
  const action = ACTION_ENTERING[to];
  const entry: StatusChange = actor === null ? { status: to, atUtc, note } : { status: to, atUtc, note, actor };
  return {
    ...record,
    status: to,
    changedCanonicalData: record.changedCanonicalData || to === 'applied',
    updatedAtUtc: atUtc,
    history: [...record.history, action === null ? entry : { ...entry, action }],
  };
}

/**
 * The one action that enters each status by a move (the table above never reaches `pending`
 * except from `needs-information`, i.e. by the submitter's answer; intake's first entry is no move).
 */
export const ACTION_ENTERING: Readonly<Record<SubmissionStatus, HistoryAction | null>> = {
  pending: 'answer',
  'needs-information': 'request-information',
  accepted: 'accept',
  applied: 'apply',
  declined: 'decline',
};
