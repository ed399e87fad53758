/**
 * Deprecation headers on every answer of a deprecated operation (src/domain/deprecation.ts):
 * Deprecation, Sunset and a Link to the changelog, added to any Link the route already sets.
 */
import type { FastifyInstance } from 'fastify';
import { deprecationHeaders, findDeprecation, type Deprecation } from '../../src/domain/deprecation.ts';
import { CHANGELOG_PATH } from '../discovery/routes.ts';

export function registerDeprecationHeaders(
  app: FastifyInstance,
  deprecations: readonly Deprecation[],
  base: string,
): void {
  if (deprecations.length === 0) return;
  app.addHook('onSend', async (request, reply, payload) => {
    const found = findDeprecation(deprecations, request.method, request.url.split('?')[0] ?? '/');
    if (!found) return payload;
    const headers = deprecationHeaders(found, `${base}${CHANGELOG_PATH}`);
    const link = reply.getHeader('link');
    reply.header('Deprecation', headers.Deprecation).header('Sunset', headers.Sunset);
    reply.header('Link', link ? `${String(link)}, ${headers.Link}` : headers.Link);
    return payload;
  });
}
