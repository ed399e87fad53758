/**
 * The submitter's side of a request for information (docs/contributions.md): the receipt a 202 answers
 * with (the tracking record plus the secret response token), and the answer a submitter sends back
 * with that token. One source for validation, the OpenAPI document, the MCP tools and the types.
 */
import { Type, type Static } from '@sinclair/typebox';
import {} from './common.ts';
import { ContributionTracking, MusicContributionInput } from './contribution.ts';
import { CorrectionReportTracking } from './correction.ts';
import { model, titled } from './options.ts';

/** The request header that carries the response token (never a URL, never a body field). */
export const RESPONSE_TOKEN_HEADER = 'Archive-Response-Token';

/** "pdma_rt_" and 43 base64url characters (256 bits); the prefix lets secret scanners find a leaked one. */
export const RESPONSE_TOKEN_PREFIX = 'pdma_rt_';
export const RESPONSE_TOKEN_PATTERN = '^pdma_rt_[A-Za-z0-9_-]{43}$';

/** Longest answer message (the same bound as a reviewer's public note). */
export const ANSWER_MESSAGE_MAX_LENGTH = 2000;

export const ResponseToken = Type.String({
  pattern: RESPONSE_TOKEN_PATTERN,
  description:
    `Secret response token of this submission: with it (in the ${RESPONSE_TOKEN_HEADER} header) the submitter answers a reviewer's request for information. ` +
    'Shown only in the answer to the POST (a retry with the same idempotencyKey and identical content answers the same token); never in the tracking record or page. Keep it like a password.',
});

export const VocabularyWarning = Type.Object(
  {
    pointer: Type.String({ description: 'JSON Pointer of the word in the submission.' }),
    detail: Type.String({ description: 'The word, and why it matters.' }),
    nearest: Type.Array(Type.String(), { description: 'The nearest terms of the vocabulary.' }),
  },
  model(
    'VocabularyWarning',
    'A mood, style or instrumentation word outside the vocabulary (GET /api/v1/music/vocabulary): a warning, not a refusal.',
  ),
);

export const ContributionReceipt = Type.Object(
  {
    ...ContributionTracking.properties,
    responseToken: ResponseToken,
    vocabularyWarnings: Type.Array(VocabularyWarning, {
      description:
        "The arrangement's moods, style and instrumentation words that are not terms of the vocabulary, each with the nearest terms; empty when all are. Resolve requests in the archive's words may not find music described otherwise.",
    }),
  },
  model(
    'ContributionReceipt',
    'The 202 answer to a contribution: its public tracking record plus the secret response token (which the tracking record never shows).',
  ),
);
export type ContributionReceipt = Static<typeof ContributionReceipt>;

export const CorrectionReportReceipt = Type.Object(
  { ...CorrectionReportTracking.properties, responseToken: ResponseToken },
  model(
    'CorrectionReportReceipt',
    'The 202 answer to a correction report: its public tracking record plus the secret response token (which the tracking record never shows).',
  ),
);
export type CorrectionReportReceipt = Static<typeof CorrectionReportReceipt>;

const AnswerMessage = Type.String({
  minLength: 1,
  maxLength: ANSWER_MESSAGE_MAX_LENGTH,
  description: `What the reviewer asked for, answered in words (1 to ${ANSWER_MESSAGE_MAX_LENGTH} characters). Public: it appears in the tracking history like the reviewer's note, so never put contact details or secrets in it.`,
});

export const ContributionAnswerInput = Type.Object(
  {
    message: AnswerMessage,
    submission: Type.Optional(
      Type.Object(
        MusicContributionInput.properties,
        titled(
          'MusicContributionInput',
          'Optional: the whole contribution, revised, under the same contract as a new one (validated exactly like POST /api/v1/music/contributions, placeholders refused). ' +
            'It keeps the original idempotencyKey and replaces the proposed change; the review branch or pull request then shows the new change.',
        ),
      ),
    ),
  },
  model(
    'ContributionAnswerInput',
    "The submitter's answer to a request for information about a contribution: a public message and, optionally, the revised contribution.",
  ),
);
export type ContributionAnswerInput = Static<typeof ContributionAnswerInput>;

export const CorrectionReportAnswerInput = Type.Object(
  { message: AnswerMessage },
  model(
    'CorrectionReportAnswerInput',
    "The reporter's answer to a request for information about a correction report: a public message.",
  ),
);
export type CorrectionReportAnswerInput = Static<typeof CorrectionReportAnswerInput>;
