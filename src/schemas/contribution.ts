/**
 * The contribution contract (spec Part 2: MusicContributionInput and its nested models) and the
 * tracking records the archive answers with. The same objects drive request validation, the
 * OpenAPI document, the schema served at /api/v1/music/contributions/schema, and the types.
 * Submission statuses and tracking records are shared with correction reports (correction.ts).
 */
import { Type, type Static } from '@sinclair/typebox';
import { ChannelContext } from './channel.ts';
import { CatalogNumber, LifeDate, Lyricist, Movement, PUBLICATION_BOUNDS, WikidataId } from './work.ts';
import { GenreTerm } from './genre.ts';
import { InstrumentContent } from './profile.ts';
import {
  ASSET_KINDS,
  ASSET_REVIEW_STATES,
  AbsoluteUrl,
  ArrangementSection,
  MUSIC_ROLES,
  COMPOSITION_STATUSES,
  CONTRIBUTOR_KINDS,
  EDITION_STATUSES,
  Nullable,
  RECORDING_STATUSES,
  Sha256,
  StringEnum,
  UtcTimestamp,
} from './common.ts';
import { model, strict, titled } from './options.ts';

/** The fixed contract label every contribution carries (spec Part 9). */
export const CONTRIBUTION_SCHEMA_VERSION = 'archive.music-contribution.v1';

/** What a contribution proposes (spec Part 2, MusicContributionInput.operation). */
export const CONTRIBUTION_OPERATIONS = [
  'new-work',
  'metadata-revision',
  'source-score',
  'score-revision',
  'arrangement',
  'performance',
  'rendering-profile',
] as const;
export type ContributionOperation = (typeof CONTRIBUTION_OPERATIONS)[number];

/**
 * 8 to 120 characters (the lengths are separate keywords so each mistake gets its own message);
 * first a letter or digit, then letters, digits, ".", "_", ":" or "-".
 */
export const IDEMPOTENCY_KEY_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:-]*$';

/** A URI as Part 2 states it; HTTPS and "no binary content" are safety rules checked beside the schema. */
const Uri = (description: string, maxLength = 1000) => Type.String({ format: 'uri', maxLength, description });
/** An optional field that may also be null. */
const OptionalNullableString = (maxLength: number, description: string) =>
  Type.Optional(Nullable(Type.String({ maxLength }), { description }));
const Int32 = (description: string) => Type.Integer({ format: 'int32', description });

export const ContributorIdentity = Type.Object(
  {
    name: Type.String({ maxLength: 100, description: 'Name of the person or agent submitting.' }),
    kind: StringEnum(CONTRIBUTOR_KINDS, {
      description:
        'Human, AiAssisted (a human working with an AI tool) or AutomatedAgent. Only Human may assert listening approval.',
    }),
    agentName: OptionalNullableString(100, 'Name of the agent or tool, when not a human alone.'),
    agentVersion: OptionalNullableString(80, 'Version of the agent or tool.'),
    contact: OptionalNullableString(200, 'How reviewers can reach the submitter (never shown on tracking pages).'),
  },
  titled('ContributorIdentity', 'Who submits the contribution.'),
);
export type ContributorIdentity = Static<typeof ContributorIdentity>;

export const ContributionTarget = Type.Object(
  {
    workSlug: OptionalNullableString(160, 'Slug of the canonical work the contribution is for.'),
    assetType: OptionalNullableString(40, 'Kind of asset being added or revised.'),
    assetId: Type.Optional(
      Nullable(Int32('Id of the existing asset being revised (int32).'), {
        description: 'Id of the existing asset being revised (int32).',
      }),
    ),
    arrangementId: Type.Optional(
      Nullable(Int32('Id of an existing arrangement of the work (int32).'), {
        description:
          'Id of an existing arrangement of the work: with operation "arrangement" or "performance", the files are added to that arrangement instead of a new one (e.g. the score or MP3 a resolve answer\'s missing[] names for it, with its arrangementId).',
      }),
    ),
    baseSha256: OptionalNullableString(64, 'SHA-256 of the file the revision starts from.'),
  },
  titled('ContributionTarget', 'The existing record or asset the contribution applies to.'),
);
export type ContributionTarget = Static<typeof ContributionTarget>;

