/**
 * The private production library (spec Part 2: MusicLibraryImportInput, MusicLibraryTrackInput,
 * MusicLibraryFileInput; Part 4.2 endpoints). One source for request validation, the OpenAPI
 * document and the types. Response shapes are "not shown" in the spec and decided here; every
 * response travels in the envelope. Limits the spec leaves open are named constants below and
 * documented in docs/library.md.
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { AbsoluteUrl, MUSIC_ROLES, Nullable, Sha256, StringEnum, UtcTimestamp } from './common.ts';
import { PageQuery } from './envelope.ts';
import {
  LIBRARY_DOWNLOAD_POLICIES,
  LIBRARY_REVIEW_STATUSES,
  LIBRARY_SOURCE_TYPES,
  LIBRARY_VISIBILITIES,
  SOURCE_TYPE_MEANINGS,
} from '../domain/library/vocabulary.ts';
import { model, strict } from './options.ts';

/** Import and file states (docs/library.md, "States and transitions"). */
export const IMPORT_STATUSES = ['open', 'committed', 'failed'] as const;
export type ImportStatus = (typeof IMPORT_STATUSES)[number];
export const FILE_STATUSES = ['pending', 'partial', 'uploaded', 'verified', 'mismatch'] as const;
export type FileStatus = (typeof FILE_STATUSES)[number];

/** stableKey and other ids travel in URL paths and name record files: one safe alphabet. */
export const STABLE_KEY_PATTERN = '^[A-Za-z0-9][A-Za-z0-9._:-]*$';
export const STABLE_KEY_MAX_LENGTH = 200;
export const IDEMPOTENCY_KEY_MAX_LENGTH = 200;
export const MAX_FILES_PER_IMPORT = 10_000;
/** Largest byteLength a digit string may spell (the integer form is bounded the same way). */
export const BYTE_LENGTH_MAX_DIGITS = 16;
/** The import body is JSON descriptors only, but 10,000 files with metadata need more than 1 MiB. */
export const IMPORT_BODY_LIMIT_BYTES = 16 * 1024 * 1024;
export const TRACKS_DEFAULT_PAGE_SIZE = 50;
export const TRACKS_MAX_PAGE_SIZE = 200;

const NullableText = (maxLength: number, description: string) => Nullable(Type.String({ maxLength }), { description });
const TextList = (description: string) =>
  Nullable(Type.Array(Type.String({ minLength: 1, maxLength: 100 }), { maxItems: 200 }), { description });
/** A free-form JSON value (object, array, string, number, boolean or null), kept exactly as sent. */
const FreeJson = (description: string) => Type.Unknown({ description });
/**
 * A media type as sent in Content-Type (it is served back in that header, so no control
 * characters), e.g. "audio/wav" or "text/plain; charset=utf-8".
 */
const MEDIA_TYPE_PATTERN = '^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]*(;[\\x20-\\x7e]*)?$';

const sourceTypeList = LIBRARY_SOURCE_TYPES.map((s) => `${s} (${SOURCE_TYPE_MEANINGS[s]})`).join('; ');

