/**
 * The work model in two shapes from shared parts: `WorkContent` is what an editor writes in the
 * front matter of `works/<slug>/index.md`; `WorkRecord` is what the build publishes at
 * `/api/v1/works/{slug}` (absolute links, review-state labels, digests filled in).
 */
import { AssetMeasurement, ListeningFact, RenderedAudio } from './audio.ts';
import { Type, type Static } from '@sinclair/typebox';
import {
  ACCESS_LEVELS,
  ASSET_KINDS,
  AbsoluteUrl,
  ArrangementSection,
  CATALOG_REVIEW_STATES,
  COMPOSITION_STATUSES,
  EDITION_STATUSES,
  FactEvidence,
  HttpsUrl,
  MUSIC_ROLES,
  Nullable,
  RECORDING_STATUSES,
  Sha256,
  Slug,
  StringEnum,
  UtcTimestamp,
} from './common.ts';
import { model, strict, titled } from './options.ts';

/** A calendar date, or a year alone when only the year is known. */
export const PartialDate = (description: string) =>
  Type.String({ pattern: '^[0-9]{4}(-[0-9]{2}-[0-9]{2})?$', description });

/** A life date: a calendar date, a year alone, or "unknown" when the sources do not give it. */
export const LifeDate = (description: string) =>
  Type.String({ pattern: '^([0-9]{4}(-[0-9]{2}-[0-9]{2})?|unknown)$', description });

export const WikidataId = (description: string) => Type.String({ pattern: '^Q[1-9][0-9]{0,11}$', description });

/** The lyricist or poet of a work with words, with life dates (they decide the rights of a song). */
export const Lyricist = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 160,
      description: 'Name of the lyricist or poet, e.g. "Johann Wolfgang von Goethe".',
    }),
    born: Type.Optional(LifeDate('Birth date (YYYY-MM-DD, YYYY, or "unknown").')),
    died: Type.Optional(
      LifeDate(
        'Death date (YYYY-MM-DD, YYYY, or "unknown"); with the composer\'s, it decides the rights of the composition.',
      ),
    ),
    wikidataId: Type.Optional(Nullable(WikidataId('Wikidata item of the person, e.g. "Q5879".'))),
    slug: Type.Optional(
      Slug(
        'The person record (people/<slug>.json; GET /api/v1/people/{slug}) the facts come from, in a published record.',
      ),
    ),
  },
  titled('Lyricist', 'The lyricist or poet, with life dates where known.'),
);

export const Composer = Type.Object(
  {
    name: Type.String({ minLength: 1, maxLength: 160, description: 'Display name, e.g. "Johann Sebastian Bach".' }),
    sortName: Type.String({
      minLength: 1,
      maxLength: 160,
      description: 'Name for sorting, e.g. "Bach, Johann Sebastian".',
    }),
    born: LifeDate('Birth date (YYYY-MM-DD, YYYY when only the year is known, or "unknown").'),
    died: LifeDate(
      'Death date (YYYY-MM-DD, YYYY, or "unknown"); public-domain status of the composition depends on it.',
    ),
    aliases: Type.Array(Type.String({ maxLength: 160 }), {
      description: 'Other name forms used to find the composer ("J. S. Bach", "Bach, J.S.").',
      default: [],
    }),
    wikidataId: Type.Optional(Nullable(WikidataId('Wikidata item of the composer, e.g. "Q7312".'))),
    evidenceUrls: Type.Optional(
      Type.Array(HttpsUrl('A page that supports the life dates.'), {
        maxItems: 10,
        description: "Pages that support the composer's facts (added with the composer by a contribution or import).",
      }),
    ),
    slug: Type.Optional(
      Slug(
        'The person record (people/<slug>.json; GET /api/v1/people/{slug}) the facts come from, in a published record.',
      ),
    ),
  },
  { ...strict, description: 'The composer with life dates.' },
);

export const CatalogNumber = Type.Object(
  {
    catalog: Type.String({
      minLength: 1,
      maxLength: 40,
      description: 'Catalog abbreviation, e.g. "BWV", "K.", "Op.".',
    }),
    number: Type.String({ minLength: 1, maxLength: 40, description: 'Number within the catalog, e.g. "1007".' }),
  },
  { ...strict, description: 'One catalog number of the work.' },
);

/** One movement of a work kept as one score file per movement (a quartet's four movements). */
export const Movement = Type.Object(
  {
    number: Type.Integer({ minimum: 1, maximum: 999, description: "The movement's place in the work, 1 first." }),
    title: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'The movement\'s title or tempo heading, e.g. "Menuetto and Trio".',
    }),
  },
  { ...strict, description: 'One movement of the work.' },
);

