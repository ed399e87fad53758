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
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { AppContext } from '../context.ts';
import { requireRole } from '../http/auth.ts';
import { ProblemError } from '../http/problem.ts';
import { sendPrivateJson } from '../http/reply.ts';
import type { ReviewService } from './service.ts';
import { normalizeTrackingCode } from '../../src/domain/contributions/tracking-code.ts';
import { contributionUrl, correctionReportUrl } from '../../src/domain/contributions/tracking.ts';
import { AdminActionBody, REVIEW_ACTIONS, type AdminAction, type AdminItem, type QueueItem, type ReviewRecord } from '../../src/schemas/review.ts';
import type { StoredContribution, SubmissionKind } from '../../src/schemas/contribution.ts';
import type { StoredCorrectionReport } from '../../src/schemas/correction.ts';

const ADMIN = '/api/v1/admin';
const SEGMENT: Record<SubmissionKind, string> = { contribution: 'contributions', 'correction-report': 'correction-reports' };

/** Path parameters; the action is checked by the handler so an unknown one is a 404 that lists the actions. */
const ItemParams = Type.Object({ code: Type.String({ maxLength: 100 }) });
const ActionParams = Type.Object({ code: Type.String({ maxLength: 100 }), action: Type.String({ maxLength: 100 }) });

function adminView(record: StoredContribution | StoredCorrectionReport, review: ReviewRecord | null, base: string): AdminItem {
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
      assertions: review?.assertions ?? null,
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

export async function registerAdminRoutes(app: FastifyInstance, ctx: AppContext, reviews: ReviewService): Promise<void> {
  const base = ctx.config.publicBaseUrl;
  const auth = requireRole(ctx, ['admin']);

  /** Never a 5xx for a review action: whatever failed, nothing was half-merged (apply resets main). */
  const asProblem = (request: FastifyRequest, err: unknown): never => {
    if (err instanceof ProblemError) throw err;
    request.log.error({ err }, 'review action failed');
    throw new ProblemError('conflict', `The action could not be completed and nothing was changed: ${(err as Error).message}`);
  };

  for (const kind of ['contribution', 'correction-report'] as const) {
    const codeOf = (raw: string): string => {
      const code = normalizeTrackingCode(raw, kind);
      if (!code) throw new ProblemError('not-found', `No ${kind === 'contribution' ? 'contribution' : 'correction report'} has the tracking code ${raw}.`);
      return code;
    };

    app.get<{ Params: Static<typeof ItemParams> }>(`${ADMIN}/${SEGMENT[kind]}/:code`, { onRequest: auth, schema: { params: ItemParams } }, async (request, reply) => {
      const code = codeOf(request.params.code);
      const { record, review } = await reviews.get(kind, code).catch((err: unknown) => asProblem(request, err));
      return sendPrivateJson(reply, adminView(record, review, base));
    });

    app.post<{ Params: Static<typeof ActionParams>; Body: AdminActionBody }>(
      `${ADMIN}/${SEGMENT[kind]}/:code/:action`,
      { onRequest: auth, schema: { params: ActionParams, body: AdminActionBody } },
      async (request, reply) => {
        const { action } = request.params;
        if (!(REVIEW_ACTIONS as readonly string[]).includes(action)) {
          throw new ProblemError('not-found', `Unknown review action "${action}"; use one of ${REVIEW_ACTIONS.join(', ')}.`);
        }
        const code = codeOf(request.params.code);
        const { record, review } = await reviews.act(kind, code, action as AdminAction, request.body).catch((err: unknown) => asProblem(request, err));
        return sendPrivateJson(reply, adminView(record, review, base));
      },
    );
  }

  app.get(`${ADMIN}/queue`, { onRequest: auth }, async (request, reply) => {
    try {
      const items: QueueItem[] = [];
      for (const r of await reviews.queue()) {
        const review = await reviews.reviews.get(r.trackingCode);
        items.push({
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
      return sendPrivateJson(reply, { items, total: items.length });
    } catch (err) {
      return asProblem(request, err);
    }
  });
}
