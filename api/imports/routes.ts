/**
 * Bulk imports through review (docs/imports.md). The importer (`npm run import`) talks to these
 * admin routes with an admin key; editors act on a batch here or in the desk. Nothing here
 * applies anything on its own: items enter review as pending contributions.
 *
 *   PUT  /api/v1/admin/imports/files/{sha256}          stage a score file (application/octet-stream)
 *   HEAD /api/v1/admin/imports/files/{sha256}          200 when that file is staged already, else 404
 *   POST /api/v1/admin/imports/items                   submit one work of a batch (ImportItemInput)
 *   PUT  /api/v1/admin/imports/batches/{batchId}/summary   the run's summary (ImportSummary)
 *   GET  /api/v1/admin/batches                         batches with their counts by status
 *   GET  /api/v1/admin/batches/{batchId}               one batch with its works (?status=&q=&duplicates=true)
 *   POST /api/v1/admin/batches/{batchId}/{action}      accept | decline | merge | apply | record-facts, for chosen items or all:
 *                                                      runs in the background (api/imports/actions.ts); 202 with
 *                                                      the action (Location: its tracking resource), or 200 when
 *                                                      it finished within the short wait (below)
 *   GET  /api/v1/admin/batches/{batchId}/actions       the batch's actions, newest first
 *   GET  /api/v1/admin/batches/{batchId}/actions/{actionId}   one action: state, progress, outcome per item
 */
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { AppContext } from '../context.ts';
import { isOperatorLabel, principalOf, requireRole } from '../http/auth.ts';
import { ProblemError } from '../http/problem.ts';
import { sendPrivateJson } from '../http/reply.ts';
import type { BatchService, BatchAction } from './service.ts';
import { settledWithin, type BatchActions } from './actions.ts';
import { batchActionBrief, batchActionView, batchAnswerWait } from '../../src/domain/batch-actions.ts';
import { isStaged, markStaged, withoutStagedUrlFindings } from './staged-files.ts';
import {
  BATCH_ACTIONS,
  BatchActionBody,
  BatchQuery,
  ImportItemInput,
  ImportSummary,
} from '../../src/schemas/imports.ts';
import { checkContributionSafety } from '../../src/domain/contributions/safety.ts';
import { checkPlaceholders } from '../../src/domain/contributions/placeholders.ts';
import { validate, validatorFor } from '../../src/domain/validation.ts';
import { matchesAllWords } from '../../src/domain/text.ts';
import { DigestMismatchError } from '../blobs/blob-store.ts';

const ADMIN = '/api/v1/admin';
const FILE_BODY_LIMIT = 200 * 1024 * 1024;

const FileParams = Type.Object({ sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }) });
const BatchParams = Type.Object({ batchId: Type.String({ maxLength: 80 }) });
const BatchActionParams = Type.Object({
  batchId: Type.String({ maxLength: 80 }),
  action: Type.String({ maxLength: 40 }),
});
const BatchActionIdParams = Type.Object({
  batchId: Type.String({ maxLength: 80 }),
  actionId: Type.String({ maxLength: 80 }),
});