const LayerNote = Type.String({ maxLength: 1000, description: 'Why this status holds, in plain words.' });

export const TERRITORY_STATUSES = ['public-domain', 'not-public-domain', 'unclear', 'unknown'] as const;
export const TerritoryNote = Type.Object(
  {
    status: StringEnum(TERRITORY_STATUSES, {
      description:
        'Copyright status of the composition in this territory; "unknown" when a fact that decides it is missing (missingFacts names it).',
    }),
    note: Type.String({ maxLength: 500, description: 'The rule applied (e.g. "life + 70 years; died 1750").' }),
    missingFacts: Type.Optional(
      Type.Array(Type.String({ maxLength: 200 }), {
        maxItems: 10,
        description: 'The facts that would decide an "unknown" status, e.g. "the first publication year".',
      }),
    ),
  },
  { ...strict, description: 'Status of the work in one territory, as IMSLP keeps it.' },
);

/** One fact a derived status rests on, as a published record names it. */
export const DecidingFact = Type.Object(
  {
    fact: Type.String({ description: 'The fact in words, e.g. "Joseph von Eichendorff (lyricist) died in 1857".' }),
    evidenceUrl: Nullable(Type.String({ format: 'uri' }), { description: 'The evidence; null when none is recorded.' }),
    acceptedBy: Nullable(Type.String(), {
      description: 'Label of the admin key that accepted the fact in review; null when not recorded.',
    }),
    acceptedAtUtc: Nullable(UtcTimestamp('When it was accepted (UTC).'), {
      description: 'When the fact was accepted in review (UTC); null when not recorded.',
    }),
  },
  titled('DecidingFact', 'A recorded fact a derived rights status rests on.'),
);

/** Beside the US, the EU and Canada: the whole world, from the table of terms in force (src/domain/territory-rights.ts). */
export const WorldwideRights = Type.Object(
  {
    status: StringEnum(['public-domain', 'not-public-domain', 'unknown'] as const, {
      description:
        '"public-domain": free in every country (the last surviving author died more than 100 years ago, the longest life-based term in force, and the United States\' publication-based term has run); otherwise where it remains protected, or which fact is missing.',
    }),
    note: Type.String({ description: 'The verdict in words, naming the places it remains protected.' }),
    protectedIn: Type.Array(
      Type.Object(
        {
          where: Type.String({
            description: 'Countries with a term, e.g. "Mexico (the longest term in force): life + 100".',
          }),
          freeFromYear: Type.Integer({ description: 'The first year it is free there.' }),
        },
        { ...strict },
      ),
      { description: 'Where the work remains protected by the table of terms in force.' },
    ),
    freeEverywhereFromYear: Nullable(Type.Integer(), {
      description: 'The first year it is free in every country, when the facts decide it.',
    }),
    missingFacts: Type.Array(Type.String(), { description: 'Facts that would decide an "unknown" verdict.' }),
  },
  titled('WorldwideRights', 'The worldwide summary, derived from the same facts.'),
);

export const WorkRights = Type.Object(
  {
    composition: Type.Object(
      {
        status: StringEnum(COMPOSITION_STATUSES, { description: 'Status of the composition itself.' }),
        note: LayerNote,
      },
      { ...strict, description: 'Rights layer 1: the composition.' },
    ),
    edition: Type.Object(
      {
        status: StringEnum(EDITION_STATUSES, { description: 'Status of the edition or file (score, transcription).' }),
        note: LayerNote,
      },
      { ...strict, description: 'Rights layer 2: the edition or file.' },
    ),
    recording: Type.Object(
      {
        status: StringEnum(RECORDING_STATUSES, { description: 'Status of recordings published with the work.' }),
        note: LayerNote,
      },
      { ...strict, description: 'Rights layer 3: recordings.' },
    ),
    territories: Type.Object(
      { US: TerritoryNote, EU: TerritoryNote, CA: TerritoryNote },
      { ...strict, description: 'Per-territory notes for the United States, the European Union and Canada.' },
    ),
    license: Nullable(Type.String({ maxLength: 160 }), {
      description: 'License of the archive\'s own files, e.g. "CC0-1.0".',
    }),
    attribution: Nullable(Type.String({ maxLength: 500 }), { description: 'Attribution to carry forward, if any.' }),
    checkedAtUtc: UtcTimestamp('When a person last checked these rights (UTC).'),
    evidenceUrls: Type.Array(HttpsUrl('A dated HTTPS page that supports the rights statement.'), {
      minItems: 1,
      description: 'Evidence for the rights statement; at least one.',
    }),
    asOfYear: Type.Optional(
      Type.Integer({
        minimum: 1900,
        maximum: 2300,
        description:
          'The year the composition status and the territories were derived for (derived at build time, never stored).',
      }),
    ),
    decidedBy: Type.Optional(
      Type.Array(DecidingFact, {
        maxItems: 20,
        description:
          'The recorded facts the composition status and the territories were derived from, each with its evidence and who accepted it and when.',
      }),
    ),
    worldwide: Type.Optional(WorldwideRights),
  },
  { ...strict, description: 'Rights statements: three layers declared independently, per-territory notes, evidence.' },
);

