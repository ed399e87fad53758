/**
 * POST /api/v1/music/resolve: parse (the route schema validates the body; the app's error
 * handler answers 400 problems with pointers), resolve against the served build, answer. Resolve
 * changes nothing, but its answer depends on the body, so it is never cached.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { envelope } from '../../src/schemas/envelope.ts';
import { MusicResolveInput } from '../../src/schemas/resolve.ts';
import { resolveMusic } from '../../src/domain/resolve/resolve.ts';
import { ResolveIndex } from './resolve-index.ts';

export async function registerResolveRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const index = new ResolveIndex(ctx.handle);
  app.post<{ Body: MusicResolveInput }>('/api/v1/music/resolve', { schema: { body: MusicResolveInput } }, async (request, reply) => {
    const { build, catalog } = index.current();
    const data = resolveMusic(catalog, request.body, {
      baseUrl: ctx.config.publicBaseUrl,
      catalogGeneratedAtUtc: build.generatedAtUtc,
    });
    reply.header('Cache-Control', 'no-store').type('application/json');
    return envelope(data);
  });
}
