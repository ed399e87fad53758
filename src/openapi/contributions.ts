/**
 * OpenAPI operations of contributions and correction reports; document.ts lists them with the
 * rest. Request and response schemas are the TypeBox objects the server validates with.
 */
import type { TSchema } from '@sinclair/typebox';
import { Envelope } from '../schemas/envelope.ts';
import { ContributionTracking, MusicContributionInput } from '../schemas/contribution.ts';
import { CorrectionReportInput, CorrectionReportTracking } from '../schemas/correction.ts';
import { CONTRIBUTION_CODE_PATTERN, CORRECTION_CODE_PATTERN } from '../schemas/contribution.ts';
import {
  BODY_LIMIT_POLICY,
  CONTRIBUTION_BODY_LIMIT,
  CORRECTION_BODY_LIMIT,
  RATE_LIMIT_POLICY,
  kib,
} from '../domain/contributions/policy.ts';
import { problem, queryParameters, ref, type OperationSpec, type ParameterSpec, type ResponseSpec } from './spec.ts';
import { TemplateQuery } from '../schemas/queries.ts';

/** A JSON request body, accepted under every JSON media type the server parses. */
export interface RequestBodySpec {
  description: string;
  required: boolean;
  contentTypes: string[];
  schema: TSchema | { $ref: string };
}

export const JSON_REQUEST_TYPES = ['application/json', 'text/json', 'application/*+json'];

type Header = { description: string; schema: object };