/** A score file that holds only part of the work says so: which bars, how many, out of how many. */
export const Excerpt = Type.Object(
  {
    bars: Type.String({
      minLength: 1,
      maxLength: 80,
      description:
        'The bars the file holds: numbers as in the whole work ("1–9"), or words when they are not checked ("the main theme").',
    }),
    barCount: Type.Integer({
      minimum: 1,
      description: 'How many bars the file holds (the content lint counts them in a stored MusicXML file).',
    }),
    totalBars: Nullable(Type.Integer({ minimum: 1 }), {
      description: 'Bars in the whole work or movement, when a person checked it; null when not recorded.',
    }),
  },
  { ...strict, description: 'The part of the work a score file holds.' },
);

/** Fields an editor writes for any file-like asset (source score, recording, MIDI ...). */
const assetContentFields = {
  id: Type.Integer({ minimum: 1, maximum: 2147483647, description: 'Asset id, unique within the work (int32).' }),
  kind: StringEnum(ASSET_KINDS, { description: 'What the file is.' }),
  title: Type.String({ minLength: 1, maxLength: 180, description: 'Human-readable title of the asset.' }),
  file: Type.Optional(
    Type.String({
      pattern: '^[A-Za-z0-9][A-Za-z0-9._-]*$',
      maxLength: 200,
      description: 'A file stored beside the work in the content repository (exclusive with url and blob).',
    }),
  ),
  url: Type.Optional(
    HttpsUrl('Where the file lives when it is not stored in the content repository (exclusive with file and blob).'),
  ),
  blob: Type.Optional(
    Sha256(
      "A file in the archive's blob store, by SHA-256 (exclusive with file and url); byteLength is required with it.",
    ),
  ),
  sourcePageUrl: HttpsUrl('The page that describes where the asset comes from.'),
  mediaType: Type.String({
    maxLength: 120,
    description: 'IANA media type, e.g. "application/vnd.recordare.musicxml+xml".',
  }),
  sha256: Type.Optional(Nullable(Sha256('SHA-256 of the file; computed by the build for stored files.'))),
  byteLength: Type.Optional(
    Nullable(Type.Integer({ minimum: 0, description: 'Size in bytes; computed by the build for stored files.' })),
  ),
  rightsStatus: Type.String({
    minLength: 1,
    maxLength: 80,
    description: 'Rights status of this file, e.g. "public-domain".',
  }),
  license: Nullable(Type.String({ maxLength: 160 }), { description: 'License of this file.' }),
  attribution: Nullable(Type.String({ maxLength: 500 }), { description: 'Attribution for this file.' }),
  reviewState: StringEnum(CATALOG_REVIEW_STATES, { description: 'Machine review state; none implies another.' }),
  access: StringEnum(ACCESS_LEVELS, { description: 'Who may follow the download link.' }),
  technicalChecks: Type.Optional(Nullable(Type.String({ maxLength: 2000, description: 'Automated measurements.' }))),
  excerpt: Type.Optional(
    Nullable(Excerpt, {
      description: 'Set when a score file holds only part of the work; null or absent when it holds all of it.',
    }),
  ),
  measured: Type.Optional(
    Nullable(AssetMeasurement, {
      description:
        'MP3/WAV measured by the archive at accept, with the declared values beside it (written by review; not hand-edited).',
    }),
  ),
  listening: Type.Optional(
    Nullable(ListeningFact, {
      description:
        "Scores (MusicXML): a listener's verdict on the audio the archive rendered from this score, naming the audio heard by its SHA-256 (written by the review desk; not hand-edited).",
    }),
  ),
  heldForRights: Type.Optional(
    Type.Boolean({
      description:
        "The file is held for rights review: published as `rights-review-required` and `admin-only` until the recorded facts make the work's composition public domain in every territory the archive covers (or its permission is documented) and the file's own terms are open; then with the reviewState and access written here. Derived at build time from the facts (docs/rights.md).",
    }),
  ),
  movement: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: 999,
      description:
        "The movement (its number in the work's `movements`) a source score holds, when the work is kept as one score per movement; absent when the file holds the whole work.",
    }),
  ),
};

export const AssetContent = Type.Object(assetContentFields, {
  ...strict,
  description: 'A file-like asset as written in content.',
});

