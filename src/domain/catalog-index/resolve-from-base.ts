/**
 * An incremental build's resolve catalog from its base's (docs/review.md, "Index files in an
 * incremental build"): the base's decoded `resolve.idx` and `works.idx`, the changed works as an
 * overlay (`buildWorksOverlay`, `buildResolveOverlay`), merged by `mergeResolveCatalog`, which
 * gives what `buildResolveCatalog` gives for the new records (test/unit/resolve-overlay.test.ts)
 * as long as the meaning vocabulary, the profiles and the instruments are the base's. Pure.
 *
 * When any of that is not so, the answer is the reason, and the caller builds the catalog from
 * the records as a full build does: the vocabulary is made from the catalog's genres and periods
 * (a change that brings a new one or takes the last work of one away changes it), and the profile
 * statuses and the instruments' names, families and aliases are compared with the base's.
 */
import type { WorkRecord } from '../../schemas/work.ts';
import type { InstrumentRecord, ProfileRecord } from '../../schemas/profile.ts';
import { workSummary } from '../records.ts';
import { indexWork } from '../works-query.ts';
import type { ResolveCatalog } from '../resolve/catalog.ts';
import { mergeResolveCatalog } from '../resolve/catalog-merge.ts';
import type { WorksIndex } from './works-index.ts';
import { buildWorksOverlay } from './works-overlay.ts';
import { buildResolveOverlay } from './resolve-overlay.ts';
import type { ProfileHead } from './profiles.ts';

export interface ResolveBase {
  /** The base's decoded resolve.idx and works.idx, and the profile heads and instruments of its catalog.json. */
  resolve: ResolveCatalog;
  works: WorksIndex;
  profiles: ProfileHead[];
  instruments: InstrumentRecord[];
  /** Every record the base indexed (any order). */
  records: readonly WorkRecord[];
}

export interface ResolveTarget {
  /** Every record of the new build (any order). */
  records: readonly WorkRecord[];
  /** The slugs the change touched (added, edited or removed). */
  changed: ReadonlySet<string>;
  profiles: ProfileRecord[];
  instruments: InstrumentRecord[];
}

const sameJson = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
const distinct = (records: readonly WorkRecord[], field: 'genre' | 'period') =>
  [...new Set(records.map((r) => r[field]))].sort().join('\n');

export function resolveFromBase(base: ResolveBase, target: ResolveTarget): ResolveCatalog | { reason: string } {
  if (base.works.count !== base.records.length || base.resolve.works.count !== base.records.length)
    return { reason: `the base index holds ${base.works.count} works, its records ${base.records.length}` };
  // What the resolve catalog reads of an instrument (the vocabulary and the instrument expander);
  // the records' other fields (work counts, profiles) change with the works.
  const terms = (list: InstrumentRecord[]) =>
    list.map(({ slug, name, family, aliases }) => [slug, name, family, aliases]);
  if (!sameJson(terms(base.instruments), terms(target.instruments))) return { reason: 'the instruments changed' };
  // What the rows read of a profile: its status (an arrangement whose profiles are all approved).
  const statuses = (list: Array<{ slug: string; status: string }>) =>
    list.map((p) => [p.slug, p.status]).sort((a, b) => (a[0]! < b[0]! ? -1 : a[0]! > b[0]! ? 1 : 0));
  if (!sameJson(statuses(base.profiles), statuses(target.profiles))) return { reason: 'the profiles changed' };
  for (const field of ['genre', 'period'] as const)
    if (distinct(base.records, field) !== distinct(target.records, field))
      return { reason: `the catalog's ${field}s changed (the meaning vocabulary is made from them)` };
  const baseBySlug = new Map(base.records.map((r) => [r.slug, r]));
  const changed = target.records.filter((r) => target.changed.has(r.slug));
  const present = new Set(changed.map((r) => r.slug));
  const removed = [...target.changed].filter((slug) => !present.has(slug) && baseBySlug.has(slug));
  const names = new Map(target.instruments.map((i) => [i.slug, i.aliases]));
  const sortKeys = new Map<number, string>();
  const works = buildWorksOverlay({
    base: base.works,
    baseDigest: 'incremental',
    baseSortKey: (id) => {
      let key = sortKeys.get(id);
      if (key === undefined) {
        const record = baseBySlug.get(base.works.slugs.at(id))!;
        key = indexWork(record, workSummary(record), names).sortKey;
        sortKeys.set(id, key);
      }
      return key;
    },
    instrumentNames: names,
    changed: changed.map((record) => ({ record, summary: workSummary(record) })),
    removed,
  });
  const { overlay, vocabularyChanges } = buildResolveOverlay({
    meaning: base.resolve.meaning,
    profiles: base.profiles,
    instruments: target.instruments,
    changed,
  });
  if (vocabularyChanges.length > 0) return { reason: `new vocabulary terms: ${vocabularyChanges.join(', ')}` };
  return mergeResolveCatalog(base.resolve, works, overlay);
}