export const MusicLibraryTrackInput = Type.Object(
  {
    stableKey: Type.String({
      minLength: 1,
      maxLength: STABLE_KEY_MAX_LENGTH,
      pattern: STABLE_KEY_PATTERN,
      description:
        'Stable identifier of the track across imports; letters, digits, ".", "_", ":", "-" (it is a URL path segment).',
    }),
    title: Type.String({ minLength: 1, maxLength: 300, description: 'Title of the track.' }),
    collection: Type.String({
      minLength: 1,
      maxLength: 200,
      description: 'Collection or production the track belongs to.',
    }),
    sourceType: StringEnum(LIBRARY_SOURCE_TYPES, { description: `Where the material came from: ${sourceTypeList}.` }),
    rightsStatus: Type.String({
      minLength: 1,
      maxLength: 80,
      description:
        'Rights state of the track and its files, e.g. "public-domain", "licensed", "unknown". Publication needs "public-domain".',
    }),
    license: Type.String({
      minLength: 1,
      maxLength: 160,
      description: 'License of the track, e.g. "CC0-1.0", or "none".',
    }),
    reviewStatus: StringEnum(LIBRARY_REVIEW_STATUSES, {
      description:
        'Review state; none implies another. "technical-pass" is not listening approval; "rights-review-required" is not permission to publish; "human-listening-approved" needs quality.listeningApprovedBy.',
    }),
    visibility: StringEnum(['private'] as const, {
      description:
        'Always "private": import is not publication. A curator makes a package "public" with POST /api/v1/library/tracks/{stableKey}/publish.',
    }),
    composer: NullableText(160, 'Composer of the underlying work, if any.'),
    genre: NullableText(80, 'Genre, e.g. "minuet".'),
    attribution: NullableText(500, 'Attribution to carry forward with the track.'),
    description: NullableText(4000, 'What the track is, in words.'),
    musicalKey: NullableText(40, 'Key, e.g. "G major".'),
    tags: TextList('Free tags.'),
    intendedUses: TextList(
      `Intended uses; channel roles (${MUSIC_ROLES.join(', ')}) are the ones publication can use.`,
    ),
    channelKeys: TextList('Channels the track was made for (ChannelContext.channelKey values).'),
    rightsEvidence: FreeJson(
      'Rights evidence, free-form JSON. Publication reads an object { workSlug, evidenceUrls: [https URLs], editionStatus?, recordingStatus?, instrumentation?, checkedAtUtc?, notes? }.',
    ),
    reproducibility: FreeJson(
      'How the track was made (engine, model, seed, prompt, command, input digests), free-form JSON.',
    ),
    quality: FreeJson(
      'QA results, free-form JSON. Recognized: technicalValidationPassed (boolean), listeningApprovedBy (the accountable person, required with human-listening-approved).',
    ),
    durationSeconds: Nullable(Type.Number({ minimum: 0, maximum: 1_000_000 }), { description: 'Duration in seconds.' }),
    bpm: Nullable(Type.Number({ minimum: 0, maximum: 1000 }), { description: 'Tempo in beats per minute.' }),
    sourceCreatedAtUtc: Nullable(UtcTimestamp('When the source material was created (UTC).'), {
      description: 'When the source material was created (UTC), if known.',
    }),
  },
  model('MusicLibraryTrackInput', 'The track of an import; every field must be present (nullable ones may be null).'),
);
export type MusicLibraryTrackInput = Static<typeof MusicLibraryTrackInput>;

export const MusicLibraryFileInput = Type.Object(
  {
    kind: Type.String({
      minLength: 1,
      maxLength: 40,
      description:
        'What the file is, e.g. master, wav, mp3, candidate-take, midi, musicxml, mxl, score-pdf, manifest, production-card, qa-result, instrument-asset.',
    }),
    fileName: Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'Original file name; metadata only (offered back in Content-Disposition).',
    }),
    originalRelativePath: Type.String({
      minLength: 1,
      maxLength: 1024,
      description: 'Original logical path inside the production folder; metadata only, never a path on the server.',
    }),
    contentType: Type.String({
      minLength: 3,
      maxLength: 200,
      pattern: MEDIA_TYPE_PATTERN,
      description: 'Media type, served back on download, e.g. "audio/wav".',
    }),
    sha256: Sha256('SHA-256 of the file as the client hashed it (64 hexadecimal characters).'),
    downloadPolicy: StringEnum(LIBRARY_DOWNLOAD_POLICIES, {
      description: 'Who may download it: "protected" (any library or curator key) or "curator-only".',
    }),
    byteLength: Type.Unsafe<number | string>({
      type: ['integer', 'string'],
      minimum: 0,
      maximum: Number.MAX_SAFE_INTEGER,
      pattern: '^[0-9]+$',
      minLength: 1,
      maxLength: BYTE_LENGTH_MAX_DIGITS,
      description: 'Exact size in bytes (int64); an integer or a string of decimal digits.',
    }),
    metadata: FreeJson('Anything else about the file, free-form JSON.'),
  },
  model('MusicLibraryFileInput', 'One file of an import, declared before its bytes are uploaded.'),
);
export type MusicLibraryFileInput = Static<typeof MusicLibraryFileInput>;

