/**
 * The catalog search index against the linear scan it replaces (`filterWorks` + `paginate` in
 * src/domain/works-query.ts, kept as the reference): for the sample catalog and 2,000 generated
 * works, both built into records by the domain code exactly as the build builds them, any query
 * (words drawn from the catalog, cut to prefixes, re-cased and re-accented, combined across
 * filters, any page) gives the same items in the same order and the same totals; the index file
 * survives its round trip; and dense prefixes keep a one-letter query cheap.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCatalog, type Catalog } from '../../src/domain/catalog.ts';
import { buildInstrumentRecords, buildProfileRecord, buildWorkRecord, workSummary } from '../../src/domain/records.ts';
import { filterWorks, indexWork, paginate, type WorksFilter } from '../../src/domain/works-query.ts';
import { decodeIndex, encodeIndex } from '../../src/domain/catalog-index/binary.ts';
import {
  constrainingWords,
  decodeWorksIndex,
  denseThreshold,
  encodeWorksIndex,
  orderWorks,
  parseSummaries,
  searchWorks,
  summaryRanges,
  type WorksIndex,
} from '../../src/domain/catalog-index/works-index.ts';
import { buildIndexFiles } from '../../src/domain/catalog-index/index-files.ts';
import { profileListingBody } from '../../src/domain/catalog-index/profiles.ts';
import { envelope } from '../../src/schemas/envelope.ts';
import { words } from '../../src/domain/text.ts';
import { generateCatalog } from '../../scripts/generate-catalog.ts';
import type { WorkRecord } from '../../src/schemas/work.ts';
import { PROPERTY_BACKSTOP_MS } from '../helpers/property-budget.ts';

const BASE = 'https://index.example.test';
const ROOT = path.resolve(import.meta.dirname, '..', '..');

function recordsOf(catalog: Catalog): WorkRecord[] {
  return catalog.works.map((w) => buildWorkRecord(w, catalog, BASE));
}

interface Fixture {
  records: WorkRecord[];
  index: WorksIndex;
  summaries: Buffer;
  reference: ReturnType<typeof indexWork>[];
  vocabulary: string[];
  composers: string[];
  catalogQueries: string[];
}

function fixture(catalog: Catalog): Fixture {
  const records = recordsOf(catalog);
  const instruments = buildInstrumentRecords(catalog, BASE);
  const aliases = new Map(instruments.map((i) => [i.slug, i.aliases]));
  const encoded = encodeWorksIndex(
    orderWorks(
      records.map((record) => ({ record, summary: workSummary(record) })),
      aliases,
    ),
  );
  const index = decodeWorksIndex(decodeIndex(encoded.index));
  const reference = records.map((r) => indexWork(r, workSummary(r), aliases));
  const vocabulary = [...new Set(reference.flatMap((w) => words(w.all)))].sort();
  return {
    records,
    index,
    summaries: encoded.summaries,
    reference,
    vocabulary,
    composers: [...new Set(records.map((r) => r.composer.name))],
    catalogQueries: catalogQueriesOf(records),
  };
}

const sample = (() => {
  const loaded = loadCatalog(path.join(ROOT, 'content'));
  if (loaded.messages.length > 0) throw new Error('sample content does not load');
  return fixture(loaded.catalog);
})();

const generatedRoot = mkdtempSync(path.join(os.tmpdir(), 'pdma-works-index-'));
const generated = (() => {
  const content = path.join(generatedRoot, 'content');
  generateCatalog({ works: 2000, outDir: content, seed: 7 });
  const loaded = loadCatalog(content);
  if (loaded.messages.length > 0) throw new Error('generated content does not load');
  return fixture(loaded.catalog);
})();
afterAll(() => rmSync(generatedRoot, { recursive: true, force: true }));

function expected(f: Fixture, filter: WorksFilter, page: number, pageSize: number) {
  const slice = paginate(filterWorks(f.reference, filter), page, pageSize);
  return { slugs: slice.items.map((w) => w.summary.slug), total: slice.total, totalPages: slice.totalPages };
}

function actual(f: Fixture, filter: WorksFilter, page: number, pageSize: number) {
  const r = searchWorks(f.index, filter, page, pageSize);
  return { slugs: r.ids.map((id) => f.index.slugs.at(id)), total: r.total, totalPages: r.totalPages };
}

/** Accents and case the folding must undo. */
const DECORATE: Record<string, string> = { a: 'Á', e: 'é', i: 'Î', o: 'ø', u: 'Ü', c: 'Ç', n: 'Ñ', s: 'S' };

