/**
 * GET /api/v1/works and GET /api/v1/profiles. Works are answered from the served build's
 * prebuilt index (posting lists intersected as bitsets, pages counted off a presorted order, see
 * src/domain/catalog-index/works-index.ts); profiles, a handful, are filtered in memory.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ProfilesQuery, WorksQuery, WORKS_DEFAULT_PAGE_SIZE } from '../../src/schemas/queries.ts';
import { MAX_QUERY_WORDS, filterWords } from '../../src/domain/catalog-index/works-index.ts';
import { ProblemError } from '../http/problem.ts';
import { matchesAllWords } from '../../src/domain/text.ts';
import type { AppContext } from '../context.ts';
import { pageLink, sendBodyWithEtag } from '../http/reply.ts';
import { createHash } from 'node:crypto';
import { profileListingBody } from '../../src/domain/catalog-index/profiles.ts';
import { API_VERSION } from '../../src/schemas/common.ts';
import { strongEtag } from '../site/static-site.ts';

const COMMA = Buffer.from(',');

/** More constraining words than MAX_QUERY_WORDS over all filters: a 400 naming the parameter where the limit was passed. */
export function refuseTooManyWords(q: WorksQuery): void {
  const terms = filterWords(q);
  if (terms.length <= MAX_QUERY_WORDS) return;
  const parameter = terms[MAX_QUERY_WORDS]!.param;
  throw new ProblemError(
    'invalid-query',
    `Too many words: ${terms.length} over all filters, at most ${MAX_QUERY_WORDS} (a word that starts another word of the same filter does not count).`,
    {
      errors: [
        {
          parameter,
          detail: `the filters hold ${terms.length} words; at most ${MAX_QUERY_WORDS} are allowed over query, genre, composer, instrument and style together`,
        },
      ],
    },
  );
}

export function registerCatalogRoutes(app: FastifyInstance, ctx: AppContext): void {
  app.get<{ Querystring: WorksQuery }>(
    '/api/v1/works',
    { schema: { querystring: WorksQuery } },
    async (request, reply) => {
      const q = request.query;
      const page = q.page ?? 1;
      const pageSize = q.pageSize ?? WORKS_DEFAULT_PAGE_SIZE;
      refuseTooManyWords(q);
      const { catalog, generatedAtUtc } = ctx.handle.current;
      const params = {
        query: q.query,
        genre: q.genre,
        composer: q.composer,
        instrument: q.instrument,
        style: q.style,
        pageSize,
      };
      // The same parameters always get the same answer from one build: answered once, then reused.
      const key = JSON.stringify([q.query, q.genre, q.composer, q.instrument, q.style, page, pageSize]);
      let answer = catalog.listingAnswers.get(key);
      if (!answer) {
        const slice = catalog.listing.page(q, page, pageSize);
        const base = `${ctx.config.publicBaseUrl}/api/v1/works`;
        const last = Math.max(1, slice.totalPages);
        const links = {
          self: pageLink(base, params, page),
          first: pageLink(base, params, 1),
          last: pageLink(base, params, last),
          next: page < slice.totalPages ? pageLink(base, params, page + 1) : null,
          prev: page > 1 ? pageLink(base, params, Math.min(page - 1, last)) : null,
        };
        // The envelope, joined around the items' stored JSON texts: exactly JSON.stringify of
        // envelope({ items, page, pageSize, total, totalPages, links }), without parsing the items.
        const texts = slice.texts;
        const head = `{"apiVersion":${JSON.stringify(API_VERSION)},"generatedAtUtc":${JSON.stringify(generatedAtUtc)},"data":{"items":[`;
        const tail = `],"page":${page},"pageSize":${pageSize},"total":${slice.total},"totalPages":${slice.totalPages},"links":${JSON.stringify(links)}}}`;
        const parts: Buffer[] = [Buffer.from(head)];
        texts.forEach((t, i) => {
          if (i > 0) parts.push(COMMA);
          parts.push(t);
        });
        parts.push(Buffer.from(tail));
        const body = Buffer.concat(parts);
        answer = { body, etag: strongEtag(createHash('sha256').update(body).digest()) };
        catalog.listingAnswers.set(key, answer);
      }
      return sendBodyWithEtag(request, reply, answer.body, answer.etag);
    },
  );

  app.get<{ Querystring: ProfilesQuery }>(
    '/api/v1/profiles',
    { schema: { querystring: ProfilesQuery } },
    async (request, reply) => {
      const q = request.query;
      const { catalog, generatedAtUtc } = ctx.handle.current;
      const positions: number[] = [];
      catalog.profiles.forEach((p, k) => {
        if (
          (q.kind === undefined || p.kind === q.kind) &&
          (q.status === undefined || p.status === q.status) &&
          (q.renderReady === undefined || p.renderReady === q.renderReady) &&
          (q.query === undefined || matchesAllWords([p.slug, p.title, p.summary, ...p.instruments].join(' '), q.query))
        ) {
          positions.push(k);
        }
      });
      // Profile records list every work that uses them, so at scale a listing is megabytes: it is
      // joined from the records' stored JSON texts once per distinct answer and build, then reused.
      const key = positions.join(',');
      let answer = catalog.profileListings.get(key);
      if (!answer) {
        const body = profileListingBody(
          API_VERSION,
          generatedAtUtc,
          positions.map((k) => catalog.profileTexts[k]!),
        );
        answer = { body, etag: strongEtag(createHash('sha256').update(body).digest()) };
        if (catalog.profileListings.size < 256) catalog.profileListings.set(key, answer);
      }
      return sendBodyWithEtag(request, reply, answer.body, answer.etag);
    },
  );
}