export const MusicLibraryImportInput = Type.Object(
  {
    idempotencyKey: Type.String({
      minLength: 1,
      maxLength: IDEMPOTENCY_KEY_MAX_LENGTH,
      description:
        'Retry key: the same key with the same content returns the same import; with changed content it is refused (422).',
    }),
    track: MusicLibraryTrackInput,
    files: Type.Array(MusicLibraryFileInput, {
      maxItems: MAX_FILES_PER_IMPORT,
      description: 'Every file of the package (may be empty).',
    }),
  },
  model('MusicLibraryImportInput', 'A private library import: one track and its files.'),
);
export type MusicLibraryImportInput = Static<typeof MusicLibraryImportInput>;

// ---------- request parameters ----------

const Uuid = (description: string) => Type.String({ format: 'uuid', description });

export const ImportIdParams = Type.Object({ id: Uuid('Import id (UUID).') }, { description: 'Path of an import.' });
export const ImportFileParams = Type.Object(
  { importId: Uuid('Import id (UUID).'), fileId: Uuid('File id (UUID) from the import record.') },
  { description: 'Path of one file of an import.' },
);
export const FileIdParams = Type.Object({ id: Uuid('File id (UUID).') }, { description: 'Path of a committed file.' });
export const StableKeyParams = Type.Object(
  { stableKey: MusicLibraryTrackInput.properties.stableKey },
  { description: 'Path of a track.' },
);

export const UploadQuery = Type.Object(
  {
    offset: Type.Optional(
      Type.Integer({
        minimum: 0,
        maximum: Number.MAX_SAFE_INTEGER,
        format: 'int64',
        description: 'Where these bytes start in the file; must equal the receivedBytes the server reports. Default 0.',
      }),
    ),
  },
  { description: 'Upload parameters.' },
);
export type UploadQuery = Static<typeof UploadQuery>;

const queryText = (description: string) => Type.Optional(Type.String({ maxLength: 200, description }));
export const TracksQuery = Type.Object(
  {
    query: queryText(
      'Words to find in stableKey, title, composer, collection, genre, description and tags (case- and accent-insensitive).',
    ),
    collection: queryText('Collection, exactly (case-insensitive).'),
    genre: queryText('Genre words.'),
    sourceType: Type.Optional(StringEnum(LIBRARY_SOURCE_TYPES, { description: 'Only tracks of this source type.' })),
    intendedUse: queryText('Only tracks listing this intended use (case-insensitive).'),
    channel: queryText('Only tracks listing this channel key (case-insensitive).'),
    ...PageQuery(TRACKS_DEFAULT_PAGE_SIZE, TRACKS_MAX_PAGE_SIZE),
  },
  { description: 'Library search parameters.' },
);
export type TracksQuery = Static<typeof TracksQuery>;

// ---------- responses ----------

const Int = (description: string) => Type.Integer({ minimum: 0, description });

export const LibraryTrackRef = Type.Object(
  {
    stableKey: MusicLibraryTrackInput.properties.stableKey,
    title: MusicLibraryTrackInput.properties.title,
    collection: MusicLibraryTrackInput.properties.collection,
    composer: MusicLibraryTrackInput.properties.composer,
    sourceType: MusicLibraryTrackInput.properties.sourceType,
    rightsStatus: MusicLibraryTrackInput.properties.rightsStatus,
    reviewStatus: MusicLibraryTrackInput.properties.reviewStatus,
    visibility: StringEnum(LIBRARY_VISIBILITIES, {
      description: '"private" after import; "public" after publication.',
    }),
  },
  { ...strict, description: 'The track an import carries.' },
);

