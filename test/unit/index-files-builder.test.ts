/**
 * A full build's index files made one record at a time (`IndexFilesBuilder`,
 * src/domain/catalog-index/index-files.ts), over the sample catalog's records as the build makes
 * them: the same bytes as `buildIndexFiles` over every record at once, in any order of the
 * records, and when the genres and periods the build expected are not the records' (the resolve
 * rows made again from every record given a second time).
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/domain/catalog.ts';
import { buildInstrumentRecords, buildProfileRecord, buildWorkRecord } from '../../src/domain/records.ts';
import { buildIndexFiles, IndexFilesBuilder, type IndexFiles } from '../../src/domain/catalog-index/index-files.ts';
import { distinctSorted } from '../../src/domain/resolve/catalog.ts';
import type { WorkRecord } from '../../src/schemas/work.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';

const BASE_URL = 'https://index-builder.example.test';
const { catalog } = loadCatalog(path.join(PROJECT_ROOT, 'content'));
const records = catalog.works.map((w) => buildWorkRecord(w, catalog, BASE_URL));
const profiles = catalog.profiles.map((p) => buildProfileRecord(p, catalog, BASE_URL));
const instruments = buildInstrumentRecords(catalog, BASE_URL);
const expected = {
  genres: distinctSorted(records.map((r) => r.genre)),
  periods: distinctSorted(records.map((r) => r.period)),
};

/** The builder's files, and how many records it asked for again. */
function built(list: WorkRecord[], of = expected): { files: IndexFiles; again: number } {
  const builder = new IndexFilesBuilder({ profiles, instruments, expected: of });
  for (const r of list) builder.add(r);
  let again = 0;
  if (builder.rowsAgain())
    for (const r of list) {
      builder.addRow(r);
      again++;
    }
  return { files: builder.finish(), again };
}

function expectSameFiles(actual: IndexFiles, wanted: IndexFiles): void {
  expect(Object.keys(actual).sort()).toEqual(Object.keys(wanted).sort());
  for (const name of Object.keys(wanted) as (keyof IndexFiles)[])
    expect(Buffer.compare(actual[name]!, wanted[name]!), name).toBe(0);
}

/** A fixed shuffle (the records' order must not matter). */
function shuffled<T>(list: T[]): T[] {
  const out = [...list];
  let seed = 7;
  for (let i = out.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    const j = seed % (i + 1);
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

describe('IndexFilesBuilder', () => {
  const whole = buildIndexFiles({ records, profiles, instruments }) as IndexFiles;

  it('gives buildIndexFiles bytes for every file, in catalog order and shuffled', () => {
    expect(records.length).toBeGreaterThan(20);
    const inOrder = built(records);
    expect(inOrder.again).toBe(0);
    expectSameFiles(inOrder.files, whole);
    expectSameFiles(built(shuffled(records)).files, whole);
  });

  it('makes the resolve rows again when the records have other genres or periods than expected', () => {
    const wrong = { genres: expected.genres.slice(1), periods: [...expected.periods, 'Neo-Futurist'] };
    const result = built(shuffled(records), wrong);
    expect(result.again).toBe(records.length);
    expectSameFiles(result.files, whole);
  });

  it('refuses two records with one slug, and a second pass that misses a record', () => {
    const builder = new IndexFilesBuilder({ profiles, instruments, expected });
    for (const r of [...records, records[3]!]) builder.add(r);
    expect(() => builder.finish()).toThrow(/slug/);
    const short = new IndexFilesBuilder({ profiles, instruments, expected: { genres: [], periods: [] } });
    for (const r of records) short.add(r);
    expect(short.rowsAgain()).toBe(true);
    for (const r of records.slice(1)) short.addRow(r);
    expect(() => short.finish()).toThrow(/resolve rows/);
  });
});
