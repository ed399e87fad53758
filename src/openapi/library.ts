/**
 * OpenAPI operations of the private library (spec Part 4.2); document.ts lists them with the
 * rest. Every operation is protected: its description names the key it needs, and `security`
 * lists the two ways to send it (emitted once document.ts supports `security` and
 * `requestBody`, see LibraryOperationSpec).
 */
import type { TSchema } from '@sinclair/typebox';
import { Envelope, Page } from '../schemas/envelope.ts';
import {
  IMPORT_BODY_LIMIT_BYTES,
  LIBRARY_SCHEMAS,
  TRACKS_DEFAULT_PAGE_SIZE,
  TRACKS_MAX_PAGE_SIZE,
  TracksQuery,
  UploadQuery,
} from '../schemas/library.ts';
import { LIBRARY_REVIEW_STATUSES, LIBRARY_SOURCE_TYPES, LIBRARY_VISIBILITIES } from '../domain/library/vocabulary.ts';
import {
  RANGE_RESPONSES,
  problem,
  queryParameters,
  ref,
  taggedFileResponses,
  type OperationSpec,
  type ParameterSpec,
  type ResponseSpec,
} from './spec.ts';

/** An operation with a request body and security requirements (document.ts emits both when it supports them). */
export interface LibraryOperationSpec extends OperationSpec {
  requestBody?: { description: string; required: boolean; content: Record<string, { schema: unknown }> };
  security?: Array<Record<string, string[]>>;
}

/** Security schemes for components.securitySchemes (the two ways to send a key). */
export const LIBRARY_SECURITY_SCHEMES = {
  archiveImportKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Archive-Import-Key',
    description:
      'A library key (ARCHIVE_LIBRARY_KEYS) or curator key (ARCHIVE_CURATOR_KEYS). Never send a key in a URL: that is refused with 400 key-in-url.',
  },
  bearerKey: {
    type: 'http',
    scheme: 'bearer',
    description: 'The same key as Authorization: Bearer <key>.',
  },
  libraryKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Archive-Import-Key',
    description:
      'A library key (ARCHIVE_LIBRARY_KEYS): imports, uploads, commits, reads and downloads of the private library. Also accepted as Authorization: Bearer (bearerKey).',
  },
  curatorKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Archive-Import-Key',
    description:
      'A curator key (ARCHIVE_CURATOR_KEYS): everything a library key may do, and publication of a library track. Also accepted as Authorization: Bearer (bearerKey).',
  },
  adminKey: {
    type: 'apiKey',
    in: 'header',
    name: 'X-Archive-Import-Key',
    description:
      'An operator-labeled admin key (ARCHIVE_ADMIN_KEYS, label=secret): the review API and desk sign-in. Also accepted as Authorization: Bearer (bearerKey).',
  },
  deskSession: {
    type: 'apiKey',
    in: 'cookie',
    name: 'archive-session',
    description:
      'The review desk session cookie (`__Host-archive-session` on an https origin), set by POST /api/v1/admin/session; state-changing requests also send its CSRF token in X-CSRF-Token.',
  },
  readerSession: {
    type: 'apiKey',
    in: 'cookie',
    name: 'archive-session',
    description:
      'The reader session cookie (`__Host-archive-session` on an https origin), set by the GitHub sign-in (/api/v1/reader/sign-in); sign-out also sends its CSRF token in X-CSRF-Token.',
  },
} as const;

const SECURITY: Array<Record<string, string[]>> = [
  { libraryKey: [] },
  { curatorKey: [] },
  { archiveImportKey: [] },
  { bearerKey: [] },
];
const CURATOR_SECURITY: Array<Record<string, string[]>> = [{ curatorKey: [] }, { bearerKey: [] }];

const LIBRARY_KEY =
  'Needs a library or curator key in X-Archive-Import-Key or Authorization: Bearer (never in the URL).';
const CURATOR_KEY =
  'Needs a curator key (ARCHIVE_CURATOR_KEYS) in X-Archive-Import-Key or Authorization: Bearer; a library key gets 403.';

const uuidParam = (name: string, what: string): ParameterSpec => ({
  name,
  in: 'path',
  required: true,
  description: `${what} (UUID).`,
  schema: { type: 'string', format: 'uuid' },
});
const stableKeyParam: ParameterSpec = {
  name: 'stableKey',
  in: 'path',
  required: true,
  description: 'stableKey of the track.',
  schema: { type: 'string', pattern: '^[A-Za-z0-9][A-Za-z0-9._:-]*$', maxLength: 200 },
};