export const ContributedComposer = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 160, description: 'Display name, e.g. "Hugo Wolf".' }),
    sortName: OptionalNullableString(160, 'Name for sorting, e.g. "Wolf, Hugo"; derived from the name when absent.'),
    born: LifeDate('Birth date (YYYY-MM-DD, YYYY, or "unknown").'),
    died: LifeDate('Death date (YYYY-MM-DD, YYYY, or "unknown"); it decides the rights of the composition.'),
    wikidataId: Type.Optional(Nullable(WikidataId('Wikidata item of the composer, e.g. "Q7312".'))),
    aliases: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 160 }), { maxItems: 20 })),
    evidenceUrls: Type.Array(Uri('A page that supports the life dates (Wikidata, an encyclopedia, IMSLP).'), {
      minItems: 1,
      maxItems: 10,
      description: 'At least one page that supports the life dates.',
    }),

    evidenceNote: OptionalNullableString(
      500,
      'What the evidence pages show, or where the facts were read (e.g. "works.csv row 4 of the folder"); recorded with each page.',
    ),
  },
  titled(
    'ContributedComposer',
    'A composer a contribution adds to the catalog, with the facts that decide rights and their evidence.',
  ),
);
export type ContributedComposer = Static<typeof ContributedComposer>;

/** A first publication a contribution records, with the pages that show it (`work.firstPublishedFact`). */
export const ContributedPublication = Type.Object(
  {
    bound: StringEnum(PUBLICATION_BOUNDS, {
      description:
        '"exact": first published in `year`; "no-later-than": in `year` or earlier (e.g. the year of the edition a score was transcribed from); "unpublished": never published.',
    }),
    year: Nullable(Type.Integer({ minimum: 1000, maximum: 2999 }), {
      description: 'The year (exact or the bound); null for "unpublished".',
    }),
    evidence: Type.Array(
      Type.Object(
        {
          url: Uri('A page an editor can follow that shows it (a scan with its title page, a catalog).'),
          note: Type.String({ minLength: 1, maxLength: 500, description: 'What the page shows, in words.' }),
        },
        { ...strict },
      ),
      {
        minItems: 1,
        maxItems: 10,
        description: 'At least one page that supports it (a fact without evidence is refused).',
      },
    ),
  },
  titled('ContributedPublication', 'When the work was first published, with evidence.'),
);
export type ContributedPublication = Static<typeof ContributedPublication>;

/** An instrument a contribution proposes for instruments.json (its fields, aliases optional). */
export const ProposedInstrument = Type.Composite(
  [
    Type.Omit(InstrumentContent, ['aliases']),
    Type.Object({
      aliases: Type.Optional(
        Type.Array(Type.String({ minLength: 1, maxLength: 80 }), { maxItems: 20, description: 'Other names.' }),
      ),
    }),
  ],
  titled('ProposedInstrument', 'An instrument proposed for instruments.json.'),
);

export const ProposedTerms = Type.Object(
  {
    genre: Type.Optional(
      Type.Composite([GenreTerm], {
        ...strict,
        description:
          'The term `genre` names, proposed for genres.json with its broader term (e.g. "String quartet" under "Chamber music").',
      }),
    ),
    instruments: Type.Optional(
      Type.Array(ProposedInstrument, {
        maxItems: 10,
        description: 'Instruments `instruments` names that instruments.json does not have yet.',
      }),
    ),
  },
  titled(
    'ProposedTerms',
    'New vocabulary terms the contribution needs. They land only when an editor approves them in review (accept with approveTerms); otherwise the content lint refuses a work that names them.',
  ),
);
export type ProposedTerms = Static<typeof ProposedTerms>;

