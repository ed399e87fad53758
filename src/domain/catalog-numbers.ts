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

// Catalog numbers written inside titles ("Winterreise, D.911", "String Quartet No.1, Op.18 No.1",
// "Hob.III:24", "K. 525", "BWV 1007") parsed into the catalog's { catalog, number } form, with the
// abbreviations spelled as the catalog spells them ("Op.", "K.", "BWV", "D.", "Hob."). Pure.

export interface ParsedCatalogNumber {
  catalog: string;
  number: string;
}

/** Recognized catalogs: how they appear in a title, and how the catalog writes them. */
const CATALOGS: Array<{ pattern: string; catalog: string }> = [
  { pattern: 'BWV', catalog: 'BWV' },
  { pattern: 'Hob\\.?', catalog: 'Hob.' },
  { pattern: 'WoO', catalog: 'WoO' },
  { pattern: 'Op\\.?', catalog: 'Op.' },
  { pattern: 'KV|K\\.?', catalog: 'K.' },
  { pattern: 'D\\.?', catalog: 'D.' },
];

// A number: digits (Hob. groups in Roman numerals with a colon), an optional letter, and an
// optional "No. n" within an opus ("Op.18 No.1", "Op. 10, No. 5"): the number within the opus is
// part of the number, so "Op. 10 No. 3" and "Op. 10 No. 4" are two numbers, not one "Op. 10";
// likewise a decimal part ("BWV 101.7", one chorale of a cantata, is not "BWV 101.6").
const NUMBER = '((?:[IVXLC]+[a-z]?:)?[0-9]+[a-z]?(?:\\.[0-9]+)?(?:,?\\s*No\\.?\\s*[0-9]+[a-z]?)?)';

const PATTERN_SOURCE = `(?<![\\p{L}\\p{N}])(${CATALOGS.map((c) => c.pattern).join('|')})\\s*${NUMBER}(?![\\p{L}\\p{N}])`;
const PATTERN = new RegExp(PATTERN_SOURCE, 'gu');
/** For what readers type ("op 18", "bwv1007"): any case. */
const PATTERN_ANY_CASE = new RegExp(PATTERN_SOURCE, 'giu');

/** Every catalog number in the text, in order of appearance, without repeats; bounded to 10. */
export function parseCatalogNumbers(text: string, anyCase = false): ParsedCatalogNumber[] {
  const out: ParsedCatalogNumber[] = [];
  const seen = new Set<string>();
  for (const m of text.slice(0, 500).matchAll(anyCase ? PATTERN_ANY_CASE : PATTERN)) {
    const written = m[1]!;
    const entry = CATALOGS.find((c) => new RegExp(`^(?:${c.pattern})$`, anyCase ? 'iu' : 'u').test(written));
    if (!entry) continue;
    const number = m[2]!.replace(/,?\s*No\.?\s*/, ' No. ').trim();
    const key = `${entry.catalog} ${number}`;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push({ catalog: entry.catalog, number });
    if (out.length >= 10) break;
  }
  return out;
}

/** How a catalog number is written as one string ("Op. 18 No. 1", "D. 911", "BWV 1007"). */
export function formatCatalogNumber(n: ParsedCatalogNumber): string {
  return `${n.catalog} ${n.number}`;
}

/** Catalogs as the catalog spells them, by how they may be written ("KV" -> "K.", "op" -> "Op."). */
export function canonicalCatalog(written: string): string {
  const w = written.trim();
  const known = (x: string) => CATALOGS.find((c) => new RegExp(`^(?:${c.pattern})$`, 'iu').test(x))?.catalog;
  return known(w) ?? known(`${w}.`) ?? w;
}

/**
 * Catalog numbers as a table writes them, one or more separated by ";" ("Op. 10 No. 3; K. 458",
 * "BWV 101.7"): each entry's catalog (spelled as the catalog spells it when it is a known one) and
 * its whole number, nothing of it dropped. Entries without a number are left out.
 */
export function catalogNumbersOfList(text: string): ParsedCatalogNumber[] {
  const out: ParsedCatalogNumber[] = [];
  for (const entry of text.slice(0, 500).split(';')) {
    const m = /^\s*([\p{L}][\p{L}.]{0,15})\s*((?:[IVXLC]+[a-z]?:)?[0-9].*?)\s*$/u.exec(entry);
    if (!m) continue;
    const catalog = canonicalCatalog(m[1]!);
    const number = m[2]!
      .replace(/,?\s*No\.?\s*/i, ' No. ')
      .trim()
      .slice(0, 40);
    if (!out.some((n) => n.catalog === catalog && n.number === number))
      out.push({ catalog: catalog.slice(0, 40), number });
    if (out.length >= 10) break;
  }
  return out;
}

/**
 * The keys a catalog number is found by as a whole: its catalog with its main number run together
 * ("Op. 18 No. 1" -> "op18"), and the whole number ("op18no1"). A catalog-number query (below)
 * matches a work that has its key exactly, so "Op. 18" finds Op. 18 and Op. 18 No. 1 to No. 6,
 * never Op. 180 or a work that merely has "Op." and "18" somewhere. The API's listing and the
 * Pagefind index both use these keys, so both find the same works.
 */
export function catalogKeys(written: string): string[] {
  const parts = words(written);
  const main = parts.findIndex((p) => /[0-9]/.test(p));
  if (main < 1) return [];
  return [...new Set([parts.slice(0, main + 1).join(''), parts.join('')])];
}

/** Every catalog key of a work (its workNumber and catalog numbers). */
export function workCatalogKeys(workNumber: string | null, numbers: ParsedCatalogNumber[]): string[] {
  // Catalogs as the catalog spells them, so "KV 525" and "K. 525" have one key.
  const written = [
    ...(workNumber ? parseCatalogNumbers(workNumber, true).map(formatCatalogNumber) : []),
    ...numbers.map((n) => formatCatalogNumber({ catalog: canonicalCatalog(n.catalog), number: n.number })),
  ];
  return [...new Set(written.flatMap(catalogKeys))];
}

/**
 * A query that is one catalog number and nothing else ("Op. 18", "op18", "BWV 1007", "K. 464",
 * "Op. 18 No. 1") answers its key; any other query answers null (and is searched by its words).
 */
export function catalogQueryKey(query: string): string | null {
  const q = query.trim().slice(0, 200);
  if (!WHOLE_QUERY.test(q)) return null;
  const parsed = parseCatalogNumbers(q, true);
  return parsed.length === 1 ? words(formatCatalogNumber(parsed[0]!)).join('') : null;
}
const WHOLE_QUERY = new RegExp(`^(?:${CATALOGS.map((c) => c.pattern).join('|')})\\s*${NUMBER}$`, 'iu');
