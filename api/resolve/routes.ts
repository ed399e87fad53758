/**
 * POST /api/v1/music/resolve: parse (the route schema validates the body; the app's error
 * handler answers 400 problems with pointers), resolve against the served build's prebuilt
 * resolve index (the search and ranking read only its columns), read the records of the
 * candidates shown, answer. Resolve
 * changes nothing, but its answer depends on the body, so it is never cached.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { envelope } from '../../src/schemas/envelope.ts';
import { MusicResolveInput } from '../../src/schemas/resolve.ts';
import { finishResolve, planResolve, recordsNeeded } from '../../src/domain/resolve/resolve.ts';

export async function registerResolveRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.post<{ Body: MusicResolveInput }>('/api/v1/music/resolve', { schema: { body: MusicResolveInput } }, async (request, reply) => {
    // One build for the whole answer: its resolve index, and its records for the candidates shown.
    const build = ctx.handle.current;
    const { resolve, records } = build.catalog;
    const plan = planResolve(resolve, request.body);
    const loaded = await records.byIds(recordsNeeded(resolve, plan));
    const data = finishResolve(resolve, plan, request.body, { baseUrl: ctx.config.publicBaseUrl, catalogGeneratedAtUtc: build.generatedAtUtc }, (order) => loaded.get(order)!);
    reply.header('Cache-Control', 'no-store').type('application/json');
    return envelope(data);
  });
}
