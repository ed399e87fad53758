/**
 * Contributions and correction reports: intake (202 + tracking code), tracking reads, and the
 * contribution contract (schema and template). Handlers parse, call the intake store and the
 * pure rules in src/domain/contributions/, and answer; nothing here edits the catalog.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, onRequestHookHandler } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { AppContext } from '../context.ts';
import { ProblemError, sendProblem } from '../http/problem.ts';
import { TemplateQuery } from '../../src/schemas/queries.ts';
import { vocabularyWarnings } from '../../src/domain/vocabulary/meaning.ts';
import { describeErrors, type FieldError } from '../../src/domain/validation.ts';
import { MusicContributionInput, type SubmissionKind } from '../../src/schemas/contribution.ts';
import { CorrectionReportInput } from '../../src/schemas/correction.ts';
import { checkContributionSafety, checkCorrectionSafety } from '../../src/domain/contributions/safety.ts';
import { correctionReportErrors } from '../../src/domain/review/correction.ts';
import { checkPlaceholders } from '../../src/domain/contributions/placeholders.ts';
import { normalizeTrackingCode, TRACKING_PREFIXES } from '../../src/domain/contributions/tracking-code.ts';
import { contributionView, correctionReportView } from '../../src/domain/contributions/tracking.ts';
import { buildContributionTemplate, type TemplateWork } from '../../src/domain/contributions/template.ts';
import { buildContributionSchemaDocument } from '../../src/domain/contributions/schema-document.ts';
import type { RateLimitSetting } from '../config.ts';
import { clientKey } from './rate-limiter.ts';
import type { BucketBackend } from '../session/state-backend.ts';
import { rateLimitHeaders } from './http.ts';
import { sendJsonWithEtag } from '../http/reply.ts';
import { envelope } from '../../src/schemas/envelope.ts';
import type { ContributionReceipt, CorrectionReportReceipt } from '../../src/schemas/answer.ts';

/** The work the template is built around, when the catalog has it. */
export const TEMPLATE_WORK_SLUG = 'satie-gymnopedie-1';

const CONTRIBUTIONS = '/api/v1/music/contributions';
const REPORTS = '/api/v1/correction-reports';

/** A 429 before the body is even read; RateLimit headers on every answer of the route. */
export function rateLimitHook(
  buckets: BucketBackend,
  limit: string,
  setting: RateLimitSetting,
  base: string,
): onRequestHookHandler {
  // The buckets are this process's or Redis's (api/session/state-backend.ts), named per limit.
  return async (request, reply) => {
    const decision = await buckets.decide(limit, setting, clientKey(request.ip), true);
    reply.headers(rateLimitHeaders(decision, setting.windowSeconds));
    if (decision.allowed) return;
    await sendProblem(
      reply,
      request,
      base,
      'rate-limited',
      `At most ${setting.limit} submissions per ${setting.windowSeconds} s are accepted from one client; retry after ${decision.retryAfterSeconds} s.`,
      { headers: { 'Retry-After': String(decision.retryAfterSeconds) } },
    );
    return reply;
  };
}

/** Schema errors (attached, not thrown, so they can be merged) plus safety errors, all at once. */
export function bodyErrors(request: FastifyRequest, safety: (body: unknown) => FieldError[]): FieldError[] {
  const validation = (request.validationError as (Error & { validation?: unknown[] }) | undefined)?.validation;
  const schemaErrors = validation ? describeErrors(validation as never[], request.body) : [];
  const seen = new Set(schemaErrors.map((e) => `${e.pointer}\u0000${e.detail}`));
  return [...schemaErrors, ...safety(request.body).filter((e) => !seen.has(`${e.pointer}\u0000${e.detail}`))];
}

export function sendInvalid(reply: FastifyReply, request: FastifyRequest, base: string, errors: FieldError[]) {
  const summary = errors.map((e) => `${e.pointer} ${e.detail}`).join('; ');
  return sendProblem(
    reply,
    request,
    base,
    'invalid-body',
    `The request has ${errors.length} invalid field(s): ${summary}`,
    {
      errors: errors.map((e) => ({ pointer: e.pointer, detail: e.detail })),
    },
  );
}

