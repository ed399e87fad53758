/**
 * The submitter answers a reviewer's request for information (docs/contributions.md,
 * "Answering a request for information"):
 *
 *   POST /api/v1/music/contributions/{trackingCode}/answers   { message, submission? }
 *   POST /api/v1/correction-reports/{trackingCode}/answers    { message }
 *
 * with the submission's response token in the Archive-Response-Token header (never the URL). The
 * handlers parse and check in this order -- rate limit, no query string, the code (404), the token
 * (401), the body (400, exactly the intake rules for a revised contribution, pointers under
 * /submission), the status (409) -- and only then does the review service change anything.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { AppContext } from '../context.ts';
import type { ReviewService } from '../review/service.ts';
import { ProblemError } from '../http/problem.ts';
import { bodyErrors, rateLimitHook, sendInvalid } from './routes.ts';
import { normalizeTrackingCode } from '../../src/domain/contributions/tracking-code.ts';
import { contributionView, correctionReportView } from '../../src/domain/contributions/tracking.ts';
import { checkContributionSafety, checkMessageSafety } from '../../src/domain/contributions/safety.ts';
import { checkPlaceholders } from '../../src/domain/contributions/placeholders.ts';
import { looksLikeResponseToken } from '../../src/domain/contributions/response-token.ts';
import type { FieldError } from '../../src/domain/validation.ts';
import {
  ContributionAnswerInput,
  CorrectionReportAnswerInput,
  RESPONSE_TOKEN_HEADER,
} from '../../src/schemas/answer.ts';
import type { SubmissionKind } from '../../src/schemas/contribution.ts';
import { envelope } from '../../src/schemas/envelope.ts';

export const CONTRIBUTION_ANSWERS = '/api/v1/music/contributions/:trackingCode/answers';
export const REPORT_ANSWERS = '/api/v1/correction-reports/:trackingCode/answers';

/** Room for the message (2,000 characters, up to 4 bytes each) and the JSON around it. */
const ANSWER_OVERHEAD_BYTES = 16 * 1024;

const AnswerParams = Type.Object({ trackingCode: Type.String() });
type AnswerParams = Static<typeof AnswerParams>;

const under = (prefix: string, errors: FieldError[]) =>
  errors.map((e) => ({ pointer: `${prefix}${e.pointer}`, detail: e.detail }));

/** Safety rules of an answer: its message like any public text; a revised body exactly like a new contribution. */
function answerSafety(body: unknown): FieldError[] {
  const out = checkMessageSafety(body);
  const submission =
    body !== null && typeof body === 'object' ? (body as { submission?: unknown }).submission : undefined;
  if (submission !== undefined)
    out.push(...under('/submission', [...checkContributionSafety(submission), ...checkPlaceholders(submission)]));
  return out;
}

/** A token never travels in a URL: any query string is refused, one that holds a token says so. */
function refuseQuery(request: FastifyRequest): void {
  const q = request.url.indexOf('?');
  if (q < 0) return;
  const params = new URLSearchParams(request.url.slice(q + 1));
  const names = [...new Set(params.keys())];
  if ([...params.values(), ...names].some(looksLikeResponseToken)) {
    throw new ProblemError(
      'key-in-url',
      `A response token was sent in the URL. Send it only in the ${RESPONSE_TOKEN_HEADER} header; a URL ends up in logs and browser histories, so treat this token as exposed. Nothing was changed.`,
    );
  }
  throw new ProblemError(
    'invalid-query',
    `This endpoint takes no query parameters (got ${names.slice(0, 5).join(', ') || 'an empty query'}). Nothing was changed.`,
    {
      errors: (names.length > 0 ? names.slice(0, 20) : ['?']).map((parameter) => ({
        parameter,
        detail: 'is not a parameter of this endpoint',
      })),
    },
  );
}

function headerToken(request: FastifyRequest): string | undefined {
  const raw = request.headers[RESPONSE_TOKEN_HEADER.toLowerCase()];
  const value = Array.isArray(raw) ? raw[0] : raw;
  return value === undefined ? undefined : value.trim();
}

export async function registerAnswerRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  reviews: ReviewService,
): Promise<void> {
  const base = ctx.config.publicBaseUrl;
  const intake = ctx.config.intake;
  const workExists = (slug: string) => ctx.handle.current.catalog.records.has(slug);
  // Answers are limited like intake: their own bucket per client, at the intake endpoint's rate.
  const limits = {
    contribution: {
      limit: 'answers-contribution',
      setting: intake.contributionRateLimit,
      bodyLimit: intake.contributionBodyLimit + ANSWER_OVERHEAD_BYTES,
    },
    'correction-report': {
      limit: 'answers-correction-report',
      setting: intake.correctionRateLimit,
      bodyLimit: ANSWER_OVERHEAD_BYTES,
    },
  } as const;

  const route = (
    kind: SubmissionKind,
    url: string,
    schema: typeof ContributionAnswerInput | typeof CorrectionReportAnswerInput,
  ) => {
    const limit = limits[kind];
    app.post<{ Params: AnswerParams; Body: ContributionAnswerInput }>(
      url,
      {
        schema: { params: AnswerParams, body: schema },
        attachValidation: true,
        bodyLimit: limit.bodyLimit,
        onRequest: rateLimitHook(ctx.state.buckets, limit.limit, limit.setting, base),
      },
      async (request, reply) => {
        refuseQuery(request);
        const raw = request.params.trackingCode;
        const code = normalizeTrackingCode(raw, kind);
        const what = kind === 'contribution' ? 'contribution' : 'correction report';
        if (!code) throw new ProblemError('not-found', `No ${what} has the tracking code "${raw.slice(0, 64)}".`);
        const token = headerToken(request);
        await reviews.authorizeAnswer(kind, code, token);
        const errors = bodyErrors(request, answerSafety);
        if (errors.length > 0) return sendInvalid(reply, request, base, errors);
        const next = await reviews.answer(kind, code, token, request.body);
        const view =
          next.kind === 'contribution'
            ? contributionView(next, base, workExists)
            : correctionReportView(next, base, workExists);
        return reply
          .code(200)
          .header('Cache-Control', 'no-store')
          .header('Content-Location', view.links.self)
          .send(envelope(view));
      },
    );
  };
  route('contribution', CONTRIBUTION_ANSWERS, ContributionAnswerInput);
  route('correction-report', REPORT_ANSWERS, CorrectionReportAnswerInput);
}
