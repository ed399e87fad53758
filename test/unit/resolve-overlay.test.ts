/**
 * The resolve half of the index overlay (src/domain/catalog-index/resolve-overlay.ts), data only:
 * over a generated catalog built into records by the domain code, random edits, additions and
 * removals give, for every added or changed work, rows (flags, column values, widened words) equal
 * to what a resolve catalog freshly built from the changed catalog holds for that work, through the
 * overlay file's round trip, whenever the meaning vocabulary is unchanged; a change bringing a new
 * genre is reported instead. A malformed file is refused, naming the field.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { applySteps, edited, resolveFixture, worksOverlayOf } from '../helpers/resolve-fixture.ts';
import { workSummary } from '../../src/domain/records.ts';
import {
  buildResolveCatalog,
  encodeResolveCatalog,
  slugTableOf,
  type ResolveCatalog,
  type ResolveWorkRow,
  ROW_COLUMNS,
} from '../../src/domain/resolve/catalog.ts';
import { mergeResolveCatalog } from '../../src/domain/resolve/catalog-merge.ts';
import { SlugTable } from '../../src/domain/catalog-index/slug-table.ts';
import { decodeWorksOverlay, encodeWorksOverlay } from '../../src/domain/catalog-index/works-overlay.ts';
import {
  buildResolveOverlay,
  decodeResolveOverlay,
  encodeResolveOverlay,
} from '../../src/domain/catalog-index/resolve-overlay.ts';
import { indexWork } from '../../src/domain/works-query.ts';
import type { WorkRecord } from '../../src/schemas/work.ts';
import { PROPERTY_BACKSTOP_MS } from '../helpers/property-budget.ts';

const BASE_URL = 'https://resolve-overlay.example.test';
const f = resolveFixture(BASE_URL);

/** What `catalog` holds for the work `slug`, as a row (words as sorted sets, as the index keeps them). */
function rowIn(catalog: ResolveCatalog, slug: string) {
  const order = catalog.works.slugs.indexOf(slug);
  const wordsOf = (field: ResolveCatalog['title'], i: number) =>
    Array.from(field.ids.subarray(field.start[i], field.start[i + 1]), (id) => catalog.vocab.words[id]!);
  const arrangements = [];
  for (let i = catalog.works.firstArrangement[order]!; i < catalog.works.firstArrangement[order + 1]!; i++) {
    const c = catalog.cols;
    arrangements.push({
      ...Object.fromEntries(ROW_COLUMNS.map((name) => [name, c[name][i]])),
      style: wordsOf(catalog.style, i),
      instrumentation: wordsOf(catalog.instrumentation, i),
      mood: wordsOf(catalog.mood, i),
    });
  }
  return {
    slug,
    flags: catalog.works.flags[order],
    title: wordsOf(catalog.title, order),
    composer: wordsOf(catalog.composer, order),
    arrangements,
  };
}

const asSets = (row: ResolveWorkRow) => ({
  slug: row.slug,
  flags: row.flags,
  title: [...new Set(row.title)].sort(),
  composer: [...new Set(row.composer)].sort(),
  arrangements: row.arrangements.map((a) => ({
    ...a,
    style: [...new Set(a.style)].sort(),
    instrumentation: [...new Set(a.instrumentation)].sort(),
    mood: [...new Set(a.mood)].sort(),
  })),
});

const overlayOf = (changed: WorkRecord[]) =>
  buildResolveOverlay({ meaning: f.base.meaning, profiles: f.profiles, instruments: f.instruments, changed });