async function templateWork(ctx: AppContext, slug?: string): Promise<TemplateWork> {
  const records = ctx.handle.current.catalog.records;
  if (slug !== undefined && !records.has(slug))
    throw new ProblemError(
      'not-found',
      `No work has slug "${slug}"; a contribution for a new work uses operation new-work.`,
      {
        errors: [{ parameter: 'workSlug', detail: `no work has slug "${slug}"` }],
      },
    );
  // The named work, else the example work, else the first by slug: one record read, not the catalog.
  const first = records.firstSlug();
  const work =
    (slug !== undefined ? await records.get(slug) : null) ??
    (await records.get(TEMPLATE_WORK_SLUG)) ??
    (first === undefined ? null : await records.get(first));
  if (!work) {
    return {
      slug: 'REPLACE-with-a-work-slug',
      title: 'REPLACE: work title',
      originalTitle: null,
      composer: 'REPLACE: composer',
      period: null,
      genre: null,
      year: null,
      workNumber: null,
      summary: null,
    };
  }
  return {
    slug: work.slug,
    title: work.title,
    originalTitle: work.originalTitle,
    composer: work.composer.name,
    period: work.period,
    genre: work.genre,
    year: work.year,
    workNumber: work.workNumber,
    summary: work.summary,
  };
}

function templateProfile(ctx: AppContext): string | null {
  const ready = ctx.handle.current.catalog.profiles
    .filter((p) => p.renderReady && p.status === 'approved')
    .sort((a, b) => a.slug.localeCompare(b.slug));
  return ready.find((p) => p.slug.includes('piano'))?.slug ?? ready[0]?.slug ?? null;
}

/** A tracking code as typed by a person; normalised (case, separators) by the handler. */
const TrackingParams = Type.Object({ trackingCode: Type.String() });
type TrackingParams = Static<typeof TrackingParams>;

