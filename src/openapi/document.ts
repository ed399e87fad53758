/**
 * The OpenAPI 3.1.1 document, assembled from the same TypeBox schemas that validate content and
 * requests. `OPERATIONS` is the list of served paths: the front server's route test checks that
 * every one answers and that nothing under /api/v1 answers without being listed here.
 */
import { Type, type TObject, type TSchema } from '@sinclair/typebox';
import { Envelope, Page, Problem } from '../schemas/envelope.ts';
import { AssetRecord, WorkRecord, WorkSummary } from '../schemas/work.ts';
import { InstrumentRecord, ProfileRecord } from '../schemas/profile.ts';
import { PersonRecord, PersonSummary } from '../schemas/person.ts';
import { ChannelContext, MusicRequirements } from '../schemas/channel.ts';
import { ApiIndex, Workflow } from '../schemas/discovery.ts';
import { PROBLEM_TYPES } from '../domain/problems.ts';
import {
  RANGE_RESPONSES,
  enveloped,
  plain,
  problem,
  queryParameters,
  ref,
  slugParam,
  type OperationSpec,
  type RequestBodySpec,
  type ResponseSpec,
} from './spec.ts';
export type { OperationSpec, ResponseSpec, ParameterSpec, RequestBodySpec } from './spec.ts';
import { CONTRIBUTIONS_COMPONENTS, CONTRIBUTIONS_OPERATIONS, CONTRIBUTIONS_TAGS } from './contributions.ts';
import { ANSWER_COMPONENTS, ANSWER_OPERATIONS } from './answers.ts';
import { RESOLVE_COMPONENTS, RESOLVE_OPERATIONS, RESOLVE_TAGS } from './resolve.ts';
import { ADMIN_COMPONENTS, ADMIN_OPERATIONS, ADMIN_TAGS } from './admin.ts';
import { IMPORT_COMPONENTS, IMPORT_OPERATIONS } from './imports.ts';
import { LISTENING_COMPONENTS, LISTENING_OPERATIONS } from './listening.ts';
import { READER_COMPONENTS, READER_OPERATIONS, READER_TAGS } from './reader.ts';
import { GITHUB_WEBHOOK_OPERATIONS } from './review-github.ts';
import { LIBRARY_COMPONENTS, LIBRARY_OPERATIONS, LIBRARY_SECURITY_SCHEMES, LIBRARY_TAGS } from './library.ts';
import { ProfilesQuery, QUERY_MAX_WORDS, WORKS_MAX_PAGE_SIZE, WorksQuery } from '../schemas/queries.ts';
import { AGENT_OPERATIONS } from './agents.ts';
import { DEPRECATIONS, VERSIONING_POLICY, findDeprecation } from '../domain/deprecation.ts';

/** Named schemas published under components.schemas and referenced by `$ref`. */
const COMPONENTS: Record<string, TSchema> = {
  Problem,
  WorkRecord,
  WorkSummary,
  AssetRecord,
  ProfileRecord,
  InstrumentRecord,
  PersonRecord,
  PersonSummary,
  ChannelContext,
  MusicRequirements,
};

/** Components of the feature modules, added to the document's components.schemas. */
function allComponents(): Record<string, TSchema> {
  return {
    ...COMPONENTS,
    ...CONTRIBUTIONS_COMPONENTS,
    ...ANSWER_COMPONENTS,
    ...RESOLVE_COMPONENTS,
    ...LIBRARY_COMPONENTS,
    ...ADMIN_COMPONENTS,
    ...IMPORT_COMPONENTS,
    ...LISTENING_COMPONENTS,
    ...READER_COMPONENTS,
  };
}

/** A schema without the words a use may change (description, title): what makes two uses the same model. */
function shape(schema: Record<string, unknown>): string {
  const { description: _d, title: _t, ...rest } = schema;
  return JSON.stringify(rest);
}

/**
 * A schema with every nested named component replaced by a `$ref` to it: the document references
 * named components instead of inlining copies, so generators make one type per model. A nested
 * subschema counts as the component when it carries the component's `$id` and is the component
 * itself (its own description aside), or the component made nullable (`Nullable`: then
 * `anyOf [$ref, null]`); anything else that merely kept the `$id` stays inline. `self` is the
 * component being defined. Bounded: schemas are trees from TypeBox, walked at most 64 levels deep.
 */
