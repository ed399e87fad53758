/**
 * Catalog search that knows a real corpus (src/domain/works-query.ts, catalog-index/): a
 * composer's name ranks that composer's works above works whose other people share the word
 * ("Wolf" lists Hugo Wolf's songs before Goethe settings through "Johann Wolfgang"), and a query
 * that is one catalog number finds the works with that whole number ("Op. 18" finds Op. 18 and
 * Op. 18 No. 1, never Op. 180 or a work with "Op. 1" and "18" apart) — in the index, the linear
 * scan and the Pagefind record alike.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/domain/catalog.ts';
import { buildWorkRecord, workSummary } from '../../src/domain/records.ts';
import { filterWorks, indexWork, namedComposers, type WorksFilter } from '../../src/domain/works-query.ts';
import { decodeIndex } from '../../src/domain/catalog-index/binary.ts';
import {
  decodeWorksIndex,
  encodeWorksIndex,
  orderWorks,
  searchWorks,
} from '../../src/domain/catalog-index/works-index.ts';
import { catalogQueryKey, workCatalogKeys } from '../../src/domain/catalog-numbers.ts';
import type { WorkRecord } from '../../src/schemas/work.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';

const loaded = loadCatalog(path.join(PROJECT_ROOT, 'content'));
const template = buildWorkRecord(loaded.catalog.works[0]!, loaded.catalog, 'https://archive.example.test');

function work(
  slug: string,
  title: string,
  composer: [string, string],
  lyricist: string | null,
  catalog: Array<[string, string]>,
): WorkRecord {
  const r = structuredClone(template);
  return {
    ...r,
    slug,
    title,
    originalTitle: null,
    aliases: [],
    composer: { ...r.composer, name: composer[0], sortName: composer[1], aliases: [] },
    lyricist: lyricist ? { name: lyricist, born: '1749', died: '1832' } : null,
    workNumber: catalog[0] ? `${catalog[0][0]} ${catalog[0][1]}` : null,
    catalogNumbers: catalog.map(([c, n]) => ({ catalog: c, number: n })),
    arrangements: [],
  };
}

const RECORDS = [
  work('schubert-erlkonig', 'Erlkönig', ['Franz Schubert', 'Schubert, Franz'], 'Johann Wolfgang von Goethe', [
    ['D.', '328'],
  ]),
  work(
    'beethoven-wonne',
    'Wonne der Wehmut',
    ['Ludwig van Beethoven', 'Beethoven, Ludwig van'],
    'Johann Wolfgang von Goethe',
    [['Op.', '83 No. 1']],
  ),
  work('wolf-verborgenheit', 'Verborgenheit', ['Hugo Wolf', 'Wolf, Hugo'], 'Eduard Mörike', []),
  work('wolf-italian-serenade', 'Italian Serenade', ['Hugo Wolf', 'Wolf, Hugo'], null, []),
  work('beethoven-op18-1', 'String Quartet No. 1', ['Ludwig van Beethoven', 'Beethoven, Ludwig van'], null, [
    ['Op.', '18 No. 1'],
  ]),
  work('beethoven-op18-6', 'String Quartet No. 6', ['Ludwig van Beethoven', 'Beethoven, Ludwig van'], null, [
    ['Op.', '18 No. 6'],
  ]),
  work('faisst-op18', 'Du liebe Erde', ['Clara Faisst', 'Faisst, Clara'], null, [['Op.', '18']]),
  work('someone-op180', 'Late Sonata', ['Anna Muster', 'Muster, Anna'], null, [['Op.', '180']]),
  work('someone-op1', 'Sonata for 18 strings', ['Anna Muster', 'Muster, Anna'], null, [['Op.', '1']]),
];

const inputs = RECORDS.map((record) => ({ record, summary: workSummary(record) }));
const ordered = orderWorks(inputs, new Map());
const index = decodeWorksIndex(decodeIndex(encodeWorksIndex(ordered).index));
const indexed = RECORDS.map((r) => indexWork(r, workSummary(r), new Map()));

const viaIndex = (f: WorksFilter) => searchWorks(index, f, 1, 50).ids.map((id) => index.slugs.at(id));
const viaScan = (f: WorksFilter) => filterWorks(indexed, f).map((w) => w.summary.slug);

describe('catalog search', () => {
  it('"Wolf" lists Hugo Wolf’s works first, then the Goethe settings', () => {
    for (const answer of [viaIndex, viaScan])
      expect(answer({ query: 'Wolf' })).toEqual([
        'wolf-italian-serenade',
        'wolf-verborgenheit',
        'beethoven-wonne',
        'schubert-erlkonig',
      ]);
    // The search page asks Pagefind for the works of the composers the query names first.
    expect(namedComposers('Wolf', ['Hugo Wolf', 'Johann Wolfgang von Goethe', 'Franz Schubert'])).toEqual([
      'Hugo Wolf',
    ]);
    expect(namedComposers('Op. 18', ['Ludwig van Beethoven'])).toEqual([]);
    // A word that names no composer keeps the stable order.
    expect(viaIndex({ query: 'Wolfgang' })).toEqual(['beethoven-wonne', 'schubert-erlkonig']);
  });

  it('"Op. 18" finds Op. 18 and its numbers, never Op. 180 or "Op. 1" with 18 elsewhere', () => {
    const want = ['beethoven-op18-1', 'beethoven-op18-6', 'faisst-op18'];
    for (const q of ['Op. 18', 'op18', 'op 18', 'Op.18'])
      for (const answer of [viaIndex, viaScan]) expect(answer({ query: q }), q).toEqual(want);
    expect(viaIndex({ query: 'Op. 18 No. 6' })).toEqual(['beethoven-op18-6']);
    // Words, not a catalog number: every word matches as a prefix, as before ("18" starts "180").
    expect(viaIndex({ query: 'sonata 18' })).toEqual(['someone-op180', 'someone-op1']);
  });

  it('the Pagefind record carries the same whole-number keys the query is matched against', () => {
    expect(catalogQueryKey('Op. 18')).toBe('op18');
    expect(workCatalogKeys('Op. 18 No. 1', [{ catalog: 'Op.', number: '18 No. 1' }])).toEqual(['op18', 'op18no1']);
    expect(workCatalogKeys(null, [{ catalog: 'Op.', number: '180' }])).toEqual(['op180']);
    const withKey = RECORDS.filter((r) => workCatalogKeys(r.workNumber, r.catalogNumbers).includes('op18'));
    expect(withKey.map((r) => r.slug).sort()).toEqual(viaIndex({ query: 'Op. 18' }).sort());
  });
});
