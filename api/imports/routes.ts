/**
 * Bulk imports through review (docs/imports.md). The importer (`npm run import`) talks to these
 * admin routes with an admin key; editors act on a batch here or in the desk. Nothing here
 * applies anything on its own: items enter review as pending contributions.
 *
 *   PUT  /api/v1/admin/imports/files/{sha256}          stage a score file (application/octet-stream)
 *   POST /api/v1/admin/imports/items                   submit one work of a batch (ImportItemInput)
 *   PUT  /api/v1/admin/imports/batches/{batchId}/summary   the run's summary (ImportSummary)
 *   GET  /api/v1/admin/batches                         batches with their counts by status
 *   GET  /api/v1/admin/batches/{batchId}               one batch with its works (?status=&q=&duplicates=true)
 *   POST /api/v1/admin/batches/{batchId}/{action}      accept | decline | apply, for chosen items or all
 */
import type { Readable } from 'node:stream';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import type { AppContext } from '../context.ts';
import { isOperatorLabel, principalOf, requireRole } from '../http/auth.ts';
import { ProblemError } from '../http/problem.ts';
import { sendPrivateJson } from '../http/reply.ts';
import type { ReviewService } from '../review/service.ts';
import { ImportStore, type StoredBatchItem } from './store.ts';
import { markStaged, withoutStagedUrlFindings } from './staged-files.ts';
import {
  BATCH_ACTIONS,
  BatchActionBody,
  BatchQuery,
  ImportItemInput,
  ImportSummary,
  type BatchItemView,
} from '../../src/schemas/imports.ts';
import { checkContributionSafety } from '../../src/domain/contributions/safety.ts';
import { checkPlaceholders } from '../../src/domain/contributions/placeholders.ts';
import { validate } from '../../src/domain/validation.ts';
import { MusicContributionInput, type StoredContribution } from '../../src/schemas/contribution.ts';
import { authorsOf, firstPublishedFact } from '../../src/domain/review/proposal.ts';
import { territoryRights } from '../../src/domain/territory-rights.ts';
import { matchesAllWords } from '../../src/domain/text.ts';
import { DigestMismatchError } from '../blobs/blob-store.ts';

const ADMIN = '/api/v1/admin';
const FILE_BODY_LIMIT = 200 * 1024 * 1024;

const FileParams = Type.Object({ sha256: Type.String({ pattern: '^[0-9a-f]{64}$' }) });
const BatchParams = Type.Object({ batchId: Type.String({ maxLength: 80 }) });
const BatchActionParams = Type.Object({ batchId: Type.String({ maxLength: 80 }), action: Type.String({ maxLength: 40 }) });

/** The rights the contribution's facts give, per territory, for the batch listing. */
export function itemRights(c: MusicContributionInput, asOfYear: number) {
  const w = c.work ?? {};
  const composer = { name: w.composer ?? '', died: w.composerFacts?.died ?? 'unknown' };
  return territoryRights({
    authors: authorsOf(composer, w.lyricist ?? null, w.hasLyrics === true),
    firstPublished: firstPublishedFact(w.firstPublished),
    asOfYear,
  });
}

