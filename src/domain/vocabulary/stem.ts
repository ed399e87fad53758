/**
 * Word forms for matching by meaning: the base forms an inflected English word may come from
 * ("calming", "calmly", "calmer" -> "calm"; "strings" -> "string"; "melodies" -> "melody";
 * "hushed" -> "hush"). No dictionary: every plausible base is offered, and a base only matters
 * when the other side has that word, so a wrong guess ("tending" -> "tende") matches nothing.
 * Conservative on length (a base keeps at least four letters, three for a plural), because a
 * short stem makes unrelated words meet. Pure; input is one folded word (text.ts `words`).
 */

/** [suffix, replacement, shortest base]: inflectional and adverb suffixes only (no derivation). */
const RULES: ReadonlyArray<readonly [string, string, number]> = [
  ['ies', 'y', 3],
  ['ied', 'y', 3],
  ['ier', 'y', 3],
  ['iest', 'y', 3],
  ['ily', 'y', 3],
  ['es', '', 3],
  ['s', '', 3],
  ['ing', '', 4],
  ['ed', '', 4],
  ['er', '', 4],
  ['est', '', 4],
  ['ly', '', 4],
];

/** Words that look inflected but are not ("bass" is no plural, "organ" no comparative). */
const NOT_INFLECTED = new Set([
  'bass',
  'brass',
  'chorus',
  'always',
  'various',
  'serious',
  'famous',
  'series',
  'species',
]);

/** Base forms `word` may be an inflection of (without `word` itself); empty for short words and numbers. */
export function baseForms(word: string): string[] {
  if (word.length <= 3 || NOT_INFLECTED.has(word) || /[0-9]/.test(word)) return [];
  const out = new Set<string>();
  for (const [suffix, replacement, shortest] of RULES) {
    if (!word.endsWith(suffix)) continue;
    if (suffix === 's' && /(ss|us|is)$/.test(word)) continue;
    const base = word.slice(0, -suffix.length) + replacement;
    if (base.length < shortest) continue;
    out.add(base);
    if (suffix === 'ly') out.add(`${base}le`); // "gently" -> "gentle"
    if (replacement === '' && suffix !== 's') {
      // "graced" -> "grace"; "hummed" -> "hum".
      out.add(`${base}e`);
      const n = base.length;
      if (n >= 4 && base[n - 1] === base[n - 2] && !/[lsz]/.test(base[n - 1]!)) out.add(base.slice(0, -1));
    }
  }
  out.delete(word);
  return [...out];
}

/** `word` and its base forms. */
export function wordForms(word: string): string[] {
  return [word, ...baseForms(word)];
}
