/**
 * The works index overlay (src/domain/catalog-index/works-overlay.ts) against a fresh index and
 * the linear scan: over generated catalogs built into records by the domain code as the build
 * builds them, random sequences of changes (field edits that move a work in the listing, new
 * works, removals, renames, a work changed twice, a new work removed again), each written as an
 * overlay file and read back, answer any query (words drawn from both catalogs, cut to prefixes,
 * combined across filters, any page) with the same works in the same order, the same summaries
 * and the same totals as an index freshly built from the changed catalog, which answers as the
 * linear scan does. Slug lookups find exactly the changed catalog's works; a malformed overlay
 * file is refused, naming the field.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/domain/catalog.ts';
import { buildInstrumentRecords, buildWorkRecord, workSummary } from '../../src/domain/records.ts';
import { filterWorks, indexWork, paginate, type WorksFilter } from '../../src/domain/works-query.ts';
import { decodeIndex } from '../../src/domain/catalog-index/binary.ts';
import {
  decodeWorksIndex,
  encodeWorksIndex,
  mergeWorksIndex,
  orderWorks,
  searchWorks,
  summaryRanges,
  summaryTexts,
  type WorksIndex,
} from '../../src/domain/catalog-index/works-index.ts';
import {
  OVERLAY_LIMITS,
  OverlayError,
  buildWorksOverlay,
  decodeWorksOverlay,
  encodeWorksOverlay,
  findLayered,
  layerWorks,
  layeredSlug,
  searchLayered,
  type LayeredWorks,
  type WorksOverlay,
} from '../../src/domain/catalog-index/works-overlay.ts';
import { words } from '../../src/domain/text.ts';
import { generateCatalog, rng } from '../../scripts/generate-catalog.ts';
import type { WorkRecord } from '../../src/schemas/work.ts';
import { PROPERTY_BACKSTOP_MS } from '../helpers/property-budget.ts';

const BASE_URL = 'https://overlay.example.test';
const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-works-overlay-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** A generated catalog's records: the first `baseCount` (in a seeded shuffle) are the base, the rest can be added. */
function generated(works: number, baseCount: number, seed: number) {
  const content = path.join(root, `content-${seed}`);
  generateCatalog({ works, outDir: content, seed });
  const loaded = loadCatalog(content);
  if (loaded.messages.length > 0) throw new Error('generated content does not load');
  const c = loaded.catalog;
  const all = c.works.map((w) => buildWorkRecord(w, c, BASE_URL));
  const rand = rng(seed);
  for (let i = all.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [all[i], all[j]] = [all[j]!, all[i]!];
  }
  const instrumentNames = new Map(buildInstrumentRecords(c, BASE_URL).map((i) => [i.slug, i.aliases]));
  const baseRecords = all.slice(0, baseCount);
  const built = built_(baseRecords, instrumentNames);
  return { baseRecords, spare: all.slice(baseCount), instrumentNames, ...built };
}

/** A freshly built index of `records`, through its file bytes, with its summaries file and sort keys. */
function built_(records: WorkRecord[], instrumentNames: Map<string, string[]>) {
  const ordered = orderWorks(
    records.map((record) => ({ record, summary: workSummary(record) })),
    instrumentNames,
  );
  const encoded = encodeWorksIndex(ordered);
  return {
    index: decodeWorksIndex(decodeIndex(encoded.index)),
    bytes: encoded.index,
    summaries: encoded.summaries,
    sortKeys: ordered.map((w) => w.sortKey),
  };
}

const small = generated(420, 360, 5);
const medium = generated(1300, 1200, 23);

/** Words a title edit may bring in that no generated work has. */
const NEW_WORDS = ['zyxwv', 'quuxian', 'nachtstück', 'Ébauche'];