/** Answers every protected operation can give. */
const AUTH_RESPONSES: Record<string, ResponseSpec> = {
  '400': problem('Invalid input (a parameter or field named in errors[]), or a key in the URL (key-in-url).'),
  '401': problem('Missing or wrong key; WWW-Authenticate: Bearer. Also when no key is configured for the route.'),
  '403': problem('The key is valid but lacks the role (or the file is curator-only).'),
  '429': problem(
    'Too many failed key checks from this address, or too many requests with this key (Retry-After, seconds); while an address is limited no key is checked.',
  ),
};

const json = (schema: TSchema, description: string): ResponseSpec => ({
  description,
  contentType: 'application/json',
  schema,
});
const env = (name: string, description: string) => Envelope(ref(name) as unknown as TSchema, description);

export const LIBRARY_OPERATIONS: LibraryOperationSpec[] = [
  {
    method: 'post',
    path: '/api/v1/library/imports',
    operationId: 'createLibraryImport',
    tags: ['library'],
    security: SECURITY,
    summary: 'Create an import: one track and the files to upload',
    description:
      `${LIBRARY_KEY} Declares the track and every file (length and SHA-256); answers with upload URLs. The same idempotencyKey with the same content returns the same import; ` +
      `with changed content, 422. The package stays private (visibility "private" is the only value accepted). Body at most ${IMPORT_BODY_LIMIT_BYTES / 1024 / 1024} MiB.`,
    requestBody: {
      description: 'MusicLibraryImportInput.',
      required: true,
      content: { 'application/json': { schema: ref('MusicLibraryImportInput') } },
    },
    responses: {
      '200': json(
        env('LibraryImport', 'The import in the envelope.'),
        'The import record: status "open", each file with receivedBytes and its upload URL.',
      ),
      ...AUTH_RESPONSES,
      '409': problem('The stableKey already belongs to a committed package.'),
      '413': problem('The JSON body is larger than the limit.'),
      '415': problem('The body is not JSON.'),
      '422': problem('idempotency-conflict: this idempotencyKey was used with different content.'),
    },
  },
  {
    method: 'get',
    path: '/api/v1/library/imports/{id}',
    operationId: 'getLibraryImport',
    tags: ['library'],
    security: SECURITY,
    summary: "An import with every file's upload offset",
    description: `${LIBRARY_KEY} After a dropped connection, resume each file at its receivedBytes.`,
    parameters: [uuidParam('id', 'Import id')],
    responses: {
      '200': json(env('LibraryImport', 'The import in the envelope.'), 'The import record.'),
      ...AUTH_RESPONSES,
      '404': problem('No import has this id.'),
    },
  },
  {
    method: 'put',
    path: '/api/v1/library/imports/{importId}/files/{fileId}',
    operationId: 'uploadLibraryFile',
    tags: ['library'],
    security: SECURITY,
    summary: "Upload (or resume) a file's bytes at an offset",
    description:
      `${LIBRARY_KEY} Send raw bytes as application/octet-stream; they are appended at ?offset=N, which must equal the file's receivedBytes (else 409 with expectedOffset and providedOffset). ` +
      'Bytes past the declared length: 413, and nothing from that request is kept. A dropped connection keeps what arrived. The answer carries Upload-Offset.',
    parameters: [uuidParam('importId', 'Import id'), uuidParam('fileId', 'File id'), ...queryParameters(UploadQuery)],
    requestBody: {
      description: 'The file bytes from the offset on.',
      required: true,
      content: { 'application/octet-stream': { schema: {} } },
    },
    responses: {
      '200': {
        ...json(env('LibraryImportFile', 'The file in the envelope.'), 'The file record with the new receivedBytes.'),
        headers: {
          'Upload-Offset': { description: 'Bytes the server now holds for this file.', schema: { type: 'integer' } },
        },
      },
      ...AUTH_RESPONSES,
      '404': problem('No such import or file.'),
      '409': problem(
        'offset-mismatch (expectedOffset, providedOffset), or conflict: the import is committed or failed, or another upload/commit is running.',
      ),
      '413': problem('More bytes than the declared length.'),
      '415': problem('The body is not application/octet-stream.'),
    },
  },
  {
    method: 'post',
    path: '/api/v1/library/imports/{id}/commit',
    operationId: 'commitLibraryImport',
    tags: ['library'],
    security: SECURITY,
    summary: 'Rehash every file and commit the package',
    description:
      `${LIBRARY_KEY} No body. The server rehashes every file; when every length and SHA-256 matches, the files move into the content-addressed store and the track becomes a private package. ` +
      'Compare the returned lengths and digests with your local files before deleting them. Committing again answers the same result.',
    parameters: [uuidParam('id', 'Import id')],
    responses: {
      '200': json(
        env('LibraryCommitResult', 'The commit result in the envelope.'),
        'Committed: each file with its server length and SHA-256.',
      ),
      ...AUTH_RESPONSES,
      '404': problem('No import has this id.'),
      '409': problem(
        'Files are still incomplete (files[] with receivedBytes), the import failed, or uploads are running.',
      ),
      '415': problem('A body was sent with an unsupported media type.'),
      '422': problem(
        'digest-mismatch: files[] lists expected and actual length and SHA-256; nothing was committed; upload those files again.',
      ),
    },
  },
  {
    method: 'get',
    path: '/api/v1/library/tracks',
    operationId: 'listLibraryTracks',
    tags: ['library'],
    security: SECURITY,
    summary: "Search the library's packages",
    description: `${LIBRARY_KEY} pageSize defaults to ${TRACKS_DEFAULT_PAGE_SIZE}, at most ${TRACKS_MAX_PAGE_SIZE}. sourceType is one of ${LIBRARY_SOURCE_TYPES.join(', ')}.`,
    parameters: queryParameters(TracksQuery),
    responses: {
      '200': json(
        Envelope(
          Page(ref('LibraryTrackSummary') as unknown as TSchema, 'A page of packages.'),
          'Packages page in the envelope.',
        ),
        'A page of packages.',
      ),
      ...AUTH_RESPONSES,
    },
  },
  {
    method: 'get',
    path: '/api/v1/library/tracks/{stableKey}',
    operationId: 'getLibraryTrack',
    tags: ['library'],
    security: SECURITY,
    summary: 'One complete package',
    description:
      `${LIBRARY_KEY} Rights, QA, reproducibility, and per file: original path, length, SHA-256, rights state, review state, protected download URL. ` +
      `visibility is one of ${LIBRARY_VISIBILITIES.join(', ')}; reviewStatus one of ${LIBRARY_REVIEW_STATUSES.join(', ')} (none implies another).`,
    parameters: [stableKeyParam],
    responses: {
      '200': json(env('LibraryTrack', 'The package in the envelope.'), 'The package.'),
      ...AUTH_RESPONSES,
      '404': problem('No committed package has this stableKey.'),
    },
  },
  {
    method: 'post',
    path: '/api/v1/library/tracks/{stableKey}/publish',
    operationId: 'publishLibraryTrack',
    tags: ['library'],
    security: CURATOR_SECURITY,
    summary: 'Publish an eligible package as an arrangement of a canonical work',
    description:
      `${CURATOR_KEY} No body. Eligible: rightsStatus "public-domain" on a public-domain work, rightsEvidence naming workSlug with HTTPS evidenceUrls, and a technical pass; ` +
      'refusal is 422 with reasons[]. Publication commits the arrangement (blob references, no re-upload) to the content repository, rebuilds and swaps the site, and sets visibility "public". Publishing again answers the same publication.',
    parameters: [stableKeyParam],
    responses: {
      '200': json(env('LibraryPublishResult', 'The publication in the envelope.'), 'Published.'),
      ...AUTH_RESPONSES,
      '404': problem('No committed package has this stableKey.'),
      '409': problem('A publication of this package is running, or the content repository moved meanwhile.'),
      '415': problem('A body was sent with an unsupported media type.'),
      '422': problem('publication-refused: reasons[] lists each failed condition.'),
      '500': problem('The site did not build with the arrangement; nothing was published.'),
    },
  },
  {
    method: 'get',
    path: '/api/v1/library/files/{id}',
    operationId: 'downloadLibraryFile',
    tags: ['library'],
    security: SECURITY,
    summary: 'Protected, range-enabled download of a committed file',
    description:
      `${LIBRARY_KEY} ETag is the quoted SHA-256; Range (one range), If-Range and If-None-Match work; Content-Disposition carries the original file name. ` +
      'Cache-Control: private, no-cache. Only committed, verified bytes are ever served.',
    parameters: [uuidParam('id', 'File id')],
    responses: {
      ...taggedFileResponses('The file, with its declared media type.'),
      ...RANGE_RESPONSES,
      '307': {
        description:
          'Only when the archive is configured for presigned downloads (S3 blob store): fetch the file (ranges work there too) from Location, without the key.',
        headers: {
          Location: {
            description: 'A presigned URL of the object store, valid for ARCHIVE_S3_PRESIGN_SECONDS.',
            schema: { type: 'string', format: 'uri' },
          },
        },
      },
      ...AUTH_RESPONSES,
      '404': problem('No committed file has this id.'),
    },
  },
];

export const LIBRARY_COMPONENTS: Record<string, TSchema> = LIBRARY_SCHEMAS;

export const LIBRARY_TAGS: { name: string; description: string }[] = [
  {
    name: 'library',
    description:
      'The private production library: imports with resumable uploads, verified commit, packages, protected downloads, curator publication. Every route needs a key; import is not publication.',
  },
];