const descriptions = new Map<string, string | undefined>();

function referenced(
  schema: unknown,
  shapes: ReadonlyMap<string, string>,
  self: string | null = null,
  depth = 0,
): unknown {
  if (depth > 64) throw new Error('OpenAPI schema nests deeper than 64 levels');
  if (Array.isArray(schema)) return schema.map((v) => referenced(v, shapes, self, depth + 1));
  if (schema === null || typeof schema !== 'object') return schema;
  const o = schema as Record<string, unknown>;
  const id = o.$id;
  if (typeof id === 'string' && shapes.has(id) && !(depth === 0 && id === self)) {
    // A use's own description stays beside the reference; the component's own is not repeated.
    const own = descriptions.get(id);
    const description =
      typeof o.description === 'string' && o.description !== own ? { description: o.description } : {};
    if (shape(o) === shapes.get(id)) return { ...ref(id), ...description };
    if (Array.isArray(o.type) && o.type.includes('null')) {
      const inner = { ...o, type: (o.type as unknown[]).find((t) => t !== 'null') };
      if (shape(inner) === shapes.get(id)) return { anyOf: [ref(id), { type: 'null' }], ...description };
    }
  }
  return Object.fromEntries(Object.entries(o).map(([k, v]) => [k, referenced(v, shapes, self, depth + 1)]));
}

