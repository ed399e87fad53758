/**
 * The submitter's answer to a request for information.
 *
 * A submitter answers with the submission's response token (a header; records keep only its
 * SHA-256, compared in constant time): the item goes back to `pending` with the answer in its
 * history (action "answer", actor "submitter", the message as its public note). A revised
 * contribution replaces the proposed one; when a review branch or pull request is open, it is
 * rewritten on the current main so the diff an editor sees is the new one. Files the revision
 * changed are verified again at the next accept (nothing is fetched for a public request). A wrong
 * or missing token, or an item not in `needs-information`, changes nothing.
 */
import { ProblemError } from '../http/problem.ts';
import { utcTimestamp } from '../../src/schemas/envelope.ts';
import { withContentRepoLock } from '../site/content-repo.ts';
import type { ReviewCore, Stored } from './core.ts';
import { reasonsOf } from './proposal.ts';
import { performedSeconds, verificationBlockers } from './verification.ts';
import { annotateMeasurements } from '../../src/domain/review/measured.ts';
import {
  ANSWERABLE_STATUS,
  answerRecord,
  carryVerification,
  reviseContribution,
  revisionErrors,
} from '../../src/domain/contributions/answer.ts';
import { responseTokenMatches } from '../../src/domain/contributions/response-token.ts';
import { contentSha256 } from '../../src/domain/contributions/content-hash.ts';
import { RESPONSE_TOKEN_HEADER } from '../../src/schemas/answer.ts';
import type { MusicContributionInput, StoredContribution, SubmissionKind } from '../../src/schemas/contribution.ts';
import type { ReviewRecord } from '../../src/schemas/review.ts';

export class ReviewAnswers {
  private readonly core: ReviewCore;

  constructor(core: ReviewCore) {
    this.core = core;
  }

  /** The item, when `token` is its response token; else the problem (404 unknown code, 401 token). */
  async authorize(kind: SubmissionKind, code: string, token: string | undefined): Promise<Stored> {
    const { record } = await this.core.get(kind, code);
    if (token === undefined || token === '') {
      throw new ProblemError(
        'invalid-response-token',
        `Answering ${code} needs its response token in the ${RESPONSE_TOKEN_HEADER} header (the 202 answer to the submission carried it). Nothing was changed.`,
        {
          errors: [{ parameter: RESPONSE_TOKEN_HEADER, detail: 'is required' }],
          headers: { 'WWW-Authenticate': RESPONSE_TOKEN_HEADER },
        },
      );
    }
    if (!responseTokenMatches(token, record.responseTokenSha256)) {
      const why = record.responseTokenSha256
        ? 'is not the response token of this submission'
        : record.kind === 'contribution'
          ? 'cannot match: this contribution was stored before response tokens existed; repeat its POST (same idempotencyKey, identical content) to receive its token'
          : 'cannot match: this report was stored before response tokens existed';
      throw new ProblemError(
        'invalid-response-token',
        `The ${RESPONSE_TOKEN_HEADER} header ${why}. Nothing was changed.`,
        {
          errors: [{ parameter: RESPONSE_TOKEN_HEADER, detail: why }],
          headers: { 'WWW-Authenticate': RESPONSE_TOKEN_HEADER },
        },
      );
    }
    return record;
  }

  async answer(
    kind: SubmissionKind,
    code: string,
    token: string | undefined,
    input: { message: string; submission?: MusicContributionInput },
  ): Promise<Stored> {
    const record = await this.authorize(kind, code, token);
    const notAnswerable = (current: Stored) =>
      new ProblemError(
        'conflict',
        current.apply?.state === 'applying'
          ? `${code} is being applied; only an item in "${ANSWERABLE_STATUS}" can be answered. Nothing was changed.`
          : `${code} is "${current.status}"; only an item in "${ANSWERABLE_STATUS}" (a reviewer asked for information) can be answered. Nothing was changed.`,
        { currentStatus: current.status },
      );
    if (record.status !== ANSWERABLE_STATUS || record.apply?.state === 'applying') throw notAnswerable(record);
    if (input.submission && record.kind === 'contribution') {
      const errors = revisionErrors(record.submission, input.submission);
      if (errors.length > 0)
        throw new ProblemError(
          'invalid-body',
          `The revised submission is refused: ${errors.map((e) => `${e.pointer} ${e.detail}`).join('; ')}. Nothing was changed.`,
          { errors },
        );
    }
    const revised =
      input.submission && record.kind === 'contribution'
        ? { submission: input.submission, contentSha256: contentSha256(input.submission) }
        : null;
    const atUtc = utcTimestamp(this.core.now());
    let refused: Stored | null = null;
    // Re-checked under the record's lock: a reviewer's action or another answer may have come first.
    const next = await this.core.store(kind).update(code, (current) => {
      if (
        current.status !== ANSWERABLE_STATUS ||
        current.apply?.state === 'applying' ||
        !responseTokenMatches(token, current.responseTokenSha256)
      ) {
        refused = current;
        return undefined;
      }
      if (current.kind === 'contribution') {
        const body = revised ? reviseContribution(current, revised.submission, revised.contentSha256, atUtc) : current;
        return answerRecord(body, input.message, atUtc, revised !== null);
      }
      return answerRecord(current, input.message, atUtc, null);
    });
    if (refused !== null) throw notAnswerable(refused);
    if (!next) throw new ProblemError('not-found', `No record has the tracking code ${code}.`);
    const state = await this.core.reviews.get(code);
    if (state && revised && next.kind === 'contribution') await this.reviseProposal(next, state);
    if (state?.ref) await (await this.core.forge()).setStatus(state.ref, 'pending').catch(() => undefined);
    return next;
  }

  /**
   * The reviewers' record of a revised contribution: verification kept only for files the revision
   * left as they were, and an open review (branch / pull request) rewritten with the revised body on
   * the current main; what cannot be built is a blocker. Without an open review nothing is opened:
   * the next accept does that.
   */
  private async reviseProposal(record: StoredContribution, state: ReviewRecord): Promise<void> {
    const measured = annotateMeasurements(
      carryVerification(state.verification, record.submission),
      record.submission,
      performedSeconds(this.core.ctx.config.contentRepo, record),
    );
    state.verification = measured.entries;
    state.warnings = measured.warnings;
    state.blockers = verificationBlockers(state.verification);
    if (!state.ref) return this.core.saveReview(state);
    await withContentRepoLock(this.core.ctx.config.contentRepo, async () => {
      try {
        const input = await this.core.proposal(record, state);
        const forge = await this.core.forge();
        state.ref = await forge.open(input);
        state.forge = forge.name;
      } catch (err) {
        state.blockers.push(
          `The revised submission could not replace the proposal on the review branch (it still shows the previous one): ${reasonsOf(err).join(' ')}`,
        );
      }
    });
    await this.core.saveReview(state);
  }
}