export const ContributionWork = Type.Object(
  {
    title: OptionalNullableString(200, 'Title in English.'),
    originalTitle: OptionalNullableString(200, 'Title in the original language.'),
    aliases: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
        maxItems: 20,
        description:
          'Popular titles and other names the work is known by, e.g. "Moonlight Sonata" (a metadata-revision replaces the list).',
      }),
    ),
    composer: OptionalNullableString(160, 'Composer display name.'),
    period: OptionalNullableString(80, 'Period, e.g. "Romantic".'),
    genre: OptionalNullableString(80, 'Genre, e.g. "Piano piece".'),
    year: OptionalNullableString(40, 'Year or span of composition.'),
    workNumber: OptionalNullableString(80, 'Main catalog number as written, e.g. "BWV 1007".'),
    summary: OptionalNullableString(300, 'One- or two-sentence summary.'),
    lyricist: Type.Optional(
      Nullable(Lyricist, {
        description:
          "The lyricist or poet of a work with words, with life dates where known (they decide the rights of a song with the composer's).",
      }),
    ),
    hasLyrics: Type.Optional(
      Type.Boolean({
        description:
          'The work sets words (a song). With lyricist absent, the lyricist counts as unknown, so the rights say which fact is missing.',
      }),
    ),
    composerFacts: Type.Optional(
      Nullable(ContributedComposer, {
        description:
          "The composer's facts, for a new work whose composer is not in the catalog yet: an editor approves them with the work.",
      }),
    ),
    lyricistFacts: Type.Optional(
      Nullable(ContributedComposer, {
        description:
          "The lyricist's facts with their evidence, for a new work whose lyricist is not in the catalog yet (people/<slug>.json): an editor approves them with the work. Without it, dates given in `lyricist` are recorded with the declaration's evidence.",
      }),
    ),
    firstPublishedFact: Type.Optional(
      Nullable(ContributedPublication, {
        description:
          "The first publication with the pages that show it (preferred over `firstPublished`, whose year is recorded with the declaration's evidence).",
      }),
    ),
    catalogNumbers: Type.Optional(
      Type.Array(CatalogNumber, {
        maxItems: 10,
        description:
          'Catalog numbers, e.g. [{"catalog":"D.","number":"911"}]; when absent, those written in the title or workNumber are used.',
      }),
    ),
    instruments: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 80 }), {
        maxItems: 30,
        description:
          'Instruments, as slugs or names of instruments.json; one not there yet is proposed as a new vocabulary term (an editor approves it).',
      }),
    ),
    instrumentation: OptionalNullableString(220, 'Original instrumentation in words, e.g. "voice and piano".'),
    newTerms: Type.Optional(ProposedTerms),
    firstPublished: OptionalNullableString(
      40,
      'Year of first publication, or "unpublished"; absent or null when not known (the US term runs from publication).',
    ),
    movements: Type.Optional(
      Type.Array(Movement, {
        maxItems: 100,
        description:
          'For a new work sent as one score per movement: its movements in order; each score asset names its own in `movement`.',
      }),
    ),
  },
  titled('ContributionWork', 'Bibliographic facts of the work (for new works and metadata revisions).'),
);
export type ContributionWork = Static<typeof ContributionWork>;

export const RightsDeclaration = Type.Object(
  {
    compositionStatus: StringEnum(COMPOSITION_STATUSES, { description: 'Rights layer 1: status of the composition.' }),
    editionStatus: Type.Optional(
      StringEnum(EDITION_STATUSES, { description: 'Rights layer 2: status of the edition or file.' }),
    ),
    recordingStatus: Type.Optional(
      StringEnum(RECORDING_STATUSES, { description: 'Rights layer 3: status of the recording.' }),
    ),
    territory: Type.String({ maxLength: 80, description: 'Territory the declaration covers, e.g. "US, EU, CA".' }),
    license: OptionalNullableString(160, 'License of the contributed files, e.g. "CC0-1.0".'),
    attribution: OptionalNullableString(500, 'Attribution to carry forward.'),
    checkedAtUtc: Type.Optional(
      Nullable(UtcTimestamp('When the rights were checked (UTC, ending in "Z").'), {
        description: 'When the rights were checked (UTC, ending in "Z").',
      }),
    ),
    evidenceUrls: Type.Array(Uri('A dated HTTPS page that supports the declaration.'), {
      minItems: 1,
      description: 'At least one HTTPS page that supports the declaration; dated evidence is expected.',
    }),
  },
  titled('RightsDeclaration', 'The three rights layers, declared independently, with evidence.'),
);
export type RightsDeclaration = Static<typeof RightsDeclaration>;

