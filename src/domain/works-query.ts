/**
 * Catalog search for GET /api/v1/works: case- and accent-insensitive, every query word must match
 * (as a word prefix), results in a stable order (composer sort name, then title, then slug), with
 * two refinements for a real corpus:
 *
 * - A query that is one catalog number ("Op. 18", "BWV 1007") finds the works that have that
 *   number as a whole (its key, src/domain/catalog-numbers.ts: Op. 18 and Op. 18 No. 1, never
 *   Op. 180 or a work with "Op." and "18" apart), as the site's search page finds them in Pagefind.
 * - The works whose composer is named by every query word (as a whole word: "Wolf" is Hugo Wolf)
 *   come first, then the others, each part in the stable order: a composer's name ranks that
 *   composer's works above works whose other people share the word ("Johann Wolfgang von Goethe").
 *
 * This file is the reference the catalog index (catalog-index/works-index.ts) and its incremental
 * overlay answer exactly.
 */
import { fold, matchesAllWords, words } from './text.ts';
import { catalogNumberSearchText, catalogQueryKey, workCatalogKeys } from './catalog-numbers.ts';
import type { WorkRecord, WorkSummary } from '../schemas/work.ts';

export { WORKS_DEFAULT_PAGE_SIZE, WORKS_MAX_PAGE_SIZE, QUERY_MAX_LENGTH } from '../schemas/queries.ts';

export interface WorksFilter {
  query?: string;
  genre?: string;
  composer?: string;
  instrument?: string;
  style?: string;
}

/** Pre-folded search fields of one work; built once per build, searched per request. */
export interface IndexedWork {
  summary: WorkSummary;
  sortKey: string;
  all: string;
  genre: string;
  composer: string;
  instrument: string;
  style: string;
}

/** Name forms for a composer: "Johann Sebastian Bach" also yields "J S Bach" and "Bach J S". */
export function composerNameForms(name: string, sortName: string, aliases: string[]): string {
  const parts = words(name);
  const last = parts.at(-1) ?? '';
  const initials = parts
    .slice(0, -1)
    .map((p) => p[0])
    .join(' ');
  return [name, sortName, ...aliases, `${initials} ${last}`, `${last} ${initials}`].map(fold).join(' | ');
}

export function indexWork(
  record: WorkRecord,
  summary: WorkSummary,
  instrumentNames: Map<string, string[]>,
): IndexedWork {
  const composer = composerNameForms(record.composer.name, record.composer.sortName, record.composer.aliases);
  const instrument = record.instruments
    .flatMap((i) => [i.slug, i.name, ...(instrumentNames.get(i.slug) ?? [])])
    .map(fold)
    .join(' | ');
  const style = record.arrangements
    .flatMap((a) => [a.style, ...a.moods])
    .map(fold)
    .join(' | ');
  const catalog = [
    ...[record.workNumber ?? '', ...record.catalogNumbers.map((n) => `${n.catalog} ${n.number}`)].map(
      catalogNumberSearchText,
    ),
    // Whole catalog numbers as one word each ("op18", "op18no1"): what a catalog-number query matches.
    ...workCatalogKeys(record.workNumber, record.catalogNumbers),
  ].join(' | ');
  const genre = fold(record.genre);
  const all = [
    fold(record.title),
    fold(record.originalTitle ?? ''),
    ...(record.aliases ?? []).map(fold),
    composer,
    fold(record.lyricist?.name ?? ''),
    catalog,
    genre,
    fold(record.period),
    instrument,
    style,
    fold(record.key ?? ''),
  ].join(' | ');
  return {
    summary,
    sortKey: `${fold(record.composer.sortName)}\u0000${fold(record.title)}\u0000${record.slug}`,
    all,
    genre,
    composer,
    instrument,
    style,
  };
}

/** Matches every word of `query` against a folded field (a phrase of several name forms). */
function fieldMatches(field: string, query: string | undefined): boolean {
  if (query === undefined || query.trim() === '') return true;
  return matchesAllWords(field, query);
}

/**
 * The distinct words of a filter value that constrain the answer: a word that starts another
 * word of the same value is implied by it ("bach b" matches what "bach" matches).
 */
export function constrainingWords(value: string): string[] {
  const list = [...new Set(words(value))];
  return list.filter((w) => !list.some((other) => other !== w && other.startsWith(w)));
}

/** The words of a `query` whose works' composers come first: none for a catalog-number query. */
export function composerRankWords(query: string | undefined): string[] {
  if (query === undefined || query.trim() === '' || catalogQueryKey(query) !== null) return [];
  const list = constrainingWords(query);
  // Initials alone ("a", "j s") name no one: every "A. Dvořák" and "W. A. Mozart" would come first.
  return list.some((w) => w.length >= 2) ? list : [];
}

/**
 * Of these composer names, those every ranking word of the query names as a whole word ("Wolf":
 * "Hugo Wolf", not "Johann Wolfgang von Goethe"): the search page lists their works first, as
 * the catalog search does (it asks Pagefind for them by its composer filter, then for the rest).
 */
export function namedComposers(query: string | undefined, names: Iterable<string>): string[] {
  const rank = composerRankWords(query);
  if (rank.length === 0) return [];
  const out: string[] = [];
  for (const name of names) {
    const own = words(name);
    if (rank.every((q) => own.includes(q))) out.push(name);
  }
  return out;
}

/** Whether the work's query matches: by catalog key for a catalog-number query, else by words. */
function queryMatches(w: IndexedWork, query: string | undefined): boolean {
  const key = query === undefined ? null : catalogQueryKey(query);
  return key !== null ? words(w.all).includes(key) : fieldMatches(w.all, query);
}

export function filterWorks(index: IndexedWork[], f: WorksFilter): IndexedWork[] {
  const rank = composerRankWords(f.query);
  const first = (w: IndexedWork) => {
    if (rank.length === 0) return 0;
    const names = words(w.composer);
    return rank.every((q) => names.includes(q)) ? 0 : 1;
  };
  return index
    .filter(
      (w) =>
        queryMatches(w, f.query) &&
        fieldMatches(w.genre, f.genre) &&
        fieldMatches(w.composer, f.composer) &&
        fieldMatches(w.instrument, f.instrument) &&
        fieldMatches(w.style, f.style),
    )
    .map((w) => ({ w, tier: first(w) }))
    .sort((a, b) => a.tier - b.tier || (a.w.sortKey < b.w.sortKey ? -1 : a.w.sortKey > b.w.sortKey ? 1 : 0))
    .map((x) => x.w);
}

export interface PageSlice<T> {
  items: T[];
  page: number;
  pageSize: number;
  total: number;
  totalPages: number;
}

export function paginate<T>(items: T[], page: number, pageSize: number): PageSlice<T> {
  const totalPages = Math.ceil(items.length / pageSize);
  return {
    items: items.slice((page - 1) * pageSize, page * pageSize),
    page,
    pageSize,
    total: items.length,
    totalPages,
  };
}
