/**
 * Pages for people on every error: a browser (Accept: text/html first) gets an HTML page with the
 * same status and headers for 404, 405 and the other problems; API clients (JSON, `*\/*`, no
 * Accept) keep the problem detail. Search without JavaScript: /search/?query=... is rendered by
 * the server with the catalog search's results.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApp, type TestApp } from '../helpers/app.ts';
import { prefersHtml } from '../../api/http/problem.ts';
import { PUBLIC_CSP } from '../../api/http/content-security-policy.ts';

const BROWSER = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
let t: TestApp;
beforeAll(async () => {
  t = await openApp();
});
afterAll(() => t?.close());

const get = (url: string, accept?: string, method = 'GET') =>
  t.app.inject({ method: method as 'GET', url, headers: accept ? { accept } : {} });

describe('error answers for people and for programs', () => {
  it('a wrong URL in a browser is a 404 page with the address and ways on', async () => {
    const res = await get('/no/such/page?secret=1', BROWSER);
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.headers.vary).toContain('Accept');
    expect(res.body).toMatch(/^<!DOCTYPE html>/i);
    expect(res.body).toContain('<title>404 Not found');
    expect(res.body).toContain('Nothing exists at /no/such/page.');
    expect(res.body).toContain('<code>/no/such/page</code>');
    expect(res.body).not.toContain('secret=1');
    expect(res.body).toContain('href="/works/"');
    // The same policy as the public pages it links to.
    expect(res.headers['content-security-policy']).toBe(PUBLIC_CSP);
  });

  it.each([[undefined], ['application/json'], ['*/*'], ['application/problem+json, text/html;q=0.5']])(
    'Accept %s keeps the problem detail',
    async (accept) => {
      const res = await get('/no/such/page', accept);
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ status: 404, instance: '/no/such/page' });
    },
  );

  it('405 in a browser: same status, Allow header, the allowed methods in words', async () => {
    const res = await get('/api/v1/works', BROWSER, 'DELETE');
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toContain('GET');
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toMatch(/Allowed here: [A-Z, ]*GET/);
    expect(res.headers['content-security-policy']).toBe(PUBLIC_CSP);
    const api = await get('/api/v1/works', 'application/json', 'DELETE');
    expect(api.statusCode).toBe(405);
    expect(api.headers['content-type']).toMatch(/^application\/problem\+json/);
  });

  it('an invalid query in a browser names the parameter on the page; HEAD has no body', async () => {
    const res = await get('/api/v1/works?pageSize=0', BROWSER);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('<code>pageSize</code>');
    const head = await get('/nowhere', BROWSER, 'HEAD');
    expect(head.statusCode).toBe(404);
    expect(head.body).toBe('');
  });

  it('contributed text in a detail cannot become markup', async () => {
    const res = await get('/%3Cscript%3Ealert(1)%3C/script%3E', BROWSER);
    expect(res.statusCode).toBe(404);
    expect(res.body).not.toMatch(/<script>alert/);
  });

  it('negotiation: HTML only when asked for before JSON', () => {
    expect(prefersHtml(BROWSER)).toBe(true);
    expect(prefersHtml('text/html')).toBe(true);
    expect(prefersHtml('*/*')).toBe(false);
    expect(prefersHtml(undefined)).toBe(false);
    expect(prefersHtml('application/json, text/html')).toBe(false);
    expect(prefersHtml('text/html;q=0, application/json')).toBe(false);
    expect(prefersHtml('text/html;q=0.9, application/json;q=0.5')).toBe(true);
  });
});

describe('search without JavaScript', () => {
  it('renders the catalog search results on the search page', async () => {
    const res = await get('/search/?query=bwv1007', BROWSER);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(res.body).toContain('href="/works/bach-cello-suite-1-prelude/"');
    expect(res.body).toContain('1 work found for “bwv1007”.');
    expect(res.body).toMatch(/<input id="search-q"[^>]*value="bwv1007"/);
    expect(res.headers['content-security-policy']).toBe(PUBLIC_CSP);
    // ?q= (what people and search engines send) is ?query=.
    const q = await get('/search/?q=bwv1007', BROWSER);
    expect(q.statusCode, q.body.slice(0, 300)).toBe(200);
    expect(q.body).toContain('1 work found for “bwv1007”.');
    expect(q.body).toMatch(/<input id="search-q"[^>]*value="bwv1007"/);
    // A catalog number finds the works with that whole number: Op. 9 No. 2, not Op. 95.
    const op9 = await get('/search/?q=Op.%209', BROWSER);
    expect(op9.body).toContain('1 work found for “Op. 9”.');
  });

  it('pages through many results with links, keeps the filters, and says when nothing matched', async () => {
    const first = await get('/search/?query=&composer=bach', BROWSER);
    expect(first.body).toMatch(/\d+ works? found/);
    const many = await get('/search/?query=a', BROWSER);
    const total = Number(/(\d+) works found/.exec(many.body)?.[1]);
    if (total > 20) {
      expect(many.body).toContain('rel="next" href="/search/?query=a&amp;page=2"');
      const two = await get('/search/?query=a&page=2', BROWSER);
      expect(two.body).toContain('rel="prev"');
    }
    const none = await get('/search/?query=zzqqxx', BROWSER);
    expect(none.statusCode).toBe(200);
    expect(none.body).toContain('No works found.');
  });

  it('without a query it is the built page; a bad query is a 400 page', async () => {
    const plain = await get('/search/', BROWSER);
    expect(plain.statusCode).toBe(200);
    expect(plain.body).toContain('<ol id="search-results" class="results"></ol>');
    const bad = await get('/search/?query=x&page=0', BROWSER);
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(bad.headers['content-security-policy']).toBe(PUBLIC_CSP);
  });
});