const CORE_OPERATIONS: OperationSpec[] = [
  {
    method: 'get',
    path: '/api/v1',
    operationId: 'getApiIndex',
    tags: ['discovery'],
    cacheable: true,
    summary: 'Capabilities, conventions and discovery links',
    responses: {
      '200': {
        description: 'The API index.',
        contentType: 'application/json',
        schema: Envelope(ApiIndex, 'API index in the envelope.'),
      },
    },
  },
  {
    method: 'get',
    path: '/api/v1/openapi.json',
    operationId: 'getOpenApi',
    tags: ['discovery'],
    cacheable: true,
    summary: 'This OpenAPI 3.1.1 document',
    responses: {
      '200': {
        description: 'The OpenAPI document.',
        contentType: 'application/json',
        schema: Type.Object({ openapi: Type.Literal('3.1.1') }),
      },
    },
  },
  {
    method: 'get',
    path: '/llms.txt',
    operationId: 'getLlmsTxt',
    tags: ['discovery'],
    cacheable: true,
    summary: 'Guidance for language models (text/plain)',
    responses: {
      '200': {
        description:
          'Plain-text guidance: how an agent uses the service, caches, backs off and keeps keys out of URLs.',
        contentType: 'text/plain',
      },
    },
  },
  {
    method: 'get',
    path: '/api/v1/music/workflow',
    operationId: 'getWorkflow',
    tags: ['discovery'],
    cacheable: true,
    summary: 'The find-or-prepare workflow',
    description:
      'Machine-readable workflow: channel contract, rights checklist, review states and their boundaries, and the cooperation request.',
    responses: {
      '200': {
        description: 'The workflow document.',
        contentType: 'application/json',
        schema: Envelope(Workflow, 'Workflow in the envelope.'),
      },
    },
  },
  {
    method: 'get',
    path: '/api/v1/works',
    operationId: 'listWorks',
    tags: ['catalog'],
    cacheable: true,
    summary: 'Search and page through the catalog',
    description: `Matching is case- and accent-insensitive ("dvorak" finds "Dvořák"); every word must match. pageSize is at most ${WORKS_MAX_PAGE_SIZE}; at most ${QUERY_MAX_WORDS} words over all filters together (each word costs the request at most a quarter of the catalog in index reads).`,
    parameters: queryParameters(WorksQuery),
    responses: {
      '200': {
        description: 'A page of works.',
        contentType: 'application/json',
        schema: Envelope(
          Page(ref('WorkSummary') as unknown as TSchema, 'A page of work summaries.'),
          'Works page in the envelope.',
        ),
      },
      '400': problem(
        `A query parameter is invalid (page < 1, pageSize over the maximum, text too long, more than ${QUERY_MAX_WORDS} words over all filters).`,
      ),
    },
  },
  {
    method: 'get',
    path: '/api/v1/works/{slug}',
    operationId: 'getWork',
    tags: ['catalog'],
    cacheable: true,
    summary: 'One full work record',
    parameters: [slugParam('work')],
    responses: {
      '200': enveloped('The work record.', 'WorkRecord', 'Work record in the envelope.'),
      '404': problem('No work has this slug.'),
    },
  },
  {
    method: 'get',
    path: '/api/v1/people',
    operationId: 'listPeople',
    tags: ['catalog'],
    cacheable: true,
    summary: 'Every person of the catalog (composers, lyricists), by family name',
    responses: {
      '200': {
        description: 'The people, each with life years, roles, number of works and links.',
        contentType: 'application/json',
        schema: Envelope(
          Type.Object(
            { items: Type.Array(ref('PersonSummary') as unknown as TSchema) },
            { additionalProperties: false },
          ),
          'People in the envelope.',
        ),
      },
    },
  },
  {
    method: 'get',
    path: '/api/v1/people/{slug}',
    operationId: 'getPerson',
    tags: ['catalog'],
    cacheable: true,
    summary:
      "A person's facts (names, birth and death, a bound for when their works were published), evidence and works",
    parameters: [slugParam('person')],
    responses: {
      '200': {
        description:
          'The person record: each fact with its evidence and who accepted it and when, and every work that names the person. A correction of a fact here is a correction report naming one of the works, targetType "composer" or "lyricist", and the field.',
        contentType: 'application/json',
        schema: Envelope(ref('PersonRecord') as unknown as TSchema, 'Person record in the envelope.'),
      },
      '404': problem('No person has this slug.'),
    },
  },
  {
    method: 'get',
    path: '/api/v1/works/{slug}/index.md',
    operationId: 'getWorkMarkdown',
    tags: ['catalog'],
    cacheable: true,
    summary: 'The compact Markdown record of a work',
    parameters: [slugParam('work')],
    responses: {
      '200': {
        description: 'Slug, asset ids, licenses, rights notes, review states and source URLs as Markdown.',
        contentType: 'text/markdown',
      },
      '404': problem('No work has this slug.'),
    },
  },
  {
    method: 'get',
    path: '/works/{slug}/files/{file}',
    operationId: 'getWorkFile',
    tags: ['catalog'],
    cacheable: true,
    summary: 'A public file stored with a work (MusicXML, MP3, MIDI), byte-for-byte; supports Range',
    parameters: [
      slugParam('work'),
      {
        name: 'file',
        in: 'path',
        required: true,
        description: 'File name as linked from the record.',
        schema: { type: 'string' },
      },
    ],
    responses: {
      '200': {
        description: 'The file, with its own media type (e.g. application/vnd.recordare.musicxml+xml, audio/mpeg).',
        contentType: '*/*',
      },
      ...RANGE_RESPONSES,
      '404': problem('No such public file.'),
    },
  },
  {
    method: 'get',
    path: '/blobs/{sha256}',
    operationId: 'getPublishedBlob',
    tags: ['catalog'],
    cacheable: true,
    summary: 'A published file from the blob store, by SHA-256; supports Range',
    description:
      'Serves only blobs that a public asset of the current catalog links to (published library packages, applied contributions). Content-addressed, so cached forever.',
    parameters: [
      {
        name: 'sha256',
        in: 'path',
        required: true,
        description: 'SHA-256 of the file, 64 hexadecimal characters.',
        schema: { type: 'string', pattern: '^[0-9a-fA-F]{64}$' },
      },
    ],
    responses: {
      '200': { description: 'The file, with the media type its asset declares.', contentType: '*/*' },
      ...RANGE_RESPONSES,
      '307': {
        description:
          'Only when the archive is configured for presigned downloads (S3 blob store): fetch the file (ranges work there too) from Location.',
        headers: {
          Location: {
            description: 'A presigned URL of the object store, valid for ARCHIVE_S3_PRESIGN_SECONDS.',
            schema: { type: 'string', format: 'uri' },
          },
        },
      },
      '404': problem('No published asset links to this digest.'),
    },
  },
  {
    method: 'get',
    path: '/api/v1/instruments',
    operationId: 'listInstruments',
    tags: ['profiles'],
    cacheable: true,
    summary: 'Normalized instruments, families, registered profiles, readiness and filter links',
    responses: {
      '200': {
        description: 'All instruments.',
        contentType: 'application/json',
        schema: Envelope(
          Type.Object(
            {
              instruments: Type.Array(ref('InstrumentRecord') as unknown as TSchema),
              families: Type.Array(
                Type.Object(
                  { family: Type.String(), instruments: Type.Array(Type.String()) },
                  { additionalProperties: false },
                ),
              ),
            },
            { additionalProperties: false },
          ),
          'Instruments in the envelope.',
        ),
      },
    },
  },
  {
    method: 'get',
    path: '/api/v1/profiles',
    operationId: 'listProfiles',
    tags: ['profiles'],
    cacheable: true,
    summary: 'Versioned performance-style and instrument profiles',
    parameters: queryParameters(ProfilesQuery),
    responses: {
      '200': {
        description: 'Matching profiles.',
        contentType: 'application/json',
        schema: Envelope(
          Type.Object(
            { items: Type.Array(ref('ProfileRecord') as unknown as TSchema), total: Type.Integer({ minimum: 0 }) },
            { additionalProperties: false },
          ),
          'Profiles in the envelope.',
        ),
      },
      '400': problem('A query parameter is invalid (unknown kind or status, renderReady not true/false).'),
    },
  },
  {
    method: 'get',
    path: '/api/v1/profiles/{slug}',
    operationId: 'getProfile',
    tags: ['profiles'],
    cacheable: true,
    summary: 'Profile metadata and links',
    parameters: [slugParam('profile')],
    responses: {
      '200': enveloped('The profile record.', 'ProfileRecord', 'Profile in the envelope.'),
      '404': problem('No profile has this slug.'),
    },
  },
  {
    method: 'get',
    path: '/api/v1/profiles/{slug}/definition',
    operationId: 'getProfileDefinition',
    tags: ['profiles'],
    cacheable: true,
    summary: 'The preserved profile JSON, byte-for-byte',
    parameters: [slugParam('profile')],
    responses: {
      '200': {
        description: "The definition exactly as stored; its SHA-256 equals the record's fingerprint.",
        contentType: 'application/json',
        schema: Type.Object({}, { additionalProperties: true }),
      },
      '404': problem('No profile has this slug.'),
    },
  },
];

