/**
 * GET /changelog.md: the repository's CHANGELOG.md, the document deprecation Link headers point
 * at. Read once at start-up (it changes only with a release of the server).
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { ifNoneMatchHits } from '../http/conditional.ts';
import { strongEtag } from '../site/static-site.ts';

export const CHANGELOG_PATH = '/changelog.md';
const CHANGELOG_FILE = path.resolve(import.meta.dirname, '..', '..', 'CHANGELOG.md');

export function registerDiscoveryRoutes(app: FastifyInstance): void {
  const body = readFileSync(CHANGELOG_FILE);
  const etag = strongEtag(createHash('sha256').update(body).digest());
  app.get(CHANGELOG_PATH, async (request, reply) => {
    reply.header('ETag', etag).header('Cache-Control', 'public, max-age=300');
    if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return reply.code(304).send();
    return reply.type('text/markdown; charset=utf-8').send(body);
  });
}