export const ContributionAsset = Type.Object(
  {
    kind: StringEnum(ASSET_KINDS, { description: 'What the file is.' }),
    title: Type.String({ maxLength: 180, description: 'Human-readable title of the asset.' }),
    downloadUrl: Type.Optional(
      Nullable(Uri('HTTPS URL the file can be fetched from during review.'), {
        description: 'HTTPS URL the file can be fetched from during review (never a data: URL).',
      }),
    ),
    sourcePageUrl: Uri('HTTPS page that describes the file and where it came from.'),
    sha256: Type.Optional(
      Nullable(Sha256('SHA-256 of the file.'), {
        description: 'SHA-256 of the file: exactly 64 hexadecimal characters.',
      }),
    ),
    mediaType: OptionalNullableString(120, 'IANA media type, e.g. "audio/mpeg".'),
    rightsStatus: Type.String({ maxLength: 80, description: 'Rights status of this file, e.g. "public-domain".' }),
    license: OptionalNullableString(160, 'License of this file.'),
    attribution: OptionalNullableString(500, 'Attribution for this file.'),
    reviewState: StringEnum(ASSET_REVIEW_STATES, {
      description: 'Review state the submitter claims; "human-listening-approved" requires submittedBy.kind Human.',
    }),
    movement: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 999,
        description:
          'A score of one movement: its number in work.movements (a new work sent as one score per movement).',
      }),
    ),
    loudnessLufs: Type.Optional(
      Nullable(Type.Number({ minimum: -70, maximum: 0 }), {
        description:
          'MP3/WAV: the integrated loudness (EBU R128, LUFS) the submitter claims. Optional; the archive measures every audio file at accept and flags a claim more than 1 LU off.',
      }),
    ),
  },
  titled('ContributionAsset', "One file, kept at the contributor's HTTPS URL during review."),
);
export type ContributionAsset = Static<typeof ContributionAsset>;

export const ContributionArrangement = Type.Object(
  {
    title: OptionalNullableString(160, 'Title of the arrangement.'),
    style: OptionalNullableString(80, 'Style, e.g. "solo piano, calm".'),
    instrumentation: OptionalNullableString(220, 'Instrumentation in words.'),
    duration: OptionalNullableString(20, 'Duration, e.g. "3:05".'),
    intendedRole: OptionalNullableString(100, 'The channel role it was made for, e.g. "music-bed".'),
    renderingProfileSlugs: Type.Array(Type.String(), { description: 'Slugs of the rendering profiles used.' }),
    alsoSuits: Type.Optional(
      Type.Array(StringEnum(MUSIC_ROLES), {
        maxItems: MUSIC_ROLES.length,
        uniqueItems: true,
        description:
          "Other channel roles it also suits (resolve matches a channel's role against intendedRole and these).",
      }),
    ),
    moods: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 40 }), {
        maxItems: 20,
        description:
          'Mood words, e.g. "calm", "dreamy" (resolve matches requirements.mood against them). Declared by the contributor, not analysed.',
      }),
    ),
    loopable: Type.Optional(
      Type.Boolean({ description: 'It loops seamlessly (resolve then accepts it for longer target durations).' }),
    ),
    trimmable: Type.Optional(
      Type.Boolean({
        description:
          'It can be cut shorter at marked phrase ends (resolve then accepts it for shorter target durations).',
      }),
    ),
    sections: Type.Optional(
      Type.Array(ArrangementSection, {
        maxItems: 200,
        description: 'Sections with their times in seconds, in order (e.g. intro, theme, ending).',
      }),
    ),
  },
  titled('ContributionArrangement', 'The arrangement being contributed.'),
);
export type ContributionArrangement = Static<typeof ContributionArrangement>;

export const Reproducibility = Type.Object(
  {
    engine: OptionalNullableString(100, 'Rendering or generation engine.'),
    model: OptionalNullableString(160, 'Model name and version, when one was used.'),
    seed: OptionalNullableString(100, 'Random seed.'),
    prompt: OptionalNullableString(4000, 'Prompt given to the model.'),
    negativePrompt: OptionalNullableString(2000, 'Negative prompt.'),
    command: OptionalNullableString(4000, 'Command line that produced the files.'),
    manifestUrl: Type.Optional(
      Nullable(Uri('HTTPS URL of a manifest of the run.'), { description: 'HTTPS URL of a manifest of the run.' }),
    ),
    inputSha256: Type.Array(Type.String(), { description: 'SHA-256 digests of the inputs.' }),
  },
  titled('Reproducibility', 'How to reproduce the files.'),
);
export type Reproducibility = Static<typeof Reproducibility>;