export const LibraryImportFile = Type.Object(
  {
    id: Uuid('File id (UUID).'),
    fileName: MusicLibraryFileInput.properties.fileName,
    originalRelativePath: MusicLibraryFileInput.properties.originalRelativePath,
    kind: MusicLibraryFileInput.properties.kind,
    contentType: MusicLibraryFileInput.properties.contentType,
    byteLength: Int('Declared size in bytes.'),
    sha256: Sha256('Declared SHA-256 (lower case).'),
    downloadPolicy: MusicLibraryFileInput.properties.downloadPolicy,
    metadata: FreeJson('The metadata as sent.'),
    receivedBytes: Int('Bytes the server holds for this file; resume the upload at this offset.'),
    status: StringEnum(FILE_STATUSES, {
      description:
        'pending (nothing received), partial, uploaded (all bytes received, not yet verified), verified (rehashed at commit and matched), mismatch (rehash differed; upload again from 0).',
    }),
    serverByteLength: Nullable(Int('Length the server measured at commit.'), {
      description: 'Length the server measured at commit (null before).',
    }),
    serverSha256: Nullable(Sha256('SHA-256 the server computed at commit.'), {
      description: 'SHA-256 the server computed at commit (null before).',
    }),
    lastMismatch: Nullable(
      Type.Object(
        {
          actualByteLength: Int('Length the server found.'),
          actualSha256: Sha256('SHA-256 the server computed.'),
          atUtc: UtcTimestamp('When the commit found it.'),
        },
        { ...strict },
      ),
      { description: 'What the last commit found when the bytes did not match (null if none).' },
    ),
    links: Type.Object(
      { upload: AbsoluteUrl('PUT the bytes here with ?offset=<receivedBytes> (application/octet-stream).') },
      { ...strict, description: 'Links.' },
    ),
  },
  { ...strict, $id: 'LibraryImportFile', description: 'One file of an import with its upload progress.' },
);

export const LibraryImport = Type.Object(
  {
    id: Uuid('Import id (UUID).'),
    idempotencyKey: MusicLibraryImportInput.properties.idempotencyKey,
    status: StringEnum(IMPORT_STATUSES, {
      description:
        'open (accepting uploads), committed (files verified and stored; the track exists), failed (can never commit; see failureReason).',
    }),
    createdAtUtc: UtcTimestamp('When the import was created.'),
    updatedAtUtc: UtcTimestamp('When the import record last changed.'),
    committedAtUtc: Nullable(UtcTimestamp('When it was committed.'), {
      description: 'When it was committed (null while open).',
    }),
    failureReason: Nullable(Type.String(), { description: 'Why the import failed (null unless failed).' }),
    track: LibraryTrackRef,
    files: Type.Array(LibraryImportFile, { description: 'Every declared file, in the order sent.' }),
    totals: Type.Object(
      {
        files: Int('Number of files.'),
        byteLength: Int('Declared bytes in total.'),
        receivedBytes: Int('Bytes received in total.'),
      },
      { ...strict, description: 'Progress over all files.' },
    ),
    links: Type.Object(
      {
        self: AbsoluteUrl('This import.'),
        commit: AbsoluteUrl('POST here once every file is uploaded.'),
        track: Nullable(AbsoluteUrl('The committed track.'), {
          description: 'The committed track (null until committed).',
        }),
      },
      { ...strict, description: 'Links.' },
    ),
  },
  model('LibraryImport', 'An import record.'),
);
export type LibraryImport = Static<typeof LibraryImport>;
export type LibraryImportFile = Static<typeof LibraryImportFile>;

