/**
 * Answer helpers shared by every feature's routes: the envelope as JSON with a strong ETag (for
 * cacheable answers), the envelope as never-stored JSON (for keyed answers), and paging links.
 * Problems are answered by api/http/problem.ts.
 */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { envelope } from '../../src/schemas/envelope.ts';
import { ifNoneMatchHits } from './conditional.ts';
import { strongEtag } from '../site/static-site.ts';

export const NO_STORE = 'no-store';

/** Answer `value` as `contentType` with a strong ETag of the body, honoring If-None-Match. */
export function sendJsonWithEtag(
  request: FastifyRequest,
  reply: FastifyReply,
  value: unknown,
  contentType = 'application/json',
  cacheControl = 'public, max-age=30',
) {
  const body = Buffer.from(JSON.stringify(value));
  const etag = strongEtag(createHash('sha256').update(body).digest());
  reply.header('ETag', etag).header('Cache-Control', cacheControl);
  if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return reply.code(304).send();
  return reply.type(contentType).send(body);
}

/** Answer a body already serialized, with its strong ETag, honoring If-None-Match. */
export function sendBodyWithEtag(
  request: FastifyRequest,
  reply: FastifyReply,
  body: Buffer,
  etag: string,
  contentType = 'application/json',
  cacheControl = 'public, max-age=30',
) {
  reply.header('ETag', etag).header('Cache-Control', cacheControl);
  if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return reply.code(304).send();
  return reply.type(contentType).send(body);
}

/** The envelope around `data`, as exact application/json that no cache stores. */
export function sendPrivateJson(reply: FastifyReply, data: unknown) {
  return reply
    .header('Cache-Control', NO_STORE)
    .type('application/json')
    .send(JSON.stringify(envelope(data)));
}

/** `base?params&page=N`, leaving out empty parameters. */
export function pageLink(base: string, params: Record<string, string | number | undefined>, page: number): string {
  const search = new URLSearchParams();
  for (const [k, v] of Object.entries({ ...params, page }))
    if (v !== undefined && String(v) !== '') search.set(k, String(v));
  return `${base}?${search.toString()}`;
}