export const QualityDeclaration = Type.Object(
  {
    technicalValidationPassed: Type.Optional(
      Type.Boolean({ description: 'Automated technical checks passed (not listening approval).' }),
    ),
    humanListeningApproved: Type.Optional(
      Type.Boolean({
        description: 'An accountable human listened and approved; true requires submittedBy.kind Human.',
      }),
    ),
    technicalChecks: OptionalNullableString(2000, 'Automated measurements.'),
    listeningNotes: OptionalNullableString(2000, 'Notes from listening.'),
  },
  titled('QualityDeclaration', 'Quality claims; a technical pass is not listening approval.'),
);
export type QualityDeclaration = Static<typeof QualityDeclaration>;

/** Batch ids: the importer's name for one import run of one corpus. */
export const BATCH_ID_PATTERN = '^[a-z0-9][a-z0-9._-]{2,79}$';

export const ContributionBatch = Type.Object(
  {
    id: Type.String({
      pattern: BATCH_ID_PATTERN,
      description: 'The batch, e.g. "openscore-lieder": 3 to 80 lower-case letters, digits, ".", "_" or "-".',
    }),
    title: Type.String({ minLength: 1, maxLength: 200, description: 'What the batch brings in, in words.' }),
    itemKey: Type.String({
      minLength: 1,
      maxLength: 120,
      description: "The item's id in its source (e.g. the corpus's score id), unique within the batch.",
    }),
    duplicateOf: Type.Optional(
      Nullable(Type.String({ maxLength: 200 }), {
        description:
          'A probable duplicate the importer found (a work slug, or another item of the batch): same composer and same title or catalog number.',
      }),
    ),
  },
  titled(
    'ContributionBatch',
    'A contribution sent as part of a bulk import: reviewed as one item with its works, each accepted or declined on its own or all at once.',
  ),
);
export type ContributionBatch = Static<typeof ContributionBatch>;

export const MusicContributionInput = Type.Object(
  {
    schemaVersion: Type.Literal(CONTRIBUTION_SCHEMA_VERSION, {
      description: `The contract label; must equal "${CONTRIBUTION_SCHEMA_VERSION}".`,
    }),
    operation: StringEnum(CONTRIBUTION_OPERATIONS, { description: 'What the contribution proposes.' }),
    idempotencyKey: Type.String({
      minLength: 8,
      maxLength: 120,
      pattern: IDEMPOTENCY_KEY_PATTERN,
      description:
        'Your key for this submission: 8 to 120 characters, first a letter or digit, then letters, digits, ".", "_", ":" or "-". Retrying with the same key and identical content is safe; changed content needs a new key.',
    }),
    submittedBy: ContributorIdentity,
    channel: Type.Optional(Nullable(ChannelContext, { description: 'The channel the contribution was prepared for.' })),
    target: Type.Optional(Nullable(ContributionTarget, { description: 'The existing record or asset it applies to.' })),
    work: Type.Optional(Nullable(ContributionWork, { description: 'Bibliographic facts of the work.' })),
    rights: RightsDeclaration,
    assets: Type.Array(ContributionAsset, { description: 'The files, each at an HTTPS URL with its SHA-256.' }),
    arrangement: Type.Optional(
      Nullable(ContributionArrangement, { description: 'The arrangement, for operation "arrangement".' }),
    ),
    reproducibility: Type.Optional(Nullable(Reproducibility, { description: 'How the files were made.' })),
    quality: QualityDeclaration,
    changeSummary: Type.String({
      maxLength: 2000,
      description: 'What the contribution changes or adds, in plain words.',
    }),
    rationale: OptionalNullableString(2000, 'Why the change is right.'),
    batch: Type.Optional(Nullable(ContributionBatch, { description: 'The review batch the contribution belongs to.' })),
  },
  model(
    'MusicContributionInput',
    'One structured, reviewable contribution. Files stay at HTTPS URLs; the JSON carries descriptors, rights evidence and SHA-256 digests, never binary content.',
  ),
);
export type MusicContributionInput = Static<typeof MusicContributionInput>;

// ---------------------------------------------------------------------------------------------
// Tracking records (decided where the spec says "not shown"; see docs/contributions.md)

/** Statuses of contributions and correction reports alike (docs/contributions.md, "Statuses and transitions"). */
export const SUBMISSION_STATUSES = ['pending', 'needs-information', 'accepted', 'applied', 'declined'] as const;
export type SubmissionStatus = (typeof SUBMISSION_STATUSES)[number];

/** What a tracking code tracks; the code's first letter tells them apart (C or R). */
export const SUBMISSION_KINDS = ['contribution', 'correction-report'] as const;
export type SubmissionKind = (typeof SUBMISSION_KINDS)[number];

