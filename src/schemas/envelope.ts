/** The response envelope, list pages and RFC 9457 problem details shared by every endpoint. */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { AbsoluteUrl, API_VERSION, Nullable } from './common.ts';
import { strict } from './options.ts';

/** `{ apiVersion, generatedAtUtc, data }` around any resource (spec Part 2.1). */
export function Envelope<T extends TSchema>(data: T, description: string) {
  return Type.Object(
    {
      apiVersion: Type.String({ description: 'Version label of the API ("v1").' }),
      generatedAtUtc: Type.String({
        format: 'date-time',
        pattern: 'Z$',
        description: 'When the response was generated (UTC).',
      }),
      data,
    },
    { ...strict, description },
  );
}

/** The one timestamp format of the API: ISO 8601 in UTC with milliseconds, ending in Z. */
export function utcTimestamp(date: Date = new Date()): string {
  return date.toISOString();
}

/** The one envelope builder, for static records (the build's time) and dynamic answers (now). */
export function envelope<T>(
  data: T,
  generatedAtUtc: string = utcTimestamp(),
): { apiVersion: string; generatedAtUtc: string; data: T } {
  return { apiVersion: API_VERSION, generatedAtUtc, data };
}

/** A page of results with its position and neighbor links. */
export function Page<T extends TSchema>(item: T, description: string) {
  return Type.Object(
    {
      items: Type.Array(item),
      page: Type.Integer({ minimum: 1, description: 'This page number (1-based).' }),
      pageSize: Type.Integer({ minimum: 1, description: 'Items per page.' }),
      total: Type.Integer({ minimum: 0, description: 'Matching items across all pages.' }),
      totalPages: Type.Integer({ minimum: 0, description: 'Number of pages.' }),
      links: Type.Object(
        {
          self: AbsoluteUrl('This page.'),
          first: AbsoluteUrl('The first page.'),
          last: AbsoluteUrl('The last page.'),
          next: Nullable(AbsoluteUrl('The next page.')),
          prev: Nullable(AbsoluteUrl('The previous page.')),
        },
        { ...strict, description: 'Pagination links (absolute).' },
      ),
    },
    { ...strict, description },
  );
}

/** The paging parameters of a list query: `page` from 1, `pageSize` from 1 to `maxSize`. */
export function PageQuery(defaultSize: number, maxSize: number) {
  return {
    page: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 2147483647,
        default: 1,
        format: 'int32',
        description: 'Page number, from 1.',
      }),
    ),
    pageSize: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: maxSize,
        default: defaultSize,
        format: 'int32',
        description: `Items per page, 1 to ${maxSize}.`,
      }),
    ),
  };
}

export const ProblemFieldError = Type.Object(
  {
    pointer: Type.Optional(
      Type.String({ description: 'JSON Pointer (RFC 6901) into the request body, e.g. "/channel/intendedRole".' }),
    ),
    parameter: Type.Optional(Type.String({ description: 'Name of the query or path parameter at fault.' })),
    detail: Type.String({ description: 'What is wrong with it, in plain words.' }),
  },
  { ...strict, description: 'One violation.' },
);
export type ProblemFieldError = Static<typeof ProblemFieldError>;

/** RFC 9457 problem details; `type` resolves to a page that documents the problem. */
export const Problem = Type.Object(
  {
    type: Type.String({ format: 'uri', description: 'Absolute URL of the page that documents this problem type.' }),
    title: Type.String({ description: 'Short summary of the problem type.' }),
    status: Type.Integer({ minimum: 400, maximum: 599, description: 'HTTP status code.' }),
    detail: Type.String({ description: 'What went wrong in this occurrence, and how to fix it.' }),
    instance: Type.String({ description: 'The request path this occurrence belongs to.' }),
    errors: Type.Optional(Type.Array(ProblemFieldError, { description: 'Every violation found, all at once.' })),
    allow: Type.Optional(Type.Array(Type.String(), { description: 'Allowed methods (405 only).' })),
  },
  {
    additionalProperties: true,
    $id: 'Problem',
    title: 'Problem',
    description: 'RFC 9457 problem details (application/problem+json).',
  },
);
