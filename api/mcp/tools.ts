/**
 * The archive's MCP tools: one definition, used by both transports. Each handler calls the public
 * HTTP API through an ArchiveHttp port, so a tool validates, deduplicates and rate-limits exactly
 * as HTTP does; a refusal (any 4xx/5xx) becomes a tool error carrying the problem detail.
 *
 * Input schemas are the TypeBox schemas the routes validate with (src/schemas/), their field
 * descriptions cut to the first sentence; output schemas are the 2xx response schemas of the
 * OpenAPI document (built from the same TypeBox schemas) by reference: the envelope's shape with
 * the `data` schema named (`#/components/schemas/X` of the served OpenAPI document), except
 * resolve_music's compact answer, inlined without prose. So tools/list stays under 30 KB and a
 * client compiles its schemas in milliseconds (a client on a busy host compiled the inlined 55 KB
 * for seconds, long enough for an idle socket to close under it). No field list is written here.
 */
import type { TObject, TSchema } from '@sinclair/typebox';
import { buildOpenApi } from '../../src/openapi/document.ts';
import { MusicResolveInput } from '../../src/schemas/resolve.ts';
import {
  MusicContributionInput,
  CONTRIBUTION_CODE_PATTERN,
  CORRECTION_CODE_PATTERN,
} from '../../src/schemas/contribution.ts';
import { CorrectionReportInput } from '../../src/schemas/correction.ts';
import { ContributionAnswerInput, RESPONSE_TOKEN_HEADER, ResponseToken } from '../../src/schemas/answer.ts';
import { ProfilesQuery, TemplateQuery, WorksQuery } from '../../src/schemas/queries.ts';
import { Slug } from '../../src/schemas/common.ts';
import { describeTool, MCP_SEARCH_PAGE_SIZE } from '../../src/domain/mcp-tools.ts';
import type { ArchiveHttp, HttpAnswer } from './archive-http.ts';

export type JsonSchema = Record<string, unknown>;

export interface ToolAnswer {
  /** The JSON the tool's outputSchema describes. */
  structured: Record<string, unknown>;
  /**
   * A short summary for hosts that show text only (content[].text): the data is in
   * structuredContent, and is not repeated whole in the text.
   */
  summary: string;
}

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  inputSchema: JsonSchema;
  outputSchema: JsonSchema;
  readOnly: boolean;
  /** Whether repeating the same call changes nothing more (MCP idempotentHint). */
  idempotent: boolean;
  run(args: Record<string, unknown>, http: ArchiveHttp): Promise<ToolAnswer>;
}

/** A refused HTTP call: the problem detail the archive answered, kept whole. */
export class ToolRefusal extends Error {
  readonly status: number;
  readonly problem: Record<string, unknown>;
  readonly retryAfterSeconds: number | null;
  constructor(answer: HttpAnswer) {
    let problem: Record<string, unknown>;
    try {
      problem = JSON.parse(answer.text) as Record<string, unknown>;
    } catch {
      problem = { status: answer.status, title: 'Unexpected answer', detail: answer.text.slice(0, 500) };
    }
    super(typeof problem.detail === 'string' ? problem.detail : `HTTP ${answer.status}`);
    this.status = answer.status;
    this.problem = problem;
    const retry = Number(answer.headers['retry-after']);
    this.retryAfterSeconds = Number.isFinite(retry) && answer.headers['retry-after'] !== undefined ? retry : null;
  }
}

/** Arguments that cannot even form a request (the HTTP API validates everything else). */
export class ToolArgumentError extends Error {}

function stringArgument(args: Record<string, unknown>, name: string): string {
  const value = args[name];
  if (typeof value !== 'string' || value.trim() === '')
    throw new ToolArgumentError(`"${name}" is required and must be a non-empty string.`);
  return value;
}

const json = (schema: TSchema | JsonSchema): JsonSchema => JSON.parse(JSON.stringify(schema)) as JsonSchema;