/** Every served operation: the core reads plus each feature's. */
export const OPERATIONS: OperationSpec[] = [
  ...CORE_OPERATIONS,
  ...RESOLVE_OPERATIONS,
  ...CONTRIBUTIONS_OPERATIONS,
  ...ANSWER_OPERATIONS,
  ...LIBRARY_OPERATIONS,
  ...ADMIN_OPERATIONS,
  ...IMPORT_OPERATIONS,
  ...LISTENING_OPERATIONS,
  ...READER_OPERATIONS,
  ...GITHUB_WEBHOOK_OPERATIONS,
  ...AGENT_OPERATIONS,
];

const CACHE_HEADERS = {
  ETag: {
    description: 'Strong entity tag of the representation; send it back in If-None-Match.',
    schema: { type: 'string' },
  },
  'Cache-Control': { description: 'Caching policy; revalidate with If-None-Match.', schema: { type: 'string' } },
};

function renderRequestBody(body: RequestBodySpec, names: ReadonlyMap<string, string>): Record<string, unknown> {
  const content =
    'contentTypes' in body
      ? Object.fromEntries(
          body.contentTypes.map((t) => [
            t,
            { schema: plain(referenced(JSON.parse(JSON.stringify(body.schema)), names)) },
          ]),
        )
      : Object.fromEntries(
          Object.entries(body.content).map(([t, c]) => [
            t,
            { schema: plain(referenced(JSON.parse(JSON.stringify(c.schema)), names)) },
          ]),
        );
  return { description: body.description, required: body.required, content };
}

/**
 * The OpenAPI document served under `baseUrl`: made once per base URL and process, frozen (it
 * depends on the code and the base URL only, and the site's builds ask for it on every apply:
 * the API docs page and openapi.json, about 0.1 s each at 10,000 works).
 */
