/**
 * Review models (TypeBox -> JSON Schema), the one source of each: the admin action body, the
 * stored review record (verification, blockers, assertions, actions), the admin view of an item
 * and the queue. Used for request validation, the OpenAPI document (src/openapi/admin.ts), the
 * review service's stored state and the types (every type here is `Static<>` of its schema).
 */
import { Type, type Static } from '@sinclair/typebox';
import {
  AbsoluteUrl,
  ArrangementSection,
  ASSET_KINDS,
  ASSET_REVIEW_STATES,
  MUSIC_ROLES,
  Nullable,
  StringEnum,
  UtcTimestamp,
} from './common.ts';
import { ApplyProgress, ReviewLink, StatusChange, SUBMISSION_KINDS, SUBMISSION_STATUSES } from './contribution.ts';
import { AudioMeasurement, DeclaredAudio, Disagreement } from './audio.ts';
import { Page, PageQuery, Problem } from './envelope.ts';
import { model, strict, titled } from './options.ts';

export const REVIEW_ACTIONS = ['accept', 'request-information', 'apply', 'decline'] as const;
export type AdminAction = (typeof REVIEW_ACTIONS)[number];
/**
 * What the reviewers' log records: the item actions, and `merge` (a probable duplicate a batch
 * flagged, merged into the existing work as another source score: docs/imports.md).
 */
export const REVIEW_LOG_ACTIONS = [...REVIEW_ACTIONS, 'merge'] as const;
export type ReviewLogAction = (typeof REVIEW_LOG_ACTIONS)[number];

/** Review states a reviewer may assert for a contributed asset: its review states (never rights-review-required). */
export const ASSERTABLE_STATES = ASSET_REVIEW_STATES;
export type AssertableState = (typeof ASSERTABLE_STATES)[number];

export const ReviewAssertion = Type.Object(
  {
    assets: Type.Optional(
      Type.Array(
        Type.Object(
          {
            index: Type.Integer({
              minimum: 0,
              maximum: 999,
              description: "Index of the asset in the submission's `assets` array (0-based).",
            }),
            reviewState: StringEnum(ASSERTABLE_STATES, {
              description: 'The review state the named reviewer asserts for this file.',
            }),
          },
          { ...strict, description: 'One asserted review state.' },
        ),
        { maxItems: 100, description: 'Review states the reviewer asserts, per contributed asset.' },
      ),
    ),
    arrangement: Type.Optional(
      StringEnum(ASSERTABLE_STATES, {
        description: 'Review state asserted for the contributed arrangement as a whole.',
      }),
    ),
  },
  titled(
    'ReviewAssertion',
    'What the named reviewer personally asserts (e.g. `human-listening-approved` after listening). Without it contributed assets land as `pending`, whatever the submitter claimed. Never lifts `rights-review-required`.',
  ),
);

/** What an editor may set for a contributed arrangement during review: what resolve ranks on. */
export const ArrangementFacts = Type.Object(
  {
    alsoSuits: Type.Optional(
      Type.Array(StringEnum(MUSIC_ROLES), {
        maxItems: MUSIC_ROLES.length,
        uniqueItems: true,
        description: 'Other roles it suits.',
      }),
    ),
    moods: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 40 }), { maxItems: 20, description: 'Mood words.' }),
    ),
    loopable: Type.Optional(Type.Boolean({ description: 'It loops seamlessly.' })),
    trimmable: Type.Optional(Type.Boolean({ description: 'It can be cut shorter at marked phrase ends.' })),
    sections: Type.Optional(
      Type.Array(ArrangementSection, { maxItems: 200, description: 'Sections with their times in seconds.' }),
    ),
  },
  titled(
    'ArrangementFacts',
    'Facts of the contributed arrangement set by the editor; each given field replaces what the contributor declared (fields left out keep the declaration).',
  ),
);
export type ArrangementFacts = Static<typeof ArrangementFacts>;