function queryText(f: Fixture) {
  const word = fc.oneof(
    fc.constantFrom(...f.vocabulary),
    fc.constantFrom(...f.vocabulary).chain((w) => fc.integer({ min: 1, max: w.length }).map((n) => w.slice(0, n))),
    fc.constantFrom('zzzz', 'q', 'x', '1', '7', 'op', 'no', 'j', 's'),
  );
  const decorated = word.chain((w) =>
    fc.boolean().map((d) => (d ? [...w].map((c) => DECORATE[c] ?? c.toUpperCase()).join('') : w)),
  );
  const words = fc
    .array(decorated, { minLength: 0, maxLength: 4 })
    .chain((list) => fc.constantFrom(' ', ', ', '.', ' - ').map((sep) => list.join(sep)));
  // Catalog numbers as readers type them: a whole one, its main number, or run together.
  return f.catalogQueries.length > 0 ? fc.oneof(words, fc.constantFrom(...f.catalogQueries)) : words;
}

/** Queries that are one catalog number each, from the catalog's own numbers ("Op. 27 No. 2", "Op. 27", "op27"). */
function catalogQueriesOf(records: WorkRecord[]): string[] {
  const out = new Set<string>();
  for (const r of records)
    for (const n of r.catalogNumbers) {
      out.add(`${n.catalog} ${n.number}`);
      out.add(`${n.catalog} ${n.number.split(' ')[0]}`);
      out.add(`${n.catalog}${n.number}`.toLowerCase().replace(/[ .]/g, ''));
    }
  return [...out].sort().slice(0, 300);
}

function filterArb(f: Fixture) {
  const text = queryText(f);
  const composer = fc.oneof(text, fc.constantFrom(...f.composers));
  return fc.record(
    { query: text, genre: text, composer, instrument: text, style: text },
    { requiredKeys: [] },
  ) as fc.Arbitrary<WorksFilter>;
}

