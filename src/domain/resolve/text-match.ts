/**
 * Word matching for resolve, built on the catalog search's folding (`text.ts`): case- and
 * accent-insensitive, every query word matches as a word prefix (single letters and numbers match
 * whole words only). All indexed words live in one
 * sorted vocabulary, so a query word becomes one id range and testing an arrangement's words is
 * integer comparison; that keeps a catalog-wide resolve over 100,000 works within milliseconds.
 */
import { words } from '../text.ts';

/** Words that carry no meaning in a title or a style ("Prelude in C", "flute and strings"). */
const STOP_WORDS = new Set(['a', 'an', 'and', 'the', 'of', 'in', 'on', 'for', 'with', 'to', 'by', 'at', 'from', 'or']);

/** Plural to singular for matching ("strings" finds "string ensemble"); prefixes keep the rest. */
function singular(word: string): string {
  return word.length > 3 && word.endsWith('s') && !word.endsWith('ss') ? word.slice(0, -1) : word;
}

/**
 * The words of a query: folded, punctuation removed, stop words dropped (unless nothing else is
 * left), plurals reduced, duplicates removed.
 */
export function queryWords(text: string | null | undefined): string[] {
  if (text === null || text === undefined) return [];
  const all = words(text);
  const kept = all.filter((w) => !STOP_WORDS.has(w));
  return [...new Set((kept.length > 0 ? kept : all).map(singular))];
}

/** Every form under which a catalog number is typed: "BWV 1007" also as "bwv1007". */
export function catalogNumberWords(catalog: string, number: string): string[] {
  const parts = [...words(catalog), ...words(number)];
  return [...parts, parts.join('')];
}

/** Sorted, de-duplicated words; a word's id is its position, so a prefix is one id range. */
export class Vocabulary {
  readonly words: string[];
  /** Word ids for building (a loaded vocabulary looks words up by binary search instead). */
  private readonly ids: Map<string, number> | null;

  /** From any words; or, with `sorted`, from words already sorted and unique (a loaded index: nothing is rebuilt). */
  constructor(all: Iterable<string>, sorted = false) {
    if (sorted) {
      this.words = all as string[];
      this.ids = null;
    } else {
      this.words = [...new Set(all)].sort();
      this.ids = new Map(this.words.map((w, i) => [w, i]));
    }
  }

  static fromSorted(words: string[]): Vocabulary {
    return new Vocabulary(words, true);
  }

  /** The id of `word`, or undefined. */
  idOf(word: string): number | undefined {
    if (this.ids) return this.ids.get(word);
    const [lo] = this.prefixRange(word);
    return this.words[lo] === word ? lo : undefined;
  }

  /** Ids of `list` (words not in the vocabulary are dropped), sorted and unique. */
  idsOf(list: readonly string[]): number[] {
    const out: number[] = [];
    for (const w of list) {
      const id = this.idOf(w);
      if (id !== undefined) out.push(id);
    }
    out.sort((a, b) => a - b);
    let n = 0;
    for (let k = 0; k < out.length; k++) if (k === 0 || out[k] !== out[n - 1]) out[n++] = out[k]!;
    out.length = n;
    return out;
  }

  /**
   * [first, end) ids of the words a query word matches: words it starts, except that a single
   * letter or a number matches only itself ("C" is a key, not "cello"; "BWV 84" is not "846").
   */
  matchRange(word: string): [number, number] {
    if (word.length === 1 || /^[0-9]+$/.test(word)) {
      const id = this.idOf(word);
      return id === undefined ? [0, 0] : [id, id + 1];
    }
    return this.prefixRange(word);
  }

  /** [first, end) ids of the words that start with `prefix` (two binary searches). */
  prefixRange(prefix: string): [number, number] {
    const w = this.words;
    let lo = 0;
    let hi = w.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (w[mid]! < prefix) lo = mid + 1;
      else hi = mid;
    }
    const first = lo;
    hi = w.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (w[mid]!.startsWith(prefix)) lo = mid + 1;
      else hi = mid;
    }
    return [first, lo];
  }
}

/** A folded query ready to test against id lists: one id range per word, or one id set per word. */
export interface WordQuery {
  text: string;
  words: string[];
  /** Pairs [first, end) per word, flattened (prefix matching: titles and composers). */
  ranges: Int32Array;
  /**
   * Per word, the sorted ids of the whole words it matches (matching by meaning: requirement
   * words; see vocabulary/meaning.ts); null for prefix matching by `ranges`.
   */
  alts: Int32Array[] | null;
}

export function compileQuery(vocab: Vocabulary, text: string): WordQuery {
  const list = queryWords(text);
  const ranges = new Int32Array(list.length * 2);
  list.forEach((w, i) => {
    const [lo, hi] = vocab.matchRange(w);
    ranges[2 * i] = lo;
    ranges[2 * i + 1] = hi;
  });
  return { text, words: list, ranges, alts: null };
}

/**
 * A requirement query matched by meaning: each word becomes the ids of the whole words it may
 * match (itself, its base forms, the words of the terms it is a synonym of; `alternatives`), so a
 * word is never matched inside another ("lo" is not in "solo") and a word the vocabulary does not
 * hold matches nothing.
 */
export function compileMeaningQuery(
  vocab: Vocabulary,
  alternatives: (word: string) => string[],
  text: string,
): WordQuery {
  // Words as sent (no plural guess: "vaporous" is not a plural); word forms come from `alternatives`.
  const all = words(text);
  const kept = all.filter((w) => !STOP_WORDS.has(w));
  const list = [...new Set(kept.length > 0 ? kept : all)];
  const alts = list.map((w) => Int32Array.from(vocab.idsOf(alternatives(w))));
  const ranges = new Int32Array(list.length * 2);
  alts.forEach((a, i) => {
    // A reachable word gets a non-empty range (the bound only asks whether the word can match).
    ranges[2 * i] = a.length > 0 ? a[0]! : 0;
    ranges[2 * i + 1] = a.length > 0 ? a[a.length - 1]! + 1 : 0;
  });
  return { text, words: list, ranges, alts };
}

/** Words of a query that count: the first 31, so a match set fits one integer. */
export function consideredWords(query: WordQuery): number {
  return Math.min(query.words.length, 31);
}

/** Bit i is set when query word i matches one of ids[from .. to) (the word ids of one item). */
export function matchedWordsMask(query: WordQuery, ids: Int32Array, from = 0, to = ids.length): number {
  let mask = 0;
  const n = consideredWords(query);
  const alts = query.alts;
  if (alts) {
    for (let i = 0; i < n; i++) {
      const set = alts[i]!;
      if (set.length === 0) continue;
      found: for (let k = from; k < to; k++) {
        const id = ids[k]!;
        for (let a = 0; a < set.length; a++)
          if (set[a] === id) {
            mask |= 1 << i;
            break found;
          }
      }
    }
    return mask;
  }
  const ranges = query.ranges;
  for (let i = 0; i < n; i++) {
    const lo = ranges[2 * i]!;
    const hi = ranges[2 * i + 1]!;
    if (lo === hi) continue;
    for (let k = from; k < to; k++) {
      const id = ids[k]!;
      if (id >= lo && id < hi) {
        mask |= 1 << i;
        break;
      }
    }
  }
  return mask;
}

/** Set bits of a 32-bit integer (population count, branch-free). */
export function bitCount(mask: number): number {
  let v = mask - ((mask >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  return Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24;
}
