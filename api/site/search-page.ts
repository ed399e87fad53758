/**
 * /search/ with a query, rendered by the front server: the built search page with the catalog
 * search's results (the same index and order as GET /api/v1/works) put into its result list,
 * so the search form answers a page for people without JavaScript (it used to land on JSON).
 * With JavaScript the page's script searches Pagefind and replaces the list. Without a query the
 * built page is sent as it is. A static server (nginx, a CDN) answers the plain page.
 */
import { readFile } from 'node:fs/promises';
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { sendFile } from '../http/send-file.ts';
import { refuseTooManyWords } from '../catalog/routes.ts';
import { SearchPageQuery, type WorksQuery } from '../../src/schemas/queries.ts';
import type { WorkSummary } from '../../src/schemas/work.ts';

/** Results per server-rendered page (the script shows them in steps of its own). */
export const SEARCH_PAGE_SIZE = 20;
const FILTERS = ['query', 'composer', 'genre', 'instrument', 'style'] as const;

const escape = (text: unknown) => String(text ?? '').replace(/[&<>"'`]/g, (c) => `&#${c.charCodeAt(0)};`);

function resultItem(w: WorkSummary): string {
  const by = [w.composer, w.workNumber].filter(Boolean).join(' · ');
  return (
    `<li><h2><a href="/works/${encodeURIComponent(w.slug)}/">${escape(w.title)}</a></h2>` +
    `<p class="muted">${escape(by)}</p>${w.summary ? `<p>${escape(w.summary)}</p>` : ''}</li>`
  );
}

/** The built page with the results, the status line, the form's values and paging links filled in. */
export function fillSearchPage(
  page: string,
  q: WorksQuery,
  found: { items: WorkSummary[]; page: number; total: number; totalPages: number },
): string | null {
  const list = /<ol id="search-results"([^>]*)><\/ol>/;
  const status = /<p id="search-status"([^>]*)><\/p>/;
  if (!list.test(page) || !status.test(page)) return null;
  const words = q.query?.trim();
  const statusText =
    found.total === 0
      ? 'No works found. Try fewer words or another spelling.'
      : `${found.total} ${found.total === 1 ? 'work' : 'works'} found${words ? ` for “${words}”` : ''}` +
        (found.totalPages > 1 ? `, page ${found.page} of ${found.totalPages}.` : '.');
  const link = (n: number) => {
    const params = new URLSearchParams();
    for (const f of FILTERS) if (q[f]) params.set(f, q[f]!);
    params.set('page', String(n));
    return `/search/?${params}`;
  };
  const paging = [
    found.page > 1 ? `<a rel="prev" href="${escape(link(found.page - 1))}">Previous page</a>` : '',
    found.page < found.totalPages ? `<a rel="next" href="${escape(link(found.page + 1))}">Next page</a>` : '',
  ]
    .filter(Boolean)
    .join(' ');
  let html = page
    .replace(
      list,
      (_m, attrs: string) => `<ol id="search-results"${attrs}>${found.items.map(resultItem).join('')}</ol>`,
    )
    .replace(
      status,
      (_m, attrs: string) =>
        `<p id="search-status"${attrs}>${escape(statusText)}</p>${paging ? `<nav aria-label="Result pages" id="search-pages"><p>${paging}</p></nav>` : ''}`,
    );
  html = html.replace(/(<input id="search-q"[^>]*?)(\s*\/?>)/, (_m, open: string, close: string) =>
    words ? `${open} value="${escape(words)}"${close}` : `${open}${close}`,
  );
  for (const f of ['composer', 'genre', 'instrument'] as const) {
    const v = q[f];
    if (!v) continue;
    html = html.replace(new RegExp(`(<select id="search-${f}"[\\s\\S]*?</select>)`), (select: string) =>
      select.replace(`<option value="${escape(v)}">`, `<option value="${escape(v)}" selected>`),
    );
  }
  if (words) html = html.replace(/<title>/, `<title>${escape(words)}: `);
  return html;
}

export function registerSearchPage(app: FastifyInstance, ctx: AppContext): void {
  const base = ctx.config.publicBaseUrl;
  app.route<{ Querystring: SearchPageQuery }>({
    method: ['GET', 'HEAD'],
    url: '/search/',
    schema: { querystring: SearchPageQuery },
    handler: async (request, reply) => {
      const found = await ctx.handle.current.site.resolve('/search/');
      if (found.kind !== 'file') return reply.callNotFound();
      // `?q=` (what people and search engines send) is `?query=`.
      const { q: words, ...rest } = request.query;
      const q: WorksQuery = { ...rest, ...(rest.query === undefined && words !== undefined ? { query: words } : {}) };
      if (!FILTERS.some((f) => q[f]?.trim())) return sendFile(request, reply, base, found.file);
      refuseTooManyWords(q);
      const { catalog } = ctx.handle.current;
      const slice = catalog.listing.page(q, q.page ?? 1, SEARCH_PAGE_SIZE);
      const items = slice.texts.map((text) => JSON.parse(text.toString('utf8')) as WorkSummary);
      const page = (found.file.body ?? (await readFile(found.file.absPath))).toString('utf8');
      const html = fillSearchPage(page, q, {
        items,
        page: q.page ?? 1,
        total: slice.total,
        totalPages: slice.totalPages,
      });
      if (html === null) return sendFile(request, reply, base, found.file);
      // An answer of one build for one query: revalidated like the listing it mirrors.
      return reply
        .code(200)
        .type('text/html; charset=utf-8')
        .header('Cache-Control', 'public, max-age=30')
        .send(request.method === 'HEAD' ? undefined : html);
    },
  });
}
