/**
 * Bulk imports through review (docs/imports.md): the importer stages files and submits each work
 * as a new-work contribution with `batch`; editors see the batch as one item with its works.
 */
import { Type, type Static } from '@sinclair/typebox';
import { BATCH_ID_PATTERN, MusicContributionInput, SUBMISSION_STATUSES } from './contribution.ts';
import { AbsoluteUrl, Nullable, StringEnum, UtcTimestamp } from './common.ts';
import { Problem } from './envelope.ts';
import { model, strict } from './options.ts';

/** Where an imported work's facts came from: the corpus's index, works.csv, or the score file itself. */
export const FACT_SOURCES = ['corpus-index', 'works-csv', 'score-file'] as const;
export type FactSource = (typeof FACT_SOURCES)[number];

/** What matched between an item and its probable duplicate, and whether everything did (src/domain/corpus/duplicates.ts). */
export const DuplicateMatch = Type.Object(
  {
    matched: Type.Array(Type.String({ maxLength: 200 }), {
      maxItems: 20,
      description: 'What matched, in words: "composer", "catalog number K. 464", "title".',
    }),
    exact: Type.Boolean({
      description:
        'The composer, the title and every catalog number are the same: a batch `merge` that names no items merges only exact matches.',
    }),
  },
  { ...strict, title: 'DuplicateMatch' },
);
export type DuplicateMatch = Static<typeof DuplicateMatch>;

export const ImportItemInput = Type.Object(
  {
    contribution: MusicContributionInput,
    duplicateOf: Type.Optional(
      Nullable(Type.String({ maxLength: 200 }), {
        description:
          'A probable duplicate the importer found: a work slug in the catalog or another item of the batch (same composer; a shared whole catalog number, or the same title without a catalog number that tells them apart).',
      }),
    ),
    duplicateMatch: Type.Optional(DuplicateMatch),
    factsFrom: Type.Optional(
      StringEnum(FACT_SOURCES, {
        description:
          "Where the work's facts came from: the corpus's index, works.csv, or the score file itself (not checked against any table).",
      }),
    ),
  },
  model('ImportItemInput', 'One work of a bulk import.'),
);
export type ImportItemInput = Static<typeof ImportItemInput>;

export const ImportSkip = Type.Object(
  {
    itemKey: Type.String({ maxLength: 120 }),
    title: Type.String({ maxLength: 300 }),
    composer: Type.String({ maxLength: 200 }),
    reason: Type.String({
      maxLength: 500,
      description: 'Why it was not submitted, e.g. "composer died in 1960: not public domain in the EU until 2031".',
    }),
  },
  { ...strict, title: 'ImportSkip' },
);

export const ImportSummary = Type.Object(
  {
    batchId: Type.String({ pattern: BATCH_ID_PATTERN }),
    title: Type.String({ maxLength: 200 }),
    finishedAtUtc: UtcTimestamp('When the import run finished (UTC).'),
    considered: Type.Integer({ minimum: 0, description: 'Score files the run looked at.' }),
    submitted: Type.Integer({ minimum: 0, description: 'New contributions this run submitted.' }),
    alreadySubmitted: Type.Integer({
      minimum: 0,
      description: 'Works an earlier run had submitted (nothing new sent).',
    }),
    duplicates: Type.Integer({ minimum: 0, description: 'Submitted works flagged as probable duplicates.' }),
    skipped: Type.Array(ImportSkip, { maxItems: 100_000, description: 'Works not submitted, each with the reason.' }),
  },
  model('ImportSummary', 'What one import run did.'),
);
export type ImportSummary = Static<typeof ImportSummary>;

export const BATCH_ACTIONS = ['accept', 'decline', 'apply', 'merge', 'record-facts'] as const;

/** The facts a batch action can record: a work's first publication, or a fact of a person its works name. */
export const BATCH_FACT_FIELDS = ['firstPublished', 'born', 'died', 'wikidataId', 'worksPublishedBy'] as const;