export const ArrangementRights = Type.Object(
  {
    edition: Type.Object(
      { status: StringEnum(EDITION_STATUSES), note: LayerNote },
      { ...strict, description: 'Rights of the arrangement as an edition.' },
    ),
    recording: Type.Object(
      { status: StringEnum(RECORDING_STATUSES), note: LayerNote },
      { ...strict, description: 'Rights of its recordings.' },
    ),
    license: Nullable(Type.String({ maxLength: 160 }), { description: 'License of the arrangement and its files.' }),
    attribution: Nullable(Type.String({ maxLength: 500 }), { description: 'Attribution to carry forward.' }),
  },
  { ...strict, description: "Rights of one arrangement (layers 2 and 3; the composition layer is the work's)." },
);

const arrangementCommon = {
  id: Type.Integer({ minimum: 1, maximum: 2147483647, description: 'Arrangement id, unique within the work.' }),
  rank: Type.Integer({ minimum: 1, description: 'Editorial rank; 1 is the arrangement to reuse first.' }),
  title: Type.String({ minLength: 1, maxLength: 160, description: 'Title of the arrangement.' }),
  style: Type.String({ maxLength: 80, description: 'Style, e.g. "solo piano, calm".' }),
  instrumentation: Type.String({ maxLength: 220, description: 'Instrumentation in words.' }),
  duration: Type.String({ pattern: '^[0-9]{1,3}:[0-5][0-9]$', maxLength: 20, description: 'Duration as m:ss.' }),
  durationSeconds: Type.Integer({ minimum: 1, maximum: 14400, description: 'Duration in seconds.' }),
  intendedRole: StringEnum(MUSIC_ROLES, { description: 'The channel role this arrangement was made for.' }),
  alsoSuits: Type.Array(StringEnum(MUSIC_ROLES), { default: [], description: 'Other roles it fits.' }),
  moods: Type.Array(Type.String({ maxLength: 40 }), { default: [], description: 'Mood words, e.g. "calm", "bright".' }),
  loopable: Type.Boolean({ default: false, description: 'Whether it loops seamlessly.' }),
  trimmable: Type.Boolean({ default: false, description: 'Whether it can be cut shorter at marked phrase ends.' }),
  sections: Type.Optional(
    Type.Array(ArrangementSection, {
      maxItems: 200,
      description:
        'Sections with their times in seconds (declared by the contributor or set by an editor, not measured).',
    }),
  ),
  renderingProfileSlugs: Type.Array(Slug('A rendering profile used to make it.'), {
    description: 'Rendering profiles used.',
  }),
  reviewState: StringEnum(CATALOG_REVIEW_STATES, { description: 'Review state of the arrangement as a whole.' }),
  rights: ArrangementRights,
  notes: Type.Optional(Nullable(Type.String({ maxLength: 2000, description: 'Editorial notes.' }))),
};

export const ArrangementContent = Type.Object(
  { ...arrangementCommon, assets: Type.Array(AssetContent, { description: 'Files of the arrangement.' }) },
  { ...strict, description: 'An arrangement as written in content.' },
);

export const COMMENT_TARGETS = [
  'original-description',
  'source-score',
  'arrangement-recording',
  'arrangement-score',
  'work',
] as const;
export const CommentTarget = Type.Object(
  {
    type: StringEnum(COMMENT_TARGETS, { description: 'What the comment is about.' }),
    assetId: Type.Optional(
      Type.Integer({ minimum: 1, description: 'The source or arrangement asset, when the target is a file.' }),
    ),
    arrangementId: Type.Optional(Type.Integer({ minimum: 1, description: 'The arrangement, when the target is one.' })),
  },
  { ...strict, description: 'Target of a comment.' },
);

export const Comment = Type.Object(
  {
    id: Type.Integer({ minimum: 1, description: 'Comment id, unique within the work.' }),
    target: CommentTarget,
    author: Type.String({ minLength: 1, maxLength: 100, description: 'Who wrote it.' }),
    postedAtUtc: UtcTimestamp('When it was posted.'),
    approvedAtUtc: UtcTimestamp('When an editor approved it.'),
    body: Type.String({ minLength: 1, maxLength: 2000, description: 'The comment, plain text.' }),
  },
  { ...strict, description: 'An approved comment; only approved comments are published.' },
);