export const AdminActionBody = Type.Object(
  {
    note: Type.Optional(
      Type.String({
        maxLength: 2000,
        description: 'Public note added to the tracking history (e.g. which information is needed, or why declined).',
      }),
    ),
    reviewer: Type.String({
      minLength: 1,
      maxLength: 100,
      description:
        "Display name of the reviewer, shown beside the actor. The action is attributed to the authenticated admin key's label (commit trailer, tracking history, admin view), never to this free text.",
    }),
    assert: Type.Optional(ReviewAssertion),
    arrangement: Type.Optional(ArrangementFacts),
    approveTerms: Type.Optional(
      Type.Boolean({
        description:
          'accept (or merge): true approves the new vocabulary terms the contribution proposes (work.newTerms): the proposal adds them to genres.json / instruments.json. Without it a work that names a term the vocabulary lacks does not pass the content lint.',
      }),
    ),
  },
  model('AdminActionBody', 'A review action by a named reviewer.'),
);
export type AdminActionBody = Static<typeof AdminActionBody>;

export const TechnicalCheck = Type.Object(
  {
    kind: StringEnum(ASSET_KINDS, { description: 'The asset kind the checks were chosen for.' }),
    passed: Type.Boolean({ description: 'Whether the automated checks passed (not listening approval).' }),
    summary: Type.String({ description: "One line, also written into the asset's technicalChecks." }),
    measurements: Type.Record(Type.String(), Type.Unknown(), { description: 'Measured values.' }),
    audio: Type.Optional(
      Nullable(AudioMeasurement, {
        description:
          'MP3 and WAV: the decoded audio measured (loudness, true peak, sections, quiet stretches, narration-bed level); null when it could not be decoded.',
      }),
    ),
  },
  { description: 'Technical checks of one verified file.' },
);
export type TechnicalCheckResult = Static<typeof TechnicalCheck>;

export const VerificationEntry = Type.Object(
  {
    index: Type.Integer({ minimum: 0, description: 'Index of the asset in the submission.' }),
    url: Nullable(Type.String(), { description: 'The contributor URL fetched.' }),
    declaredSha256: Nullable(Type.String(), { description: 'SHA-256 the contributor declared.' }),
    status: StringEnum(['verified', 'refused', 'not-fetched'] as const, {
      description: 'verified: fetched, digest matches, stored; refused: why in `reason`; not-fetched: no downloadUrl.',
    }),
    sha256: Nullable(Type.String(), { description: 'Digest of the stored copy.' }),
    byteLength: Nullable(Type.Integer({ minimum: 0 }), { description: 'Size of the stored copy.' }),
    mediaType: Nullable(Type.String(), { description: "Content-Type the contributor's server sent." }),
    reason: Nullable(Type.String(), { description: 'Why it was refused or not fetched.' }),
    checks: Nullable(TechnicalCheck, { description: 'Technical checks, for verified files.' }),
    declared: Type.Optional(DeclaredAudio),
    disagreements: Type.Optional(
      Type.Array(Disagreement, {
        description: 'Declared values (duration, loudness) the measurement contradicts; each is also a review warning.',
      }),
    ),
  },
  titled('VerificationEntry', 'Fetch, digest and technical checks of one contributor file.'),
);
export type VerificationEntry = Static<typeof VerificationEntry>;

export const ReviewerAssertions = Type.Object(
  {
    reviewer: Type.String({ description: 'Display name the reviewer gave (free text, display only).' }),
    actor: Type.Optional(
      Type.String({ description: 'Label of the authenticated admin key that asserted: who is accountable.' }),
    ),
    atUtc: UtcTimestamp('When asserted.'),
    assets: Type.Record(Type.String({ pattern: '^[0-9]+$' }), StringEnum(ASSERTABLE_STATES), {
      description: 'By index (as a decimal string) into submission.assets.',
    }),
    arrangement: Nullable(StringEnum(ASSERTABLE_STATES)),
  },
  titled(
    'ReviewerAssertions',
    'What a named human reviewer asserted through the admin API (recorded with name and time).',
  ),
);
export type ReviewerAssertions = Static<typeof ReviewerAssertions>;

export const ReviewAction = Type.Object(
  {
    action: StringEnum(REVIEW_LOG_ACTIONS),
    reviewer: Type.String({ description: 'Display name given with the action (free text).' }),
    actor: Type.Optional(
      Type.String({
        description: 'Label of the authenticated key (or "github-webhook") that performed it: who is accountable.',
      }),
    ),
    atUtc: UtcTimestamp('When.'),
    note: Nullable(Type.String()),
    outcome: Type.String(),
  },
  titled('ReviewAction', 'One admin action and its outcome.'),
);