type Step =
  | { kind: 'edit'; target: number; donor: number; fields: number; extra: number }
  | { kind: 'add'; spare: number; rename: boolean }
  | { kind: 'remove'; target: number }
  | { kind: 'rename'; target: number };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('edit' as const),
      target: fc.nat(),
      donor: fc.nat(),
      fields: fc.integer({ min: 1, max: 63 }),
      extra: fc.integer({ min: -1, max: NEW_WORDS.length - 1 }),
    }),
  },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('add' as const), spare: fc.nat(), rename: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('remove' as const), target: fc.nat() }) },
  { weight: 1, arbitrary: fc.record({ kind: fc.constant('rename' as const), target: fc.nat() }) },
);

/** A record with some fields of `donor` (title, composer, genre, instruments, arrangements, catalog numbers). */
function edited(record: WorkRecord, donor: WorkRecord, fields: number, extra: number): WorkRecord {
  const r = structuredClone(record);
  if (fields & 1) r.title = donor.title;
  if (fields & 2) r.composer = structuredClone(donor.composer);
  if (fields & 4) r.genre = donor.genre;
  if (fields & 8) r.instruments = structuredClone(donor.instruments);
  if (fields & 16) r.arrangements = structuredClone(donor.arrangements);
  if (fields & 32) {
    r.catalogNumbers = structuredClone(donor.catalogNumbers);
    r.workNumber = donor.workNumber;
  }
  if (extra >= 0) r.title = `${r.title} ${NEW_WORDS[extra]}`;
  return r;
}

type Fixture = typeof small;

/**
 * Applies `batches` of steps to the catalog: the changed catalog's records, and the overlay made
 * batch by batch (each over the previous one, through its file bytes), laid over the base.
 */
function applyBatches(
  f: Fixture,
  batches: Step[][],
): { records: Map<string, WorkRecord>; view: LayeredWorks; overlay: WorksOverlay } {
  const current = new Map(f.baseRecords.map((r) => [r.slug, r]));
  const usedSpare = new Set<number>();
  let overlay: WorksOverlay | undefined;
  for (const batch of batches) {
    const changed = new Map<string, WorkRecord>();
    const removed = new Set<string>();
    for (const step of batch) {
      const slugs = [...current.keys()];
      if (step.kind === 'add') {
        const k = step.spare % f.spare.length;
        if (usedSpare.has(k)) continue;
        usedSpare.add(k);
        const r = structuredClone(f.spare[k]!);
        // A slug between existing ones, so the work lands amid the base in slug order too.
        if (step.rename) r.slug = `${slugs[step.spare % slugs.length]!}-new`;
        if (current.has(r.slug)) continue;
        current.set(r.slug, r);
        changed.set(r.slug, r);
        removed.delete(r.slug);
        continue;
      }
      if (slugs.length === 0) continue;
      const slug = slugs[step.target % slugs.length]!;
      if (step.kind === 'edit') {
        const donor = f.baseRecords[step.donor % f.baseRecords.length]!;
        const r = edited(current.get(slug)!, donor, step.fields, step.extra);
        current.set(slug, r);
        changed.set(slug, r);
      } else if (step.kind === 'remove') {
        current.delete(slug);
        if (!changed.delete(slug) || f.index.slugs.indexOf(slug) >= 0 || overlay?.works.some((w) => w.slug === slug))
          removed.add(slug);
      } else {
        const r = { ...structuredClone(current.get(slug)!), slug: `${slug}-renamed` };
        if (current.has(r.slug)) continue;
        current.delete(slug);
        if (!changed.delete(slug) || f.index.slugs.indexOf(slug) >= 0 || overlay?.works.some((w) => w.slug === slug))
          removed.add(slug);
        current.set(r.slug, r);
        changed.set(r.slug, r);
      }
    }
    const built = buildWorksOverlay({
      base: f.index,
      baseDigest: 'test-base',
      baseSortKey: (id) => f.sortKeys[id]!,
      instrumentNames: f.instrumentNames,
      ...(overlay ? { previous: overlay } : {}),
      changed: [...changed.values()].map((record) => ({ record, summary: workSummary(record) })),
      removed: [...removed],
    });
    overlay = decodeWorksOverlay(encodeWorksOverlay(built));
    expect(overlay).toEqual(built);
  }
  return { records: current, view: layerWorks(f.index, 'test-base', overlay!), overlay: overlay! };
}