export const Video = Type.Object(
  {
    id: Type.Integer({ minimum: 1, description: 'Video id, unique within the work.' }),
    title: Type.String({ minLength: 1, maxLength: 180, description: 'Title.' }),
    url: HttpsUrl('Where the video is published.'),
    provider: Type.String({ maxLength: 80, description: 'Hosting provider.' }),
    arrangementId: Type.Optional(
      Nullable(Type.Integer({ minimum: 1, description: 'Arrangement heard in the video.' })),
    ),
    license: Nullable(Type.String({ maxLength: 160 }), { description: 'License of the video.' }),
    reviewState: StringEnum(CATALOG_REVIEW_STATES, { description: 'Review state of the video.' }),
    access: StringEnum(ACCESS_LEVELS, { description: 'Who may watch it here.' }),
  },
  { ...strict, description: 'A video that uses the work.' },
);

export const PUBLICATION_BOUNDS = ['exact', 'no-later-than', 'unpublished'] as const;

/** A work's first publication as a work file records it: a fact with its evidence. */
export const PublicationFact = Type.Object(
  {
    bound: StringEnum(PUBLICATION_BOUNDS, {
      description:
        '"exact": first published in `year`; "no-later-than": first published in `year` or earlier (e.g. the year of the edition a score was transcribed from); "unpublished": never published (`year` null).',
    }),
    year: Nullable(Type.Integer({ minimum: 1000, maximum: 2999 }), {
      description: 'The year (exact or the upper bound); null for "unpublished".',
    }),
    evidence: Type.Array(FactEvidence, {
      minItems: 1,
      maxItems: 10,
      description: 'At least one page an editor can follow that supports it (a fact without evidence is refused).',
    }),
  },
  titled('PublicationFact', 'When the work was first published, with evidence.'),
);

/** The publication fact the rights of a published record use (derived: the work's own or its composer's bound). */
export const Publication = Type.Object(
  {
    bound: StringEnum(PUBLICATION_BOUNDS),
    year: Nullable(Type.Integer()),
    from: StringEnum(['work', 'composer'] as const, {
      description: '"work": recorded for this work; "composer": the bound its composer\'s record gives every work.',
    }),
    evidence: Type.Array(FactEvidence, { description: 'The evidence of the fact.' }),
  },
  titled('Publication', 'The first-publication fact the rights use.'),
);

/**
 * A work as the catalog loader resolves it (src/domain/people.ts): the front matter
 * (`WorkFile`) with its people's facts filled in from people/<slug>.json and its rights derived
 * from them. Every part of the build, the records and resolve reads this shape.
 */
export const WorkContent = Type.Object(
  {
    slug: Slug('Stable identifier; equals the folder name.'),
    title: Type.String({ minLength: 1, maxLength: 200, description: 'Title in English.' }),
    originalTitle: Nullable(Type.String({ maxLength: 200 }), { description: 'Title in the original language.' }),
    aliases: Type.Array(Type.String({ minLength: 1, maxLength: 200 }), {
      maxItems: 20,
      default: [],
      description:
        'Popular titles and other names the work is known by, e.g. "Air on the G String", "Moonlight Sonata"; matched by catalog search and resolve.',
    }),
    composer: Composer,
    lyricist: Type.Optional(
      Nullable(Lyricist, { description: 'The lyricist or poet of a work with words; null or absent when none.' }),
    ),
    period: Type.String({ maxLength: 80, description: 'Period, e.g. "Baroque".' }),
    genre: Type.String({ maxLength: 80, description: 'Genre, e.g. "Suite".' }),
    year: Type.String({
      maxLength: 40,
      description: 'Year or span of composition, e.g. "c. 1720"; "unknown" when the sources do not give it.',
    }),
    firstPublished: Type.Optional(
      Nullable(Type.String({ maxLength: 40 }), {
        description:
          'Year of first publication, "no later than YEAR", "unpublished", or null when not known (the US term runs from publication).',
      }),
    ),
    hasLyrics: Type.Optional(
      Type.Boolean({
        description:
          'The work sets words. Without a lyricist, the lyricist counts as unknown, so the rights name that missing fact.',
      }),
    ),
    publication: Type.Optional(
      Nullable(Publication, {
        description:
          "The first-publication fact the rights use: the work's own, or its composer's bound for every work (derived from the records; null when none is recorded).",
      }),
    ),
    workNumber: Nullable(Type.String({ maxLength: 80 }), {
      description: 'Main catalog number as written, e.g. "BWV 1007".',
    }),
    catalogNumbers: Type.Array(CatalogNumber, { default: [], description: 'All catalog numbers.' }),
    summary: Type.String({ maxLength: 300, description: 'One- or two-sentence summary.' }),
    key: Nullable(Type.String({ maxLength: 40 }), { description: 'Key, e.g. "G major".' }),
    instrumentation: Type.String({ maxLength: 220, description: 'Original instrumentation in words.' }),
    instruments: Type.Array(Slug('An instrument slug from instruments.json.'), {
      description: 'Normalized instruments.',
    }),
    rightsNote: Type.String({
      minLength: 1,
      maxLength: 2000,
      description: 'Plain summary of what may be reused and why.',
    }),
    rights: WorkRights,
    movements: Type.Optional(
      Type.Array(Movement, {
        maxItems: 100,
        description:
          'The movements of a work kept as one score per movement, in order (each source score names its own with `movement`); absent or empty when each score holds the whole work.',
      }),
    ),
    sourceAssets: Type.Array(AssetContent, { description: 'Source scores and pages.' }),
    arrangements: Type.Array(ArrangementContent, { default: [], description: 'Arrangements.' }),
    comments: Type.Array(Comment, { default: [], description: 'Approved comments.' }),
    videos: Type.Array(Video, { default: [], description: 'Videos.' }),
  },
  model(
    'WorkContent',
    "A work as the loader resolves it: the work file with its people's facts and its derived rights.",
  ),
);
export type WorkContent = Static<typeof WorkContent>;

