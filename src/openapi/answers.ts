/**
 * OpenAPI of the submitter's answer (docs/contributions.md): the two answer operations and the receipt
 * schemas the 202 answers of intake refer to. document.ts lists them with the rest.
 */
import type { TSchema } from '@sinclair/typebox';
import { CONTRIBUTION_CODE_PATTERN, CORRECTION_CODE_PATTERN } from '../schemas/contribution.ts';
import {
  ANSWER_MESSAGE_MAX_LENGTH,
  ContributionAnswerInput,
  ContributionReceipt,
  VocabularyWarning,
  CorrectionReportAnswerInput,
  CorrectionReportReceipt,
  RESPONSE_TOKEN_HEADER,
  RESPONSE_TOKEN_PATTERN,
} from '../schemas/answer.ts';
import { RATE_LIMIT_POLICY } from '../domain/contributions/policy.ts';
import { JSON_REQUEST_TYPES } from './contributions.ts';
import { enveloped, problem, ref, type OperationSpec, type ParameterSpec } from './spec.ts';

const tokenHeader: ParameterSpec = {
  name: RESPONSE_TOKEN_HEADER,
  in: 'header',
  required: true,
  description: `The response token the 202 answer to the submission carried (\`data.responseToken\`, ${RESPONSE_TOKEN_PATTERN}). Only in this header: a token in the URL is refused (400 key-in-url).`,
  schema: { type: 'string', maxLength: 200 },
};

const codeParam = (what: string, pattern: string, example: string): ParameterSpec => ({
  name: 'trackingCode',
  in: 'path',
  required: true,
  description: `Tracking code of the ${what}, e.g. "${example}" (case ignored, hyphens optional; canonical form ${pattern}).`,
  schema: { type: 'string', maxLength: 64 },
});

const COMMON =
  'Only an item in `needs-information` (a reviewer asked for something; the history note says what) can be answered. The item goes back to `pending` for review, and its history gets an entry ' +
  '`{ status: "pending", action: "answer", actor: "submitter", note: <message>, atUtc }` after the reviewer\'s `{ status: "needs-information", action: "request-information", actor: <key label>, note }`. ' +
  `The message is public, like the reviewer's note (at most ${ANSWER_MESSAGE_MAX_LENGTH} characters; no contact details). ${RATE_LIMIT_POLICY} (answers have their own allowance per client at the intake rate).`;

function answerOperation(kind: 'contribution' | 'correction-report'): OperationSpec {
  const contribution = kind === 'contribution';
  const path = contribution
    ? '/api/v1/music/contributions/{trackingCode}/answers'
    : '/api/v1/correction-reports/{trackingCode}/answers';
  const tracking = contribution ? 'ContributionTracking' : 'CorrectionReportTracking';
  return {
    method: 'post',
    path,
    operationId: contribution ? 'answerContribution' : 'answerCorrectionReport',
    tags: ['contributions'],
    summary: contribution
      ? 'Answer a request for information about your contribution (message, optionally a revised body)'
      : 'Answer a request for information about your correction report',
    description: contribution
      ? `${COMMON} With \`submission\`, the revised contribution (validated exactly like a new one, placeholders refused, the original idempotencyKey kept; errors point under /submission) replaces the proposed change: an open review branch or pull request is rewritten so the diff an editor sees is the new one, and changed files are fetched and verified at the next accept.`
      : COMMON,
    parameters: [
      codeParam(
        contribution ? 'contribution' : 'correction report',
        contribution ? CONTRIBUTION_CODE_PATTERN : CORRECTION_CODE_PATTERN,
        contribution ? 'C-7KQM-T4XH-R2PZ-9WNB' : 'R-7KQM-T4XH-R2PZ-9WNB',
      ),
      tokenHeader,
    ],
    requestBody: {
      description: 'The answer.',
      required: true,
      contentTypes: JSON_REQUEST_TYPES,
      schema: ref(contribution ? 'ContributionAnswerInput' : 'CorrectionReportAnswerInput'),
    },
    responses: {
      '200': enveloped(
        'Answered: the tracking record, now `pending`, with the answer in its history.',
        tracking,
        'Tracking record in the envelope.',
      ),
      '400': problem(
        'Malformed JSON, or the answer violates its model or a safety rule (invalid-body, `errors[]` with JSON Pointers; a revised body under /submission), or a query string was sent (invalid-query; key-in-url when it holds a token). Nothing was changed.',
      ),
      '401': problem(
        `No ${RESPONSE_TOKEN_HEADER} header, or not this submission's token (invalid-response-token, naming the header). Nothing was changed.`,
      ),
      '404': problem('No item has this tracking code.'),
      '409': problem(
        'The item is not in `needs-information` (conflict; `currentStatus` names its status). Nothing was changed.',
      ),
      '413': problem('The body is larger than the limit (payload-too-large).'),
      '415': problem('The body is not JSON (unsupported-media-type).'),
      '429': problem('Too many answers from this client (rate-limited); wait Retry-After seconds.'),
    },
  };
}

export const ANSWER_OPERATIONS: OperationSpec[] = [
  answerOperation('contribution'),
  answerOperation('correction-report'),
];

export const ANSWER_COMPONENTS: Record<string, TSchema> = {
  ContributionReceipt,
  VocabularyWarning,
  CorrectionReportReceipt,
  ContributionAnswerInput,
  CorrectionReportAnswerInput,
};