/**
 * What made a history entry: a reviewer's action, or the submitter's `answer` to a request for
 * information (back to pending). Each target status has exactly one action that enters it
 * (intake's first `pending` entry carries none).
 */
export const HISTORY_ACTIONS = ['accept', 'request-information', 'answer', 'apply', 'decline'] as const;
export type HistoryAction = (typeof HISTORY_ACTIONS)[number];

/** The actor of an answer: the holder of the submission's response token. */
export const SUBMITTER_ACTOR = 'submitter';

export const StatusChange = Type.Object(
  {
    status: StringEnum(SUBMISSION_STATUSES, { description: 'The status entered.' }),
    atUtc: UtcTimestamp('When the status was entered (UTC).'),
    note: Nullable(Type.String({ maxLength: 2000 }), {
      description: 'Public note from the reviewer, e.g. which information is needed; null when none.',
    }),
    actor: Type.Optional(
      Type.String({
        maxLength: 100,
        description:
          'Who made the change: the label of the authenticated admin key (a review action), "github-webhook", or "submitter" (an `answer`, made with the submission\'s response token); absent for intake and for entries written before it was recorded.',
      }),
    ),
    action: Type.Optional(
      StringEnum(HISTORY_ACTIONS, {
        description:
          "What made the change: a reviewer's accept, request-information, apply or decline, or the submitter's answer to a request for information (actor \"submitter\"; its note is the submitter's public message). Absent for intake and for entries written before it was recorded.",
      }),
    ),
    revisedSubmission: Type.Optional(
      Type.Boolean({
        description:
          'On an `answer` to a contribution: true when the submitter sent a revised body, which replaced the proposed change (the review branch or pull request shows the new one).',
      }),
    ),
  },
  titled('StatusChange', 'One entry of the status history.'),
);
export type StatusChange = Static<typeof StatusChange>;

export const ReviewLink = Type.Object(
  {
    kind: StringEnum(['pull-request', 'branch'] as const, {
      description: 'A pull request on the forge, or a branch in the local content repository.',
    }),
    branch: Type.String({ description: 'Review branch in the content repository, e.g. "review/C-...".' }),
    url: Nullable(AbsoluteUrl('Web address of the pull request.'), {
      description: 'Web address of the pull request; null for a local branch.',
    }),
    openedAtUtc: UtcTimestamp('When the review opened (UTC).'),
  },
  titled('ReviewLink', 'Where the human review of this submission happens.'),
);
export type ReviewLink = Static<typeof ReviewLink>;

/** Where an apply stands (decided: the spec fixes the `status` values, so `applying` is this field, not a status). */
export const APPLY_STATES = ['applying', 'visible', 'failed'] as const;
export type ApplyState = (typeof APPLY_STATES)[number];

export const ApplyProgress = Type.Object(
  {
    state: StringEnum(APPLY_STATES, {
      description:
        'applying: a reviewer applied it and the change is being merged and published (status stays "accepted" until it is visible); visible: the change is served (status "applied"); failed: it could not be published, nothing was merged and the previous site keeps serving (status stays "accepted").',
    }),
    requestedAtUtc: UtcTimestamp('When the reviewer applied it (UTC).'),
    visibleAtUtc: Nullable(UtcTimestamp('When the change became visible on the site and API (UTC).'), {
      description: 'When the change became visible (UTC); null until then.',
    }),
    failedAtUtc: Nullable(UtcTimestamp('When the apply failed (UTC).'), {
      description: 'When the apply failed (UTC); null unless it failed.',
    }),
  },
  titled('ApplyProgress', 'Progress of the latest apply: requested, then visible or failed.'),
);
export type ApplyProgress = Static<typeof ApplyProgress>;

const trackingCommon = {
  status: StringEnum(SUBMISSION_STATUSES, {
    description: 'Current review status; reuse a contribution only when "applied".',
  }),
  changedCanonicalData: Type.Boolean({
    description: 'True once the proposal changed canonical data (status "applied"); false before.',
  }),
  receivedAtUtc: UtcTimestamp('When the archive received the submission (UTC).'),
  updatedAtUtc: UtcTimestamp('When the status last changed (UTC).'),
  history: Type.Array(StatusChange, { description: 'Every status change, oldest first, with public notes.' }),
  review: Nullable(ReviewLink, { description: 'The review (pull request or branch); null until a review opens.' }),
  apply: Nullable(ApplyProgress, {
    description: 'The latest apply and when it became visible (or that it failed); null until a reviewer applies it.',
  }),
};