export function buildOpenApi(baseUrl: string): Record<string, unknown> {
  let doc = documents.get(baseUrl);
  if (doc === undefined) documents.set(baseUrl, (doc = deepFreeze(makeOpenApi(baseUrl))));
  return doc;
}

const documents = new Map<string, Record<string, unknown>>();

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const v of Object.values(value)) deepFreeze(v);
  }
  return value;
}

function makeOpenApi(baseUrl: string): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const components = allComponents();
  // JSON first: TypeBox schemas carry symbols; the copy is plain data.
  const json = (schema: unknown) => JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
  const names = new Map(Object.entries(components).map(([k, v]) => [k, shape(json(v))]));
  for (const [k, v] of Object.entries(components))
    descriptions.set(k, typeof v.description === 'string' ? v.description : undefined);
  const refs = (schema: unknown, self: string | null = null) => referenced(json(schema), names, self);
  for (const op of OPERATIONS) {
    const specs: Record<string, ResponseSpec> = { ...op.responses };
    if (op.cacheable) specs['304'] = { description: 'Not modified: the If-None-Match tag still matches.' };
    // Reads are never rate-limited, so a GET documents no 429 (the document lists the response codes as served).
    if (op.method !== 'get') specs['429'] ??= problem('Rate limited; wait for Retry-After seconds.');
    const responses: Record<string, unknown> = {};
    for (const [status, r] of Object.entries(specs)) {
      const headers = { ...(op.cacheable && status.startsWith('2') ? CACHE_HEADERS : {}), ...(r.headers ?? {}) };
      responses[status] = {
        description: r.description,
        ...(Object.keys(headers).length ? { headers } : {}),
        ...(r.contentType ? { content: { [r.contentType]: r.schema ? { schema: plain(refs(r.schema)) } : {} } } : {}),
      };
    }
    (paths[op.path] ??= {})[op.method] = {
      operationId: op.operationId,
      summary: op.summary,
      ...(op.description ? { description: op.description } : {}),
      tags: op.tags,
      ...(op.parameters ? { parameters: op.parameters } : {}),
      ...(op.requestBody ? { requestBody: renderRequestBody(op.requestBody, names) } : {}),
      // Every operation states its credentials; a public one says so with an empty list.
      security: op.security ?? [],
      ...(findDeprecation(DEPRECATIONS, op.method, op.path) ? { deprecated: true } : {}),
      responses,
    };
  }
  return {
    openapi: '3.1.1',
    info: {
      title: 'Public-Domain Music Archive API',
      version: '1.0.0',
      description:
        'Public-domain musical works with source scores, arrangements, profiles and media, and a private production library. ' +
        'Records are pre-built static files with strong ETags: cache them and revalidate with If-None-Match. Errors are RFC 9457 problem details ' +
        `whose \`type\` URL documents the problem (${PROBLEM_TYPES.map((p) => p.name).join(', ')}). Honor HTTP 429 and Retry-After. ` +
        `Versioning and deprecation: ${VERSIONING_POLICY} Changelog: ${baseUrl.replace(/\/+$/, '')}/changelog.md`,
      license: { name: 'MIT', identifier: 'MIT' },
    },
    jsonSchemaDialect: 'https://spec.openapis.org/oas/3.1/dialect/base',
    servers: [{ url: baseUrl.replace(/\/+$/, ''), description: 'This archive.' }],
    tags: [
      { name: 'discovery', description: 'Index, OpenAPI, workflow and llms.txt.' },
      { name: 'catalog', description: 'Canonical works.' },
      { name: 'profiles', description: 'Rendering profiles and instruments.' },
      ...RESOLVE_TAGS,
      ...CONTRIBUTIONS_TAGS,
      ...LIBRARY_TAGS,
      ...ADMIN_TAGS,
      ...READER_TAGS,
      { name: 'review', description: 'Review of submissions on GitHub: the signed webhook.' },
    ],
    paths,
    components: {
      schemas: Object.fromEntries(Object.entries(components).map(([k, v]) => [k, plain(refs(v, k))])),
      securitySchemes: LIBRARY_SECURITY_SCHEMES,
    },
  };
}
