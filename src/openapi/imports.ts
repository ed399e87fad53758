/**
 * OpenAPI operations of bulk imports and review batches (tag `admin`; docs/imports.md). Every
 * operation needs an admin key, like the rest of the admin API.
 */
import { Type, type TSchema } from '@sinclair/typebox';
import { Envelope } from '../schemas/envelope.ts';
import {
  BATCH_ACTIONS,
  BatchActionBody,
  BatchActionBrief,
  BatchActionView,
  BatchItemView,
  BatchQuery,
  ImportItemInput,
  ImportSummary,
} from '../schemas/imports.ts';
import { preferParam, problem, queryParameters, ref, type OperationSpec, type ParameterSpec } from './spec.ts';

const SECURITY: Array<Record<string, string[]>> = [{ bearerKey: [] }, { archiveImportKey: [] }];
const KEY = 'Needs an admin key (ARCHIVE_ADMIN_KEYS) as Authorization: Bearer <key>; never in the URL.';
const auth = {
  '401': problem('No key, or a wrong key (WWW-Authenticate: Bearer).'),
  '403': problem('A valid key without the admin role.'),
};
const json = (description: string, schema: TSchema = Type.Unknown()) => ({
  description,
  contentType: 'application/json',
  schema: Envelope(schema, description),
});
const batchParam: ParameterSpec = {
  name: 'batchId',
  in: 'path',
  required: true,
  description: 'The batch, e.g. "openscore-lieder".',
  schema: { type: 'string', maxLength: 80 },
};

