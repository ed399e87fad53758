/**
 * The submitter's answer to a request for information (docs/contributions.md), as pure rules: the
 * record after the answer (back to `pending`, the answer in the history), a revised contribution
 * replacing the proposed one, and which verified files of the earlier body still describe the
 * revised one. The review service (api/review/answers.ts) checks the token and writes.
 */
import {
  SUBMITTER_ACTOR,
  type MusicContributionInput,
  type StoredContribution,
  type SubmissionStatus,
} from '../../schemas/contribution.ts';
import type { VerificationEntry } from '../../schemas/review.ts';
import type { FieldError } from '../validation.ts';
import { transition, type Tracked } from './status.ts';

/** Only this status can be answered. */
export const ANSWERABLE_STATUS: SubmissionStatus = 'needs-information';

/**
 * The record after the submitter's answer: `pending` again, with a history entry
 * `{ status: "pending", action: "answer", actor: "submitter", note: <message> }` (and
 * `revisedSubmission` for contributions). Throws TransitionError unless it is `needs-information`.
 */
export function answerRecord<T extends Tracked>(
  record: T,
  message: string,
  atUtc: string,
  revisedSubmission: boolean | null,
): T {
  const moved = transition(record, 'pending', atUtc, message, SUBMITTER_ACTOR);
  if (revisedSubmission === null) return moved;
  const history = [...moved.history];
  history[history.length - 1] = { ...history[history.length - 1]!, revisedSubmission };
  return { ...moved, history };
}

/** A contribution whose body the answer revised: the new body replaces it, the old one is kept for the record. */
export function reviseContribution(
  record: StoredContribution,
  submission: MusicContributionInput,
  contentSha256: string,
  atUtc: string,
): StoredContribution {
  return {
    ...record,
    submission,
    contentSha256,
    previousSubmissions: [
      ...(record.previousSubmissions ?? []),
      { replacedAtUtc: atUtc, contentSha256: record.contentSha256, submission: record.submission },
    ],
  };
}

/** What a revised body may not change (pointers under `/submission`, as the answer's body has them). */
export function revisionErrors(original: MusicContributionInput, revised: MusicContributionInput): FieldError[] {
  if (revised.idempotencyKey === original.idempotencyKey) return [];
  return [
    {
      pointer: '/submission/idempotencyKey',
      detail:
        'must equal the idempotencyKey of the original submission (a revision is the same submission; a new contribution needs a new POST)',
    },
  ];
}

export const REVISED_NOT_FETCHED =
  'revised by the submitter: this file is fetched and verified when a reviewer accepts the item again';

/**
 * The verification entries that still hold for a revised body: an entry is kept when the asset at
 * its index has the same download URL and declared SHA-256; every other asset (changed, added)
 * is `not-fetched` until the next accept verifies it. So a proposal built now never attaches a
 * verified file to an asset that no longer names it.
 */
export function carryVerification(
  entries: readonly VerificationEntry[],
  revised: MusicContributionInput,
): VerificationEntry[] {
  return revised.assets.map((asset, index) => {
    const url = asset.downloadUrl ?? null;
    const declaredSha256 = asset.sha256?.toLowerCase() ?? null;
    const kept = entries.find((e) => e.index === index && e.url === url && e.declaredSha256 === declaredSha256);
    if (kept) return kept;
    return {
      index,
      url,
      declaredSha256,
      status: 'not-fetched' as const,
      sha256: null,
      byteLength: null,
      mediaType: null,
      reason: url ? REVISED_NOT_FETCHED : 'no downloadUrl; the asset links its source page',
      checks: null,
    };
  });
}