export async function registerImportRoutes(
  app: FastifyInstance,
  ctx: AppContext,
  batches: BatchService,
  actions: BatchActions,
): Promise<void> {
  const base = ctx.config.publicBaseUrl;
  const auth = requireRole(ctx, ['admin']);
  const store = batches.store;
  // Compiled now, not on the first item posted (a compile holds the thread).
  validatorFor(ImportItemInput);
  const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

  const batchItems = (id: string) => batches.items(id);
  const batchOrThrow = (id: string) => batches.batchOrThrow(id);

  await app.register(async (scope) => {
    // Score files arrive as the raw request stream, hashed while stored (never buffered whole).
    scope.addContentTypeParser('application/octet-stream', (_request, payload, done) => done(null, payload));

    scope.put<{ Params: Static<typeof FileParams> }>(
      `${ADMIN}/imports/files/:sha256`,
      { onRequest: auth, bodyLimit: FILE_BODY_LIMIT, schema: { params: FileParams } },
      async (request, reply) => {
        if (!String(request.headers['content-type'] ?? '').startsWith('application/octet-stream'))
          throw new ProblemError('unsupported-media-type', 'Send the file as application/octet-stream.');
        const { sha256 } = request.params;
        try {
          const info = await ctx.blobs.putStream(request.body as Readable, sha256);
          await markStaged(ctx.config.dataDir, info.sha256);
          return sendPrivateJson(reply.code(201), { sha256: info.sha256, byteLength: info.byteLength });
        } catch (err) {
          if (err instanceof DigestMismatchError)
            throw new ProblemError('digest-mismatch', `The file's SHA-256 is ${err.actual}, not ${err.expected}.`, {
              errors: [{ parameter: 'sha256', detail: `does not match the file (${err.actual})` }],
            });
          throw err;
        }
      },
    );
  });

  // Whether a file is staged already: a re-run (or a resumed one) uploads only what is missing.
  app.head<{ Params: Static<typeof FileParams> }>(
    `${ADMIN}/imports/files/:sha256`,
    { onRequest: auth, schema: { params: FileParams } },
    async (request, reply) => {
      const { sha256 } = request.params;
      const info = (await isStaged(ctx.config.dataDir, sha256)) ? await ctx.blobs.stat(sha256) : null;
      if (!info) throw new ProblemError('not-found', `No import staged the file ${sha256}.`);
      return reply
        .code(200)
        .header('Cache-Control', 'no-store')
        .header('Content-Length', String(info.byteLength))
        .send();
    },
  );

  app.post<{ Body: ImportItemInput }>(
    `${ADMIN}/imports/items`,
    { onRequest: auth, bodyLimit: 1024 * 1024, schema: { body: ImportItemInput }, attachValidation: true },
    async (request, reply) => {
      const schemaErrors = validate(ImportItemInput, request.body);
      const body = request.body;
      const c = body?.contribution;
      const errors = [
        ...schemaErrors,
        ...(schemaErrors.length === 0
          ? withoutStagedUrlFindings([...checkContributionSafety(c), ...checkPlaceholders(c)], c).map((e) => ({
              ...e,
              pointer: `/contribution${e.pointer ?? ''}`,
            }))
          : []),
      ];
      if (schemaErrors.length === 0 && !c.batch)
        errors.push({
          pointer: '/contribution/batch',
          detail: 'is required for an import item (batch id and item key)',
        });
      if (schemaErrors.length === 0 && c.operation !== 'new-work')
        errors.push({ pointer: '/contribution/operation', detail: 'must be "new-work" for an import item' });
      if (errors.length > 0)
        throw new ProblemError('invalid-body', 'The import item is not valid; nothing was stored.', { errors });
      const outcome = await ctx.intake.submitContribution(c);
      if (outcome.kind === 'conflict')
        throw new ProblemError(
          'idempotency-conflict',
          'This idempotencyKey was already used with different content. Nothing was stored.',
          { errors: [{ pointer: '/contribution/idempotencyKey', detail: 'was already used with different content' }] },
        );
      const batch = c.batch!;
      await store.ensureBatch(batch.id, batch.title, now());
      const item = await store.recordItem({
        recordVersion: 1,
        batchId: batch.id,
        itemKey: batch.itemKey,
        trackingCode: outcome.record.trackingCode,
        duplicateOf: body.duplicateOf ?? null,
        duplicateMatch: body.duplicateOf ? (body.duplicateMatch ?? null) : null,
        factsFrom: body.factsFrom ?? null,
        submittedAtUtc: outcome.record.receivedAtUtc,
      });
      return sendPrivateJson(reply.code(outcome.kind === 'created' ? 201 : 200), {
        outcome: outcome.kind,
        trackingCode: item.trackingCode,
        batchId: item.batchId,
        itemKey: item.itemKey,
      });
    },
  );

  app.put<{ Params: Static<typeof BatchParams>; Body: ImportSummary }>(
    `${ADMIN}/imports/batches/:batchId/summary`,
    { onRequest: auth, bodyLimit: 16 * 1024 * 1024, schema: { params: BatchParams, body: ImportSummary } },
    async (request, reply) => {
      if (request.body.batchId !== request.params.batchId)
        throw new ProblemError('invalid-body', 'The summary names another batch.', {
          errors: [{ pointer: '/batchId', detail: `must be "${request.params.batchId}"` }],
        });
      await store.setSummary(request.body);
      return sendPrivateJson(reply, { batchId: request.body.batchId, stored: true });
    },
  );

  app.get(`${ADMIN}/batches`, { onRequest: auth }, async (_request, reply) => {
    const batches = await store.listBatches();
    const out = [];
    for (const b of batches) {
      const items = await batchItems(b.batchId);
      const counts: Record<string, number> = {};
      for (const i of items) counts[i.status] = (counts[i.status] ?? 0) + 1;
      out.push({
        batchId: b.batchId,
        title: b.title,
        items: items.length,
        counts,
        duplicates: items.filter((i) => i.duplicateOf !== null).length,
        lastRun: b.lastRun,
        latestAction: await actions.latest(b.batchId).then((a) => (a ? batchActionBrief(a, base) : null)),
        links: { self: `${base}${ADMIN}/batches/${b.batchId}`, desk: `${base}/admin/batches/${b.batchId}` },
      });
    }
    return sendPrivateJson(reply, { items: out });
  });

  app.get<{ Params: Static<typeof BatchParams>; Querystring: BatchQuery }>(
    `${ADMIN}/batches/:batchId`,
    { onRequest: auth, schema: { params: BatchParams, querystring: BatchQuery } },
    async (request, reply) => {
      const batch = await batchOrThrow(request.params.batchId);
      const q = request.query;
      const all = await batchItems(batch.batchId);
      const items = all.filter(
        (i) =>
          (q.status === undefined || i.status === q.status) &&
          (q.duplicates !== true || i.duplicateOf !== null) &&
          (q.q === undefined || matchesAllWords(`${i.title} ${i.composer} ${i.lyricist ?? ''} ${i.itemKey}`, q.q)),
      );
      const latest = await actions.latest(batch.batchId);
      return sendPrivateJson(reply, {
        batchId: batch.batchId,
        title: batch.title,
        total: all.length,
        items,
        lastRun: batch.lastRun,
        latestAction: latest ? batchActionBrief(latest, base) : null,
        facts: await batches.factsView(batch.batchId),
      });
    },
  );

  app.post<{ Params: Static<typeof BatchActionParams>; Body: BatchActionBody }>(
    `${ADMIN}/batches/:batchId/:action`,
    { onRequest: auth, schema: { params: BatchActionParams, body: BatchActionBody } },
    async (request, reply) => {
      const { action } = request.params;
      if (!(BATCH_ACTIONS as readonly string[]).includes(action))
        throw new ProblemError(
          'not-found',
          `Unknown batch action "${action}"; use one of ${BATCH_ACTIONS.join(', ')}.`,
        );
      const batch = await batchOrThrow(request.params.batchId);
      const { label } = principalOf(request as FastifyRequest);
      const wait = batchAnswerWait(String(request.headers.prefer ?? ''), ctx.config.serverTimeouts.idleTimeoutMs);
      const { record, finished } = await actions.start(batch.batchId, action as BatchAction, request.body, {
        label,
        operatorLabeled: isOperatorLabel(label),
      });
      await settledWithin(finished, wait.ms);
      const current = (await actions.get(batch.batchId, record.actionId)) ?? record;
      const view = batchActionView(current, base);
      if (wait.respondAsync) reply.header('Preference-Applied', 'respond-async');
      // 202 while it runs: Location is the tracking resource to poll. 200 once it has an outcome.
      if (current.state === 'running') reply.code(202).header('Location', view.links.self);
      else reply.header('Content-Location', view.links.self);
      return sendPrivateJson(reply, view);
    },
  );

  app.get<{ Params: Static<typeof BatchParams> }>(
    `${ADMIN}/batches/:batchId/actions`,
    { onRequest: auth, schema: { params: BatchParams } },
    async (request, reply) => {
      const batch = await batchOrThrow(request.params.batchId);
      const list = await actions.list(batch.batchId);
      return sendPrivateJson(reply, { batchId: batch.batchId, items: list.map((a) => batchActionBrief(a, base)) });
    },
  );

  app.get<{ Params: Static<typeof BatchActionIdParams> }>(
    `${ADMIN}/batches/:batchId/actions/:actionId`,
    { onRequest: auth, schema: { params: BatchActionIdParams } },
    async (request, reply) => {
      const batch = await batchOrThrow(request.params.batchId);
      const action = await actions.get(batch.batchId, request.params.actionId);
      if (!action)
        throw new ProblemError('not-found', `The batch ${batch.batchId} has no action "${request.params.actionId}".`);
      return sendPrivateJson(reply, batchActionView(action, base));
    },
  );
}