export const IMPORT_OPERATIONS: OperationSpec[] = [
  {
    method: 'put',
    path: '/api/v1/admin/imports/files/{sha256}',
    operationId: 'stageImportFile',
    tags: ['admin'],
    security: SECURITY,
    summary: 'Stage a score file for an import',
    description: `${KEY} The file (application/octet-stream) is stored in the blob store under its SHA-256 and marked as staged by an import; a contribution then names it as https://imports.invalid/sha256/<hex>, which review takes from the blob store.`,
    parameters: [
      {
        name: 'sha256',
        in: 'path',
        required: true,
        description: 'SHA-256 of the file.',
        schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
      },
    ],
    requestBody: {
      description: 'The file.',
      required: true,
      contentTypes: ['application/octet-stream'],
      schema: Type.String({ format: 'binary' }),
    },
    responses: {
      '201': json('Stored: its digest and size.'),
      ...auth,
      '409': problem("The file's SHA-256 is not the one in the path (digest-mismatch)."),
      '415': problem('Not application/octet-stream.'),
    },
  } as OperationSpec,
  {
    method: 'post',
    path: '/api/v1/admin/imports/items',
    operationId: 'submitImportItem',
    tags: ['admin'],
    security: SECURITY,
    summary: 'Submit one work of an import batch',
    description: `${KEY} A new-work contribution with \`batch\` (id and item key), validated like a public submission; it enters review as pending and is never applied automatically. Idempotent by its idempotencyKey: the same content again answers 200 with the first tracking code.`,
    requestBody: {
      description: 'The item.',
      required: true,
      contentTypes: ['application/json'],
      schema: ref('ImportItemInput'),
    },
    responses: {
      '201': json('Submitted: outcome "created" and the tracking code.'),
      '200': json('Already submitted: outcome "replayed" and the first tracking code.'),
      '400': problem('The contribution is not valid (errors[] names each field).'),
      ...auth,
      '409': problem('The idempotencyKey was used with different content.'),
    },
  } as OperationSpec,
  {
    method: 'put',
    path: '/api/v1/admin/imports/batches/{batchId}/summary',
    operationId: 'putImportSummary',
    tags: ['admin'],
    security: SECURITY,
    summary: "Store an import run's summary on its batch",
    description: KEY,
    parameters: [batchParam],
    requestBody: {
      description: 'The summary.',
      required: true,
      contentTypes: ['application/json'],
      schema: ref('ImportSummary'),
    },
    responses: { '200': json('Stored.'), '400': problem('Not a valid summary, or it names another batch.'), ...auth },
  } as OperationSpec,
  {
    method: 'get',
    path: '/api/v1/admin/batches',
    operationId: 'listBatches',
    tags: ['admin'],
    security: SECURITY,
    summary: 'List review batches with their counts by status',
    description: `${KEY} Each batch with its counts by status, probable duplicates, the last import run's summary and its running (else newest) action (\`latestAction\`, a BatchActionBrief, or null).`,
    responses: { '200': json('The batches.'), ...auth },
  } as OperationSpec,
  {
    method: 'get',
    path: '/api/v1/admin/batches/{batchId}',
    operationId: 'getBatch',
    tags: ['admin'],
    security: SECURITY,
    summary: 'One review batch with its works, filtered',
    description: `${KEY} Each work with its status, composer, lyricist, probable duplicate, rights per territory with the missing facts, and links to its review item.`,
    parameters: [batchParam, ...queryParameters(BatchQuery)],
    responses: {
      '200': json(
        'The batch.',
        Type.Object({
          batchId: Type.String(),
          title: Type.String(),
          total: Type.Integer(),
          items: Type.Array(ref('BatchItemView') as unknown as TSchema),
          lastRun: Type.Unknown(),
          latestAction: Type.Union([ref('BatchActionBrief') as unknown as TSchema, Type.Null()], {
            description: "The batch's running action, else its newest one; null when it has none.",
          }),
          facts: Type.Array(
            Type.Object({
              itemKey: Type.String(),
              trackingCode: Type.String({ description: 'The correction report that records the fact.' }),
              field: Type.String(),
              value: Type.String(),
              person: Type.Union([Type.String(), Type.Null()]),
              status: Type.String({ description: "The report's status: accepted until the batch is applied." }),
            }),
            { description: 'Facts recorded for the batch (record-facts), each with its correction report.' },
          ),
        }),
      ),
      ...auth,
      '404': problem('No such batch.'),
    },
  } as OperationSpec,
  {
    method: 'post',
    path: '/api/v1/admin/batches/{batchId}/{action}',
    operationId: 'actOnBatch',
    tags: ['admin'],
    security: SECURITY,
    summary: 'Accept, decline, merge or apply works of a batch, or record a fact for them, chosen or all',
    description: `${KEY} Each work goes through the same review action as a single contribution, recorded with the key's label; \`items\` names works by tracking code or item key, else every work the action fits (accept: pending; merge: pending and flagged as a probable duplicate; apply: accepted; decline: open). \`merge\` accepts a probable duplicate as another source score of the work it duplicates (its files with their license, attribution and source pages; no second work; the review records \`mergeInto\` and a "merge" action). \`approveTerms\` with accept or merge approves the new vocabulary terms the works propose. Apply lands every accepted work as ONE change: one commit on main (the works merged one after another onto a line of their own, then that line into main) and one rebuild; a work that conflicts with one merged before it fails alone. The action runs in the background and is acknowledged once its record is durable: one action per batch at a time (a second gets 409 naming the running one). Its tracking resource is \`GET /api/v1/admin/batches/{batchId}/actions/{actionId}\` (progress per item, state running / completed / failed). With \`Prefer: respond-async\` the answer is 202 at once (\`Preference-Applied: respond-async\`), as for a single item's apply. Without it the answer waits for the action at most 20 s (at most a third of ARCHIVE_IDLE_TIMEOUT_MS; \`Prefer: wait=N\` shortens it): 200 with the finished action, else 202 with the running one. A 202 carries \`Location\`: poll it until \`state\` is no longer "running". A stop of the server (graceful or not) resumes the action on start. \`record-facts\` records one fact (\`fact\`: a BatchFact) for the chosen applied works, or every one: a work's first publication ("no later than 1900", with one evidence page, or each work's own scan its score was transcribed from: \`evidenceFromItemScan\`), or a fact of a person the works name (their death year, once: it changes the person's record, so every work naming them); each is a correction report made and accepted by the acting key (\`report\` on each item), and the next \`apply\` of the batch lands them with its accepted works, in the same one change; every work's rights are then derived from the facts again (docs/imports.md, "Clearing a batch").`,
    parameters: [
      batchParam,
      {
        name: 'action',
        in: 'path',
        required: true,
        description: 'accept, decline, merge, apply or record-facts.',
        schema: { type: 'string', enum: [...BATCH_ACTIONS] },
      },
      preferParam,
    ],
    requestBody: {
      description: 'Which works, reviewer, note.',
      required: true,
      contentTypes: ['application/json'],
      schema: ref('BatchActionBody'),
    },
    responses: {
      '200': json(
        'The action, finished within the wait: its outcome per work.',
        ref('BatchActionView') as unknown as TSchema,
      ),
      '202': json(
        'The action, acknowledged and running (Location: its tracking resource).',
        ref('BatchActionView') as unknown as TSchema,
      ),
      '400': problem('A named item is not in the batch, or the body is not valid.'),
      ...auth,
      '404': problem('No such batch or action.'),
      '409': problem('The batch already has an action running (`runningAction` names it).'),
    },
  } as OperationSpec,
  {
    method: 'get',
    path: '/api/v1/admin/batches/{batchId}/actions',
    operationId: 'listBatchActions',
    tags: ['admin'],
    security: SECURITY,
    summary: "A batch's actions, newest first",
    description: `${KEY} Each action without its items: state, counts, who asked, when.`,
    parameters: [batchParam],
    responses: {
      '200': json(
        "The batch's actions.",
        Type.Object({ batchId: Type.String(), items: Type.Array(ref('BatchActionBrief') as unknown as TSchema) }),
      ),
      ...auth,
      '404': problem('No such batch.'),
    },
  } as OperationSpec,
  {
    method: 'get',
    path: '/api/v1/admin/batches/{batchId}/actions/{actionId}',
    operationId: 'getBatchAction',
    tags: ['admin'],
    security: SECURITY,
    summary: 'One batch action: its state, progress and outcome per work',
    description: `${KEY} The tracking resource of a batch action: \`state\` is "running" until every chosen work has its outcome ("done", or "failed" with a problem detail), then "completed"; "failed" when the action itself could not go on. \`startedAtUtc\`, \`finishedAtUtc\` and \`resumedAtUtc\` (server starts that resumed it) are UTC; \`actor\` is the label of the key that asked.`,
    parameters: [
      batchParam,
      {
        name: 'actionId',
        in: 'path',
        required: true,
        description: 'The action, as named by the answer to the POST.',
        schema: { type: 'string', maxLength: 80 },
      },
    ],
    responses: {
      '200': json('The action.', ref('BatchActionView') as unknown as TSchema),
      ...auth,
      '404': problem('No such batch or action.'),
    },
  } as OperationSpec,
];

export const IMPORT_COMPONENTS: Record<string, TSchema> = {
  ImportItemInput,
  ImportSummary,
  BatchActionBody,
  BatchItemView,
  BatchActionView,
  BatchActionBrief,
};
