/**
 * POST /api/v1/music/resolve: parse (the route schema validates the body; the app's error
 * handler answers 400 problems with pointers), resolve against the served build's prebuilt
 * resolve index (the search and ranking read only its columns), read the records of the
 * candidates shown, answer. Resolve changes nothing and its answer depends only on the body and
 * the build, so the build keeps the answers it gave (their `data`, by the exact body text; small
 * bodies only; bounded, dropped at a swap): an agent asking again for the same channel gets the
 * same answer at the cost of a lookup. The envelope's generatedAtUtc is still the time of this
 * answer. HTTP caches never store it (`no-store`: a POST answer).
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { API_VERSION } from '../../src/schemas/common.ts';
import { utcTimestamp } from '../../src/schemas/envelope.ts';
import { MusicResolveInput } from '../../src/schemas/resolve.ts';
import { finishResolve, planResolve, recordsNeeded } from '../../src/domain/resolve/resolve.ts';

/** Bodies up to this many characters (as JSON) have their answers kept; any real resolve body is far smaller. */
const MAX_CACHED_BODY = 8192;
const CLOSE = Buffer.from('}');

export async function registerResolveRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  app.post<{ Body: MusicResolveInput }>(
    '/api/v1/music/resolve',
    { schema: { body: MusicResolveInput } },
    async (request, reply) => {
      // One build for the whole answer: its resolve index, and its records for the candidates shown.
      const build = ctx.handle.current;
      const { resolve, records, resolveAnswers } = build.catalog;
      const key = JSON.stringify(request.body);
      const cacheable = key.length <= MAX_CACHED_BODY;
      let data = cacheable ? resolveAnswers.get(key)?.body : undefined;
      if (!data) {
        const plan = planResolve(resolve, request.body);
        const loaded = await records.byIds(recordsNeeded(resolve, plan));
        const answer = finishResolve(
          resolve,
          plan,
          request.body,
          { baseUrl: ctx.config.publicBaseUrl, catalogGeneratedAtUtc: build.generatedAtUtc },
          (order) => loaded.get(order)!,
        );
        data = Buffer.from(JSON.stringify(answer));
        if (cacheable) resolveAnswers.set(key, { body: data, etag: '' });
      }
      // Exactly JSON.stringify(envelope(answer)), joined around the answer's text.
      const head = Buffer.from(
        `{"apiVersion":${JSON.stringify(API_VERSION)},"generatedAtUtc":${JSON.stringify(utcTimestamp())},"data":`,
      );
      return reply
        .header('Cache-Control', 'no-store')
        .type('application/json')
        .send(Buffer.concat([head, data, CLOSE]));
    },
  );
}
