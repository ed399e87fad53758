/** Text folding for case- and accent-insensitive matching ("dvorak" finds "Dvořák"). */

const EXTRA_FOLDS: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
};

/** Lower-case, strip diacritics, fold a few letters NFD does not decompose, collapse spaces. */
export function fold(text: string): string {
  return text
    .normalize('NFD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[ßæœøłđðþı]/g, (c) => EXTRA_FOLDS[c] ?? c)
    .replace(/\s+/g, ' ')
    .trim();
}

/**
 * "Dvořák, Antonín" -> "dvorak-antonin": the slug of a name that has none of its own (a person's
 * sort name, a genre), folded, at most 120 characters; never empty.
 */
export function nameSlug(text: string): string {
  return (
    fold(text)
      .replace(/[^a-z0-9]+/g, '-')
      .replace(/^-+|-+$/g, '')
      .slice(0, 120) || 'unnamed'
  );
}

/**
 * German transliterations folded to the letter they stand for, on a folded word: "oe", "ae" and
 * "ue" read as the umlaut's base letter, so "erlkoenig", "Erlkönig" and "Erlkonig" are one word
 * (fold already turned "ö" into "o" and "ß" into "ss"). Applied to indexed and queried words
 * alike, so a word spelled with "oe" that is not an umlaut ("Goethe", "Poe") still finds itself.
 */
export function foldTransliterations(word: string): string {
  // Most words hold none of the pairs; three scans are much cheaper than a regex replace on each.
  if (!word.includes('ae') && !word.includes('oe') && !word.includes('ue')) return word;
  return word.replace(TRANSLITERATED_PAIR, '$1');
}
const TRANSLITERATED_PAIR = /([aou])e/g;

/** Words of a folded text, punctuation removed ("Bach, J.S." -> ["bach", "j", "s"]), transliterations folded. */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const w of fold(text).split(/[^\p{L}\p{N}]+/u)) if (w.length > 0) out.push(foldTransliterations(w));
  return out;
}

/** True when every word of `query` starts some word of `haystack` (order-free prefix match). */
export function matchesAllWords(haystack: string, query: string): boolean {
  const hay = words(haystack);
  return words(query).every((q) => hay.some((h) => h.startsWith(q)));
}
