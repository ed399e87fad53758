/**
 * The admin review API (docs/review.md): act on contributions and correction reports,
 * read one item as reviewers see it, and list the open queue. Every route needs an admin key
 * (ARCHIVE_ADMIN_KEYS) as `Authorization: Bearer <key>`; answers are `Cache-Control: no-store`.
 *
 *   POST /api/v1/admin/contributions/{code}/{action}
 *   POST /api/v1/admin/correction-reports/{code}/{action}   action: accept | request-information | apply | decline
 *        (accept, request-information and decline run as action records: api/review/item-actions.ts)
 *   GET  /api/v1/admin/{contributions|correction-reports}/{code}/actions/{actionId}   one action's progress and outcome
 *   GET  /api/v1/admin/contributions/{code}, /api/v1/admin/correction-reports/{code}
 *   GET  /api/v1/admin/queue       ?status=&kind=&operation=&workSlug=&receivedAfter=&receivedBefore=&page=&pageSize=
 *   GET  /api/v1/admin/pull-requests/{number}   a pull request a person opened on the content repository (GitHub mode)
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { AppContext } from '../context.ts';
import { isOperatorLabel, principalOf, requireRole } from '../http/auth.ts';
import { ProblemError } from '../http/problem.ts';
import { pageLink, sendPrivateJson } from '../http/reply.ts';
import type { ReviewActor, ReviewService } from './service.ts';
import type { PullRequestReviews } from '../forge/pull-requests.ts';
import { reviewDiff } from './diff.ts';
import type { ItemActions } from './item-actions.ts';
import { settledWithin } from '../imports/actions.ts';
import { batchAnswerWait } from '../../src/domain/batch-actions.ts';
import { itemActionView } from '../../src/domain/review/item-actions.ts';
import { PROBLEM_TYPES, type ProblemName } from '../../src/domain/problems.ts';

/** The authenticated admin key as the actor of a review action: every action names who took it. */
function actorOf(request: FastifyRequest): ReviewActor {
  const { label } = principalOf(request);
  return { label, operatorLabeled: isOperatorLabel(label) };
}
import { normalizeTrackingCode } from '../../src/domain/contributions/tracking-code.ts';
import { contributionUrl, correctionReportUrl } from '../../src/domain/contributions/tracking.ts';
import {
  AdminActionBody,
  AdminQueueQuery,
  QUEUE_DEFAULT_PAGE_SIZE,
  REVIEW_ACTIONS,
  type AdminItem,
  type ItemActionName,
  type ItemActionView,
  type AdminQueue,
  type QueueItem,
  type QueueStatus,
  type ReviewDiff,
  type ReviewRecord,
} from '../../src/schemas/review.ts';
import type { StoredContribution, SubmissionKind, SubmissionStatus } from '../../src/schemas/contribution.ts';
import type { StoredCorrectionReport } from '../../src/schemas/correction.ts';

const ADMIN = '/api/v1/admin';
const SEGMENT: Record<SubmissionKind, string> = {
  contribution: 'contributions',
  'correction-report': 'correction-reports',
};

/** Path parameters; the action is checked by the handler so an unknown one is a 404 that lists the actions. */
const ItemParams = Type.Object({ code: Type.String({ maxLength: 100 }) });
const PullRequestParams = Type.Object({ number: Type.Integer({ minimum: 1, maximum: 2147483647 }) });
const ActionParams = Type.Object({ code: Type.String({ maxLength: 100 }), action: Type.String({ maxLength: 100 }) });
const ActionIdParams = Type.Object({
  code: Type.String({ maxLength: 100 }),
  actionId: Type.String({ maxLength: 100 }),
});

export function adminView(
  record: StoredContribution | StoredCorrectionReport,
  review: ReviewRecord | null,
  base: string,
  diff?: ReviewDiff | null,
): AdminItem {
  const code = record.trackingCode;
  return {
    trackingCode: code,
    kind: record.kind,
    status: record.status,
    changedCanonicalData: record.changedCanonicalData,
    receivedAtUtc: record.receivedAtUtc,
    updatedAtUtc: record.updatedAtUtc,
    history: record.history,
    apply: record.apply ?? null,
    submission: (record.kind === 'contribution' ? record.submission : record.report) as unknown as Record<
      string,
      unknown
    >,
    review: {
      forge: review?.forge ?? null,
      review: record.review,
      verification: review?.verification ?? [],
      blockers: review?.blockers ?? [],
      warnings: review?.warnings ?? [],
      assertions: review?.assertions ?? null,
      arrangementFacts: review?.arrangementFacts ?? null,
      mergeInto: review?.mergeInto ?? null,
      termsApproval: review?.termsApproval ?? null,
      lastError: review?.lastError ?? null,
      appliedCommit: review?.appliedCommit ?? null,
      actions: review?.actions ?? [],
      ...(diff !== undefined ? { diff } : {}),
    },
    links: {
      tracking: record.kind === 'contribution' ? contributionUrl(base, code) : correctionReportUrl(base, code),
      admin: `${base}${ADMIN}/${SEGMENT[record.kind]}/${code}`,
    },
  };
}