export const LastError = Type.Object(
  { atUtc: UtcTimestamp('When.'), message: Type.String() },
  { ...strict, title: 'LastError' },
);

/** Where a review lives on its forge (the stored form; the public tracking record shows a ReviewLink). */
export const ReviewRef = Type.Object(
  {
    kind: StringEnum(['local-branch', 'github-pull-request'] as const),
    branch: Type.String({ description: 'Always `review/<trackingCode>`.' }),
    url: Nullable(Type.String(), { description: 'Absolute URL of the pull request, or null for a local branch.' }),
    number: Type.Optional(Type.Integer({ minimum: 1, description: 'Pull request number on GitHub.' })),
    openedAtUtc: Type.String(),
  },
  { ...strict, title: 'ReviewRef' },
);
export type ReviewRef = Static<typeof ReviewRef>;

/** An editor's decision that a new work is a duplicate: its files land in an existing work instead. */
export const MergeInto = Type.Object(
  {
    workSlug: Type.String({ description: 'The existing work the files become source scores of.' }),
    actor: Type.String({ description: 'Label of the admin key that decided the merge.' }),
    atUtc: UtcTimestamp('When.'),
  },
  { ...strict, title: 'MergeInto' },
);
export type MergeInto = Static<typeof MergeInto>;

/** An editor's approval of the vocabulary terms a contribution proposes (work.newTerms). */
export const TermsApproval = Type.Object(
  {
    terms: Type.Array(Type.String(), { description: 'The approved terms, e.g. \'genre "String quartet"\'.' }),
    actor: Type.String({ description: 'Label of the admin key that approved them.' }),
    atUtc: UtcTimestamp('When.'),
  },
  { ...strict, title: 'TermsApproval' },
);
export type TermsApproval = Static<typeof TermsApproval>;

/** The reviewers' side of one item as stored in ARCHIVE_DATA_DIR/state/reviews (keyed by tracking code). */
export const ReviewRecord = Type.Object(
  {
    recordVersion: Type.Literal(1),
    trackingCode: Type.String(),
    kind: StringEnum(SUBMISSION_KINDS),
    forge: Nullable(StringEnum(['local', 'github'] as const)),
    ref: Nullable(ReviewRef),
    verification: Type.Array(VerificationEntry),
    /** Why apply is refused right now, in plain words; empty when nothing blocks it. */
    blockers: Type.Array(Type.String()),
    /** What the reviewer should look at without it blocking apply (declared values the measurement contradicts). */
    warnings: Type.Optional(Type.Array(Type.String())),
    assertions: Nullable(ReviewerAssertions),
    /** Arrangement facts an editor set (accept or apply), with who set them. */
    arrangementFacts: Type.Optional(
      Nullable(
        Type.Object({ actor: Type.String(), atUtc: UtcTimestamp('When.'), facts: ArrangementFacts }, { ...strict }),
      ),
    ),
    /** A new work an editor merged into an existing work: applied as another source score of it. */
    mergeInto: Type.Optional(Nullable(MergeInto)),
    acceptedBy: Type.Optional(
      Nullable(
        Type.Object(
          {
            actor: Type.String({ description: 'Label of the admin key that accepted the item.' }),
            atUtc: UtcTimestamp('When.'),
          },
          { ...strict },
        ),
        {
          description:
            'Who accepted the item and when: the facts it records (a death year, a first publication) carry it as their acceptance.',
        },
      ),
    ),
    /** New vocabulary terms an editor approved: the proposal adds them to the vocabulary files. */
    termsApproval: Type.Optional(Nullable(TermsApproval)),
    lastError: Nullable(LastError),
    appliedCommit: Nullable(Type.String()),
    actions: Type.Array(ReviewAction),
  },
  titled('ReviewRecord', 'The stored review state of one submission.'),
);
export type ReviewRecord = Static<typeof ReviewRecord>;