/** A territory's status as a work file may still state it: checked against the facts, never published as written. */
const StoredTerritory = Type.Object(
  {
    status: StringEnum(TERRITORY_STATUSES, {
      description: 'Checked by the content lint: it must be what the facts decide (leave it out: it is derived).',
    }),
    note: Type.Optional(Type.String({ maxLength: 500 })),
    missingFacts: Type.Optional(Type.Array(Type.String({ maxLength: 200 }), { maxItems: 10 })),
  },
  { ...strict },
);

/** The rights part of a work file: facts and editors' decisions, not conclusions (docs/rights.md). */
export const WorkFileRights = Type.Object(
  {
    composition: Type.Optional(
      Type.Object(
        {
          status: Type.Optional(
            StringEnum(COMPOSITION_STATUSES, {
              description:
                'An editor\'s decision that stands instead of the facts: "permission-documented" (with its evidence) or "not-applicable". "public-domain" and "unknown" are derived; written here, the lint checks them against the facts.',
            }),
          ),
          note: Type.Optional(LayerNote),
        },
        { ...strict, description: 'Rights layer 1: derived from the facts unless an editor documented permission.' },
      ),
    ),
    edition: WorkRights.properties.edition,
    recording: WorkRights.properties.recording,
    territories: Type.Optional(
      Type.Object(
        { US: Type.Optional(StoredTerritory), EU: Type.Optional(StoredTerritory), CA: Type.Optional(StoredTerritory) },
        { ...strict, description: 'Derived; a status written here must be what the facts decide.' },
      ),
    ),
    license: WorkRights.properties.license,
    attribution: WorkRights.properties.attribution,
    checkedAtUtc: WorkRights.properties.checkedAtUtc,
    evidenceUrls: WorkRights.properties.evidenceUrls,
  },
  { ...strict, description: 'Rights as a work file records them: the layers an editor decides, and evidence.' },
);

/** Fields the work file holds as references or facts, and the loader resolves (src/domain/people.ts). */
const RESOLVED_FIELDS = ['composer', 'lyricist', 'firstPublished', 'publication', 'rightsNote', 'rights'] as const;

/**
 * Front matter of `works/<slug>/index.md`; the Markdown body is the editorial narrative. People
 * are named by slug (people/<slug>.json holds their facts, never copied here); the first
 * publication is a fact with evidence; the composition status and the territories are derived.
 */
export const WorkFile = Type.Composite(
  [
    Type.Omit(WorkContent, RESOLVED_FIELDS),
    Type.Object({
      composer: Slug('The composer: the person whose record is people/<slug>.json.'),
      lyricist: Type.Optional(
        Nullable(Slug('The lyricist or poet: the person whose record is people/<slug>.json.'), {
          description: 'The lyricist or poet of a work with words (a person slug); null or absent when none.',
        }),
      ),
      firstPublished: Type.Optional(
        Nullable(PublicationFact, {
          description: 'The first publication with its evidence; null or absent when not known.',
        }),
      ),
      rightsNote: Type.Optional(
        Type.String({
          maxLength: 2000,
          description:
            "What an editor adds about reuse (the edition, the archive's own files); the record's rights note opens with the derived verdict.",
        }),
      ),
      rights: WorkFileRights,
    }),
  ],
  model('WorkFile', 'Front matter of a work file.'),
);
export type WorkFile = Static<typeof WorkFile>;
export type AssetContent = Static<typeof AssetContent>;
export type ArrangementContent = Static<typeof ArrangementContent>;

// ---------- published record ----------