/** The served OpenAPI document's schemas; the base URL does not enter any schema. */
const DOCUMENT = buildOpenApi('http://localhost') as {
  paths: Record<
    string,
    Record<string, { responses: Record<string, { content?: Record<string, { schema?: JsonSchema }> }> }>
  >;
  components: { schemas: Record<string, JsonSchema> };
};

/** Replace `#/components/schemas/X` references by the schema itself (bounded depth; the document has no cycles). */
function inline(value: unknown, depth = 0): unknown {
  if (depth > 32) throw new Error('schema references nest deeper than 32 levels');
  if (Array.isArray(value)) return value.map((v) => inline(v, depth + 1));
  if (value === null || typeof value !== 'object') return value;
  const ref = (value as { $ref?: unknown }).$ref;
  if (typeof ref === 'string') {
    const name = /^#\/components\/schemas\/(.+)$/.exec(ref)?.[1];
    const target = name ? DOCUMENT.components.schemas[name] : undefined;
    if (!target) throw new Error(`unknown schema reference ${ref}`);
    return inline(target, depth + 1);
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, inline(v, depth + 1)]));
}

const componentName = (ref: unknown) =>
  typeof ref === 'string' ? (/^#\/components\/schemas\/(.+)$/.exec(ref)?.[1] ?? null) : null;

/**
 * The JSON Schema of an operation's answer by reference: the envelope (apiVersion,
 * generatedAtUtc, data) with `data` an object whose description names the OpenAPI component that
 * describes it, or that component itself for an answer without an envelope.
 */
export function responseReference(method: string, path: string, status: string): JsonSchema {
  const content = DOCUMENT.paths[path]?.[method]?.responses[status]?.content;
  const schema = (content ? Object.values(content)[0]?.schema : undefined) as
    (JsonSchema & { $ref?: string; properties?: { data?: { $ref?: string } } }) | undefined;
  if (!schema) throw new Error(`the OpenAPI document has no ${status} schema for ${method.toUpperCase()} ${path}`);
  const where = `${method.toUpperCase()} ${path}`;
  const own = componentName(schema.$ref);
  if (own)
    return { type: 'object', description: `${own} (${where}): /api/v1/openapi.json#/components/schemas/${own}.` };
  const data = componentName(schema.properties?.data?.$ref);
  return {
    type: 'object',
    properties: {
      apiVersion: { type: 'string' },
      generatedAtUtc: { type: 'string' },
      data: {
        type: 'object',
        description: data
          ? `${data} (${where}): /api/v1/openapi.json#/components/schemas/${data}.`
          : `The data of ${where} in /api/v1/openapi.json.`,
      },
    },
    required: ['apiVersion', 'generatedAtUtc', 'data'],
  };
}

/**
 * Field descriptions cut to their first sentence (at most 120 characters for a tool's own
 * arguments, 60 below them): the full text is in the OpenAPI document and the contribution
 * schema (GET /api/v1/music/contributions/schema); in every tools/list it would cost an agent's
 * context more than it helps.
 */
export function briefProse(value: unknown, depth = 0, level = 0): unknown {
  if (depth > 64) throw new Error('schema nests deeper than 64 levels');
  if (Array.isArray(value)) return value.map((v) => briefProse(v, depth + 1, level));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k]) => k !== 'examples' && k !== '$id' && k !== 'title')
      .map(([k, v]) => [
        k,
        k === 'description' && typeof v === 'string'
          ? firstSentence(v, level <= 1 ? 120 : 60)
          : k === 'properties' && v !== null && typeof v === 'object'
            ? Object.fromEntries(Object.entries(v).map(([pk, pv]) => [pk, briefProse(pv, depth + 1, level + 1)]))
            : briefProse(v, depth + 1, level),
      ]),
  );
}

/**
 * A large input schema with its top-level fields whole and the objects below them named by their
 * fields only (the contribution contract: its whole schema is GET /api/v1/music/contributions/schema,
 * and get_contribution_template gives a complete example to fill in).
 */