describe.each([
  ['the sample catalog', sample],
  ['2,000 generated works', generated],
])('the index answers like the linear scan: %s', (_, f) => {
  it(
    'for random queries, filters, pages and page sizes',
    () => {
      fc.assert(
        fc.property(
          filterArb(f),
          fc.integer({ min: 1, max: 12 }),
          fc.integer({ min: 1, max: 100 }),
          (filter, page, pageSize) => {
            expect(actual(f, filter, page, pageSize)).toEqual(expected(f, filter, page, pageSize));
          },
        ),
        { numRuns: 300 },
      );
    },
    PROPERTY_BACKSTOP_MS,
  );

  it("for every one- and two-letter prefix of the catalog's words, and 200 whole words", () => {
    // The linear scan re-reads every work per query, so whole words are sampled evenly.
    const stride = Math.max(1, Math.floor(f.vocabulary.length / 200));
    const queries = new Set([
      ...f.vocabulary.map((w) => w.slice(0, 1)),
      ...f.vocabulary.map((w) => w.slice(0, 2)),
      ...f.vocabulary.filter((_, i) => i % stride === 0),
    ]);
    for (const q of queries) expect(actual(f, { query: q }, 1, 100), q).toEqual(expected(f, { query: q }, 1, 100));
  });

  it('for every catalog number as a query, and every composer word (their works first)', () => {
    // Sampled evenly (the linear scan re-reads every work per query).
    const all = [...f.catalogQueries, ...new Set(f.composers.flatMap((c) => words(c)))];
    const queries = all.filter((_, i) => i % Math.max(1, Math.floor(all.length / 60)) === 0);
    for (const q of queries) expect(actual(f, { query: q }, 1, 100), q).toEqual(expected(f, { query: q }, 1, 100));
  });

  it('lists every work unfiltered, page by page, in listing order', () => {
    const all = expected(f, {}, 1, f.records.length || 1).slugs;
    expect(f.index.slugs.toArray()).toEqual(all);
    const pageSize = 7;
    for (let page = 1; page <= Math.ceil(all.length / pageSize) + 1; page++)
      expect(actual(f, {}, page, pageSize)).toEqual(expected(f, {}, page, pageSize));
  });

  it('finds each work by slug and stores its summary', () => {
    for (const r of f.records) {
      const id = f.index.slugs.indexOf(r.slug);
      expect(f.index.slugs.at(id)).toBe(r.slug);
      const [range] = summaryRanges(f.index, [id]);
      expect(parseSummaries(f.index, range!, f.summaries.subarray(range!.start, range!.end))).toEqual([workSummary(r)]);
    }
    expect(f.index.slugs.indexOf('no-such-work')).toBe(-1);
    expect(f.index.slugs.indexOf('')).toBe(-1);
  });

  it('reads a page of summaries in one range per run of consecutive works', () => {
    const ids = [0, 1, 2, 5, 6, 9].filter((id) => id < f.index.count);
    const ranges = summaryRanges(f.index, ids);
    expect(ranges.map((r) => r.ids)).toEqual(
      [[0, 1, 2], [5, 6], [9]].map((run) => run.filter((id) => id < f.index.count)).filter((run) => run.length > 0),
    );
    const parsed = ranges.flatMap((r) => parseSummaries(f.index, r, f.summaries.subarray(r.start, r.end)));
    expect(parsed.map((s) => s.slug)).toEqual(ids.map((id) => f.index.slugs.at(id)));
  });
});

describe('query words', () => {
  it('drops a word that starts another word of the same value (it adds nothing)', () => {
    expect(constrainingWords('bach b ba J.S. Bach')).toEqual(['bach', 'j', 's']);
    expect(constrainingWords('Dvořák DVORAK')).toEqual(['dvorak']);
    expect(constrainingWords('!!! ...')).toEqual([]);
  });

  it('composer initials forms work through the index ("J S Bach", "Bach, J.S."), and do not match Offenbach', () => {
    for (const composer of ['J S Bach', 'Bach, J.S.', 'J. S. Bach', 'Johann Sebastian Bach', 'bach']) {
      const got = actual(sample, { composer }, 1, 100);
      expect(got).toEqual(expected(sample, { composer }, 1, 100));
      expect(got.total).toBeGreaterThan(0);
      expect(got.slugs.some((s) => s.includes('offenbach'))).toBe(false);
    }
  });
});

describe('dense prefixes', () => {
  it('a short, common prefix is answered from a stored bitset, not from its postings', () => {
    const f = generated.index.fields.query;
    expect(generated.index.denseAt.query.has('s')).toBe(true);
    // The stored bitset is the union of the postings of every word starting with the prefix.
    const k = generated.index.denseAt.query.get('s')!;
    const size = (generated.index.count + 31) >>> 5;
    let bits = 0;
    for (const word of f.dense.subarray(k * size, (k + 1) * size)) bits += word.toString(2).replace(/0/g, '').length;
    expect(bits).toBe(expected(generated, { query: 's' }, 1, 1).total);
    expect(bits).toBeGreaterThanOrEqual(denseThreshold(generated.index.count) / 8);
  });
});

