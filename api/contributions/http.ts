/** Small answer helpers shared by the intake routes: JSON with a strong ETag, and rate-limit headers. */
import { createHash } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ifNoneMatchHits, strongEtag } from '../site/static-site.ts';
import type { RateDecision } from './rate-limiter.ts';

/** Answer `value` as `contentType` with a strong ETag of the body, honoring If-None-Match. */
export function sendJsonWithEtag(request: FastifyRequest, reply: FastifyReply, value: unknown, contentType: string, cacheControl: string) {
  const body = Buffer.from(JSON.stringify(value));
  const etag = strongEtag(createHash('sha256').update(body).digest());
  reply.header('ETag', etag).header('Cache-Control', cacheControl);
  if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return reply.code(304).send();
  return reply.type(contentType).send(body);
}

/**
 * RateLimit headers (the widely deployed draft-ietf-httpapi-ratelimit-headers form) on every
 * answer of a limited route, so a client can pace itself before it is refused.
 */
export function rateLimitHeaders(decision: RateDecision, windowSeconds: number): Record<string, string> {
  return {
    'RateLimit-Limit': String(decision.limit),
    'RateLimit-Remaining': String(decision.remaining),
    'RateLimit-Reset': String(decision.resetSeconds),
    'RateLimit-Policy': `${decision.limit};w=${windowSeconds}`,
  };
}