const noop = () => undefined;

/** A stored problem detail (an action's error) as the error the handler answers with. */
function problemFromBody(problem: NonNullable<ItemActionView['error']>): ProblemError {
  const { type, title: _title, status, detail, instance: _instance, ...members } = problem;
  const last = String(type).split('/').pop() ?? '';
  const name = PROBLEM_TYPES.some((p) => p.name === last) ? (last as ProblemName) : 'conflict';
  return new ProblemError(name, String(detail ?? ''), { ...members, status: Number(status) || undefined });
}

export async function registerAdminRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  reviews: ReviewService,
  actions: ItemActions,
  pullRequests: PullRequestReviews | null = null,
): Promise<void> {
  const base = ctx.config.publicBaseUrl;
  const auth = requireRole(ctx, ['admin']);

  /** Never a 5xx for a review action: whatever failed, nothing was half-merged (apply resets main). */
  const asProblem = (request: FastifyRequest, err: unknown): never => {
    if (err instanceof ProblemError) throw err;
    request.log.error({ err }, 'review action failed');
    throw new ProblemError(
      'conflict',
      `The action could not be completed and nothing was changed: ${(err as Error).message}`,
    );
  };

  for (const kind of ['contribution', 'correction-report'] as const) {
    const codeOf = (raw: string): string => {
      const code = normalizeTrackingCode(raw, kind);
      if (!code)
        throw new ProblemError(
          'not-found',
          `No ${kind === 'contribution' ? 'contribution' : 'correction report'} has the tracking code ${raw}.`,
        );
      return code;
    };

    app.get<{ Params: Static<typeof ItemParams> }>(
      `${ADMIN}/${SEGMENT[kind]}/:code`,
      { onRequest: auth, schema: { params: ItemParams } },
      async (request, reply) => {
        const code = codeOf(request.params.code);
        const { record, review } = await reviews.get(kind, code).catch((err: unknown) => asProblem(request, err));
        // The proposed change as a bounded diff; a git failure shows as no diff, never a 5xx.
        const diff = await reviewDiff(ctx.config.contentRepo, {
          branch: review?.ref?.branch ?? null,
          appliedCommit: review?.appliedCommit ?? null,
        }).catch(() => null);
        return sendPrivateJson(reply, adminView(record, review, base, diff));
      },
    );

    app.post<{ Params: Static<typeof ActionParams>; Body: AdminActionBody }>(
      `${ADMIN}/${SEGMENT[kind]}/:code/:action`,
      { onRequest: auth, schema: { params: ActionParams, body: AdminActionBody } },
      async (request, reply) => {
        const { action } = request.params;
        if (!(REVIEW_ACTIONS as readonly string[]).includes(action)) {
          throw new ProblemError(
            'not-found',
            `Unknown review action "${action}"; use one of ${REVIEW_ACTIONS.join(', ')}.`,
          );
        }
        const code = codeOf(request.params.code);
        // `Prefer: respond-async` (RFC 7240) answers at once; without it the answer waits for the
        // outcome only as long as the idle timeout allows (a third of it, at most 20 s), then
        // answers 202 all the same: the connection is never cut while the work goes on.
        const wait = batchAnswerWait(String(request.headers.prefer ?? ''), ctx.config.serverTimeouts.idleTimeoutMs);
        if (wait.respondAsync) reply.header('Preference-Applied', 'respond-async');
        const itemHref = `${base}${ADMIN}/${SEGMENT[kind]}/${code}`;
        if (action === 'apply') {
          const applying = reviews.act(kind, code, 'apply', request.body, actorOf(request), {
            wait: !wait.respondAsync,
          });
          if (wait.respondAsync || (await settledWithin(applying.then(noop, noop), wait.ms))) {
            const { record, review } = await applying.catch((err: unknown) => asProblem(request, err));
            if (wait.respondAsync) reply.code(record.apply?.state === 'applying' ? 202 : 200);
            return sendPrivateJson(reply, adminView(record, review, base));
          }
          // Still applying: its outcome lands in the item's `apply` (and its tracking record).
          applying.catch((err: unknown) => request.log.warn({ err }, 'apply answered 202 and then failed'));
          const { record, review } = await reviews.get(kind, code);
          reply.code(202).header('Location', itemHref);
          return sendPrivateJson(reply, adminView(record, review, base));
        }
        const started = await actions
          .start(kind, code, action as ItemActionName, request.body, actorOf(request))
          .catch((err: unknown) => asProblem(request, err));
        await settledWithin(started.finished, wait.ms);
        const current = (await actions.get(kind, code, started.record.actionId)) ?? started.record;
        const view = itemActionView(current, base);
        if (current.state === 'running') {
          // Acknowledged and running: Location is the tracking resource to poll.
          reply.code(202).header('Location', view.links.self);
          return sendPrivateJson(reply, view);
        }
        reply.header('Content-Location', view.links.self);
        // Finished within the wait: answered as the action's own answer always was (the item, or the problem).
        if (current.state === 'failed' && current.error) throw problemFromBody(current.error);
        const { record, review } = await reviews.get(kind, code);
        return sendPrivateJson(reply, adminView(record, review, base));
      },
    );

    app.get<{ Params: Static<typeof ActionIdParams> }>(
      `${ADMIN}/${SEGMENT[kind]}/:code/actions/:actionId`,
      { onRequest: auth, schema: { params: ActionIdParams } },
      async (request, reply) => {
        const code = codeOf(request.params.code);
        const action = await actions.get(kind, code, request.params.actionId);
        if (!action)
          throw new ProblemError('not-found', `${code} has no action "${request.params.actionId.slice(0, 80)}".`);
        return sendPrivateJson(reply, itemActionView(action, base));
      },
    );
  }

  // A pull request a person opened on the content repository (recorded from GitHub's webhook).
  app.get<{ Params: Static<typeof PullRequestParams> }>(
    `${ADMIN}/pull-requests/:number`,
    { onRequest: auth, schema: { params: PullRequestParams } },
    async (request, reply) => {
      const pr = await pullRequests?.get(request.params.number);
      if (!pr) {
        throw new ProblemError(
          'not-found',
          pullRequests
            ? `No pull request #${request.params.number} has been recorded; the archive records pull requests from the GitHub webhook's pull_request events.`
            : 'Review does not run on GitHub here (GITHUB_TOKEN and GITHUB_REPOSITORY are not set), so no pull requests are recorded.',
        );
      }
      return sendPrivateJson(reply, pr);
    },
  );

  app.get<{ Querystring: AdminQueueQuery }>(
    `${ADMIN}/queue`,
    { onRequest: auth, schema: { querystring: AdminQueueQuery } },
    async (request, reply) => {
      const q = request.query;
      const page = q.page ?? 1;
      const pageSize = q.pageSize ?? QUEUE_DEFAULT_PAGE_SIZE;
      const statuses = (q.status?.split(',') ?? []) as QueueStatus[];
      const filter = {
        statuses,
        kind: q.kind,
        operation: q.operation,
        workSlug: q.workSlug,
        receivedAfter: q.receivedAfter,
        receivedBefore: q.receivedBefore,
      };
      const found = await reviews.queue(filter, page, pageSize).catch((err: unknown) => asProblem(request, err));
      // Only the page's review records are read (for their blocker counts).
      const items: QueueItem[] = await Promise.all(
        found.items.map(async (e): Promise<QueueItem> => {
          const common = {
            trackingCode: e.trackingCode,
            kind: e.kind,
            status: e.status,
            receivedAtUtc: e.receivedAtUtc,
            updatedAtUtc: e.updatedAtUtc,
            summary: e.summary,
          };
          if (e.kind === 'pull-request') {
            const number = e.trackingCode.slice('PR-'.length);
            const pr = await pullRequests?.get(Number(number));
            const admin = `${base}${ADMIN}/pull-requests/${number}`;
            return {
              ...common,
              blockers: pr?.lint.errorCount ?? 0,
              links: { admin, tracking: pr?.url ?? admin },
              ...(pr ? { pullRequest: pr } : {}),
            };
          }
          return {
            ...common,
            blockers: (await reviews.reviews.get(e.trackingCode))?.blockers.length ?? 0,
            links: {
              admin: `${base}${ADMIN}/${SEGMENT[e.kind]}/${e.trackingCode}`,
              tracking:
                e.kind === 'contribution'
                  ? contributionUrl(base, e.trackingCode)
                  : correctionReportUrl(base, e.trackingCode),
            },
          };
        }),
      );
      const totalPages = Math.ceil(found.total / pageSize);
      const last = Math.max(1, totalPages);
      const self = `${base}${ADMIN}/queue`;
      const params = {
        status: q.status,
        kind: q.kind,
        operation: q.operation,
        workSlug: q.workSlug,
        receivedAfter: q.receivedAfter,
        receivedBefore: q.receivedBefore,
        pageSize,
      };
      return sendPrivateJson(reply, {
        items,
        page,
        pageSize,
        total: found.total,
        totalPages,
        links: {
          self: pageLink(self, params, page),
          first: pageLink(self, params, 1),
          last: pageLink(self, params, last),
          next: page < totalPages ? pageLink(self, params, page + 1) : null,
          prev: page > 1 ? pageLink(self, params, Math.min(page - 1, last)) : null,
        },
        counts: found.counts,
      } satisfies AdminQueue);
    },
  );
}