/** The change a review proposes, as git shows it (api/review/diff.ts). */
export const ReviewDiff = Type.Object(
  {
    base: Type.String({
      description:
        "Commit the change is compared against: where the review branch left main, or the applied merge commit's first parent.",
    }),
    head: Type.String({ description: "The review branch's commit, or the applied merge commit." }),
    files: Type.Array(
      Type.Object(
        {
          path: Type.String({ description: 'Path in the content repository.' }),
          added: Nullable(Type.Integer({ minimum: 0 }), { description: 'Lines added; null for a binary file.' }),
          deleted: Nullable(Type.Integer({ minimum: 0 }), { description: 'Lines deleted; null for a binary file.' }),
        },
        { ...strict },
      ),
      { description: 'Changed files (at most 500).' },
    ),
    moreFiles: Type.Integer({ minimum: 0, description: 'Changed files not listed beyond the first 500.' }),
    text: Type.String({ description: 'The unified diff (git diff), cut at a line end after `maxBytes` bytes.' }),
    truncated: Type.Boolean({ description: 'True when `text` was cut.' }),
    maxBytes: Type.Integer({ minimum: 1, description: 'The bound on `text`, in bytes.' }),
  },
  titled('ReviewDiff', 'The proposed change to the content repository as a bounded unified diff.'),
);
export type ReviewDiff = Static<typeof ReviewDiff>;

export const AdminReviewState = Type.Object(
  {
    forge: Nullable(StringEnum(['local', 'github'] as const), { description: 'Where the review lives.' }),
    review: Nullable(ReviewLink, { description: 'The review branch or pull request.' }),
    verification: Type.Array(VerificationEntry, { description: 'Contributor files, one entry each.' }),
    blockers: Type.Array(Type.String(), {
      description: 'What blocks apply right now (stale base, digest mismatch, failed check, lint).',
    }),
    warnings: Type.Array(Type.String(), {
      description:
        "What the reviewer should check without it blocking apply: a declared duration or loudness the archive's measurement contradicts.",
    }),
    assertions: Nullable(ReviewerAssertions, { description: 'Review states a named reviewer asserted.' }),
    arrangementFacts: Type.Optional(
      Nullable(
        Type.Object({ actor: Type.String(), atUtc: UtcTimestamp('When.'), facts: ArrangementFacts }, { ...strict }),
        {
          description:
            'Arrangement facts (moods, roles, loop/trim, sections) an editor set in review, with the key label that set them.',
        },
      ),
    ),
    mergeInto: Type.Optional(
      Nullable(MergeInto, {
        description:
          'Set when an editor merged this new work into an existing work as a probable duplicate: applying it adds its files (with their license, attribution and source pages) as source scores of that work; no new work is created.',
      }),
    ),
    termsApproval: Type.Optional(
      Nullable(TermsApproval, {
        description:
          'The new vocabulary terms (submission.work.newTerms) an editor approved, with the key label; null while none are approved.',
      }),
    ),
    lastError: Nullable(LastError, { description: 'The last failed apply (e.g. the build error).' }),
    appliedCommit: Nullable(Type.String(), { description: 'Merge commit on main once applied.' }),
    actions: Type.Array(ReviewAction, { description: 'Every admin action, oldest first (internal log).' }),
    diff: Type.Optional(
      Nullable(ReviewDiff, {
        description:
          'The proposed change (GET of one item only): the review branch against main, or the applied merge; null before a review branch exists.',
      }),
    ),
  },
  titled('AdminReviewState', "The reviewers' side of one item."),
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
    apply: Nullable(ApplyProgress, {
      description:
        'The latest apply: applying, visible (with when) or failed (the error is in review.lastError); null until applied.',
    }),
    submission: Type.Record(Type.String(), Type.Unknown(), {
      description: 'The full submitted body (contribution or correction report), including contact details.',
    }),
    review: AdminReviewState,
    links: Type.Object(
      { tracking: AbsoluteUrl('The public tracking record.'), admin: AbsoluteUrl('This admin view.') },
      { ...strict },
    ),
  },
  model('AdminItem', 'A submission as reviewers see it.'),
);
export type AdminItem = Static<typeof AdminItem>;