export function topLevelOnly(schema: JsonSchema, whole: string): JsonSchema {
  const props = (schema.properties ?? {}) as Record<string, JsonSchema>;
  const collapse = (v: JsonSchema): JsonSchema => {
    const items = v.items as JsonSchema | undefined;
    const objectOf = (o: JsonSchema) =>
      o.properties ? Object.keys(o.properties as Record<string, unknown>).join(', ') : null;
    if (v.properties) {
      const { properties: _p, required: _r, additionalProperties: _a, ...rest } = v;
      return { ...rest, description: `${v.description ?? ''} Fields: ${objectOf(v)} (${whole}).`.trim() };
    }
    if (items?.properties) {
      const { properties: _p, required: _r, additionalProperties: _a, ...itemRest } = items;
      return {
        ...v,
        items: { ...itemRest, description: `Fields: ${objectOf(items)} (${whole}).` },
      };
    }
    return v;
  };
  return { ...schema, properties: Object.fromEntries(Object.entries(props).map(([k, v]) => [k, collapse(v)])) };
}

function firstSentence(text: string, max: number): string {
  // A sentence ends at ". " before a capital letter ("e.g. Baroque" does not end one).
  const m = /^(.+?[.!?])\s+(?=[A-Z"(])/.exec(text);
  const first = m && !/\b(e\.g|i\.e|etc|cf|vs|No|Op)\.$/.test(m[1]!) ? m[1]! : text;
  if (first.length <= max) return first;
  const cut = first.slice(0, max - 1);
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), max / 2)).trimEnd()}…`;
}

/**
 * An output schema without its prose: the words (descriptions, titles, examples) are the OpenAPI
 * document's and the input schemas'; repeated in every tools/list they cost an agent's context
 * more than the whole answer they describe. Structure, types, enums and required fields stay.
 */
export function withoutProse(value: unknown, depth = 0): unknown {
  if (depth > 64) throw new Error('schema nests deeper than 64 levels');
  if (Array.isArray(value)) return value.map((v) => withoutProse(v, depth + 1));
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(
    Object.entries(value)
      .filter(([k, v]) => !((k === 'description' || k === 'title') && typeof v === 'string') && k !== 'examples')
      .map(([k, v]) => [k, k === 'properties' ? withoutProseMap(v, depth) : withoutProse(v, depth + 1)]),
  );
}
/** `properties` maps names to schemas: a property may itself be called "description" or "title". */
function withoutProseMap(value: unknown, depth: number): unknown {
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withoutProse(v, depth + 1)]));
}

/** The JSON Schema of an operation's answer, as the OpenAPI document states it (without prose: withoutProse). */
export function responseSchema(method: string, path: string, status: string): JsonSchema {
  const content = DOCUMENT.paths[path]?.[method]?.responses[status]?.content;
  const schema = content ? Object.values(content)[0]?.schema : undefined;
  if (!schema) throw new Error(`the OpenAPI document has no ${status} schema for ${method.toUpperCase()} ${path}`);
  return withoutProse(inline(schema)) as JsonSchema;
}

/** A named component of the OpenAPI document, inlined and without prose. */
function componentSchema(name: string): JsonSchema {
  const schema = DOCUMENT.components.schemas[name];
  if (!schema) throw new Error(`the OpenAPI document has no component ${name}`);
  return withoutProse(inline(schema)) as JsonSchema;
}

/** At most `n` characters of a text, on one line. */
const cut = (text: string, n = 300) => {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length <= n ? one : `${one.slice(0, n - 1)}…`;
};
const DATA_NOTE = 'The whole answer is in structuredContent.';

type Data = Record<string, unknown> & { data?: Record<string, unknown> };

/** resolve_music in one paragraph: the verdict, its summary and the first candidates. */
function resolveSummary(structured: Data): string {
  const d = (structured.data ?? {}) as {
    verdict?: string;
    summary?: string;
    candidates?: Array<{ workSlug: string; arrangementId: number; ready: boolean }>;
  };
  const first = (d.candidates ?? [])
    .slice(0, 3)
    .map((c) => `${c.workSlug}#${c.arrangementId}${c.ready ? ' (ready)' : ''}`)
    .join(', ');
  return `${d.verdict ?? '?'}: ${cut(d.summary ?? '', 400)}${first ? ` Candidates: ${first}.` : ''} ${DATA_NOTE}`;
}

