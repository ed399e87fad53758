/**
 * Admin review API models (TypeBox -> JSON Schema): the action body, the admin view of an item
 * and the queue. Used for request validation, the OpenAPI document (src/openapi/admin.ts) and
 * the types.
 */
import { Type, type Static } from '@sinclair/typebox';
import { AbsoluteUrl, Nullable, StringEnum, UtcTimestamp } from '../../schemas/common.ts';
import { ReviewLink, StatusChange, SUBMISSION_KINDS, SUBMISSION_STATUSES } from '../../schemas/contribution.ts';
import { ASSERTABLE_STATES } from './proposal.ts';

const strict = { additionalProperties: false } as const;

export const REVIEW_ACTIONS = ['accept', 'request-information', 'apply', 'decline'] as const;

export const ReviewAssertion = Type.Object(
  {
    assets: Type.Optional(
      Type.Array(
        Type.Object(
          {
            index: Type.Integer({ minimum: 0, maximum: 999, description: 'Index of the asset in the submission\'s `assets` array (0-based).' }),
            reviewState: StringEnum(ASSERTABLE_STATES, { description: 'The review state the named reviewer asserts for this file.' }),
          },
          { ...strict, description: 'One asserted review state.' },
        ),
        { maxItems: 100, description: 'Review states the reviewer asserts, per contributed asset.' },
      ),
    ),
    arrangement: Type.Optional(StringEnum(ASSERTABLE_STATES, { description: 'Review state asserted for the contributed arrangement as a whole.' })),
  },
  {
    ...strict,
    title: 'ReviewAssertion',
    description:
      'What the named reviewer personally asserts (e.g. `human-listening-approved` after listening). Without it contributed assets land as `pending`, whatever the submitter claimed. Never lifts `rights-review-required`.',
  },
);

export const AdminActionBody = Type.Object(
  {
    note: Type.Optional(Type.String({ maxLength: 2000, description: 'Public note added to the tracking history (e.g. which information is needed, or why declined).' })),
    reviewer: Type.String({ minLength: 1, maxLength: 100, description: 'Name of the accountable human reviewer; recorded in history, commits and assertions.' }),
    assert: Type.Optional(ReviewAssertion),
  },
  { ...strict, $id: 'AdminActionBody', title: 'AdminActionBody', description: 'A review action by a named reviewer.' },
);
export type AdminActionBody = Static<typeof AdminActionBody>;

const TechnicalCheck = Type.Object(
  {
    kind: Type.String(),
    passed: Type.Boolean({ description: 'Whether the automated checks passed (not listening approval).' }),
    summary: Type.String({ description: 'One line, also written into the asset\'s technicalChecks.' }),
    measurements: Type.Record(Type.String(), Type.Unknown(), { description: 'Measured values.' }),
  },
  { description: 'Technical checks of one verified file.' },
);

export const VerificationEntry = Type.Object(
  {
    index: Type.Integer({ minimum: 0, description: 'Index of the asset in the submission.' }),
    url: Nullable(Type.String(), { description: 'The contributor URL fetched.' }),
    declaredSha256: Nullable(Type.String(), { description: 'SHA-256 the contributor declared.' }),
    status: StringEnum(['verified', 'refused', 'not-fetched'] as const, { description: 'verified: fetched, digest matches, stored; refused: why in `reason`; not-fetched: no downloadUrl.' }),
    sha256: Nullable(Type.String(), { description: 'Digest of the stored copy.' }),
    byteLength: Nullable(Type.Integer({ minimum: 0 }), { description: 'Size of the stored copy.' }),
    mediaType: Nullable(Type.String(), { description: 'Content-Type the contributor\'s server sent.' }),
    reason: Nullable(Type.String(), { description: 'Why it was refused or not fetched.' }),
    checks: Nullable(TechnicalCheck, { description: 'Technical checks, for verified files.' }),
  },
  { ...strict, title: 'VerificationEntry', description: 'Fetch, digest and technical checks of one contributor file.' },
);