const RATE_LIMIT_HEADERS: Record<string, Header> = {
  'RateLimit-Limit': {
    description: 'Requests allowed per window from one client (also the burst size).',
    schema: { type: 'integer' },
  },
  'RateLimit-Remaining': { description: 'Requests left right now.', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the allowance is full again.', schema: { type: 'integer' } },
  'RateLimit-Policy': {
    description: 'The policy, e.g. "20;w=60" (20 requests per 60 seconds).',
    schema: { type: 'string' },
  },
};

const withRateHeaders = (r: ResponseSpec): ResponseSpec => ({
  ...r,
  headers: { ...RATE_LIMIT_HEADERS, ...(r.headers ?? {}) },
});

const ACCEPTED_HEADERS: Record<string, Header> = {
  Location: { description: 'Absolute URL of the tracking record.', schema: { type: 'string', format: 'uri' } },
  'Cache-Control': { description: '"no-store".', schema: { type: 'string' } },
};

/** Statuses every public submission can answer besides its success. */
function submissionErrors(kind: string, bodyLimit: string): Record<string, ResponseSpec> {
  return {
    '400': withRateHeaders(
      problem(
        `Malformed JSON (malformed-json), or the ${kind} violates the model or a safety rule (invalid-body): \`errors[]\` lists every violation at once, each with a JSON Pointer. Nothing was stored.`,
      ),
    ),
    '413': withRateHeaders(problem(`The body is larger than ${bodyLimit} (payload-too-large). Nothing was stored.`)),
    '415': withRateHeaders(
      problem('The body is not sent as application/json, text/json or application/*+json (unsupported-media-type).'),
    ),
    '429': withRateHeaders({
      ...problem('Too many submissions from this client (rate-limited). Wait Retry-After seconds; nothing was stored.'),
      headers: {
        'Retry-After': {
          description: 'Seconds to wait before the next submission can pass.',
          schema: { type: 'integer' },
        },
      },
    }),
    '500': problem(
      'The server failed to store the submission (internal-error). Nothing was half-written; retry (for contributions, with the same idempotencyKey).',
    ),
  };
}

const codeParam = (what: string, pattern: string, example: string): ParameterSpec => ({
  name: 'trackingCode',
  in: 'path',
  required: true,
  description: `Tracking code of the ${what}, e.g. "${example}". Case is ignored and hyphens may be left out; the canonical form matches ${pattern}.`,
  schema: { type: 'string', maxLength: 64 },
});

export const CONTRIBUTIONS_OPERATIONS: Array<OperationSpec & { requestBody?: RequestBodySpec }> = [
  {
    method: 'get',
    path: '/api/v1/music/contributions/schema',
    operationId: 'getContributionSchema',
    tags: ['contributions'],
    cacheable: true,
    summary: 'The versioned contribution contract (JSON Schema 2020-12)',
    description:
      'The JSON Schema the server validates contributions with, plus `x-archive`: operations and what each usually includes, controlled values, safety rules, idempotency, limits, review statuses and how template placeholders look.',
    responses: {
      '200': {
        description: 'The contract.',
        contentType: 'application/schema+json',
        schema: { $ref: '#/components/schemas/JsonSchemaDocument' },
      },
    },
  },
  {
    method: 'get',
    path: '/api/v1/music/contributions/template',
    operationId: 'getContributionTemplate',
    tags: ['contributions'],
    cacheable: true,
    summary: 'A complete contribution to copy and fill in, for a work and an operation',
    description:
      'A valid MusicContributionInput for a real catalog work (`workSlug`, default an example work) and `operation` (default arrangement; take both, and `arrangementId`, from a resolve missing[] item). Replace every placeholder (text starting "REPLACE:", URLs under https://example.invalid/, all-zero digests, the 2000-01-01 timestamp, the idempotency key) with verified facts before submitting.',
    parameters: queryParameters(TemplateQuery),
    responses: {
      '200': {
        description: 'The template; posting it unchanged is accepted (and idempotent).',
        contentType: 'application/json',
        schema: ref('MusicContributionInput') as unknown as TSchema,
        headers: {
          Link: { description: 'The schema that describes it (rel="describedby").', schema: { type: 'string' } },
        },
      },
      '400': problem('An unknown parameter, or an invalid workSlug, operation or arrangementId; `errors[]` names it.'),
      '404': problem('No work has that slug.'),
    },
  },
  {
    method: 'post',
    path: '/api/v1/music/contributions',
    operationId: 'submitContribution',
    tags: ['contributions'],
    summary: 'Submit one structured contribution for human review',
    description:
      'Queues the contribution for human review and answers 202 with a tracking code; nothing is applied automatically. Files stay at HTTPS URLs; the JSON never carries binary content. ' +
      'The same idempotencyKey with identical content returns the original tracking record (202, `Idempotent-Replayed: true`); with changed content, 422. ' +
      `${BODY_LIMIT_POLICY} ${RATE_LIMIT_POLICY}`,
    requestBody: {
      description: 'The contribution.',
      required: true,
      contentTypes: JSON_REQUEST_TYPES,
      schema: ref('MusicContributionInput'),
    },
    responses: {
      '202': withRateHeaders({
        description:
          'Accepted and stored (on disk) with status "pending": the tracking record plus the secret `responseToken` (the same on a replay), in the envelope.',
        contentType: 'application/json',
        schema: Envelope(
          ref('ContributionReceipt') as unknown as TSchema,
          'Contribution receipt (tracking record and response token) in the envelope.',
        ),
        headers: {
          ...ACCEPTED_HEADERS,
          'Idempotent-Replayed': {
            description: '"true" when this answers a retry with the same idempotencyKey and identical content.',
            schema: { type: 'string' },
          },
        },
      }),
      ...submissionErrors('contribution', kib(CONTRIBUTION_BODY_LIMIT)),
      '422': withRateHeaders(
        problem(
          'The idempotencyKey was already used with different content (idempotency-conflict). Use a new key. Nothing was stored.',
        ),
      ),
    },
  },
  {
    method: 'get',
    path: '/api/v1/music/contributions/{trackingCode}',
    operationId: 'getContributionTracking',
    tags: ['contributions'],
    cacheable: true,
    summary: 'Review status of a contribution and whether it changed canonical data',
    parameters: [codeParam('contribution', CONTRIBUTION_CODE_PATTERN, 'C-7KQM-T4XH-R2PZ-9WNB')],
    responses: {
      '200': {
        description: 'The tracking record: status, history with public notes, review link.',
        contentType: 'application/json',
        schema: Envelope(
          ref('ContributionTracking') as unknown as TSchema,
          'Contribution tracking record in the envelope.',
        ),
      },
      '404': problem('No contribution has this tracking code (unknown and malformed codes alike).'),
    },
  },
  {
    method: 'post',
    path: '/api/v1/correction-reports',
    operationId: 'submitCorrectionReport',
    tags: ['contributions'],
    summary: 'Report an error in one field of a record',
    description: `Queues the report for moderation and answers 202 with a public tracking code; the catalog is never edited by this request. ${BODY_LIMIT_POLICY} ${RATE_LIMIT_POLICY}`,
    requestBody: {
      description: 'The correction report.',
      required: true,
      contentTypes: JSON_REQUEST_TYPES,
      schema: ref('CorrectionReportInput'),
    },
    responses: {
      '202': withRateHeaders({
        description:
          'Accepted and stored (on disk) with status "pending": the tracking record plus the secret `responseToken`, in the envelope.',
        contentType: 'application/json',
        schema: Envelope(
          ref('CorrectionReportReceipt') as unknown as TSchema,
          'Correction report receipt (tracking record and response token) in the envelope.',
        ),
        headers: ACCEPTED_HEADERS,
      }),
      ...submissionErrors('correction report', kib(CORRECTION_BODY_LIMIT)),
    },
  },
  {
    method: 'get',
    path: '/api/v1/correction-reports/{trackingCode}',
    operationId: 'getCorrectionReportTracking',
    tags: ['contributions'],
    cacheable: true,
    summary: 'Status of a correction report: pending, accepted, applied, declined or needs-information',
    parameters: [codeParam('correction report', CORRECTION_CODE_PATTERN, 'R-7KQM-T4XH-R2PZ-9WNB')],
    responses: {
      '200': {
        description: 'The tracking record: status, history with public notes, review link.',
        contentType: 'application/json',
        schema: Envelope(
          ref('CorrectionReportTracking') as unknown as TSchema,
          'Correction report tracking record in the envelope.',
        ),
      },
      '404': problem('No correction report has this tracking code (unknown and malformed codes alike).'),
    },
  },
];

export const CONTRIBUTIONS_COMPONENTS: Record<string, TSchema> = {
  MusicContributionInput,
  ContributionTracking,
  CorrectionReportInput,
  CorrectionReportTracking,
  JsonSchemaDocument: {
    type: 'object',
    required: ['$schema', 'type', 'properties', 'x-archive'],
    properties: {
      $schema: { const: 'https://json-schema.org/draft/2020-12/schema' },
      type: { const: 'object' },
      properties: { type: 'object' },
      'x-archive': {
        type: 'object',
        description: 'Operations, controlled values, safety rules, idempotency, limits, statuses, placeholders.',
      },
    },
    description: "A JSON Schema 2020-12 document with the archive's `x-archive` annotations.",
  } as unknown as TSchema,
};

export const CONTRIBUTIONS_TAGS: { name: string; description: string }[] = [
  {
    name: 'contributions',
    description: 'Contributions and correction reports: the contract, intake for human review, and tracking.',
  },
];