// ---------------------------------------------------------------------------------------------
// Pull requests opened by people on the content repository (docs/github-review.md): the GitHub
// webhook records each one as a review item with the content lint of its changed files, and the
// queue lists it beside contributions and correction reports (kind "pull-request").

/** What the queue lists: submissions, and pull requests people opened on the content repository. */
export const QUEUE_KINDS = [...SUBMISSION_KINDS, 'pull-request'] as const;
export type QueueKind = (typeof QUEUE_KINDS)[number];
/** Submission statuses, plus a pull request's end states: open pull requests are "pending" (awaiting review). */
export const QUEUE_STATUSES = [...SUBMISSION_STATUSES, 'merged', 'closed'] as const;
export type QueueStatus = (typeof QUEUE_STATUSES)[number];

export const PULL_REQUEST_MAX_FILES = 300;
export const PULL_REQUEST_MAX_LINT_ERRORS = 200;

export const PullRequestLintError = Type.Object(
  {
    file: Type.String({ description: 'Path in the content repository.' }),
    line: Type.Integer({
      minimum: 1,
      description: "Line in the pull request's version of the file (1 when the file as a whole is meant).",
    }),
    pointer: Type.String({ description: 'JSON Pointer to the field ("" for the whole file).' }),
    message: Type.String({ description: 'What is wrong, in words.' }),
  },
  titled('PullRequestLintError', 'One content-lint problem, at file:line.'),
);
export type PullRequestLintError = Static<typeof PullRequestLintError>;

export const PullRequestLint = Type.Object(
  {
    state: StringEnum(['pending', 'passed', 'failed', 'error'] as const, {
      description:
        'pending: not run yet for this head; passed: no problem in the changed content; failed: `errors` lists them; error: the lint could not run (`detail` says why; the next push or a redelivery retries).',
    }),
    headSha: Nullable(Type.String(), { description: 'The head commit the result is for.' }),
    checkedAtUtc: Nullable(UtcTimestamp('When the lint ran.')),
    scope: Type.String({
      description:
        'What was linted, in words (e.g. "1 changed work(s)", "the whole repository (a shared file changed: instruments.json)", "no content file changed").',
    }),
    errorCount: Type.Integer({ minimum: 0, description: 'Problems found (all of them, even beyond the ones listed).' }),
    errors: Type.Array(PullRequestLintError, {
      maxItems: PULL_REQUEST_MAX_LINT_ERRORS,
      description: `The problems, at most ${PULL_REQUEST_MAX_LINT_ERRORS}.`,
    }),
    detail: Nullable(Type.String(), {
      description: 'Why the lint could not run, or what it left out (too many files).',
    }),
  },
  titled(
    'PullRequestLint',
    "The archive's content lint of the pull request's changed files, on its head commit, against the archive's content repository (main) for everything unchanged.",
  ),
);
export type PullRequestLint = Static<typeof PullRequestLint>;