describe('index files', () => {
  it('round-trip typed sections and string lists, including empty ones', () => {
    const bytes = encodeIndex(
      { kind: 'test' },
      {
        a: Int32Array.from([1, -2, 3]),
        b: ['x', 'yz', ''],
        c: [],
        d: new Uint16Array([7]),
        e: { bytes: Buffer.from('hi') },
      },
    );
    const d = decodeIndex(Buffer.concat([Buffer.alloc(3), bytes]).subarray(3));
    expect(Array.from(d.i32('a'))).toEqual([1, -2, 3]);
    expect(d.strings('b')).toEqual(['x', 'yz', '']);
    expect(d.strings('c')).toEqual([]);
    expect(Array.from(d.u16('d'))).toEqual([7]);
    expect(d.bytes('e').toString()).toBe('hi');
    expect(d.meta).toEqual({ kind: 'test' });
    expect(() => d.u8('a')).toThrow(/is i32/);
    expect(() => decodeIndex(Buffer.from('not an index'))).toThrow(/not an archive index/);
  });

  it('refuses a catalog whose two records share a slug', () => {
    const r = sample.records[0]!;
    expect(() => buildIndexFiles({ records: [r, structuredClone(r)], profiles: [], instruments: [] })).toThrow(
      /two records have slug/,
    );
  });

  it('hold the profiles, the distinct composers in the order of their JSON text, and the works per genre and period', () => {
    const loaded = loadCatalog(path.join(ROOT, 'content'));
    const profiles = loaded.catalog.profiles.map((p) => buildProfileRecord(p, loaded.catalog, BASE));
    const files = buildIndexFiles({
      records: sample.records,
      profiles,
      instruments: buildInstrumentRecords(loaded.catalog, BASE),
    });
    const manifest = JSON.parse(files['catalog.json'].toString());
    expect(manifest.works).toBe(sample.records.length);
    expect(manifest.profiles.map((p: { slug: string }) => p.slug)).toEqual(profiles.map((p) => p.slug));
    // An order a new work cannot move (first seen in slug order could): an incremental build keeps the base's.
    const distinct = [...new Map(sample.records.map((r) => [JSON.stringify(r.composer), r.composer])).entries()]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([, c]) => c);
    // In their own file (an incremental build links its base's), not in catalog.json.
    expect(manifest.composers).toBeUndefined();
    const composers = JSON.parse(files['composers.json'].toString());
    expect(composers).toEqual(distinct);
    expect(composers.length).toBeGreaterThan(1);
    // Works per genre and per period, keys sorted: they add up to the catalog.
    for (const field of ['genres', 'periods'] as const) {
      const counts = manifest[field] as Record<string, number>;
      expect(Object.keys(counts)).toEqual(Object.keys(counts).sort());
      expect(Object.values(counts).reduce((a, b) => a + b, 0)).toBe(sample.records.length);
      const one = sample.records[0]![field === 'genres' ? 'genre' : 'period'];
      expect(counts[one]).toBe(sample.records.filter((r) => r[field === 'genres' ? 'genre' : 'period'] === one).length);
    }
    // Heads drop only the usage lists.
    expect(manifest.profiles[0].catalogUsage).toEqual({
      arrangementCount: profiles.find((p) => p.slug === manifest.profiles[0].slug)!.catalogUsage.arrangementCount,
    });
  });

  it('join profile texts into exactly the listing JSON.stringify would write', () => {
    const loaded = loadCatalog(path.join(ROOT, 'content'));
    const profiles = loaded.catalog.profiles.map((p) => buildProfileRecord(p, loaded.catalog, BASE));
    for (const items of [profiles, profiles.slice(0, 1), []]) {
      const body = profileListingBody(
        'v1',
        '2026-01-01T00:00:00.000Z',
        items.map((p) => Buffer.from(JSON.stringify(p))),
      );
      expect(body.toString()).toBe(
        JSON.stringify(envelope({ items, total: items.length }, '2026-01-01T00:00:00.000Z')),
      );
    }
  });
});