export const BatchFact = Type.Object(
  {
    field: StringEnum(BATCH_FACT_FIELDS, {
      description:
        '"firstPublished": each chosen work\'s first publication (one correction report per work). "born", "died", "wikidataId", "worksPublishedBy": a fact of the person `person` names (one correction report, on the first chosen work that names them).',
    }),
    value: Type.String({
      minLength: 1,
      maxLength: 40,
      description:
        'The value, as a correction report takes it: "1826", "no later than 1900" or "unpublished" for firstPublished; a date, a year or "unknown" for born/died; a Wikidata id; a year for worksPublishedBy.',
    }),
    person: Type.Optional(
      Type.String({
        pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$',
        maxLength: 160,
        description: "For a person's fact: the person (their slug, people/<slug>.json).",
      }),
    ),
    evidenceUrl: Type.Optional(
      Type.String({
        format: 'uri',
        pattern: '^https://',
        maxLength: 1000,
        description: 'One page for every chosen work that shows the fact (a Wikidata entry, a collected edition).',
      }),
    ),
    evidenceFromItemScan: Type.Optional(
      Type.Boolean({
        description:
          "true: each work's own evidence is the scan its score was transcribed from (the item's source page, e.g. the IMSLP file): an editor follows it to the edition's title page. Exclusive with evidenceUrl; one of them is required (a fact without evidence is refused).",
      }),
    ),
    note: Type.String({
      minLength: 1,
      maxLength: 500,
      description:
        'What the evidence shows, recorded with the fact (e.g. "Each score was transcribed from an edition printed by 1900").',
    }),
  },
  model(
    'BatchFact',
    'A fact recorded for a batch (action record-facts): correction reports made and accepted by the acting editor, applied like other batch items (action apply).',
  ),
);
export type BatchFact = Static<typeof BatchFact>;

export const BatchActionBody = Type.Object(
  {
    items: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 120 }), {
        minItems: 1,
        maxItems: 10_000,
        description: 'Tracking codes or item keys to act on; absent: every item of the batch the action fits.',
      }),
    ),
    reviewer: Type.Optional(Type.String({ minLength: 1, maxLength: 100, description: 'The person acting.' })),
    note: Type.Optional(Type.String({ maxLength: 2000, description: 'Public note for every item acted on.' })),
    approveTerms: Type.Optional(
      Type.Boolean({
        description:
          'accept or merge: approve the new vocabulary terms the works propose (newTerms), so they are added to genres.json / instruments.json with the work; an accepted work is accepted again to approve them.',
      }),
    ),
    fact: Type.Optional(BatchFact),
  },
  { ...strict, $id: 'BatchActionBody', title: 'BatchActionBody' },
);
export type BatchActionBody = Static<typeof BatchActionBody>;

export const BatchQuery = Type.Object(
  {
    status: Type.Optional(StringEnum(SUBMISSION_STATUSES, { description: 'Only items in this status.' })),
    q: Type.Optional(Type.String({ maxLength: 200, description: 'Words of the title or composer.' })),
    duplicates: Type.Optional(Type.Boolean({ description: 'true: only items flagged as probable duplicates.' })),
  },
  { ...strict, $id: 'BatchQuery' },
);
export type BatchQuery = Static<typeof BatchQuery>;

const TerritoryBrief = Type.Object({
  US: Type.String(),
  EU: Type.String(),
  CA: Type.String(),
});

export const BatchItemView = Type.Object(
  {
    itemKey: Type.String(),
    trackingCode: Type.String(),
    status: StringEnum(SUBMISSION_STATUSES),
    title: Type.String(),
    composer: Type.String(),
    lyricist: Nullable(Type.String()),
    workSlug: Nullable(Type.String(), { description: 'The slug the new work would get (target.workSlug).' }),
    duplicateOf: Nullable(Type.String(), {
      description:
        'A probable duplicate: a catalog work\'s slug, or "batch item <key>" for another item of the batch. The `merge` action adds this item\'s files to that work as another source score.',
    }),
    duplicateMatch: Nullable(DuplicateMatch, {
      description:
        'What matched the probable duplicate; null when none is flagged, or for items flagged before it was recorded.',
    }),
    factsFrom: Nullable(StringEnum(FACT_SOURCES), {
      description:
        'Where the work\'s facts came from: "corpus-index", "works-csv", or "score-file" (read from the file itself, not checked against any table); null for items submitted before it was recorded.',
    }),
    newTerms: Type.Array(Type.String(), {
      description:
        'New vocabulary terms the work proposes (e.g. genre "String quartet"); they land only when an editor approves them.',
    }),
    termsApproved: Type.Boolean({ description: 'An editor approved the proposed terms.' }),
    territories: TerritoryBrief,
    missingFacts: Type.Array(Type.String()),
    links: Type.Object({
      admin: AbsoluteUrl('The item in the admin API.'),
      desk: AbsoluteUrl('The item in the desk.'),
    }),
  },
  { ...strict, title: 'BatchItemView' },
);
export type BatchItemView = Static<typeof BatchItemView>;

