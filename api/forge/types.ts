/**
 * The forge seam: where a proposed change is reviewed. The local git forge (forge-local.ts) and
 * GitHub (forge-github.ts) both propose a change as a branch / pull request, label its status,
 * merge or close it; the review service (api/review/) only sees this interface.
 */
import type { ReviewRef } from '../../src/schemas/review.ts';
import type { ProposalInput } from '../../src/domain/review/proposal-input.ts';

/** Where a submission's review lives. */
export type { ReviewRef };

/** One file of a proposal, relative to the content repository root; null content deletes it. */
export type { ProposalChange, ProposalInput } from '../../src/domain/review/proposal-input.ts';

export interface Forge {
  readonly name: 'local' | 'github';
  /** Commit the changes on branch review/<code> (from the content repository's main) and open the review. */
  open(input: ProposalInput): Promise<ReviewRef>;
  /** Show the submission status on the review (labels on GitHub; a no-op locally). */
  setStatus(ref: ReviewRef, status: string): Promise<void>;
  /** Merge the review into main of the local content repository (and on GitHub); returns the new main commit. */
  merge(ref: ReviewRef, message: string): Promise<{ commit: string }>;
  /** Close the review without merging (branch kept for the record locally). */
  close(ref: ReviewRef, note: string): Promise<void>;
}