/** A list answer in one line: how many, and the first slugs. */
function listSummary(structured: Data, what: string): string {
  const d = (structured.data ?? {}) as {
    items?: Array<{ slug?: string }>;
    instruments?: Array<{ slug?: string }>;
    total?: number;
    page?: number;
    totalPages?: number;
  };
  const items = d.items ?? d.instruments ?? [];
  const slugs = items
    .slice(0, 10)
    .map((x) => x.slug)
    .filter(Boolean)
    .join(', ');
  return `${d.total ?? items.length} ${what}${d.page !== undefined ? ` (page ${d.page} of ${d.totalPages ?? '?'})` : ''}${slugs ? `: ${slugs}` : ''}. ${DATA_NOTE}`;
}

/** Any other answer: its status or its keys. */
function genericSummary(structured: Data): string {
  const d = structured.data ?? structured;
  const status = typeof d.status === 'string' ? ` status ${d.status}` : '';
  const code = typeof d.trackingCode === 'string' ? ` ${d.trackingCode}` : '';
  return `OK${code}${status}. ${DATA_NOTE}`;
}

/** The archive's answer as the tool's, with the one-line summary. */
const answered = (structured: Data): ToolAnswer => ({ structured, summary: genericSummary(structured) });

/** A list answer as the tool's, summarized as a list of `what`. */
const listed =
  (what: string) =>
  (structured: Data): ToolAnswer => ({ structured, summary: listSummary(structured, what) });

/** A submission's tracking record (read or answered at `path`), with which kind of submission it is. */
function trackingAnswer(path: string, tracking: Data): ToolAnswer {
  return {
    structured: {
      kind: path.startsWith('/api/v1/correction-reports') ? 'correction-report' : 'contribution',
      tracking,
    },
    summary: genericSummary(tracking),
  };
}

/** Parse a 2xx JSON answer, or refuse with the problem detail. */
async function call(
  http: ArchiveHttp,
  method: 'GET' | 'POST',
  path: string,
  body?: unknown,
  headers?: Record<string, string>,
): Promise<Record<string, unknown>> {
  const answer = await http.request(method, path, body, headers);
  if (answer.status < 200 || answer.status > 299) throw new ToolRefusal(answer);
  return JSON.parse(answer.text) as Record<string, unknown>;
}

/** GET `path` with the arguments that are fields of `query` (its query schema) as the query string. */
function getWithQuery(
  http: ArchiveHttp,
  path: string,
  query: TObject,
  args: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const search = new URLSearchParams();
  for (const k of Object.keys(query.properties))
    if (args[k] !== undefined && args[k] !== null) search.set(k, String(args[k]));
  const s = search.toString();
  return call(http, 'GET', s ? `${path}?${s}` : path);
}

const noInput: JsonSchema = { type: 'object', properties: {}, additionalProperties: false };
const slugInput = json({
  type: 'object',
  properties: { slug: json(Slug('Work slug, e.g. "bach-cello-suite-1-prelude".')) },
  required: ['slug'],
  additionalProperties: false,
});
const trackingCodeProperty: JsonSchema = {
  type: 'string',
  maxLength: 64,
  description: `Tracking code of a contribution ("C-…", ${CONTRIBUTION_CODE_PATTERN}) or a correction report ("R-…", ${CORRECTION_CODE_PATTERN}); case and dashes are forgiven.`,
};
const trackingInput: JsonSchema = {
  type: 'object',
  properties: { trackingCode: trackingCodeProperty },
  required: ['trackingCode'],
  additionalProperties: false,
};