export async function registerImportRoutes(app: FastifyInstance, ctx: AppContext, reviews: ReviewService): Promise<void> {
  const base = ctx.config.publicBaseUrl;
  const auth = requireRole(ctx, ['admin']);
  const store = new ImportStore(ctx.config.dataDir);
  const now = () => new Date().toISOString().replace(/\.\d{3}Z$/, 'Z');

  const view = (item: StoredBatchItem, record: StoredContribution): BatchItemView => {
    const c = record.submission;
    const rights = itemRights(c, new Date().getUTCFullYear());
    return {
      itemKey: item.itemKey,
      trackingCode: item.trackingCode,
      status: record.status,
      title: c.work?.title ?? '',
      composer: c.work?.composer ?? '',
      lyricist: c.work?.lyricist?.name ?? null,
      duplicateOf: item.duplicateOf,
      territories: { US: rights.US.status, EU: rights.EU.status, CA: rights.CA.status },
      missingFacts: rights.missingFacts,
      links: {
        admin: `${base}${ADMIN}/contributions/${item.trackingCode}`,
        desk: `${base}/admin/items/${item.trackingCode}`,
      },
    };
  };

  async function batchItems(batchId: string): Promise<BatchItemView[]> {
    const out: BatchItemView[] = [];
    for (const item of await store.itemsOf(batchId)) {
      const record = await ctx.intake.getContribution(item.trackingCode);
      if (record) out.push(view(item, record));
    }
    return out;
  }

  async function batchOrThrow(batchId: string) {
    const batch = await store.getBatch(batchId);
    if (!batch) throw new ProblemError('not-found', `No import batch is called "${batchId}".`);
    return batch;
  }

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
        errors.push({ pointer: '/contribution/batch', detail: 'is required for an import item (batch id and item key)' });
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
      return sendPrivateJson(reply, {
        batchId: batch.batchId,
        title: batch.title,
        total: all.length,
        items,
        lastRun: batch.lastRun,
      });
    },
  );

  app.post<{ Params: Static<typeof BatchActionParams>; Body: BatchActionBody }>(
    `${ADMIN}/batches/:batchId/:action`,
    { onRequest: auth, schema: { params: BatchActionParams, body: BatchActionBody } },
    async (request, reply) => {
      const { action } = request.params;
      if (!(BATCH_ACTIONS as readonly string[]).includes(action))
        throw new ProblemError('not-found', `Unknown batch action "${action}"; use one of ${BATCH_ACTIONS.join(', ')}.`);
      const batch = await batchOrThrow(request.params.batchId);
      const all = await batchItems(batch.batchId);
      const wanted = request.body.items ? new Set(request.body.items.map((s) => s.toUpperCase())) : null;
      const chosen = wanted
        ? all.filter((i) => wanted.has(i.trackingCode.toUpperCase()) || wanted.has(i.itemKey.toUpperCase()))
        : all;
      if (wanted && chosen.length !== wanted.size) {
        const known = new Set(chosen.flatMap((i) => [i.trackingCode.toUpperCase(), i.itemKey.toUpperCase()]));
        const missing = [...wanted].filter((w) => !known.has(w));
        throw new ProblemError('invalid-body', `${missing.length} of the named items are not in this batch.`, {
          errors: missing.slice(0, 20).map((m) => ({ pointer: '/items', detail: `"${m}" is not an item of ${batch.batchId}` })),
        });
      }
      // Only the items the action fits: accept what is pending, apply what is accepted, decline what is open.
      const fits = (s: string) =>
        action === 'accept' ? s === 'pending' : action === 'apply' ? s === 'accepted' : s === 'pending' || s === 'accepted' || s === 'needs-information';
      const { label } = principalOf(request as FastifyRequest);
      const actor = { label, operatorLabeled: isOperatorLabel(label) };
      const results: Array<{ trackingCode: string; itemKey: string; status: string; error: string | null }> = [];
      for (const item of chosen.filter((i) => fits(i.status))) {
        try {
          const { record } = await reviews.act(
            'contribution',
            item.trackingCode,
            action as 'accept' | 'decline' | 'apply',
            { reviewer: request.body.reviewer ?? label, ...(request.body.note ? { note: request.body.note } : {}) },
            actor,
          );
          results.push({ trackingCode: item.trackingCode, itemKey: item.itemKey, status: record.status, error: null });
        } catch (err) {
          results.push({
            trackingCode: item.trackingCode,
            itemKey: item.itemKey,
            status: item.status,
            error: (err as Error).message,
          });
        }
      }
      return sendPrivateJson(reply, {
        batchId: batch.batchId,
        action,
        actor: label,
        actedOn: results.filter((r) => r.error === null).length,
        failed: results.filter((r) => r.error !== null).length,
        results,
      });
    },
  );
}