export const CommitFile = Type.Object(
  {
    id: Uuid('File id.'),
    fileName: MusicLibraryFileInput.properties.fileName,
    originalRelativePath: MusicLibraryFileInput.properties.originalRelativePath,
    declaredByteLength: Int('Length the client declared.'),
    declaredSha256: Sha256('SHA-256 the client declared.'),
    serverByteLength: Int('Length of the stored file, measured by the server at commit.'),
    serverSha256: Sha256('SHA-256 of the stored file, computed by the server at commit.'),
    matched: Type.Boolean({ description: 'True: declared and server values are equal (always true in a 200 answer).' }),
  },
  {
    ...strict,
    description: "The server's word on one committed file; compare it with the local copy before deleting that copy.",
  },
);

export const LibraryCommitResult = Type.Object(
  {
    importId: Uuid('Import id.'),
    status: StringEnum(['committed'] as const, { description: 'Always "committed" in a 200 answer.' }),
    committedAtUtc: UtcTimestamp('When the commit happened.'),
    stableKey: MusicLibraryTrackInput.properties.stableKey,
    visibility: StringEnum(LIBRARY_VISIBILITIES, {
      description: 'Visibility of the package ("private" right after commit).',
    }),
    files: Type.Array(CommitFile, { description: 'Every file with its server length and SHA-256.' }),
    links: Type.Object(
      { import: AbsoluteUrl('The import.'), track: AbsoluteUrl('The private package.') },
      { ...strict, description: 'Links.' },
    ),
  },
  model('LibraryCommitResult', 'A committed import: every file rehashed by the server and matched.'),
);
export type LibraryCommitResult = Static<typeof LibraryCommitResult>;

export const LibraryTrackFile = Type.Object(
  {
    id: Uuid('File id (UUID).'),
    fileName: MusicLibraryFileInput.properties.fileName,
    originalRelativePath: MusicLibraryFileInput.properties.originalRelativePath,
    kind: MusicLibraryFileInput.properties.kind,
    contentType: MusicLibraryFileInput.properties.contentType,
    byteLength: Int('Size in bytes, verified by the server.'),
    sha256: Sha256('SHA-256, verified by the server (lower case).'),
    rightsStatus: Type.String({ description: "Rights state of the file (the track's)." }),
    reviewStatus: StringEnum(LIBRARY_REVIEW_STATUSES, {
      description: "Review state of the file (the track's); none implies another.",
    }),
    reviewStatusLabel: Type.String({
      description: 'Human-readable label of the review state, e.g. "Technical pass (not listening-approved)".',
    }),
    downloadPolicy: MusicLibraryFileInput.properties.downloadPolicy,
    metadata: FreeJson('The metadata as imported.'),
    links: Type.Object(
      { download: AbsoluteUrl('Protected, range-enabled download; send the key in a header.') },
      { ...strict, description: 'Links.' },
    ),
  },
  { ...strict, $id: 'LibraryTrackFile', description: 'A committed file of a package.' },
);

export const LibraryPublication = Type.Object(
  {
    publishedAtUtc: UtcTimestamp('When the package became public.'),
    publishedBy: Type.String({ description: 'Label of the curator key that published it.' }),
    workSlug: Type.String({ description: 'The canonical work the arrangement was added to.' }),
    arrangementId: Type.Integer({ minimum: 1, description: 'Id of the new arrangement in the work record.' }),
    assetIds: Type.Array(Type.Integer({ minimum: 1 }), {
      description: 'Asset ids of the published files in the work record.',
    }),
    commit: Type.String({ description: 'Content repository commit that added the arrangement.' }),
    links: Type.Object(
      { work: AbsoluteUrl('The public work record.'), workMarkdown: AbsoluteUrl('Its Markdown record.') },
      { ...strict, description: 'Links.' },
    ),
  },
  { ...strict, $id: 'LibraryPublication', description: 'How and where the package was published.' },
);
export type LibraryPublication = Static<typeof LibraryPublication>;

const trackInput = MusicLibraryTrackInput.properties;