/** Which tracking resource a code belongs to (the server normalizes and checks the rest). */
export function trackingPath(code: string): string {
  const kind = code.trim().toUpperCase().startsWith('R') ? '/api/v1/correction-reports' : '/api/v1/music/contributions';
  return `${kind}/${encodeURIComponent(code.trim())}`;
}

/** An input schema as a tool publishes it: the TypeBox schema, field descriptions cut to their first sentence. */
const input = (schema: TSchema | JsonSchema): JsonSchema => briefProse(json(schema)) as JsonSchema;

/** The 200 answer of `method` on a tracking code's route (`.../{trackingCode}${suffix}`), a contribution's or a correction report's. */
const trackingOutput = (method: 'get' | 'post', suffix: string): JsonSchema => ({
  type: 'object',
  properties: {
    kind: { type: 'string', enum: ['contribution', 'correction-report'] },
    tracking: {
      anyOf: [
        responseReference(method, `/api/v1/music/contributions/{trackingCode}${suffix}`, '200'),
        responseReference(method, `/api/v1/correction-reports/{trackingCode}${suffix}`, '200'),
      ],
    },
  },
  required: ['kind', 'tracking'],
  additionalProperties: false,
});

export const TOOLS: ToolDefinition[] = [
  {
    ...describeTool('resolve_music'),
    inputSchema: input({
      ...json(MusicResolveInput),
      properties: {
        ...json(MusicResolveInput.properties),
        full: {
          type: 'boolean',
          default: false,
          description:
            'true for the full answer (every reason, asset, rights note); default false: the compact answer.',
        },
      },
    }),
    outputSchema: {
      type: 'object',
      properties: {
        apiVersion: { type: 'string' },
        generatedAtUtc: { type: 'string' },
        data: {
          anyOf: [
            // The compact answer is what agents read: inlined (without prose); the full one by reference.
            componentSchema('ResolveCompactResult'),
            {
              type: 'object',
              required: ['verdict', 'summary', 'search', 'candidates', 'missing', 'links'],
              description: 'ResolveResult (full: true): /api/v1/openapi.json#/components/schemas/ResolveResult.',
            },
          ],
        },
      },
      required: ['apiVersion', 'generatedAtUtc', 'data'],
    },
    readOnly: true,
    idempotent: true,
    run: (args, http) => {
      const { full, ...body } = args;
      return call(http, 'POST', '/api/v1/music/resolve', body, full === true ? {} : { Prefer: 'return=minimal' }).then(
        (structured) => ({ structured, summary: resolveSummary(structured) }),
      );
    },
  },
  {
    ...describeTool('search_works'),
    inputSchema: input({
      ...json(WorksQuery),
      properties: {
        ...json(WorksQuery.properties),
        pageSize: { ...json(WorksQuery.properties.pageSize), default: MCP_SEARCH_PAGE_SIZE },
      },
    }),
    outputSchema: responseReference('get', '/api/v1/works', '200'),
    readOnly: true,
    idempotent: true,
    run: (args, http) =>
      getWithQuery(http, '/api/v1/works', WorksQuery, { pageSize: MCP_SEARCH_PAGE_SIZE, ...args }).then(
        listed('works'),
      ),
  },
  {
    ...describeTool('get_work'),
    inputSchema: slugInput,
    outputSchema: {
      type: 'object',
      properties: {
        record: responseReference('get', '/api/v1/works/{slug}', '200'),
        markdown: { type: 'string', description: 'The record as Markdown (GET /api/v1/works/{slug}/index.md).' },
      },
      required: ['record', 'markdown'],
      additionalProperties: false,
    },
    readOnly: true,
    idempotent: true,
    async run(args, http) {
      const path = `/api/v1/works/${encodeURIComponent(stringArgument(args, 'slug'))}`;
      const record = await call(http, 'GET', path);
      const md = await http.request('GET', `${path}/index.md`);
      if (md.status !== 200) throw new ToolRefusal(md);
      const d = (record.data ?? {}) as {
        slug?: string;
        title?: string;
        composer?: { name?: string };
        arrangements?: unknown[];
      };
      return {
        structured: { record, markdown: md.text },
        summary: `${d.title ?? d.slug} by ${d.composer?.name ?? '?'} (${d.slug}): ${d.arrangements?.length ?? 0} arrangement(s). The JSON record and its Markdown are in structuredContent (record, markdown).`,
      };
    },
  },
  {
    ...describeTool('get_contribution_template'),
    inputSchema: input(TemplateQuery),
    outputSchema: responseReference('get', '/api/v1/music/contributions/template', '200'),
    readOnly: true,
    idempotent: true,
    run: (args, http) =>
      getWithQuery(http, '/api/v1/music/contributions/template', TemplateQuery, args).then((structured) => ({
        structured,
        summary: `A contribution template${typeof args.operation === 'string' ? ` for operation ${args.operation}` : ''}${typeof args.workSlug === 'string' ? ` on ${args.workSlug}` : ''}: replace every placeholder, then submit_contribution. ${DATA_NOTE}`,
      })),
  },
  {
    ...describeTool('submit_contribution'),
    inputSchema: topLevelOnly(input(MusicContributionInput), 'GET /api/v1/music/contributions/schema'),
    outputSchema: responseReference('post', '/api/v1/music/contributions', '202'),
    readOnly: false,
    idempotent: true,
    run: (args, http) => call(http, 'POST', '/api/v1/music/contributions', args).then(answered),
  },
  {
    ...describeTool('get_submission_status'),
    inputSchema: trackingInput,
    outputSchema: trackingOutput('get', ''),
    readOnly: true,
    idempotent: true,
    async run(args, http) {
      const path = trackingPath(stringArgument(args, 'trackingCode'));
      return trackingAnswer(path, await call(http, 'GET', path));
    },
  },
  {
    ...describeTool('submit_correction_report'),
    inputSchema: input(CorrectionReportInput),
    outputSchema: responseReference('post', '/api/v1/correction-reports', '202'),
    readOnly: false,
    idempotent: false,
    run: (args, http) => call(http, 'POST', '/api/v1/correction-reports', args).then(answered),
  },
  {
    ...describeTool('answer_information_request'),
    inputSchema: input({
      type: 'object',
      properties: {
        trackingCode: trackingCodeProperty,
        responseToken: json(ResponseToken),
        message: json(ContributionAnswerInput.properties.message),
        submission: {
          // The same schema as submit_contribution's input; repeating it here would double tools/list.
          type: 'object',
          description:
            "Contributions only: the revised contribution, a whole MusicContributionInput exactly as submit_contribution's input (validated by the archive like a new one).",
        },
      },
      required: ['trackingCode', 'responseToken', 'message'],
      additionalProperties: false,
    }),
    outputSchema: trackingOutput('post', '/answers'),
    readOnly: false,
    idempotent: false,
    async run(args, http) {
      const path = `${trackingPath(stringArgument(args, 'trackingCode'))}/answers`;
      const token = stringArgument(args, 'responseToken');
      const body: Record<string, unknown> = { message: args.message };
      if (args.submission !== undefined) body.submission = args.submission;
      return trackingAnswer(path, await call(http, 'POST', path, body, { [RESPONSE_TOKEN_HEADER]: token }));
    },
  },
  {
    ...describeTool('list_profiles'),
    inputSchema: input(ProfilesQuery),
    outputSchema: responseReference('get', '/api/v1/profiles', '200'),
    readOnly: true,
    idempotent: true,
    run: (args, http) => getWithQuery(http, '/api/v1/profiles', ProfilesQuery, args).then(listed('profiles')),
  },
  {
    ...describeTool('list_instruments'),
    inputSchema: noInput,
    outputSchema: responseReference('get', '/api/v1/instruments', '200'),
    readOnly: true,
    idempotent: true,
    run: (_args, http) => call(http, 'GET', '/api/v1/instruments').then(listed('instruments')),
  },
];
