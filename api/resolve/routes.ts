/**
 * POST /api/v1/music/resolve: parse (the route schema validates the body; the app's error
 * handler answers 400 problems with pointers), resolve against the served build's prebuilt
 * resolve index (the search and ranking read only its columns), read the records of the
 * candidates shown, answer. Resolve changes nothing and its answer depends only on the body and
 * the build, so the build keeps the answers it gave (their `data`, by the exact body text; small
 * bodies only; bounded, dropped at a swap): an agent asking again for the same channel gets the
 * same answer at the cost of a lookup. The envelope's generatedAtUtc is still the time of this
 * answer. HTTP caches never store it (`no-store`: a POST answer).
 *
 * `Prefer: return=minimal` (RFC 7240) asks for the compact answer (compact.ts), answered with
 * `Preference-Applied: return=minimal`; the full answer stays the default and is kept for the
 * build under the digest of the body, at GET /api/v1/music/resolve/answers/{id}, which the
 * compact answer links. GET /api/v1/music/vocabulary publishes the terms requirement words are
 * matched against (the same vocabulary the build put into the resolve index).
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { API_VERSION } from '../../src/schemas/common.ts';
import { envelope, utcTimestamp } from '../../src/schemas/envelope.ts';
import { MusicResolveInput, type ResolveResult } from '../../src/schemas/resolve.ts';
import { finishResolve, planResolve, recordsNeeded } from '../../src/domain/resolve/resolve.ts';
import { compactResolve } from '../../src/domain/resolve/compact.ts';
import { urls } from '../../src/domain/records.ts';
import { ProblemError } from '../http/problem.ts';

/** Bodies up to this many characters (as JSON) have their answers kept; any real resolve body is far smaller. */
const MAX_CACHED_BODY = 8192;
const CLOSE = Buffer.from('}');
const ANSWER_ID = /^[0-9a-f]{32}$/;

/** Whether a Prefer header (RFC 7240; several headers, comma-separated preferences) asks for return=minimal. */
export function prefersMinimal(header: string | string[] | undefined): boolean {
  const values = Array.isArray(header) ? header : header === undefined ? [] : [header];
  return values
    .flatMap((v) => v.split(','))
    .some((p) => /^\s*return\s*=\s*"?minimal"?\s*(;.*)?$/i.test(p.slice(0, 200)));
}

export async function registerResolveRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const u = urls(ctx.config.publicBaseUrl);
  app.post<{ Body: MusicResolveInput }>(
    '/api/v1/music/resolve',
    { schema: { body: MusicResolveInput } },
    async (request, reply) => {
      // One build for the whole answer: its resolve index, and its records for the candidates shown.
      const build = ctx.handle.current;
      const { resolve, records, resolveAnswers } = build.catalog;
      const key = JSON.stringify(request.body);
      const id = createHash('sha256').update(key).digest('hex').slice(0, 32);
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
      // The full answer under its id, for the compact answer's link (bounded like every kept answer).
      if (cacheable && !resolveAnswers.get(`answer:${id}`))
        resolveAnswers.set(`answer:${id}`, { body: data, etag: '' });
      reply.header('Cache-Control', 'no-store').header('Vary', 'Prefer').type('application/json');
      if (prefersMinimal(request.headers.prefer)) {
        const compact = compactResolve(
          JSON.parse(data.toString('utf8')) as ResolveResult,
          { full: cacheable ? u.resolveAnswer(id) : null, vocabulary: u.vocabulary },
          request.body.requirements.requiredFormats,
        );
        return reply.header('Preference-Applied', 'return=minimal').send(JSON.stringify(envelope(compact)));
      }
      // Exactly JSON.stringify(envelope(answer)), joined around the answer's text.
      const head = Buffer.from(
        `{"apiVersion":${JSON.stringify(API_VERSION)},"generatedAtUtc":${JSON.stringify(utcTimestamp())},"data":`,
      );
      return reply.send(Buffer.concat([head, data, CLOSE]));
    },
  );

  app.get<{ Params: { id: string } }>('/api/v1/music/resolve/answers/:id', async (request, reply) => {
    const id = request.params.id;
    if (!ANSWER_ID.test(id))
      throw new ProblemError('invalid-query', 'id must be 32 lower-case hexadecimal characters (from links.full).', {
        errors: [{ parameter: 'id', detail: 'must be 32 lower-case hexadecimal characters' }],
      });
    const kept = ctx.handle.current.catalog.resolveAnswers.get(`answer:${id}`);
    if (!kept)
      throw new ProblemError(
        'not-found',
        `No full resolve answer ${id} is kept for the build now served (answers are kept per build, a bounded number); repeat the POST without Prefer: return=minimal.`,
      );
    const head = Buffer.from(
      `{"apiVersion":${JSON.stringify(API_VERSION)},"generatedAtUtc":${JSON.stringify(utcTimestamp())},"data":`,
    );
    return reply
      .header('Cache-Control', 'no-store')
      .type('application/json')
      .send(Buffer.concat([head, kept.body, CLOSE]));
  });

  app.get('/api/v1/music/vocabulary', async (_request, reply) => {
    const build = ctx.handle.current;
    const body = JSON.stringify(envelope(build.catalog.resolve.meaning.document(), build.generatedAtUtc));
    const etag = `"${createHash('sha256').update(body).digest('base64url')}"`;
    reply.header('Cache-Control', 'public, max-age=60').header('ETag', etag).type('application/json');
    if (_request.headers['if-none-match'] === etag) return reply.code(304).send();
    return reply.send(body);
  });
}
