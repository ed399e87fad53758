/**
 * Filters for GET /api/v1/library/tracks. Text matching folds case and accents like the catalog
 * search; list filters (intendedUse, channel) match whole entries, case-insensitively.
 */
import type { MusicLibraryTrackInput, TracksQuery } from '../../schemas/library.ts';
import { fold, matchesAllWords } from '../text.ts';

function listHas(list: string[] | null, wanted: string): boolean {
  const w = fold(wanted);
  return (list ?? []).some((entry) => fold(entry) === w);
}

export function trackMatches(track: MusicLibraryTrackInput, q: TracksQuery): boolean {
  if (q.query !== undefined && q.query.trim() !== '') {
    const hay = [
      track.stableKey,
      track.title,
      track.composer,
      track.collection,
      track.genre,
      track.description,
      ...(track.tags ?? []),
    ]
      .filter((x): x is string => typeof x === 'string')
      .join(' ');
    if (!matchesAllWords(hay, q.query)) return false;
  }
  if (q.collection !== undefined && fold(track.collection) !== fold(q.collection)) return false;
  if (q.genre !== undefined && !matchesAllWords(track.genre ?? '', q.genre)) return false;
  if (q.sourceType !== undefined && track.sourceType !== q.sourceType) return false;
  if (q.intendedUse !== undefined && !listHas(track.intendedUses, q.intendedUse)) return false;
  if (q.channel !== undefined && !listHas(track.channelKeys, q.channel)) return false;
  return true;
}

/** Stable order: collection, then title, then stableKey. */
export function compareTracks(a: MusicLibraryTrackInput, b: MusicLibraryTrackInput): number {
  const ka = `${fold(a.collection)}\u0000${fold(a.title)}\u0000${a.stableKey}`;
  const kb = `${fold(b.collection)}\u0000${fold(b.title)}\u0000${b.stableKey}`;
  return ka < kb ? -1 : ka > kb ? 1 : 0;
}
