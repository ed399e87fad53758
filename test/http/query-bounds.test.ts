/**
 * No catalog query is O(catalog) on the request thread (docs/catalog.md, "Search over the index"): the number of words a listing
 * may carry is bounded (each costs at most a quarter of the catalog in index reads), and the
 * words are intersected cheapest first, stopping once nothing is left; answers stay those of the
 * linear scan (test/unit/works-index.slow.test.ts, test/http/query-answers.slow.test.ts).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApp, type TestApp } from '../helpers/app.ts';
import { QUERY_MAX_WORDS } from '../../src/schemas/queries.ts';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { decodeIndex } from '../../src/domain/catalog-index/binary.ts';
import {
  decodeWorksIndex,
  filterWords,
  searchWorks,
  type WorksIndex,
} from '../../src/domain/catalog-index/works-index.ts';

let t: TestApp;
/** The served build's listing index (a plain build: the sample's). */
let works: WorksIndex;
beforeAll(async () => {
  t = await openApp();
  works = decodeWorksIndex(
    decodeIndex(readFileSync(path.join(t.handle.current.dir, 'index', 'works.idx')), 'works.idx'),
  );
});
afterAll(() => t.close());

const distinctWords = (n: number, from = 0) =>
  Array.from({ length: n }, (_, k) => `w${String(k + from).padStart(2, '0')}x`).join(' ');

describe('GET /api/v1/works: the words of one request are bounded', () => {
  it(`${QUERY_MAX_WORDS} words over all filters are answered`, async () => {
    const half = QUERY_MAX_WORDS / 2;
    const res = await t.request({
      url: `/api/v1/works?query=${encodeURIComponent(distinctWords(half))}&style=${encodeURIComponent(distinctWords(half, half))}`,
    });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.total).toBe(0);
  });

  it(`one more is a 400 problem naming the filter where the limit was passed`, async () => {
    const half = QUERY_MAX_WORDS / 2;
    const res = await t.request({
      url: `/api/v1/works?query=${encodeURIComponent(distinctWords(half))}&style=${encodeURIComponent(distinctWords(half + 1, half))}`,
    });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json()).toMatchObject({
      type: `${t.baseUrl}/problems/invalid-query`,
      status: 400,
      errors: [{ parameter: 'style' }],
    });
    expect(res.json().detail).toContain(`at most ${QUERY_MAX_WORDS}`);
  });

  it('words implied by another word of the same filter do not count ("b ba bac bach" is one word)', async () => {
    const implied = Array.from({ length: 40 }, (_, k) => 'bach'.slice(0, 1 + (k % 4))).join(' ');
    expect(filterWords({ composer: implied })).toEqual([{ param: 'composer', word: 'bach' }]);
    const res = await t.request({ url: `/api/v1/works?composer=${encodeURIComponent(implied)}` });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json().data.total).toBeGreaterThan(0);
  });

  it('a huge page number is answered at once, empty, with the exact total', async () => {
    for (const query of ['', '?query=bach&']) {
      const res = await t.request({ url: `/api/v1/works${query || '?'}page=2147483647&pageSize=100` });
      expect(res.statusCode, res.body).toBe(200);
      const data = res.json().data;
      expect(data.items).toEqual([]);
      expect(data.total).toBe(searchWorks(works, query ? { query: 'bach' } : {}, 1, 100).total);
    }
  });
});

describe('searchWorks intersects cheapest first and stops when nothing is left', () => {
  it('the same answer whatever the order of the words, a word nothing has ending the search', () => {
    const index = works;
    const a = searchWorks(index, { query: 'minuet bach' }, 1, 20);
    const b = searchWorks(index, { query: 'bach minuet' }, 1, 20);
    expect(a).toEqual(b);
    expect(searchWorks(index, { query: `bach ${distinctWords(10)}` }, 1, 20)).toEqual({
      ids: [],
      total: 0,
      totalPages: 0,
    });
  });
});
