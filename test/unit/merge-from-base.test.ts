/**
 * An incremental build's index files merged from its base's
 * (src/domain/catalog-index/merge-from-base.ts), over the sample catalog's records as the build
 * makes them: an edit, a new work and a removal give exactly the bytes of the listing index, the
 * summaries file and the resolve catalog built from the new records; a change to what the resolve
 * merge cannot follow (a genre the catalog gains or loses, an instrument's aliases, a profile's
 * status) is answered with its reason instead, while the listing is still merged.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/domain/catalog.ts';
import { buildInstrumentRecords, buildProfileRecord, buildWorkRecord, workSummary } from '../../src/domain/records.ts';
import { decodeIndex } from '../../src/domain/catalog-index/binary.ts';
import { decodeWorksIndex, encodeWorksIndex, orderWorks } from '../../src/domain/catalog-index/works-index.ts';
import { buildResolveCatalog, decodeResolveCatalog, encodeResolveCatalog } from '../../src/domain/resolve/catalog.ts';
import { profileHead } from '../../src/domain/catalog-index/profiles.ts';
import { mergeFromBase, type IndexBase } from '../../src/domain/catalog-index/merge-from-base.ts';
import type { WorkRecord } from '../../src/schemas/work.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';

const BASE_URL = 'https://resolve-from-base.example.test';
const { catalog } = loadCatalog(path.join(PROJECT_ROOT, 'content'));
const records = catalog.works.map((w) => buildWorkRecord(w, catalog, BASE_URL));
const profiles = catalog.profiles.map((p) => buildProfileRecord(p, catalog, BASE_URL));
const instruments = buildInstrumentRecords(catalog, BASE_URL);
const heads = profiles.map(profileHead).sort((a, b) => (a.slug < b.slug ? -1 : 1));

/** The base as an incremental build reads it: its index files decoded, and its records. */
const names = new Map(instruments.map((i) => [i.slug, i.aliases]));
const listingOf = (list: WorkRecord[]) =>
  encodeWorksIndex(
    orderWorks(
      list.map((record) => ({ record, summary: workSummary(record) })),
      names,
    ),
  );

function baseOf(list: WorkRecord[]): IndexBase {
  const listing = listingOf(list);
  return {
    works: decodeWorksIndex(decodeIndex(listing.index)),
    summaries: listing.summaries,
    resolve: decodeResolveCatalog(
      decodeIndex(encodeResolveCatalog(buildResolveCatalog(list, heads, instruments))),
      heads,
    ),
    profiles: heads,
    instruments,
    records: list,
  };
}

const fresh = (list: WorkRecord[]) => encodeResolveCatalog(buildResolveCatalog(list, heads, instruments));

describe('the index files merged from the base', () => {
  const base = baseOf(records);

  it('equals a fresh build after an edit, a new work and a removal', () => {
    const edited = structuredClone(records[3]!);
    edited.title = `${edited.title} (zanzibar revision)`;
    const added = structuredClone(records[0]!);
    added.slug = `${added.slug}-second-study`;
    added.title = 'A second study';
    // A work whose genre another work shares, so the vocabulary stays the base's.
    const genres = records.map((r) => r.genre);
    const removable = records.find((r, i) => i !== 3 && i !== 0 && genres.filter((g) => g === r.genre).length > 1)!;
    const next = [...records.filter((r) => r !== records[3] && r !== removable), edited, added];
    const merged = mergeFromBase(base, {
      records: next,
      changed: new Set([edited.slug, added.slug, removable.slug]),
      profiles,
      instruments,
    });
    const listing = listingOf(next);
    expect(Buffer.compare(merged.works.index, listing.index)).toBe(0);
    expect(Buffer.compare(merged.works.summaries, listing.summaries)).toBe(0);
    expect('reason' in merged.resolve ? merged.resolve.reason : null).toBeNull();
    expect(Buffer.compare(encodeResolveCatalog(merged.resolve as never), fresh(next))).toBe(0);
  });

  it('answers with the reason when the vocabulary, an instrument or a profile status changes', () => {
    const newGenre = structuredClone(records[2]!);
    newGenre.genre = 'Zanzibar chorale';
    expect(
      mergeFromBase(base, {
        records: records.map((r, i) => (i === 2 ? newGenre : r)),
        changed: new Set([newGenre.slug]),
        profiles,
        instruments,
      }).resolve,
    ).toEqual({ reason: "the catalog's genres changed (the meaning vocabulary is made from them)" });
    const renamed = instruments.map((i, k) => (k === 0 ? { ...i, aliases: [...i.aliases, 'zanzibar'] } : i));
    expect(mergeFromBase(base, { records, changed: new Set(), profiles, instruments: renamed }).resolve).toEqual({
      reason: 'the instruments changed',
    });
    const withdrawn = profiles.map((p, k) =>
      k === 0 ? { ...p, status: p.status === 'approved' ? 'draft' : 'approved' } : p,
    );
    expect(
      mergeFromBase(base, { records, changed: new Set(), profiles: withdrawn as typeof profiles, instruments }).resolve,
    ).toEqual({ reason: 'the profiles changed' });
  });
});