describe('resolve overlay rows', () => {
  it(
    'equal what a fresh resolve catalog of the changed catalog holds for each changed work, and merge into its index',
    () => {
      let compared = 0;
      const step = fc.oneof(
        fc.record({
          kind: fc.constant('edit' as const),
          target: fc.nat(),
          donor: fc.nat(),
          fields: fc.integer({ min: 1, max: 63 }),
        }),
        fc.record({ kind: fc.constant('add' as const), spare: fc.nat() }),
        fc.record({ kind: fc.constant('remove' as const), target: fc.nat() }),
      );
      fc.assert(
        fc.property(fc.array(step, { minLength: 1, maxLength: 12 }), (steps) => {
          const { current, changed } = applySteps(f, steps, (record, s) => {
            if (s.kind !== 'edit') throw new Error(`not a rewriting step: ${s.kind}`);
            return edited(record, f.baseRecords[s.donor % f.baseRecords.length]!, s.fields);
          });
          const list = [...current.values()];
          const fresh = buildResolveCatalog(list, f.profiles, f.instruments);
          const { overlay, vocabularyChanges } = overlayOf([...changed.values()]);
          const decoded = decodeResolveOverlay(encodeResolveOverlay(overlay));
          expect(decoded).toEqual(overlay);
          if (vocabularyChanges.length > 0) {
            expect(fresh.meaning.terms).not.toEqual(f.base.meaning.terms);
            return;
          }
          // Removing the last work of a genre or period drops its term from a fresh build: not seen by the overlay.
          const sameGenres = (rs: WorkRecord[]) => [...new Set(rs.flatMap((r) => [r.genre, r.period]))].sort();
          if (JSON.stringify(sameGenres(list)) !== JSON.stringify(sameGenres(f.baseRecords))) return;
          expect(fresh.meaning.terms).toEqual(f.base.meaning.terms);
          for (const row of decoded.works) {
            expect(asSets(row), row.slug).toEqual(rowIn(fresh, row.slug));
            const record = current.get(row.slug)!;
            // Both indexes number works by one listing order.
            expect(row.sortKey).toBe(indexWork(record, workSummary(record), new Map()).sortKey);
          }
          expect(decoded.works.map((w) => w.slug)).toEqual(
            [...changed.keys()].sort((a, b) => fresh.works.slugs.indexOf(a) - fresh.works.slugs.indexOf(b)),
          );
          // Merged over the loaded base, they make the resolve index a fresh build writes, byte for byte.
          const worksOverlay = worksOverlayOf(f, current, changed);
          const loadedOverlay = decodeWorksOverlay(encodeWorksOverlay(worksOverlay));
          const merged = mergeResolveCatalog(f.loadedBase, loadedOverlay, decoded);
          expect(encodeResolveCatalog(merged).equals(encodeResolveCatalog(fresh))).toBe(true);
          // With the listing's slug table handed in (as merge-from-base does): the same bytes; a
          // table that puts the works elsewhere is refused.
          const withTable = mergeResolveCatalog(f.loadedBase, loadedOverlay, decoded, slugTableOf(fresh));
          expect(encodeResolveCatalog(withTable).equals(encodeResolveCatalog(fresh))).toBe(true);
          if (decoded.works.length > 0 && fresh.works.count > 1) {
            const slugs = slugTableOf(fresh).toArray();
            const rotated = SlugTable.fromList([...slugs.slice(1), slugs[0]!]);
            expect(() => mergeResolveCatalog(f.loadedBase, loadedOverlay, decoded, rotated)).toThrow(/slug table/);
          }
          compared++;
        }),
        { numRuns: 40 },
      );
      // Most runs keep every genre and period, so they reach the comparisons.
      expect(compared).toBeGreaterThan(20);
    },
    PROPERTY_BACKSTOP_MS,
  );

  it('report a genre the base vocabulary does not have', () => {
    const r = { ...structuredClone(f.baseRecords[0]!), genre: 'Zyxwv Nocturne' };
    expect(overlayOf([r]).vocabularyChanges).toEqual(['style:zyxwv nocturne']);
    expect(overlayOf([f.baseRecords[1]!]).vocabularyChanges).toEqual([]);
  });

  it('files refuse malformed rows, naming the field', () => {
    const good = JSON.parse(encodeResolveOverlay(overlayOf(f.baseRecords.slice(0, 3)).overlay).toString());
    const refuse = (value: unknown, message: RegExp) =>
      expect(() => decodeResolveOverlay(Buffer.from(JSON.stringify(value)))).toThrow(message);
    const w = good.works[0];
    const a = w.arrangements[0];
    refuse({ ...good, kind: 'works-overlay' }, /not a resolve overlay/);
    refuse({ ...good, works: [...good.works].reverse() }, /works\[1\]\.sortKey is not above/);
    refuse({ ...good, works: [{ ...w, flags: 256 }] }, /works\[0\]\.flags/);
    refuse({ ...good, works: [{ ...w, title: [''] }] }, /works\[0\]\.title\[0\]/);
    refuse({ ...good, works: [{ ...w, arrangements: [{ ...a, usableMask: -1 }] }] }, /arrangements\[0\]\.usableMask/);
    refuse(
      { ...good, works: [{ ...w, arrangements: [{ ...a, mood: 'calm' }] }] },
      /arrangements\[0\]\.mood is not a list/,
    );
    refuse({ ...good, works: [{ ...w, arrangements: Array(1001).fill(a) }] }, /arrangements holds more than/);
  });
});