/** Accents and case the folding must undo. */
const DECORATE: Record<string, string> = { a: 'Á', e: 'é', i: 'Î', o: 'ø', u: 'Ü', c: 'Ç', n: 'Ñ', s: 'S' };

function filterArb(f: Fixture): fc.Arbitrary<WorksFilter> {
  const vocabulary = [
    ...new Set(
      [...f.baseRecords, ...f.spare]
        .flatMap((r) => words(indexWork(r, workSummary(r), f.instrumentNames).all))
        .concat(NEW_WORDS.flatMap((w) => words(w))),
    ),
  ].sort();
  const composers = [...new Set(f.baseRecords.map((r) => r.composer.name))];
  const word = fc.oneof(
    fc.constantFrom(...vocabulary),
    fc.constantFrom(...vocabulary).chain((w) => fc.integer({ min: 1, max: w.length }).map((n) => w.slice(0, n))),
    fc.constantFrom('zzzz', 'q', 'x', '1', '7', 'op', 'no', 'j', 's', 'zy', 'quu', 'nacht'),
  );
  const decorated = word.chain((w) =>
    fc.boolean().map((d) => (d ? [...w].map((c) => DECORATE[c] ?? c.toUpperCase()).join('') : w)),
  );
  const text = fc
    .array(decorated, { minLength: 0, maxLength: 3 })
    .chain((list) => fc.constantFrom(' ', ', ', ' - ').map((sep) => list.join(sep)));
  // Catalog numbers as readers type them (a catalog-number query matches whole numbers only).
  const catalog = [
    ...new Set(
      [...f.baseRecords, ...f.spare].flatMap((r) =>
        r.catalogNumbers.flatMap((n) => [`${n.catalog} ${n.number}`, `${n.catalog} ${n.number.split(' ')[0]}`]),
      ),
    ),
  ].sort();
  return fc.record(
    {
      query: catalog.length > 0 ? fc.oneof(text, fc.constantFrom(...catalog)) : text,
      genre: text,
      composer: fc.oneof(text, fc.constantFrom(...composers)),
      instrument: text,
      style: text,
    },
    { requiredKeys: [] },
  );
}

interface Answer {
  slugs: string[];
  summaries: string[];
  total: number;
  totalPages: number;
}

/**
 * One page of an answer as a server reads it, from a layered view over a base (`{ view }`) or
 * from a freshly built index (`{ index }`), with its summaries file.
 */
function answerOf(
  source: { view: LayeredWorks } | { index: WorksIndex },
  summaries: Buffer,
  filter: WorksFilter,
  page: number,
  pageSize: number,
): Answer {
  if ('index' in source) {
    const { index } = source;
    const r = searchWorks(index, filter, page, pageSize);
    return {
      slugs: r.ids.map((id) => index.slugs.at(id)),
      summaries: r.ids.map((id) =>
        summaries.toString('utf8', index.summaryOffsets[id]!, index.summaryOffsets[id + 1]!),
      ),
      total: r.total,
      totalPages: r.totalPages,
    };
  }
  const { view } = source;
  const r = searchLayered(view, filter, page, pageSize);
  return {
    slugs: r.items.map((item) => layeredSlug(view, item)),
    summaries: r.items.map((item) => {
      if ('overlay' in item) return view.summaryTexts[item.overlay]!.toString();
      const [range] = summaryRanges(view.base, [item.base]);
      return summaryTexts(view.base, range!, summaries.subarray(range!.start, range!.end))[0]!.toString();
    }),
    total: r.total,
    totalPages: r.totalPages,
  };
}

function scanAnswer(
  indexed: ReturnType<typeof indexWork>[],
  filter: WorksFilter,
  page: number,
  pageSize: number,
): Answer {
  const slice = paginate(filterWorks(indexed, filter), page, pageSize);
  return {
    slugs: slice.items.map((w) => w.summary.slug),
    summaries: slice.items.map((w) => JSON.stringify(w.summary)),
    total: slice.total,
    totalPages: slice.totalPages,
  };
}