const assetRecordFields = {
  id: assetContentFields.id,
  kind: assetContentFields.kind,
  title: assetContentFields.title,
  mediaType: assetContentFields.mediaType,
  sha256: Nullable(Sha256('SHA-256 of the file, when known.')),
  byteLength: Nullable(Type.Integer({ minimum: 0, description: 'Size in bytes, when known.' })),
  rightsStatus: assetContentFields.rightsStatus,
  license: assetContentFields.license,
  attribution: assetContentFields.attribution,
  reviewState: assetContentFields.reviewState,
  reviewStatus: Type.String({
    description: 'Human-readable label of the review state, e.g. "Technical pass (not listening-approved)".',
  }),
  access: assetContentFields.access,
  accessNote: Type.String({ description: 'What the access level means for this link.' }),
  technicalChecks: Nullable(Type.String({ maxLength: 2000 }), { description: 'Automated measurements.' }),
  excerpt: Nullable(Excerpt, {
    description: 'Which bars of the work a score file holds; null when it holds all of it (or is not a score).',
  }),
  measured: Nullable(AssetMeasurement, {
    description:
      'MP3/WAV: what the archive measured when the file was accepted (duration, EBU R128 loudness, true peak, loudness range, sections, quiet stretches, narration-bed level), with what the contribution declared and where they disagree; null when not measured (e.g. files that predate measurement).',
  }),
  /** Scores (MusicXML): the audio the archive rendered from this score; absent when the build rendered no audio. */
  renderedAudio: Type.Optional(RenderedAudio),
  links: Type.Object(
    {
      download: Nullable(
        AbsoluteUrl(
          'Download URL; absolute. Public files: their public address. Signed-in files: the protected route GET /api/v1/works/{slug}/assets/{assetId}/download (401 without a reader session), only when this archive offers reader sign-in; null when it does not (accessNote says so), and for administrator-only files.',
        ),
      ),
      sourcePage: AbsoluteUrl('Source page URL.'),
      rawMusicXml: Type.Optional(AbsoluteUrl('Raw MusicXML (MusicXML assets only).')),
      signIn: Type.Optional(
        AbsoluteUrl(
          'Signed-in files, when this archive offers reader sign-in: where a reader signs in (GitHub) before following `download`.',
        ),
      ),
      pdf: Type.Optional(
        AbsoluteUrl(
          'Printable PDF of the score as engraved by the build, one page per engraved page (public MusicXML assets the build rendered only).',
        ),
      ),
    },
    { ...strict, description: 'Absolute links of the asset.' },
  ),
};

export const AssetRecord = Type.Object(assetRecordFields, {
  ...strict,
  $id: 'AssetRecord',
  description: 'A published asset.',
});

export const ArrangementRecord = Type.Object(
  {
    ...arrangementCommon,
    reviewStatus: Type.String({ description: 'Human-readable label of the arrangement review state.' }),
    measuredDurationSeconds: Nullable(Type.Number({ minimum: 0 }), {
      description:
        "Duration measured from its listen file (the public MP3, else WAV; else any measured recording; else the audio rendered from its score: its master's measured length), in seconds; null when none was measured. `durationSeconds` is the declared duration; resolve prefers the measured one.",
    }),
    formats: Type.Array(Type.String(), { description: 'Formats present (asset kinds), sorted.' }),
    assets: Type.Array(AssetRecord, { description: 'Files of the arrangement.' }),
  },
  { ...strict, description: 'A published arrangement.' },
);

