/**
 * Catalog numbers are found however a reader writes them: "BWV 1007", "bwv1007", "BWV1007",
 * "bwv 1007", over the catalog search (the built index over a real socket) and in the pure
 * search text the index and the linear scan share.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApp, type TestApp } from '../helpers/app.ts';
import { catalogNumberSearchText } from '../../src/domain/catalog-numbers.ts';
import { matchesAllWords } from '../../src/domain/text.ts';

let t: TestApp;
beforeAll(async () => {
  t = await openApp();
});
afterAll(() => t?.close());

const search = async (query: string) => {
  const res = await t.request({ url: `/api/v1/works?query=${encodeURIComponent(query)}&pageSize=50` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.items.map((w: { slug: string }) => w.slug) as string[];
};

describe('catalog numbers in catalog search', () => {
  it.each(['BWV 1007', 'bwv1007', 'BWV1007', 'bwv 1007', 'Bwv-1007'])('"%s" finds the cello suite', async (q) => {
    expect(await search(q)).toEqual(['bach-cello-suite-1-prelude']);
  });

  it('a run-together number is not matched by another number of the same catalog', async () => {
    expect(await search('bwv846')).toEqual(['bach-prelude-in-c-bwv-846']);
    expect(await search('bwv1007')).not.toContain('bach-prelude-in-c-bwv-846');
  });

  it('the search text holds the words and the words run together', () => {
    expect(catalogNumberSearchText('BWV 1007')).toBe('bwv 1007 bwv1007');
    expect(matchesAllWords(catalogNumberSearchText('Op. 27 No. 2'), 'op27')).toBe(true);
    expect(matchesAllWords(catalogNumberSearchText('Op. 27 No. 2'), 'op27no2')).toBe(true);
    expect(matchesAllWords(catalogNumberSearchText('Op. 27 No. 2'), 'op28')).toBe(false);
    expect(catalogNumberSearchText('K')).toBe('k');
  });
});