export const AdminReviewState = Type.Object(
  {
    forge: Nullable(StringEnum(['local', 'github'] as const), { description: 'Where the review lives.' }),
    review: Nullable(ReviewLink, { description: 'The review branch or pull request.' }),
    verification: Type.Array(VerificationEntry, { description: 'Contributor files, one entry each.' }),
    blockers: Type.Array(Type.String(), { description: 'What blocks apply right now (stale base, digest mismatch, failed check, lint).' }),
    assertions: Nullable(
      Type.Object(
        {
          reviewer: Type.String(),
          atUtc: UtcTimestamp('When asserted.'),
          assets: Type.Record(Type.String(), StringEnum(ASSERTABLE_STATES)),
          arrangement: Nullable(StringEnum(ASSERTABLE_STATES)),
        },
        { ...strict },
      ),
      { description: 'Review states a named reviewer asserted.' },
    ),
    lastError: Nullable(Type.Object({ atUtc: UtcTimestamp('When.'), message: Type.String() }, { ...strict }), { description: 'The last failed apply (e.g. the build error).' }),
    appliedCommit: Nullable(Type.String(), { description: 'Merge commit on main once applied.' }),
    actions: Type.Array(
      Type.Object(
        { action: StringEnum(REVIEW_ACTIONS), reviewer: Type.String(), atUtc: UtcTimestamp('When.'), note: Nullable(Type.String()), outcome: Type.String() },
        { ...strict },
      ),
      { description: 'Every admin action, oldest first (internal log).' },
    ),
  },
  { ...strict, title: 'AdminReviewState', description: 'The reviewers\' side of one item.' },
);

export const AdminItem = Type.Object(
  {
    trackingCode: Type.String({ description: 'Tracking code.' }),
    kind: StringEnum(SUBMISSION_KINDS, { description: 'Contribution or correction report.' }),
    status: StringEnum(SUBMISSION_STATUSES, { description: 'Current status.' }),
    changedCanonicalData: Type.Boolean({ description: 'True once applied.' }),
    receivedAtUtc: UtcTimestamp('When received.'),
    updatedAtUtc: UtcTimestamp('When the status last changed.'),
    history: Type.Array(StatusChange, { description: 'Status history with public notes.' }),
    submission: Type.Record(Type.String(), Type.Unknown(), { description: 'The full submitted body (contribution or correction report), including contact details.' }),
    review: AdminReviewState,
    links: Type.Object({ tracking: AbsoluteUrl('The public tracking record.'), admin: AbsoluteUrl('This admin view.') }, { ...strict }),
  },
  { ...strict, $id: 'AdminItem', title: 'AdminItem', description: 'A submission as reviewers see it.' },
);
export type AdminItem = Static<typeof AdminItem>;

export const QueueItem = Type.Object(
  {
    trackingCode: Type.String(),
    kind: StringEnum(SUBMISSION_KINDS),
    status: StringEnum(SUBMISSION_STATUSES),
    receivedAtUtc: UtcTimestamp('When received.'),
    updatedAtUtc: UtcTimestamp('When the status last changed.'),
    summary: Type.String({ description: 'One line: operation and target.' }),
    blockers: Type.Integer({ minimum: 0, description: 'Number of recorded blockers.' }),
    links: Type.Object({ admin: AbsoluteUrl('The admin view.'), tracking: AbsoluteUrl('The public tracking record.') }, { ...strict }),
  },
  { ...strict, $id: 'QueueItem', title: 'QueueItem', description: 'One open item of the review queue.' },
);

export const AdminQueue = Type.Object(
  {
    items: Type.Array(QueueItem, { description: 'Open items (pending, needs-information, accepted), oldest first.' }),
    total: Type.Integer({ minimum: 0 }),
  },
  { ...strict, $id: 'AdminQueue', title: 'AdminQueue', description: 'The review queue.' },
);
