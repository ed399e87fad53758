/**
 * The admin review API (issue 4; docs/review.md): act on contributions and correction reports,
 * read one item as reviewers see it, and list the open queue. Every route needs an admin key
 * (ARCHIVE_ADMIN_KEYS) as `Authorization: Bearer <key>`; answers are `Cache-Control: no-store`.
 *
 *   POST /api/v1/admin/contributions/{code}/{action}
 *   POST /api/v1/admin/correction-reports/{code}/{action}   action: accept | request-information | apply | decline
 *   GET  /api/v1/admin/contributions/{code}, /api/v1/admin/correction-reports/{code}
 *   GET  /api/v1/admin/queue
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import { requireRole } from '../http/auth.ts';
import { sendProblem } from '../http/problem.ts';
import { ReviewError, type ReviewService, type ReviewState } from './service.ts';
import { normalizeTrackingCode } from '../../src/domain/contributions/tracking-code.ts';
import { contributionUrl, correctionReportUrl } from '../../src/domain/contributions/tracking.ts';
import { AdminActionBody, REVIEW_ACTIONS, type AdminItem } from '../../src/domain/review/schemas.ts';
import type { StoredContribution, SubmissionKind } from '../../src/schemas/contribution.ts';
import type { StoredCorrectionReport } from '../../src/schemas/correction.ts';
import { API_VERSION } from '../../src/schemas/common.ts';

const ADMIN = '/api/v1/admin';
const SEGMENT: Record<SubmissionKind, string> = { contribution: 'contributions', 'correction-report': 'correction-reports' };

const utcNow = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

function adminView(record: StoredContribution | StoredCorrectionReport, review: ReviewState | null, base: string): AdminItem {
  const code = record.trackingCode;
  return {
    trackingCode: code,
    kind: record.kind,
    status: record.status,
    changedCanonicalData: record.changedCanonicalData,
    receivedAtUtc: record.receivedAtUtc,
    updatedAtUtc: record.updatedAtUtc,
    history: record.history,
    submission: (record.kind === 'contribution' ? record.submission : record.report) as unknown as Record<string, unknown>,
    review: {
      forge: review?.forge ?? null,
      review: record.review,
      verification: review?.verification ?? [],
      blockers: review?.blockers ?? [],
      assertions: review?.assertions
        ? { ...review.assertions, assets: Object.fromEntries(Object.entries(review.assertions.assets).map(([k, v]) => [String(k), v])) }
        : null,
      lastError: review?.lastError ?? null,
      appliedCommit: review?.appliedCommit ?? null,
      actions: review?.actions ?? [],
    },
    links: {
      tracking: record.kind === 'contribution' ? contributionUrl(base, code) : correctionReportUrl(base, code),
      admin: `${base}${ADMIN}/${SEGMENT[record.kind]}/${code}`,
    },
  };
}

function queueSummary(record: StoredContribution | StoredCorrectionReport): string {
  if (record.kind === 'contribution') {
    const s = record.submission;
    return `${s.operation} for ${s.target?.workSlug ?? 'a new record'}${s.arrangement?.title ? `: ${s.arrangement.title}` : ''}`;
  }
  const r = record.report;
  return `correct ${r.fieldName} of ${r.workSlug ?? r.targetType}${r.targetId != null ? ` #${r.targetId}` : ''}`;
}

const envelope = (data: unknown) => ({ apiVersion: API_VERSION, generatedAtUtc: utcNow(), data });

export async function registerAdminRoutes(app: FastifyInstance, ctx: AppContext, reviews: ReviewService): Promise<void> {
  const base = ctx.config.publicBaseUrl;
  const service = () => reviews;
  const auth = requireRole(ctx, ['admin']);

  const fail = (request: FastifyRequest, reply: FastifyReply, err: unknown) => {
    if (err instanceof ReviewError) return sendProblem(reply, request, base, err.problem, err.message, err.extras);
    request.log.error({ err }, 'review action failed');
    // Never a 5xx for a review action: whatever failed, nothing was half-merged (apply resets main).
    return sendProblem(reply, request, base, 'conflict', `The action could not be completed and nothing was changed: ${(err as Error).message}`);
  };

  for (const kind of ['contribution', 'correction-report'] as const) {
    const codeOf = (request: FastifyRequest, reply: FastifyReply): string | null => {
      const raw = (request.params as { code: string }).code;
      const code = normalizeTrackingCode(raw, kind);
      if (!code) void sendProblem(reply, request, base, 'not-found', `No ${kind === 'contribution' ? 'contribution' : 'correction report'} has the tracking code ${raw}.`);
      return code;
    };

    app.get(`${ADMIN}/${SEGMENT[kind]}/:code`, { onRequest: auth }, async (request, reply) => {
      const code = codeOf(request, reply);
      if (!code) return reply;
      try {
        const { record, review } = await service().get(kind, code);
        return reply.header('Cache-Control', 'no-store').send(envelope(adminView(record, review, base)));
      } catch (err) {
        return fail(request, reply, err);
      }
    });

    app.post(
      `${ADMIN}/${SEGMENT[kind]}/:code/:action`,
      { onRequest: auth, schema: { body: AdminActionBody } },
      async (request, reply) => {
        const action = (request.params as { action: string }).action;
        if (!(REVIEW_ACTIONS as readonly string[]).includes(action)) {
          return sendProblem(reply, request, base, 'not-found', `Unknown review action "${action}"; use one of ${REVIEW_ACTIONS.join(', ')}.`);
        }
        const code = codeOf(request, reply);
        if (!code) return reply;
        try {
          const { record, review } = await service().act(kind, code, action as (typeof REVIEW_ACTIONS)[number], request.body as AdminActionBody);
          return reply.header('Cache-Control', 'no-store').send(envelope(adminView(record, review, base)));
        } catch (err) {
          return fail(request, reply, err);
        }
      },
    );
  }

  app.get(`${ADMIN}/queue`, { onRequest: auth }, async (request, reply) => {
    try {
      const s = service();
      const items = await s.queue();
      const out = [];
      for (const r of items) {
        const review = await s.reviews.get(r.trackingCode);
        out.push({
          trackingCode: r.trackingCode,
          kind: r.kind,
          status: r.status,
          receivedAtUtc: r.receivedAtUtc,
          updatedAtUtc: r.updatedAtUtc,
          summary: queueSummary(r),
          blockers: review?.blockers.length ?? 0,
          links: {
            admin: `${base}${ADMIN}/${SEGMENT[r.kind]}/${r.trackingCode}`,
            tracking: r.kind === 'contribution' ? contributionUrl(base, r.trackingCode) : correctionReportUrl(base, r.trackingCode),
          },
        });
      }
      return reply.header('Cache-Control', 'no-store').send(envelope({ items: out, total: out.length }));
    } catch (err) {
      return fail(request, reply, err);
    }
  });
}