const batchesArb = fc.array(fc.array(stepArb, { minLength: 1, maxLength: 12 }), { minLength: 1, maxLength: 3 });

describe.each([
  ['360 generated works', small, 40],
  ['1,200 generated works', medium, 12],
])('the overlay answers like a fresh index and the linear scan: %s', (_, f, runs) => {
  it(
    'after random edits, additions, removals and renames, for random queries and pages',
    () => {
      fc.assert(
        fc.property(
          batchesArb,
          fc.array(fc.tuple(filterArb(f), fc.integer({ min: 1, max: 8 }), fc.integer({ min: 1, max: 60 })), {
            minLength: 15,
            maxLength: 15,
          }),
          (batches, queries) => {
            const { records, view, overlay } = applyBatches(f, batches);
            const list = [...records.values()];
            const fresh = built_(list, f.instrumentNames);
            // Merged into the base, the overlay gives the fresh index's and summaries' bytes.
            const merged = mergeWorksIndex(f.index, f.summaries, overlay);
            expect(Buffer.compare(merged.index, fresh.bytes)).toBe(0);
            expect(Buffer.compare(merged.summaries, fresh.summaries)).toBe(0);
            const indexed = list.map((r) => indexWork(r, workSummary(r), f.instrumentNames));
            expect(view.count).toBe(list.length);
            // The unfiltered listing, whole, and a page at its end.
            for (const [filter, page, pageSize] of [
              [{}, 1, list.length + 1],
              [{}, Math.ceil(list.length / 7), 7],
              ...queries,
            ] as Array<[WorksFilter, number, number]>) {
              const want = answerOf({ index: fresh.index }, fresh.summaries, filter, page, pageSize);
              expect(answerOf({ view }, f.summaries, filter, page, pageSize)).toEqual(want);
              expect(scanAnswer(indexed, filter, page, pageSize)).toEqual(want);
            }
            // Slug lookups: every work of the changed catalog, none of the removed ones.
            for (const r of list) {
              const item = findLayered(view, r.slug);
              expect(item && layeredSlug(view, item)).toBe(r.slug);
            }
            for (const r of f.baseRecords)
              if (!records.has(r.slug)) expect(findLayered(view, r.slug), r.slug).toBeNull();
            expect(findLayered(view, 'no-such-work')).toBeNull();
          },
        ),
        { numRuns: runs },
      );
    },
    PROPERTY_BACKSTOP_MS,
  );
});