/** A batch action's life: `running` until every chosen item has its outcome, then `completed`; `failed` when the action itself could not go on (each item keeps the outcome it reached). */
export const BATCH_ACTION_STATES = ['running', 'completed', 'failed'] as const;
export type BatchActionState = (typeof BATCH_ACTION_STATES)[number];

/** One chosen item's outcome: `waiting` (not reached yet), `done` (acted on), `failed` (see `problem`). */
export const BATCH_ITEM_OUTCOMES = ['waiting', 'done', 'failed'] as const;
export type BatchItemOutcome = (typeof BATCH_ITEM_OUTCOMES)[number];

/** Problem details (the Problem model's fields) nested in a record: no `$id` of its own, so a record can hold it twice. */
const NestedProblem = Type.Object(Problem.properties, { additionalProperties: true });

export const BatchActionItem = Type.Object(
  {
    trackingCode: Type.String(),
    itemKey: Type.String(),
    outcome: StringEnum(BATCH_ITEM_OUTCOMES),
    status: StringEnum(SUBMISSION_STATUSES, {
      description: "The item's review status after the action reached it (before that: when the action started).",
    }),
    finishedAtUtc: Nullable(UtcTimestamp('When the action finished this item (UTC).')),
    problem: Nullable(NestedProblem, {
      description: 'Why the item failed (RFC 9457 problem details); null unless failed.',
    }),
    report: Type.Optional(
      Nullable(Type.String(), {
        description:
          'record-facts: the correction report the action made and accepted for the item (apply the batch to land it).',
      }),
    ),
  },
  { ...strict, title: 'BatchActionItem' },
);
export type BatchActionItem = Static<typeof BatchActionItem>;

const batchActionFields = {
  actionId: Type.String({ description: 'The action, unique in the archive (e.g. "accept-20261126T220501Z-3f9c").' }),
  batchId: Type.String(),
  action: StringEnum(BATCH_ACTIONS),
  state: StringEnum(BATCH_ACTION_STATES),
  actor: Type.String({ description: "The label of the editor's key (or desk session) that asked for the action." }),
  reviewer: Type.String({ description: 'The person acting, recorded on every item.' }),
  note: Nullable(Type.String()),
  approveTerms: Type.Boolean(),
  fact: Type.Optional(Nullable(BatchFact, { description: 'record-facts: the fact recorded.' })),
  startedAtUtc: UtcTimestamp('When the action was acknowledged (UTC).'),
  finishedAtUtc: Nullable(UtcTimestamp('When the last item got its outcome, or the action failed (UTC).')),
  resumedAtUtc: Type.Array(UtcTimestamp('A start of the server that resumed the action.'), {
    description: 'Each time a server start resumed the action after a stop (graceful or not) cut it short.',
  }),
  total: Type.Integer({ minimum: 0, description: 'Items the action fits, chosen when it was requested.' }),
  done: Type.Integer({ minimum: 0, description: 'Items with an outcome (acted on or failed).' }),
  actedOn: Type.Integer({ minimum: 0, description: 'Items acted on.' }),
  failed: Type.Integer({ minimum: 0, description: 'Items that failed, each with its problem.' }),
  error: Nullable(NestedProblem, { description: 'Why the action as a whole failed (state "failed"); else null.' }),
  links: Type.Object(
    {
      self: AbsoluteUrl('This action (poll it until `state` is no longer "running").'),
      batch: AbsoluteUrl('The batch in the admin API.'),
      desk: AbsoluteUrl("The batch's desk page, which shows the action's progress."),
    },
    strict,
  ),
};

export const BatchActionView = Type.Object(
  {
    ...batchActionFields,
    items: Type.Array(BatchActionItem, { description: 'Every chosen item with its outcome, in batch order.' }),
  },
  model(
    'BatchActionView',
    'One action on a review batch, run in the background: progress per item, the state, and who asked. The tracking resource of POST /api/v1/admin/batches/{batchId}/{action}.',
  ),
);
export type BatchActionView = Static<typeof BatchActionView>;

export const BatchActionBrief = Type.Object(
  batchActionFields,
  model('BatchActionBrief', 'A batch action without its items (listings).'),
);
export type BatchActionBrief = Static<typeof BatchActionBrief>;
