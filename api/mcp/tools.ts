/**
 * The archive's MCP tools: one definition, used by both transports. Each handler calls the public
 * HTTP API through an ArchiveHttp port, so a tool validates, deduplicates and rate-limits exactly
 * as HTTP does; a refusal (any 4xx/5xx) becomes a tool error carrying the problem detail.
 *
 * Input schemas are the TypeBox schemas the routes validate with (src/schemas/); output schemas
 * are the 2xx response schemas of the OpenAPI document (built from the same TypeBox schemas),
 * with its component references inlined. No field list is written here.
 */
import type { TSchema } from '@sinclair/typebox';
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
import type { ArchiveHttp, HttpAnswer } from './archive-http.ts';

export type JsonSchema = Record<string, unknown>;

export interface ToolAnswer {
  /** The JSON the tool's outputSchema describes. */
  structured: Record<string, unknown>;
  /** Extra text for hosts that show text only (e.g. a Markdown record). */
  text?: string;
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

function queryString(args: Record<string, unknown>, keys: string[]): string {
  const search = new URLSearchParams();
  for (const k of keys) if (args[k] !== undefined && args[k] !== null) search.set(k, String(args[k]));
  const s = search.toString();
  return s ? `?${s}` : '';
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

/** Works per search_works page unless the caller asks otherwise: a page an agent can afford to read. */
const MCP_SEARCH_PAGE_SIZE = 10;

const workRecord = responseSchema('get', '/api/v1/works/{slug}', '200');

export const TOOLS: ToolDefinition[] = [
  {
    name: 'resolve_music',
    title: 'Resolve music for a channel',
    description:
      'Send your channel (key + intended role) and requirements; the answer is reuse (a ready canonical asset), prepare (what to contribute) or no-music, with ranked candidates. ' +
      'Compact by default (per candidate: ready, fit, listen link, failing checks in one line, rights and review in one line; links.full is the whole answer); full: true for every reason, asset and rights note. ' +
      'Mood, style and instrumentation words are matched by meaning against GET /api/v1/music/vocabulary (synonyms, word forms, broader terms). Changes nothing. POST /api/v1/music/resolve.',
    inputSchema: json({
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
            componentSchema('ResolveCompactResult'),
            // The full answer is the OpenAPI document's ResolveResult; inlined here it would triple tools/list.
            { type: 'object', required: ['verdict', 'summary', 'search', 'candidates', 'missing', 'links'] },
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
        (structured) => ({ structured }),
      );
    },
  },
  {
    name: 'search_works',
    title: 'Search the catalog',
    description: `Search canonical works by words, composer (any name form, accent-insensitive), genre, instrument or style. Pages of ${MCP_SEARCH_PAGE_SIZE} works unless pageSize says otherwise; data.links.next is the next page (or ask for page 2, 3, ...). Same as GET /api/v1/works.`,
    inputSchema: json({
      ...json(WorksQuery),
      properties: {
        ...json(WorksQuery.properties),
        pageSize: { ...json(WorksQuery.properties.pageSize), default: MCP_SEARCH_PAGE_SIZE },
      },
    }),
    outputSchema: responseSchema('get', '/api/v1/works', '200'),
    readOnly: true,
    idempotent: true,
    run: (args, http) =>
      call(
        http,
        'GET',
        `/api/v1/works${queryString({ pageSize: MCP_SEARCH_PAGE_SIZE, ...args }, Object.keys(WorksQuery.properties))}`,
      ).then((structured) => ({
        structured,
      })),
  },
  {
    name: 'get_work',
    title: 'Read one work record',
    description:
      'The canonical work record as JSON (slug, asset ids, licenses, rights notes, review states) plus the same record as compact Markdown. Keep the slug and asset id with any claim you extract.',
    inputSchema: slugInput,
    outputSchema: {
      type: 'object',
      properties: {
        record: workRecord,
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
      return { structured: { record, markdown: md.text }, text: md.text };
    },
  },
  {
    name: 'get_contribution_template',
    title: 'Get the contribution template',
    description:
      'A complete contribution for workSlug and operation (take both, and arrangementId, from a resolve missing[] item) with placeholders: replace every placeholder (text starting "REPLACE:", the key starting "REPLACE-", URLs under https://example.invalid/, all-zero digests, the 2000-01-01 timestamp) with verified facts, then call submit_contribution with a new idempotencyKey.',
    inputSchema: json(TemplateQuery),
    outputSchema: responseSchema('get', '/api/v1/music/contributions/template', '200'),
    readOnly: true,
    idempotent: true,
    run: (args, http) =>
      call(
        http,
        'GET',
        `/api/v1/music/contributions/template${queryString(args, Object.keys(TemplateQuery.properties))}`,
      ).then((structured) => ({ structured })),
  },
  {
    name: 'submit_contribution',
    title: 'Submit a contribution for human review',
    description:
      'Submit one structured contribution (same contract, validation, idempotency and rate limit as POST /api/v1/music/contributions). The answer carries a tracking code; retrying with the same idempotencyKey and identical content returns the same code. A refusal is a tool error with the problem detail, naming every invalid field by JSON Pointer.',
    inputSchema: json(MusicContributionInput),
    outputSchema: responseSchema('post', '/api/v1/music/contributions', '202'),
    readOnly: false,
    idempotent: true,
    run: (args, http) => call(http, 'POST', '/api/v1/music/contributions', args).then((structured) => ({ structured })),
  },
  {
    name: 'get_submission_status',
    title: 'Track a contribution or correction report',
    description:
      'Status, history with public notes and review link of a contribution ("C-…") or correction report ("R-…"). Reuse an asset only when the status is "applied" and it appears in the canonical record.',
    inputSchema: trackingInput,
    outputSchema: {
      type: 'object',
      properties: {
        kind: { type: 'string', enum: ['contribution', 'correction-report'] },
        tracking: {
          anyOf: [
            responseSchema('get', '/api/v1/music/contributions/{trackingCode}', '200'),
            responseSchema('get', '/api/v1/correction-reports/{trackingCode}', '200'),
          ],
        },
      },
      required: ['kind', 'tracking'],
      additionalProperties: false,
    },
    readOnly: true,
    idempotent: true,
    async run(args, http) {
      const path = trackingPath(stringArgument(args, 'trackingCode'));
      const tracking = await call(http, 'GET', path);
      return {
        structured: {
          kind: path.startsWith('/api/v1/correction-reports') ? 'correction-report' : 'contribution',
          tracking,
        },
      };
    },
  },
  {
    name: 'submit_correction_report',
    title: 'Report an error in a record',
    description:
      'Propose a change to one field of a record with evidence; a person reviews it (same validation and rate limit as POST /api/v1/correction-reports). The answer carries an "R-…" tracking code.',
    inputSchema: json(CorrectionReportInput),
    outputSchema: responseSchema('post', '/api/v1/correction-reports', '202'),
    readOnly: false,
    idempotent: false,
    run: (args, http) => call(http, 'POST', '/api/v1/correction-reports', args).then((structured) => ({ structured })),
  },
  {
    name: 'answer_information_request',
    title: "Answer a reviewer's request for information",
    description:
      'When a contribution ("C-…") or correction report ("R-…") is "needs-information" (the history note says what the reviewer needs), answer it: a public message and, for a contribution, optionally the whole revised contribution (same contract as submit_contribution, same idempotencyKey), which replaces the proposed change. ' +
      `Needs the responseToken from the submit tool's answer (sent as the ${RESPONSE_TOKEN_HEADER} header, never in a URL). The item goes back to "pending" for review; the answer shows in its history. Same validation and rate limit as the HTTP endpoint.`,
    inputSchema: json({
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
    outputSchema: {
      type: 'object',
      properties: {
        kind: { type: 'string', enum: ['contribution', 'correction-report'] },
        tracking: {
          anyOf: [
            responseSchema('post', '/api/v1/music/contributions/{trackingCode}/answers', '200'),
            responseSchema('post', '/api/v1/correction-reports/{trackingCode}/answers', '200'),
          ],
        },
      },
      required: ['kind', 'tracking'],
      additionalProperties: false,
    },
    readOnly: false,
    idempotent: false,
    async run(args, http) {
      const path = `${trackingPath(stringArgument(args, 'trackingCode'))}/answers`;
      const token = stringArgument(args, 'responseToken');
      const body: Record<string, unknown> = { message: args.message };
      if (args.submission !== undefined) body.submission = args.submission;
      const tracking = await call(http, 'POST', path, body, { [RESPONSE_TOKEN_HEADER]: token });
      return {
        structured: {
          kind: path.startsWith('/api/v1/correction-reports') ? 'correction-report' : 'contribution',
          tracking,
        },
      };
    },
  },
  {
    name: 'list_profiles',
    title: 'List rendering profiles',
    description:
      'Rendering profiles (performance styles and instruments), filterable by kind, status, render readiness and words. Same as GET /api/v1/profiles.',
    inputSchema: json(ProfilesQuery),
    outputSchema: responseSchema('get', '/api/v1/profiles', '200'),
    readOnly: true,
    idempotent: true,
    run: (args, http) =>
      call(http, 'GET', `/api/v1/profiles${queryString(args, Object.keys(ProfilesQuery.properties))}`).then(
        (structured) => ({ structured }),
      ),
  },
  {
    name: 'list_instruments',
    title: 'List instruments',
    description:
      'Normalized instruments with aliases, families, registered profiles and readiness. Same as GET /api/v1/instruments.',
    inputSchema: noInput,
    outputSchema: responseSchema('get', '/api/v1/instruments', '200'),
    readOnly: true,
    idempotent: true,
    run: (_args, http) => call(http, 'GET', '/api/v1/instruments').then((structured) => ({ structured })),
  },
];
