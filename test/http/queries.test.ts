/** GET /api/v1/works and GET /api/v1/profiles over the sample catalog. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApp, type TestApp } from '../helpers/app.ts';
import { fold } from '../../src/domain/text.ts';
import type { WorkRecord } from '../../src/schemas/work.ts';

let t: TestApp;
let works: WorkRecord[];
beforeAll(async () => {
  t = await openApp();
  works = await t.handle.current.catalog.records.all();
});
afterAll(() => t.close());

async function list(query: string) {
  const res = await t.request({ url: `/api/v1/works${query}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as {
    items: { slug: string; composer: string }[];
    page: number;
    pageSize: number;
    total: number;
    totalPages: number;
    links: Record<string, string | null>;
  };
}

describe('GET /api/v1/works', () => {
  it('pages with pageSize 20 by default, with total and neighbor links', async () => {
    const first = await list('');
    expect(first.pageSize).toBe(20);
    expect(first.page).toBe(1);
    expect(first.total).toBe(works.length);
    expect(first.items).toHaveLength(Math.min(20, works.length));
    expect(first.links.prev).toBeNull();
    if (works.length > 20) {
      expect(first.links.next).toBe(`${t.baseUrl}/api/v1/works?pageSize=20&page=2`);
      const second = await list('?page=2');
      expect(second.items).toHaveLength(works.length - 20);
      expect(second.links.prev).toBe(`${t.baseUrl}/api/v1/works?pageSize=20&page=1`);
      const slugs = new Set([...first.items, ...second.items].map((i) => i.slug));
      expect(slugs.size).toBe(works.length);
    }
  });

  it('?composer=bach finds exactly the works by Bach, paginated', async () => {
    const expected = works
      .filter((w) =>
        [w.composer.name, ...w.composer.aliases].some((n) =>
          fold(n)
            .split(/[^a-z]+/)
            .includes('bach'),
        ),
      )
      .map((w) => w.slug)
      .sort();
    const data = await list('?composer=bach');
    expect(data.pageSize).toBe(20);
    expect(data.items.map((i) => i.slug).sort()).toEqual(expected);
    expect(data.total).toBe(expected.length);
  });

  it('matches accented names typed without accents, and any case', async () => {
    const accented = works.find(
      (w) => w.composer.name !== fold(w.composer.name) && /[^\x00-\x7f]/.test(w.composer.name),
    );
    expect(accented, 'the sample catalog should have a composer with an accented name').toBeDefined();
    const last = fold(accented!.composer.name).split(' ').at(-1)!.toUpperCase();
    const data = await list(`?composer=${encodeURIComponent(last)}`);
    expect(data.items.map((i) => i.slug)).toContain(accented!.slug);
  });

  it('finds a work by catalog number in the free query', async () => {
    const numbered = works.find((w) => w.catalogNumbers.length > 0)!;
    const n = numbered.catalogNumbers[0]!;
    const data = await list(`?query=${encodeURIComponent(`${n.catalog} ${n.number}`)}&pageSize=100`);
    expect(data.items.map((i) => i.slug)).toContain(numbered.slug);
  });

  it('filters by instrument alias and genre', async () => {
    const instruments = t.handle.current.catalog.instruments.filter((i) => i.aliases.length > 0 && i.workCount > 0);
    expect(instruments.length).toBeGreaterThan(0);
    const inst = instruments[0]!;
    const data = await list(`?instrument=${encodeURIComponent(inst.aliases[0]!)}&pageSize=100`);
    expect(data.total).toBe(inst.workCount);
    const genre = works[0]!.genre;
    const byGenre = await list(`?genre=${encodeURIComponent(genre.toLowerCase())}&pageSize=100`);
    expect(byGenre.items.map((i) => i.slug)).toContain(works[0]!.slug);
  });

  it('an empty result is a 200 with no items', async () => {
    const data = await list('?composer=zzzzzz');
    expect(data).toMatchObject({ items: [], total: 0, totalPages: 0 });
  });

  it('answers 304 when the listing has not changed', async () => {
    const res = await t.request({ url: '/api/v1/works?composer=bach' });
    const again = await t.request({
      url: '/api/v1/works?composer=bach',
      headers: { 'if-none-match': String(res.headers.etag) },
    });
    expect(again.statusCode).toBe(304);
  });

  it.each([
    ['?page=0', 'page', 'must be >= 1 (got 0)'],
    ['?page=abc', 'page', 'must be an integer (got "abc")'],
    ['?pageSize=101', 'pageSize', 'must be <= 100 (got 101)'],
    ['?pageSize=0', 'pageSize', 'must be >= 1 (got 0)'],
    [`?query=${'x'.repeat(201)}`, 'query', 'must be at most 200 characters (got 201)'],
  ])('%s is a 400 problem naming the parameter', async (query, parameter, detail) => {
    const res = await t.request({ url: `/api/v1/works${query}` });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json()).toMatchObject({
      type: `${t.baseUrl}/problems/invalid-query`,
      status: 400,
      errors: [{ parameter, detail }],
    });
  });
});

describe('GET /api/v1/profiles', () => {
  it('filters by kind, status and renderReady', async () => {
    const all = t.handle.current.catalog.profiles;
    const res = await t.request({ url: '/api/v1/profiles?status=approved&renderReady=true' });
    const expected = all.filter((p) => p.status === 'approved' && p.renderReady).map((p) => p.slug);
    expect(res.json().data.items.map((p: { slug: string }) => p.slug)).toEqual(expected);
    const kind = all[0]!.kind;
    const byKind = await t.request({ url: `/api/v1/profiles?kind=${kind}` });
    expect(byKind.json().data.total).toBe(all.filter((p) => p.kind === kind).length);
  });

  it.each([
    ['?renderReady=maybe', 'renderReady'],
    ['?kind=opera', 'kind'],
    ['?status=published', 'status'],
  ])('%s is a 400 problem', async (query, parameter) => {
    const res = await t.request({ url: `/api/v1/profiles${query}` });
    expect(res.statusCode).toBe(400);
    expect(res.json().errors[0].parameter).toBe(parameter);
  });
});