export const WorkRecord = Type.Object(
  {
    slug: WorkContent.properties.slug,
    title: WorkContent.properties.title,
    originalTitle: WorkContent.properties.originalTitle,
    aliases: Type.Array(Type.String(), {
      description: 'Popular titles and other names the work is known by (matched by catalog search and resolve).',
    }),
    composer: Composer,
    lyricist: Nullable(Lyricist, { description: 'The lyricist or poet; null when the work has none recorded.' }),
    period: WorkContent.properties.period,
    genre: WorkContent.properties.genre,
    year: WorkContent.properties.year,
    firstPublished: Nullable(Type.String(), {
      description: 'Year of first publication, "no later than YEAR", "unpublished", or null when not known.',
    }),
    publication: Type.Optional(
      Nullable(Publication, {
        description:
          "The first-publication fact the rights use, with its evidence: the work's own, or its composer's bound for every work; null when none is recorded.",
      }),
    ),
    workNumber: WorkContent.properties.workNumber,
    catalogNumbers: Type.Array(CatalogNumber, { description: 'All catalog numbers.' }),
    summary: WorkContent.properties.summary,
    key: WorkContent.properties.key,
    instrumentation: WorkContent.properties.instrumentation,
    instruments: Type.Array(
      Type.Object(
        {
          slug: Slug('Instrument slug.'),
          name: Type.String({ description: 'Normalized name.' }),
          family: Type.String({ description: 'Family.' }),
        },
        { ...strict },
      ),
      { description: 'Normalized instruments.' },
    ),
    narrative: Type.Object(
      {
        markdown: Type.String({ description: 'Editorial narrative as Markdown.' }),
        html: Type.String({ description: 'The narrative rendered to sanitized HTML.' }),
      },
      { ...strict, description: 'Editorial narrative.' },
    ),
    rightsNote: WorkContent.properties.rightsNote,
    rights: WorkRights,
    reuse: Type.Object(
      {
        recordings: Type.Integer({ minimum: 0, description: 'MP3 recordings of the arrangements.' }),
        recordingsCleared: Type.Integer({
          minimum: 0,
          description: 'How many of them resolve would offer for reuse (the same readiness rule).',
        }),
        rule: Type.String({ description: 'What "cleared for reuse" means, in words.' }),
      },
      { ...strict, description: 'Reuse at a glance, by the readiness rule resolve applies.' },
    ),
    movements: Type.Optional(
      Type.Array(
        Type.Object(
          {
            number: Movement.properties.number,
            title: Movement.properties.title,
            assetIds: Type.Array(Type.Integer(), {
              description:
                'The source scores of this movement (ids in sourceAssets); their links include the engraved pages and PDF.',
            }),
          },
          { ...strict },
        ),
        {
          description:
            'The movements, in order, each with its source scores, for a work kept as one score per movement; absent when each score holds the whole work.',
        },
      ),
    ),
    sourceAssets: Type.Array(AssetRecord, { description: 'Source scores and pages.' }),
    arrangements: Type.Array(ArrangementRecord, { description: 'Arrangements, best rank first.' }),
    comments: Type.Array(Comment, { description: 'Approved comments with their targets.' }),
    videos: Type.Array(Video, { description: 'Videos.' }),
    accessRules: Type.Array(
      Type.Object(
        {
          access: StringEnum(ACCESS_LEVELS),
          meaning: Type.String({ description: 'What this level means.' }),
          assetIds: Type.Array(Type.Integer(), { description: 'Assets of the work at this level.' }),
        },
        { ...strict },
      ),
      { description: 'Access rules: which assets are public, need a signed-in user, or are administrator-only.' },
    ),
    links: Type.Object(
      {
        self: AbsoluteUrl('This JSON record.'),
        markdown: AbsoluteUrl('The compact Markdown record.'),
        html: AbsoluteUrl('The HTML page.'),
        filesZip: AbsoluteUrl(
          "A zip of the work's public files (stored scores and recordings, engraved PDFs and MIDI, this record as JSON and Markdown) with a SHA256SUMS list.",
        ),
        collection: AbsoluteUrl('The catalog listing.'),
        composer: AbsoluteUrl('Other works by the composer.'),
        composerRecord: Type.Optional(
          AbsoluteUrl("The composer's person record (GET /api/v1/people/{slug}): facts, evidence and works."),
        ),
        lyricistRecord: Type.Optional(
          Nullable(AbsoluteUrl("The lyricist's person record (GET /api/v1/people/{slug})."), {
            description: "The lyricist's person record; null when the work names no lyricist.",
          }),
        ),
        corrections: AbsoluteUrl('Where to report a correction.'),
        resolve: AbsoluteUrl('Where to resolve music for a channel.'),
      },
      { ...strict, description: 'Canonical links.' },
    ),
  },
  model('WorkRecord', 'A canonical work record.'),
);
export type WorkRecord = Static<typeof WorkRecord>;
export type AssetRecord = Static<typeof AssetRecord>;
export type ArrangementRecord = Static<typeof ArrangementRecord>;

export const WorkSummary = Type.Object(
  {
    slug: WorkContent.properties.slug,
    title: WorkContent.properties.title,
    composer: Type.String({ description: 'Composer display name.' }),
    composerLifeDates: Type.String({ description: 'Life dates, e.g. "1685–1750".' }),
    period: WorkContent.properties.period,
    genre: WorkContent.properties.genre,
    workNumber: WorkContent.properties.workNumber,
    summary: WorkContent.properties.summary,
    instruments: Type.Array(Slug('Instrument slug.')),
    styles: Type.Array(Type.String(), { description: 'Arrangement styles.' }),
    arrangementCount: Type.Integer({ minimum: 0 }),
    links: Type.Object(
      { self: AbsoluteUrl('JSON record.'), markdown: AbsoluteUrl('Markdown record.'), html: AbsoluteUrl('HTML page.') },
      { ...strict },
    ),
  },
  { ...strict, $id: 'WorkSummary', description: 'One work in a catalog listing.' },
);
export type WorkSummary = Static<typeof WorkSummary>;
