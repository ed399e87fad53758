/**
 * The reconcile of an incremental build (docs/review.md, "Reconcile"): `GET /api/v1/admin/reconcile`
 * and the answer of `POST /api/v1/admin/reconcile`. One schema for the answer's type and the OpenAPI document.
 */
import { Type, type Static } from '@sinclair/typebox';
import { UtcTimestamp } from './common.ts';

export const RECONCILE_STATES = [
  'idle',
  'waiting',
  'running',
  'completed',
  'failed',
  'cancelled',
  'not-needed',
] as const;
export type ReconcileState = (typeof RECONCILE_STATES)[number];

export const RECONCILE_TRIGGERS = ['schedule', 'on-demand', 'after-apply', 'start'] as const;
export type ReconcileTrigger = (typeof RECONCILE_TRIGGERS)[number];

const nullable = <T extends ReturnType<typeof Type.String> | ReturnType<typeof Type.Integer>>(schema: T) =>
  Type.Union([schema, Type.Null()]);

export const ReconcileCost = Type.Object(
  {
    buildMs: Type.Integer({ minimum: 0, description: "The full build's own time (build.json `durationMs`)." }),
    works: Type.Integer({ minimum: 0, description: 'Works built.' }),
    pages: Type.Integer({ minimum: 0, description: 'Pages indexed for search (build.json `searchIndex.pages`).' }),
    scoresRendered: Type.Integer({
      minimum: 0,
      description: 'Scores the build rendered (engraved or from the cache).',
    }),
    scoresEngraved: Type.Integer({
      minimum: 0,
      description: 'Scores engraved by this build (not in the render cache).',
    }),
    scoresFromCache: Type.Integer({
      minimum: 0,
      description: 'Scores taken from the render cache (verified entries), not engraved again.',
    }),
    scoresFailed: Type.Integer({ minimum: 0, description: 'Scores that could not be rendered.' }),
    peakRssBytes: Type.Integer({ minimum: 0, description: "The build process's peak resident memory." }),
  },
  {
    $id: 'ReconcileCost',
    additionalProperties: false,
    description: "What the reconcile's full build cost, from its build.json.",
  },
);
export type ReconcileCost = Static<typeof ReconcileCost>;

export const ReconcileStatus = Type.Object(
  {
    state: Type.Union(
      RECONCILE_STATES.map((s) => Type.Literal(s)),
      {
        description:
          'idle: none requested since the server started. waiting: due after the quiet period of ARCHIVE_RECONCILE_DELAY_MS. ' +
          'running: the full build is running (lowest CPU priority). completed: the full build replaced the incremental folder. ' +
          'failed: the build failed; the incremental folder keeps serving (`detail` says why). cancelled: stopped by a server stop, ' +
          'or superseded by an apply of a newer commit (`detail`). not-needed: the served build was already a full build.',
      },
    ),
    trigger: Type.Union([...RECONCILE_TRIGGERS.map((t) => Type.Literal(t)), Type.Null()], {
      description:
        'What asked for it: schedule (ARCHIVE_RECONCILE_SCHEDULE), on-demand (POST /api/v1/admin/reconcile), after-apply (ARCHIVE_RECONCILE_DELAY_MS), start (a server started on an incremental folder with ARCHIVE_RECONCILE_DELAY_MS set); null when idle.',
    }),
    commit: nullable(Type.String({ pattern: '^[0-9a-f]{40}$', description: 'The content commit it builds in full.' })),
    requestedAtUtc: nullable(UtcTimestamp('When it was asked for.')),
    startedAtUtc: nullable(UtcTimestamp('When its full build started.')),
    finishedAtUtc: nullable(UtcTimestamp('When it ended (completed, failed, cancelled).')),
    durationMs: nullable(
      Type.Integer({
        minimum: 0,
        description: 'From start to end: checkout, full build and swap (null until it ends).',
      }),
    ),
    detail: nullable(Type.String({ description: 'Why it failed, was cancelled or was not needed.' })),
    cost: Type.Union([ReconcileCost, Type.Null()], {
      description: "The full build's cost (completed; also when a newer apply superseded a finished build)",
    }),
    schedule: Type.String({
      description: 'ARCHIVE_RECONCILE_SCHEDULE as the server reads it (`off`, `6h`, `daily@03:00`).',
    }),
    nextScheduledAtUtc: nullable(
      UtcTimestamp('The next scheduled check (a reconcile runs then only if the served build is incremental).'),
    ),
  },
  {
    $id: 'ReconcileStatus',
    additionalProperties: false,
    description:
      'The current or last reconcile: a full build of the served commit that replaces an incremental build folder.',
  },
);
export type ReconcileStatus = Static<typeof ReconcileStatus>;
