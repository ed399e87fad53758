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
import {
  assembleIndexFiles,
  buildIndexFiles,
  distinctComposers,
  facetCountsOf,
} from '../../src/domain/catalog-index/index-files.ts';
import {
  instrumentTerms,
  mergeFromBase,
  profileStatuses,
  type IndexBase,
} from '../../src/domain/catalog-index/merge-from-base.ts';
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

/**
 * The base as an incremental build reads it: its index files decoded, its counts, its records
 * only on demand (counted: the merge must not read every one), and the changed works' versions.
 */
function baseOf(list: WorkRecord[], changed: ReadonlySet<string>, reads = { n: 0 }): IndexBase {
  const listing = listingOf(list);
  const works = decodeWorksIndex(decodeIndex(listing.index));
  const bySlug = new Map(list.map((r) => [r.slug, r]));
  return {
    works,
    listing: { index: works, summaries: listing.summaries },
    resolve: decodeResolveCatalog(
      decodeIndex(encodeResolveCatalog(buildResolveCatalog(list, heads, instruments))),
      heads,
    ),
    profiles: heads,
    instruments,
    counts: facetCountsOf(list),
    recordAt: (id) => {
      reads.n++;
      return bySlug.get(works.slugs.at(id))!;
    },
    before: list.filter((r) => changed.has(r.slug)),
  };
}

/** The merge of `next` over a base of `list`, for the slugs in `changed`. */
const mergeOver = (
  list: WorkRecord[],
  next: WorkRecord[],
  changed: Set<string>,
  more: { profiles?: typeof profiles; instruments?: typeof instruments; reads?: { n: number } } = {},
) =>
  mergeFromBase(baseOf(list, changed, more.reads), {
    changedRecords: next.filter((r) => changed.has(r.slug)),
    changed,
    profiles: more.profiles ?? profiles,
    instruments: more.instruments ?? instruments,
  });

const fresh = (list: WorkRecord[]) => encodeResolveCatalog(buildResolveCatalog(list, heads, instruments));

describe('the index files merged from the base', () => {
  it('equals a fresh build after an edit, a new work and a removal', () => {
    const edited = structuredClone(records[3]!);
    edited.title = `${edited.title} (zanzibar revision)`;
    const added = structuredClone(records[0]!);
    added.slug = `${added.slug}-second-study`;
    added.title = 'A second study';
    // A work whose genre and composer other works share, so the vocabulary stays the base's and
    // the composers too (a change that removes a composer is a full build).
    const genres = records.map((r) => r.genre);
    const composerOf = (r: WorkRecord) => JSON.stringify(r.composer);
    const removable = records.find(
      (r, i) =>
        i !== 3 &&
        i !== 0 &&
        genres.filter((g) => g === r.genre).length > 1 &&
        records.filter((o) => o !== records[3] && composerOf(o) === composerOf(r)).length > 1,
    )!;
    const next = [...records.filter((r) => r !== records[3] && r !== removable), edited, added];
    const reads = { n: 0 };
    const merged = mergeOver(records, next, new Set([edited.slug, added.slug, removable.slug]), { reads });
    // A few base records to place the changed works (binary search), not every one.
    expect(reads.n).toBeGreaterThan(0);
    expect(reads.n).toBeLessThan(records.length);
    expect(merged.counts).toEqual(facetCountsOf(next));
    const listing = listingOf(next);
    expect(Buffer.compare(merged.works.index, listing.index)).toBe(0);
    expect(Buffer.compare(merged.works.summaries, listing.summaries)).toBe(0);
    expect('reason' in merged.resolve ? merged.resolve.reason : null).toBeNull();
    expect(Buffer.compare(encodeResolveCatalog(merged.resolve as never), fresh(next))).toBe(0);
    // Every index file from the merged parts, without the records: a full build's bytes.
    const assembled = assembleIndexFiles(
      {
        slugs: merged.works.slugs,
        composers: distinctComposers([...records, ...next].map((r) => r.composer)),
        counts: merged.counts,
        profiles,
        instruments,
      },
      merged.works,
      merged.resolve as never,
    );
    const built = buildIndexFiles({ records: next, profiles, instruments });
    for (const name of Object.keys(built) as Array<keyof typeof built>)
      expect([name, Buffer.compare(assembled[name]!, built[name]!)]).toEqual([name, 0]);
  });

  it("reads of the instruments and profiles only their terms and statuses (an early merge with the base's is the same)", () => {
    const edited = structuredClone(records[1]!);
    edited.title = `${edited.title} (zanzibar revision)`;
    const next = records.map((r, i) => (i === 1 ? edited : r));
    const changed = new Set([edited.slug]);
    // Every other field of the records changed: work counts, descriptions, usage lists, links.
    const otherInstruments = instruments.map((i) => ({
      ...structuredClone(i),
      workCount: i.workCount + 7,
      links: { ...i.links, works: `${i.links.works}#moved` },
      profiles: [],
      readiness: 'none' as const,
    }));
    const otherProfiles = profiles.map((p) => ({
      ...structuredClone(p),
      catalogUsage: { ...p.catalogUsage, arrangementCount: p.catalogUsage.arrangementCount + 3, works: [] },
    }));
    expect(instrumentTerms(otherInstruments)).toEqual(instrumentTerms(instruments));
    expect(profileStatuses(otherProfiles)).toEqual(profileStatuses(profiles));
    const a = mergeOver(records, next, changed);
    const b = mergeOver(records, next, changed, { instruments: otherInstruments, profiles: otherProfiles });
    expect(Buffer.compare(a.works.index, b.works.index)).toBe(0);
    expect(Buffer.compare(a.works.summaries, b.works.summaries)).toBe(0);
    expect(b.counts).toEqual(a.counts);
    expect(Buffer.compare(encodeResolveCatalog(a.resolve as never), encodeResolveCatalog(b.resolve as never))).toBe(0);
  });

  it('answers with the reason when the vocabulary, an instrument or a profile status changes', () => {
    const newGenre = structuredClone(records[2]!);
    newGenre.genre = 'Zanzibar chorale';
    expect(
      mergeOver(
        records,
        records.map((r, i) => (i === 2 ? newGenre : r)),
        new Set([newGenre.slug]),
      ).resolve,
    ).toEqual({ reason: "the catalog's genres changed (the meaning vocabulary is made from them)" });
    const renamed = instruments.map((i, k) => (k === 0 ? { ...i, aliases: [...i.aliases, 'zanzibar'] } : i));
    expect(mergeOver(records, records, new Set(), { instruments: renamed }).resolve).toEqual({
      reason: 'the instruments changed',
    });
    const withdrawn = profiles.map((p, k) =>
      k === 0 ? { ...p, status: p.status === 'approved' ? 'draft' : 'approved' } : p,
    );
    expect(mergeOver(records, records, new Set(), { profiles: withdrawn as typeof profiles }).resolve).toEqual({
      reason: 'the profiles changed',
    });
  });
});
