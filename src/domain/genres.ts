/**
 * Genre facets from the content's controlled vocabulary (genres.json): a work's genre is a
 * narrow term ("Suite movement"); browse pages and the search filter group by its broader term
 * ("Chamber music"), so the facet does not fragment into one-work values. A repository without a
 * vocabulary facets by the genre as written.
 */
import type { GenreTerm } from '../schemas/genre.ts';

export function broaderGenre(genres: readonly GenreTerm[] | null, genre: string): string {
  if (!genres) return genre;
  const key = genre.toLowerCase();
  return genres.find((g) => g.name.toLowerCase() === key)?.broader ?? genre;
}

/** The narrower terms under one broader term, in vocabulary order. */
export function narrowerGenres(genres: readonly GenreTerm[] | null, broader: string): string[] {
  return (genres ?? []).filter((g) => g.broader === broader).map((g) => g.name);
}
