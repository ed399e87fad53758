/**
 * Building blocks for describing operations: every feature module lists its operations with
 * these, and document.ts assembles them into the OpenAPI document.
 */
import type { TObject, TSchema } from '@sinclair/typebox';
import { Envelope } from '../schemas/envelope.ts';

export interface ResponseSpec {
  description: string;
  contentType?: string;
  schema?: TSchema | { $ref: string };
  headers?: Record<string, { description: string; schema: object }>;
}
export interface ParameterSpec {
  name: string;
  in: 'query' | 'path' | 'header';
  required?: boolean;
  description: string;
  schema: object;
}
/** A request body: one schema for several JSON media types, or an explicit content map. */
export type RequestBodySpec =
  | { description: string; required: boolean; contentTypes: string[]; schema: TSchema | { $ref: string } }
  | { description: string; required: boolean; content: Record<string, { schema: unknown }> };

export interface OperationSpec {
  method: 'get' | 'post' | 'put' | 'delete';
  path: string;
  operationId: string;
  summary: string;
  description?: string;
  tags: string[];
  parameters?: ParameterSpec[];
  requestBody?: RequestBodySpec;
  /** Security requirements (protected routes), by scheme name in components.securitySchemes. */
  security?: Array<Record<string, string[]>>;
  /** The operation is a pre-built file with ETag and conditional GET. */
  cacheable?: boolean;
  responses: Record<string, ResponseSpec>;
}

export const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
export const problem = (description: string): ResponseSpec => ({
  description,
  contentType: 'application/problem+json',
  schema: ref('Problem'),
});
/** A JSON answer: the schema component `component` in the response envelope. */
export const enveloped = (description: string, component: string, envelopeDescription: string): ResponseSpec => ({
  description,
  contentType: 'application/json',
  schema: Envelope(ref(component) as unknown as TSchema, envelopeDescription),
});
/** The answers of every file download that honors Range: the byte range asked for, or 416 when it lies outside the file. */
export const RANGE_RESPONSES: Record<'206' | '416', ResponseSpec> = {
  '206': { description: 'The requested byte range.', contentType: '*/*' },
  '416': problem('The range cannot be satisfied.'),
};
/** A download tagged by its content (ETag: the quoted SHA-256): the file, or 304 while If-None-Match still matches. */
export const taggedFileResponses = (description: string): Record<'200' | '304', ResponseSpec> => ({
  '200': {
    description,
    contentType: '*/*',
    headers: { ETag: { description: '"<sha256>".', schema: { type: 'string' } } },
  },
  '304': { description: 'Not modified: the If-None-Match tag still matches.' },
});
/** The Prefer header of an operation that may answer with a running action (RFC 7240). */
export const preferParam: ParameterSpec = {
  name: 'Prefer',
  in: 'header',
  required: false,
  description: '"respond-async": answer 202 at once; "wait=N": wait at most N seconds for the outcome (RFC 7240).',
  schema: { type: 'string', maxLength: 200 },
};
export const slugParam = (what: string): ParameterSpec => ({
  name: 'slug',
  in: 'path',
  required: true,
  description: `Slug of the ${what}.`,
  schema: { type: 'string', maxLength: 160 },
});
/** OpenAPI query parameters from a query schema: one parameter per property, described there. */
export function queryParameters(schema: TObject): ParameterSpec[] {
  const props = schema.properties;
  return Object.entries(props).map(([name, prop]) => {
    const { description, ...rest } = plain(prop) as { description?: string };
    return { name, in: 'query' as const, description: description ?? name, schema: rest };
  });
}

/** Plain JSON Schema without TypeBox's symbols or nested `$id`s (which would rebase `$ref`s). */
export function plain(schema: unknown): unknown {
  return JSON.parse(JSON.stringify(schema), (key, value) => (key === '$id' ? undefined : value));
}