export async function registerContributionRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const base = ctx.config.publicBaseUrl;
  const intake = ctx.config.intake;
  const store = ctx.intake;
  const workExists = (slug: string) => ctx.handle.current.catalog.records.has(slug);
  // A tracking answer changes only with its record or the served build, so its time (and with
  // it the ETag) is the later of the two; polling clients then revalidate to 304.
  const stableTime = (updatedAtUtc: string) => {
    const built = ctx.handle.current.generatedAtUtc;
    return Date.parse(updatedAtUtc) > Date.parse(built) ? updatedAtUtc : built;
  };

  /** GET one submission by its tracking code: its view, or a 404 that shows what such codes look like. */
  function trackedRead<R extends { updatedAtUtc: string }>(
    route: string,
    kind: SubmissionKind,
    noun: string,
    load: (code: string) => Promise<R | null>,
    view: (stored: R) => unknown,
  ): void {
    app.get<{ Params: TrackingParams }>(route, { schema: { params: TrackingParams } }, async (request, reply) => {
      const raw = request.params.trackingCode;
      const code = normalizeTrackingCode(raw, kind);
      const stored = code ? await load(code) : null;
      if (!stored)
        return sendProblem(
          reply,
          request,
          base,
          'not-found',
          `No ${noun} has the tracking code "${raw.slice(0, 64)}". Codes look like ${TRACKING_PREFIXES[kind]}-7KQM-T4XH-R2PZ-9WNB.`,
        );
      return sendJsonWithEtag(
        request,
        reply,
        envelope(view(stored), stableTime(stored.updatedAtUtc)),
        'application/json',
        'no-cache',
      );
    });
  }

  /** The 202 receipt of an intake POST: where its tracking record lives, never cached. */
  const sendReceipt = (reply: FastifyReply, receipt: { links: { self: string } }) =>
    reply.code(202).header('Location', receipt.links.self).header('Cache-Control', 'no-store').send(envelope(receipt));

  app.get(`${CONTRIBUTIONS}/schema`, async (request, reply) =>
    sendJsonWithEtag(
      request,
      reply,
      buildContributionSchemaDocument(base, {
        bodyLimitBytes: intake.contributionBodyLimit,
        rateLimit: intake.contributionRateLimit,
      }),
      'application/schema+json',
      'public, max-age=300',
    ),
  );

  app.get<{ Querystring: TemplateQuery }>(
    `${CONTRIBUTIONS}/template`,
    { schema: { querystring: TemplateQuery } },
    async (request, reply) => {
      reply.header('Link', `<${base}${CONTRIBUTIONS}/schema>; rel="describedby"`);
      const q = request.query;
      const operation = q.operation ?? 'arrangement';
      const workless = operation === 'new-work' || operation === 'rendering-profile';
      return sendJsonWithEtag(
        request,
        reply,
        buildContributionTemplate(
          await templateWork(ctx, workless ? undefined : q.workSlug),
          templateProfile(ctx),
          operation,
          q.arrangementId ?? null,
        ),
        'application/json',
        'public, max-age=300',
      );
    },
  );

  app.post<{ Body: MusicContributionInput }>(
    CONTRIBUTIONS,
    {
      schema: { body: MusicContributionInput },
      attachValidation: true,
      bodyLimit: intake.contributionBodyLimit,
      onRequest: rateLimitHook(ctx.state.buckets, 'contributions', intake.contributionRateLimit, base),
    },
    async (request, reply) => {
      const errors = bodyErrors(request, (body) => [...checkContributionSafety(body), ...checkPlaceholders(body)]);
      if (errors.length > 0) return sendInvalid(reply, request, base, errors);
      const outcome = await store.submitContribution(request.body);
      if (outcome.kind === 'conflict') {
        return sendProblem(
          reply,
          request,
          base,
          'idempotency-conflict',
          'This idempotencyKey was already used for a contribution with different content. Nothing was stored; send the changed content with a new idempotencyKey.',
          {
            errors: [{ pointer: '/idempotencyKey', detail: 'was already used with different content; use a new key' }],
          },
        );
      }
      const view = contributionView(outcome.record, base, workExists);
      if (outcome.kind === 'replayed') reply.header('Idempotent-Replayed', 'true');
      // The receipt: the tracking record plus the response token, answered only to the submission's own POST.
      const arrangement = request.body.arrangement;
      const receipt: ContributionReceipt = {
        ...view,
        responseToken: outcome.responseToken,
        vocabularyWarnings: arrangement
          ? vocabularyWarnings(ctx.handle.current.catalog.resolve.meaning, arrangement, '/arrangement')
          : [],
      };
      return sendReceipt(reply, receipt);
    },
  );

  trackedRead(
    `${CONTRIBUTIONS}/:trackingCode`,
    'contribution',
    'contribution',
    (code) => store.getContribution(code),
    (stored) => contributionView(stored, base, workExists),
  );

  app.post<{ Body: CorrectionReportInput }>(
    REPORTS,
    {
      schema: { body: CorrectionReportInput },
      attachValidation: true,
      bodyLimit: intake.correctionBodyLimit,
      onRequest: rateLimitHook(ctx.state.buckets, 'correction-reports', intake.correctionRateLimit, base),
    },
    async (request, reply) => {
      // The field rules apply uses, checked now: a report apply would refuse is refused at intake.
      const errors = bodyErrors(request, checkCorrectionSafety);
      // A field the schema already refused is named once.
      const named = new Set(errors.map((e) => e.pointer));
      if (request.body && typeof request.body === 'object')
        errors.push(...correctionReportErrors(request.body).filter((e) => !named.has(e.pointer)));
      if (errors.length > 0) return sendInvalid(reply, request, base, errors);
      const stored = await store.submitCorrectionReport(request.body);
      const view = correctionReportView(stored, base, workExists);
      const receipt: CorrectionReportReceipt = {
        ...view,
        responseToken: await store.responseToken(stored.trackingCode),
      };
      return sendReceipt(reply, receipt);
    },
  );

  trackedRead(
    `${REPORTS}/:trackingCode`,
    'correction-report',
    'correction report',
    (code) => store.getCorrectionReport(code),
    (stored) => correctionReportView(stored, base, workExists),
  );
}