export const LibraryTrack = Type.Object(
  {
    stableKey: trackInput.stableKey,
    title: trackInput.title,
    collection: trackInput.collection,
    sourceType: trackInput.sourceType,
    rightsStatus: trackInput.rightsStatus,
    license: trackInput.license,
    reviewStatus: trackInput.reviewStatus,
    reviewStatusLabel: Type.String({ description: 'Human-readable label of the review state.' }),
    visibility: LibraryTrackRef.properties.visibility,
    composer: trackInput.composer,
    genre: trackInput.genre,
    attribution: trackInput.attribution,
    description: trackInput.description,
    musicalKey: trackInput.musicalKey,
    tags: trackInput.tags,
    intendedUses: trackInput.intendedUses,
    channelKeys: trackInput.channelKeys,
    rightsEvidence: FreeJson('Rights evidence as imported.'),
    reproducibility: FreeJson('Reproducibility as imported.'),
    quality: FreeJson('QA results as imported.'),
    durationSeconds: trackInput.durationSeconds,
    bpm: trackInput.bpm,
    sourceCreatedAtUtc: trackInput.sourceCreatedAtUtc,
    importId: Uuid('The import that created the package.'),
    committedAtUtc: UtcTimestamp('When the package was committed.'),
    publication: Nullable(LibraryPublication, { description: 'Publication details (null while private).' }),
    files: Type.Array(LibraryTrackFile, {
      description:
        'Every file with original path, length, SHA-256, rights and review state, and protected download URL.',
    }),
    links: Type.Object(
      {
        self: AbsoluteUrl('This package.'),
        import: AbsoluteUrl('Its import record.'),
        publish: AbsoluteUrl('Where a curator publishes it.'),
      },
      { ...strict, description: 'Links.' },
    ),
  },
  model('LibraryTrack', 'One complete library package.'),
);
export type LibraryTrack = Static<typeof LibraryTrack>;
export type LibraryTrackFile = Static<typeof LibraryTrackFile>;

export const LibraryTrackSummary = Type.Object(
  {
    stableKey: trackInput.stableKey,
    title: trackInput.title,
    collection: trackInput.collection,
    composer: trackInput.composer,
    genre: trackInput.genre,
    sourceType: trackInput.sourceType,
    rightsStatus: trackInput.rightsStatus,
    reviewStatus: trackInput.reviewStatus,
    reviewStatusLabel: Type.String({ description: 'Human-readable label of the review state.' }),
    visibility: LibraryTrackRef.properties.visibility,
    durationSeconds: trackInput.durationSeconds,
    intendedUses: trackInput.intendedUses,
    channelKeys: trackInput.channelKeys,
    fileCount: Int('Number of files.'),
    totalBytes: Int('Bytes over all files.'),
    committedAtUtc: UtcTimestamp('When the package was committed.'),
    links: Type.Object({ self: AbsoluteUrl('The complete package.') }, { ...strict, description: 'Links.' }),
  },
  { ...strict, $id: 'LibraryTrackSummary', description: 'One package in a listing.' },
);
export type LibraryTrackSummary = Static<typeof LibraryTrackSummary>;

export const LibraryPublishResult = Type.Object(
  {
    stableKey: trackInput.stableKey,
    visibility: StringEnum(['public'] as const, { description: 'Always "public" in a 200 answer.' }),
    publication: LibraryPublication,
    links: Type.Object({ track: AbsoluteUrl('The package.') }, { ...strict, description: 'Links.' }),
  },
  model('LibraryPublishResult', 'A published package.'),
);
export type LibraryPublishResult = Static<typeof LibraryPublishResult>;

/** Named schemas for the OpenAPI document (components.schemas). */
export const LIBRARY_SCHEMAS: Record<string, TSchema> = {
  MusicLibraryImportInput,
  MusicLibraryTrackInput,
  MusicLibraryFileInput,
  LibraryImport,
  LibraryImportFile,
  LibraryCommitResult,
  LibraryTrack,
  LibraryTrackFile,
  LibraryTrackSummary,
  LibraryPublication,
  LibraryPublishResult,
};