export const PullRequestReview = Type.Object(
  {
    recordVersion: Type.Literal(1),
    trackingCode: Type.String({
      pattern: '^PR-[1-9][0-9]*$',
      description: 'The queue\'s identifier of the item: "PR-<number>".',
    }),
    repository: Type.String({ description: 'owner/name on GitHub.' }),
    number: Type.Integer({ minimum: 1, description: 'Pull request number.' }),
    title: Type.String({ description: 'Title as on GitHub (contributed text: render it inert).' }),
    author: Type.String({ description: 'GitHub login of the person who opened it.' }),
    url: Type.String({ description: 'The pull request on GitHub (html_url).' }),
    state: StringEnum(['open', 'merged', 'closed'] as const, {
      description: 'open, merged, or closed without merging.',
    }),
    draft: Type.Boolean({ description: 'Opened as a draft.' }),
    headRef: Type.String({ description: 'Branch of the change.' }),
    headSha: Type.String({ description: 'Head commit.' }),
    baseRef: Type.String({ description: 'Branch it would merge into.' }),
    createdAtUtc: UtcTimestamp('When the pull request was opened on GitHub.'),
    updatedAtUtc: UtcTimestamp('When the archive last recorded an event of it.'),
    changedFiles: Type.Array(Type.String(), {
      maxItems: PULL_REQUEST_MAX_FILES,
      description: `Paths the pull request changes (added, modified, removed, both names of a rename), at most ${PULL_REQUEST_MAX_FILES}.`,
    }),
    changedFilesTotal: Type.Integer({
      minimum: 0,
      description: 'How many files it changes in all (GitHub lists at most 3000).',
    }),
    workSlugs: Type.Array(Type.String(), {
      maxItems: PULL_REQUEST_MAX_FILES,
      description: 'Works whose folder it changes.',
    }),
    lint: PullRequestLint,
    sync: Type.Optional(
      Nullable(
        Type.Object(
          {
            state: StringEnum(['applied', 'failed'] as const, {
              description:
                "applied: the merged change is in the archive's content repository and on the site; failed: it is not (`detail` says why; the archive's main is unchanged).",
            }),
            atUtc: UtcTimestamp('When the archive tried.'),
            commit: Nullable(Type.String(), { description: "The archive's merge commit on main, once applied." }),
            detail: Nullable(Type.String(), {
              description: 'Why it failed (lint problems, a failed build, GitHub unreachable).',
            }),
          },
          { ...strict },
        ),
        {
          description:
            'For a merged pull request: whether the archive brought the merged change into its own content repository and rebuilt the site.',
        },
      ),
    ),
    events: Type.Array(
      Type.Object(
        { action: Type.String(), atUtc: UtcTimestamp('When received.'), headSha: Type.String() },
        { ...strict },
      ),
      { maxItems: 50, description: 'Webhook events recorded, oldest first (the last 50).' },
    ),
  },
  model(
    'PullRequestReview',
    'A pull request a person opened on the content repository, as the review queue shows it: who, what it changes, and the content lint of its head.',
  ),
);
export type PullRequestReview = Static<typeof PullRequestReview>;

export const QueueItem = Type.Object(
  {
    trackingCode: Type.String({ description: 'Tracking code; "PR-<number>" for a pull request.' }),
    kind: StringEnum(QUEUE_KINDS, {
      description: 'contribution, correction-report, or pull-request (opened by a person on the content repository).',
    }),
    status: StringEnum(QUEUE_STATUSES, {
      description: "The submission's status; a pull request is pending while open, then merged or closed.",
    }),
    receivedAtUtc: UtcTimestamp('When received.'),
    updatedAtUtc: UtcTimestamp('When the status last changed.'),
    summary: Type.String({ description: 'One line: operation and target.' }),
    blockers: Type.Integer({
      minimum: 0,
      description: 'Number of recorded blockers (for a pull request: its content-lint problems).',
    }),
    links: Type.Object(
      {
        admin: AbsoluteUrl('The admin view.'),
        tracking: AbsoluteUrl('The public tracking record (for a pull request: the pull request on GitHub).'),
      },
      { ...strict },
    ),
    pullRequest: Type.Optional(PullRequestReview),
  },
  model('QueueItem', 'One open item of the review queue.'),
);
export type QueueItem = Static<typeof QueueItem>;

export const QUEUE_DEFAULT_PAGE_SIZE = 50;
export const QUEUE_MAX_PAGE_SIZE = 200;
const STATUS_LIST = `^(${QUEUE_STATUSES.join('|')})(,(${QUEUE_STATUSES.join('|')}))*$`;

/** Query parameters of GET /api/v1/admin/queue; an unknown one is a 400 naming it. */
export const AdminQueueQuery = Type.Object(
  {
    status: Type.Optional(
      Type.String({
        pattern: STATUS_LIST,
        maxLength: 200,
        description: `Comma-separated statuses to list (${QUEUE_STATUSES.join(', ')}; merged and closed are pull requests'); default: the open ones (pending, needs-information, accepted).`,
      }),
    ),
    kind: Type.Optional(
      StringEnum(QUEUE_KINDS, {
        description:
          'Only contributions, only correction reports, or only pull requests people opened on the content repository.',
      }),
    ),
    operation: Type.Optional(
      Type.String({ maxLength: 100, description: 'Only contributions with this operation, e.g. "arrangement".' }),
    ),
    workSlug: Type.Optional(Type.String({ maxLength: 200, description: 'Only items about this work.' })),
    receivedAfter: Type.Optional(UtcTimestamp('Only items received at or after this UTC time.')),
    receivedBefore: Type.Optional(UtcTimestamp('Only items received before this UTC time (e.g. older than a week).')),
    ...PageQuery(QUEUE_DEFAULT_PAGE_SIZE, QUEUE_MAX_PAGE_SIZE),
  },
  { description: 'Review queue filters and paging.', additionalProperties: false },
);
export type AdminQueueQuery = Static<typeof AdminQueueQuery>;

