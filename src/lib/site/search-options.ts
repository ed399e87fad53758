/**
 * The search page's filters (src/pages/search/index.astro): every composer name, broader genre and
 * instrument name the works use, each list sorted. The page is catalog-wide, so every build renders
 * it, an apply's included; the values are counted per work, and a build whose site data was patched
 * from the last one's (src/lib/site-data.ts, `siteDelta`) patches the last counts with its removed
 * and added works instead of walking the catalog (about 0.1 s of every apply at 100,000 works).
 */
import { broaderGenre } from '../../domain/genres.ts';
import { site, siteDelta, type SiteData, type SiteWork } from '../site-data.ts';

export const SEARCH_FILTERS = ['composer', 'genre', 'instrument'] as const;
export type SearchFilter = (typeof SEARCH_FILTERS)[number];
export type SearchOptions = Record<SearchFilter, string[]>;

type Counts = Record<SearchFilter, Map<string, number>>;
interface Kept {
  counts: Counts;
  options: SearchOptions;
}

// Keyed by the site data: each Astro run imports its own copy of this module.
const SHELF = Symbol.for('pdma.build.searchOptions');
const shelf = globalThis as { [SHELF]?: WeakMap<SiteData, Kept> };

function count(counts: Counts, data: SiteData, work: SiteWork, by: 1 | -1): void {
  const add = (filter: SearchFilter, value: string) => {
    const map = counts[filter];
    const n = (map.get(value) ?? 0) + by;
    if (n === 0) map.delete(value);
    else map.set(value, n);
  };
  add('composer', work.entry.composer.name);
  add('genre', broaderGenre(data.catalog.genres, work.entry.genre));
  for (const instrument of work.entry.instruments) add('instrument', instrument.name);
}

const sorted = (values: Iterable<string>) => [...values].sort((a, b) => a.localeCompare(b));

/** The filters' values for this build's works (distinct, sorted). */
export function searchOptions(): SearchOptions {
  const data = site();
  const kept = (shelf[SHELF] ??= new WeakMap());
  const made = kept.get(data);
  if (made) return made.options;
  const delta = siteDelta(data);
  const last = delta ? kept.get(delta.from) : undefined;
  let counts: Counts;
  if (delta && last) {
    counts = {
      composer: new Map(last.counts.composer),
      genre: new Map(last.counts.genre),
      instrument: new Map(last.counts.instrument),
    };
    for (const work of delta.removed) count(counts, delta.from, work, -1);
    for (const work of delta.added) count(counts, data, work, 1);
  } else {
    counts = { composer: new Map(), genre: new Map(), instrument: new Map() };
    for (const work of data.works) count(counts, data, work, 1);
  }
  const options = {} as SearchOptions;
  for (const filter of SEARCH_FILTERS) {
    const before = last?.options[filter];
    // The same values as the last build's keep its sorted list.
    options[filter] =
      before && before.length === counts[filter].size && before.every((v) => counts[filter].has(v))
        ? before
        : sorted(counts[filter].keys());
  }
  kept.set(data, { counts, options });
  return options;
}
