/**
 * The words of a catalog query that rank and constrain: which words of a filter value constrain
 * the answer, which rank a named composer's works first, and which composers they name. No schema
 * and no catalog here: the search page's browser script imports it (src/scripts/search.ts), and
 * src/domain/works-query.ts re-exports it for the server's indexes.
 */
import { words } from './text.ts';
import { catalogQueryKey } from './catalog-numbers.ts';

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