export const AdminQueue = Type.Object(
  {
    ...Page(QueueItem, 'The review queue.').properties,
    counts: Type.Record(Type.String(), Type.Integer({ minimum: 0 }), {
      description: 'Stored items per status (all kinds, before filters), for statuses that have any.',
    }),
  },
  model(
    'AdminQueue',
    'One page of the review queue: matching items oldest first (open items unless `status` says otherwise), with per-status counts.',
  ),
);
export type AdminQueue = Static<typeof AdminQueue>;

/**
 * The review actions that run as an action record (docs/review.md, "Long actions are action
 * records"): everything but apply, which has its own durable pipeline and `apply` progress.
 */
export const ITEM_ACTIONS = ['accept', 'request-information', 'decline'] as const;
export type ItemActionName = (typeof ITEM_ACTIONS)[number];

/** An item action's life: `running`, then `completed` (the item moved) or `failed` (`error` says why; nothing changed). */
export const ITEM_ACTION_STATES = ['running', 'completed', 'failed'] as const;
export type ItemActionState = (typeof ITEM_ACTION_STATES)[number];

/** Problem details (the Problem model's fields) nested in a record. */
const NestedProblem = Type.Object(Problem.properties, { additionalProperties: true });

export const ItemActionProgress = Type.Object(
  {
    step: Type.String({
      description:
        'What the action is doing now, in words ("fetching asset 2 of 3", "checking asset 2 of 3", "opening the review", "done").',
    }),
    done: Type.Integer({ minimum: 0, description: 'Steps finished.' }),
    total: Type.Integer({ minimum: 0, description: 'Steps the action has (known once it starts them).' }),
  },
  { ...strict, title: 'ItemActionProgress' },
);
export type ItemActionProgress = Static<typeof ItemActionProgress>;

export const ItemActionView = Type.Object(
  {
    actionId: Type.String({ description: 'The action, unique in the archive (e.g. "accept-20261207T101500Z-3f9c").' }),
    kind: StringEnum(SUBMISSION_KINDS),
    trackingCode: Type.String(),
    action: StringEnum(ITEM_ACTIONS),
    state: StringEnum(ITEM_ACTION_STATES),
    actor: Type.String({ description: 'The label of the key (or desk session) that asked for the action.' }),
    reviewer: Type.String({ description: 'The person acting, as the request named them.' }),
    startedAtUtc: UtcTimestamp('When the action was acknowledged (UTC).'),
    finishedAtUtc: Nullable(UtcTimestamp('When it completed or failed (UTC).')),
    resumedAtUtc: Type.Array(UtcTimestamp('A start of the server that resumed the action.'), {
      description: 'Each time a server start resumed the action after a stop cut it short.',
    }),
    progress: ItemActionProgress,
    status: StringEnum(SUBMISSION_STATUSES, {
      description: "The item's review status: when the action started, then after it.",
    }),
    error: Nullable(NestedProblem, {
      description: 'Why the action failed (RFC 9457 problem details; nothing was changed); else null.',
    }),
    links: Type.Object(
      {
        self: AbsoluteUrl('This action (poll it until `state` is no longer "running").'),
        item: AbsoluteUrl('The item in the admin API, with the outcome once the action completed.'),
        desk: AbsoluteUrl("The item's desk page, which shows the action's progress."),
      },
      strict,
    ),
  },
  model(
    'ItemActionView',
    'One review action on one item, run in the background: its progress, state and outcome. The tracking resource of POST /api/v1/admin/{contributions|correction-reports}/{code}/{accept|request-information|decline}.',
  ),
);
export type ItemActionView = Static<typeof ItemActionView>;