describe('the overlay in particular cases', () => {
  const f = small;
  const change = (changed: WorkRecord[], removed: string[], previous?: WorksOverlay) =>
    buildWorksOverlay({
      base: f.index,
      baseDigest: 'test-base',
      baseSortKey: (id) => f.sortKeys[id]!,
      instrumentNames: f.instrumentNames,
      ...(previous ? { previous } : {}),
      changed: changed.map((record) => ({ record, summary: workSummary(record) })),
      removed,
    });

  it('an empty overlay answers as the base does', () => {
    const view = layerWorks(f.index, 'test-base', change([], []));
    for (const filter of [{}, { query: 's' }, { composer: f.baseRecords[0]!.composer.name }, { query: 'zzzz' }]) {
      expect(answerOf({ view }, f.summaries, filter, 2, 9)).toEqual(
        answerOf({ index: f.index }, f.summaries, filter, 2, 9),
      );
    }
  });

  it('a word only a new work has is found, though the base has no such word', () => {
    const added = { ...structuredClone(f.spare[0]!), title: 'Zyxwv Nocturne' };
    const view = layerWorks(f.index, 'test-base', change([added], []));
    const r = searchLayered(view, { query: 'zyx' }, 1, 10);
    expect(r.total).toBe(1);
    expect(r.items.map((i) => layeredSlug(view, i))).toEqual([added.slug]);
    expect(searchLayered(view, { query: 'zyx noct' }, 1, 10).total).toBe(1);
    expect(searchLayered(view, { query: 'zyx zzzz' }, 1, 10).total).toBe(0);
  });

  it('a changed work is listed once, at its new place', () => {
    const target = f.index.slugs.at(0);
    const record = structuredClone(f.baseRecords.find((r) => r.slug === target)!);
    record.composer = { ...record.composer, sortName: 'Zzz, Last' };
    const view = layerWorks(f.index, 'test-base', change([record], []));
    const all = searchLayered(view, {}, 1, f.index.count + 5);
    const slugs = all.items.map((i) => layeredSlug(view, i));
    expect(all.total).toBe(f.index.count);
    expect(slugs.filter((s) => s === target)).toHaveLength(1);
    expect(slugs.at(-1)).toBe(target);
  });

  it('a new work between the base works of one bitset word shifts the page boundary inside that word', () => {
    // Same composer and title as base work 10, a later slug: it lists right after it.
    const twin = f.baseRecords.find((r) => r.slug === f.index.slugs.at(10))!;
    const added = { ...structuredClone(twin), slug: `${twin.slug}-twin` };
    const view = layerWorks(f.index, 'test-base', change([added], []));
    expect(view.overlay.works[0]!.insertAfter).toBe(10);
    const fresh = built_([...f.baseRecords, added], f.instrumentNames);
    for (const [page, pageSize] of [
      ...Array.from({ length: 40 }, (_, k) => [k + 1, 1]),
      [2, 32],
      [1, 33],
      [2, 16],
      [3, 11],
    ] as Array<[number, number]>)
      expect(answerOf({ view }, f.summaries, {}, page, pageSize), `page ${page} of ${pageSize}`).toEqual(
        answerOf({ index: fresh.index }, fresh.summaries, {}, page, pageSize),
      );
  });

  it('bases of 0, 1, 31, 32, 33 and 64 works (bitset edges) answer like fresh indexes', () => {
    for (const size of [0, 1, 31, 32, 33, 64]) {
      const baseRecords = f.baseRecords.slice(0, size);
      const base = built_(baseRecords, f.instrumentNames);
      const removed = baseRecords.filter((_, k) => k % 5 === 2).map((r) => r.slug);
      const added = f.spare.slice(0, 4);
      const edit = baseRecords[0] && { ...structuredClone(baseRecords[0]), title: 'Zyxwv' };
      const changed = [...added, ...(edit ? [edit] : [])];
      const overlay = buildWorksOverlay({
        base: base.index,
        baseDigest: `base-${size}`,
        baseSortKey: (id) => base.sortKeys[id]!,
        instrumentNames: f.instrumentNames,
        changed: changed.map((record) => ({ record, summary: workSummary(record) })),
        removed,
      });
      const view = layerWorks(base.index, `base-${size}`, decodeWorksOverlay(encodeWorksOverlay(overlay)));
      const list = [...baseRecords.filter((r) => !removed.includes(r.slug) && r.slug !== edit?.slug), ...changed];
      const fresh = built_(list, f.instrumentNames);
      const merged = mergeWorksIndex(base.index, base.summaries, overlay);
      expect(Buffer.compare(merged.index, fresh.bytes), `${size} works`).toBe(0);
      expect(Buffer.compare(merged.summaries, fresh.summaries), `${size} works`).toBe(0);
      for (const filter of [{}, { query: 's' }, { query: 'zyx' }, { composer: 'synthetic' }])
        for (const [page, pageSize] of [
          [1, 100],
          [1, 1],
          [2, 3],
          [3, 16],
        ] as Array<[number, number]>)
          expect(answerOf({ view }, base.summaries, filter, page, pageSize), `${size} works`).toEqual(
            answerOf({ index: fresh.index }, fresh.summaries, filter, page, pageSize),
          );
    }
  });

  it('refuses changes that do not fit the catalog or the previous overlay', () => {
    const r = f.baseRecords[0]!;
    expect(() => change([r, r], [])).toThrow(/changed twice/);
    expect(() => change([r], [r.slug])).toThrow(/both changed and removed/);
    expect(() => change([], ['no-such-work'])).toThrow(/not in the catalog/);
    const once = change([], [r.slug]);
    expect(() => change([], [r.slug], once)).toThrow(/not in the catalog/);
    expect(() =>
      buildWorksOverlay({
        base: f.index,
        baseDigest: 'another-base',
        baseSortKey: (id) => f.sortKeys[id]!,
        instrumentNames: f.instrumentNames,
        previous: once,
        changed: [],
        removed: [],
      }),
    ).toThrow(/another base/);
  });
});

