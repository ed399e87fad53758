/**
 * How catalog numbers are searched: a reader types "BWV 1007", "bwv1007" or "BWV1007" for the
 * same work, so the searched text of a catalog number holds its words and the same words run
 * together. Kept apart from the folding of other text (`text.ts`) so each can change on its own.
 */
import { fold, words } from './text.ts';

/** "BWV 1007" -> "bwv 1007 bwv1007"; "Op. 27 No. 2" -> "op 27 no 2 op27no2" (so "op27" finds it by prefix). */
export function catalogNumberSearchText(text: string): string {
  const parts = words(text);
  if (parts.length < 2) return fold(text);
  return `${parts.join(' ')} ${parts.join('')}`;
}