/** Contribution tracking codes: "C-" and four groups of four from an alphabet without 0, O, 1, I, L. */
export const CONTRIBUTION_CODE_PATTERN = '^C(-[2-9A-HJKMNP-Z]{4}){4}$';
export const CORRECTION_CODE_PATTERN = '^R(-[2-9A-HJKMNP-Z]{4}){4}$';

export const ContributionTracking = Type.Object(
  {
    trackingCode: Type.String({
      pattern: CONTRIBUTION_CODE_PATTERN,
      description: 'Public tracking code, e.g. "C-7KQM-T4XH-R2PZ-9WNB".',
    }),
    kind: Type.Literal('contribution', { description: 'What this code tracks.' }),
    ...trackingCommon,
    summary: Type.Object(
      {
        operation: StringEnum(CONTRIBUTION_OPERATIONS, { description: 'What the contribution proposes.' }),
        schemaVersion: Type.String({ description: 'Contract label it was submitted under.' }),
        targetWorkSlug: Nullable(Type.String(), { description: 'Slug of the work it applies to, when given.' }),
        title: Nullable(Type.String(), { description: 'Arrangement or work title, when given.' }),
        assetCount: Type.Integer({ minimum: 0, description: 'Number of assets submitted.' }),
        submittedByKind: StringEnum(CONTRIBUTOR_KINDS, { description: 'Kind of submitter.' }),
      },
      { ...strict, description: 'What was submitted, in brief (contact details are never shown).' },
    ),
    recheck: Type.Array(
      Type.Object(
        {
          pointer: Type.String({
            description: 'JSON Pointer of the declared value in the submission, e.g. "/assets/1/reviewState".',
          }),
          declared: Type.String({ description: 'What the submitter declared, as sent.' }),
          howChecked: Type.String({
            description:
              'What the archive does with the declaration: re-checks it itself, or leaves it to a named reviewer.',
          }),
        },
        titled('DeclaredStateCheck', 'One declared state and how the archive re-checks it.'),
      ),
      {
        description:
          'Every declared review state and quality claim, with what the archive does with it: nothing declared is taken over as it stands.',
      },
    ),
    links: Type.Object(
      {
        self: AbsoluteUrl('This tracking record.'),
        work: Nullable(AbsoluteUrl('The canonical work record.'), {
          description: 'The canonical work record, when the target work exists.',
        }),
        schema: AbsoluteUrl('The contribution contract it was validated against.'),
      },
      { ...strict, description: 'Absolute links.' },
    ),
  },
  model('ContributionTracking', 'Public tracking record of a contribution.'),
);
export type ContributionTracking = Static<typeof ContributionTracking>;

/** The tracking state every stored submission (contribution or correction report) carries. */
export interface StoredSubmissionState {
  recordVersion: 1;
  trackingCode: string;
  status: SubmissionStatus;
  changedCanonicalData: boolean;
  receivedAtUtc: string;
  updatedAtUtc: string;
  history: StatusChange[];
  review: ReviewLink | null;
  /** Absent on records stored before applies answered at once; read as null. */
  apply?: ApplyProgress | null;
  /**
   * SHA-256 (hex) of the submission's response token (never the token itself): whoever presents
   * the token may answer a request for information. Absent on records stored before tokens existed.
   */
  responseTokenSha256?: string | null;
}

/** What is kept on disk for a contribution: the tracking state plus the full submission. */
export interface StoredContribution extends StoredSubmissionState {
  kind: 'contribution';
  /** SHA-256 of the canonical JSON of `submission` (idempotency). */
  contentSha256: string;
  submission: MusicContributionInput;
  /** Bodies replaced by the submitter's answers (a revised submission), oldest first; absent until one is. */
  previousSubmissions?: Array<{ replacedAtUtc: string; contentSha256: string; submission: MusicContributionInput }>;
}

/** Idempotency record: written first, with everything needed to complete a half-done submission. */
export interface IdempotencyRecord {
  recordVersion: 1;
  /** SHA-256 of the idempotencyKey (the key itself stays in the submission). */
  keySha256: string;
  contentSha256: string;
  trackingCode: string;
  receivedAtUtc: string;
}