describe('overlay files', () => {
  const f = small;
  const good = buildWorksOverlay({
    base: f.index,
    baseDigest: 'test-base',
    baseSortKey: (id) => f.sortKeys[id]!,
    instrumentNames: f.instrumentNames,
    changed: [f.baseRecords[3]!, f.spare[0]!, f.spare[1]!].map((record) => ({ record, summary: workSummary(record) })),
    removed: [f.baseRecords[4]!.slug],
  });
  const json = () => JSON.parse(encodeWorksOverlay(good).toString()) as Record<string, any>;
  const refuse = (value: unknown, message: RegExp) =>
    expect(() => decodeWorksOverlay(Buffer.from(JSON.stringify(value)))).toThrow(message);

  it('round-trip', () => {
    expect(decodeWorksOverlay(encodeWorksOverlay(good))).toEqual(good);
    expect(good.tombstones).toHaveLength(2);
    expect(good.works).toHaveLength(3);
  });

  it('refuse a malformed file, naming the field', () => {
    expect(() => decodeWorksOverlay(Buffer.from('{'))).toThrow(OverlayError);
    expect(() => decodeWorksOverlay(Buffer.alloc(OVERLAY_LIMITS.bytes + 1, 32))).toThrow(/larger than/);
    refuse([], /not an object/);
    refuse({ ...json(), version: 99 }, /not a works overlay/);
    refuse({ ...json(), base: { count: -1, digest: 'x' } }, /base\.count/);
    refuse({ ...json(), tombstones: [...json().tombstones].reverse() }, /tombstones\[1\] is not above/);
    refuse({ ...json(), tombstones: [f.index.count] }, /tombstones\[0\] is not an integer/);
    refuse({ ...json(), tombstones: Array(f.index.count + 1).fill(0) }, /tombstones holds more than/);
    refuse({ ...json(), works: Array(OVERLAY_LIMITS.works + 1).fill(0) }, /works holds more than/);
    const works = json().works;
    refuse({ ...json(), works: [...works].reverse() }, /works\[1\]\.sortKey is not above/);
    refuse({ ...json(), works: [{ ...works[0], insertAfter: f.index.count }] }, /works\[0\]\.insertAfter/);
    refuse({ ...json(), works: [{ ...works[0], slug: works[1].slug }] }, /works\[0\]\.sortKey does not end/);
    refuse({ ...json(), works: [{ ...works[0], summary: '{"slug":"other"}' }] }, /works\[0\]\.summary/);
    refuse(
      { ...json(), works: [{ ...works[0], words: { ...works[0].words, genre: ['b', 'a'] } }] },
      /words\.genre\[1\]/,
    );
    refuse(
      { ...json(), works: [{ ...works[0], words: { ...works[0].words, style: [7] } }] },
      /words\.style\[0\] is not a string/,
    );
    refuse(
      { ...json(), works: [{ ...works[0], words: { ...works[0].words, query: 'a' } }] },
      /words\.query is not a list/,
    );
  });

  it('refuse an overlay that does not fit the base it is laid over', () => {
    expect(() =>
      layerWorks(f.index, 'test-base', { ...good, base: { ...good.base, count: f.index.count + 1 } }),
    ).toThrow(/base\.count/);
    // A changed base work without its tombstone would be listed twice.
    expect(() => layerWorks(f.index, 'another-base', good)).toThrow(/base\.digest/);
    expect(() => layerWorks(f.index, 'test-base', { ...good, tombstones: good.tombstones.slice(1) })).toThrow(
      /without a tombstone/,
    );
  });
});
