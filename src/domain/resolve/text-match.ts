/**
 * Word matching for resolve, built on the catalog search's folding (`text.ts`): case- and
 * accent-insensitive, every query word matches as a word prefix (single letters and numbers match
 * whole words only). All indexed words live in one
 * sorted vocabulary, so a query word becomes one id range and testing an arrangement's words is
 * integer comparison; that keeps a catalog-wide resolve over 100,000 works within milliseconds.
 */
import { words } from '../text.ts';

/** Words that carry no meaning in a title or a style ("Prelude in C", "flute and strings"). */
export const STOP_WORDS = new Set([
  'a',
  'an',
  'and',
  'the',
  'of',
  'in',
  'on',
  'for',
  'with',
  'to',
  'by',
  'at',
  'from',
  'or',
]);

/** Words that only mark the catalog number after them ("No. 2", "Op. 9", "Nr. 3"). */
const NUMBER_MARKS = new Set(['no', 'nos', 'nr', 'op', 'opus']);

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
  // "No. 1", "Op. 9": the number is the catalog number; "no" and "op" are not words to find (a
  // title word "no" would start "nocturne").
  const all = words(text).filter((w, i, list) => !(NUMBER_MARKS.has(w) && /^[0-9]/.test(list[i + 1] ?? '')));
  const kept = all.filter((w) => !STOP_WORDS.has(w));
  return [...new Set((kept.length > 0 ? kept : all).map(singular))];
}

/** A text without its parenthesized qualifiers ("Celesta (music-box voice)" names a celesta, not a voice). */
export function withoutQualifiers(text: string): string {
  return text.replace(/\([^)]*\)/g, ' ');
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
    return prefixRange(this.words, prefix);
  }
}

/** The first position in the sorted words whose word is not below `value` (where it stands or would go). */
export function lowerBound(list: readonly string[], value: string): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** [first, end) of the sorted words that start with `prefix`. */
export function prefixRange(list: readonly string[], prefix: string): [number, number] {
  const first = lowerBound(list, prefix);
  return [first, prefixEnd(list, prefix, first)];
}

/** The first of the sorted words from `from` on that does not start with `prefix` (those that do are contiguous). */
export function prefixEnd(list: readonly string[], prefix: string, from: number): number {
  let lo = from;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]!.startsWith(prefix)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** A folded query ready to test against id lists: one id range per word, or one id set per word. */
export interface WordQuery {
  text: string;
  /** Folded words (or phrases: "laid back") in order. */
  words: string[];
  /** Each word as the request wrote it (for the reasons: "Baroque", not "baroqu"). */
  shown: string[];
  /** Pairs [first, end) per word, flattened (prefix matching: titles and composers). */
  ranges: Int32Array;
  /**
   * Per word, the sorted ids of the field tokens it may meet (matching by meaning: requirement
   * words; see vocabulary/meaning.ts); null for prefix matching by `ranges`.
   */
  alts: Int32Array[] | null;
  /** Per word, the grade of meeting each of `alts` (vocabulary/meaning.ts GRADE). */
  grades: Uint8Array[] | null;
  /** Per word, its best grade in this vocabulary (0: it can meet nothing). */
  maxGrade: Uint8Array | null;
  /** Bits of the words that are constraints ("no vocals"): a match there fails the field. */
  negated: number;
  /** Set by `matchedWordsMask`: the sum of the best grades of the words matched (not the negated). */
  grade: number;
}

export function compileQuery(vocab: Vocabulary, text: string): WordQuery {
  const list = queryWords(text);
  const ranges = new Int32Array(list.length * 2);
  list.forEach((w, i) => {
    const [lo, hi] = vocab.matchRange(w);
    ranges[2 * i] = lo;
    ranges[2 * i + 1] = hi;
  });
  return { text, words: list, shown: list, ranges, alts: null, grades: null, maxGrade: null, negated: 0, grade: 0 };
}

/**
 * Words that carry no requirement in a brief: function words, hedges, and the words for what the
 * music is for ("a calm bed for the intro of a video"): dropped, so they never count as words
 * that matched nothing, nor match a word of a title ("no" is not "No. 1").
 */
export const FUNCTION_WORDS = new Set([
  ...STOP_WORDS,
  'but',
  'some',
  'something',
  'anything',
  'any',
  'kind',
  'sort',
  'bit',
  'lot',
  'very',
  'really',
  'quite',
  'rather',
  'more',
  'less',
  'much',
  'too',
  'so',
  'feel',
  'feeling',
  'vibe',
  'vibes',
  'sound',
  'sounding',
  'sounds',
  'type',
  'please',
  'maybe',
  'just',
  'only',
  'also',
  'that',
  'this',
  'these',
  'those',
  'it',
  'its',
  'is',
  'are',
  'be',
  'as',
  'into',
  'over',
  'under',
  'behind',
  'our',
  'my',
  'your',
  'we',
  'i',
  'me',
  'you',
  'stuff',
  'track',
  'tracks',
  'tune',
  'tunes',
  'music',
  'piece',
  'pieces',
  'bed',
  'beds',
  'intro',
  'outro',
  'opener',
  'lead',
  'loop',
  'loops',
  'sting',
  'cue',
  'video',
  'videos',
  'vlog',
  'podcast',
  'channel',
  'episode',
  'scene',
  'segment',
  'show',
  'film',
  'style',
  'mood',
  'moods',
  'tone',
  'ish',
  'one',
  'bit',
  's',
]);

/** Words that make the next word a constraint ("no vocals", "not sad", "without drums"). */
const NEGATORS = new Set(['no', 'not', 'without', 'non', 'never', 'nothing', 'zero', 'minus', 'avoid', 'except']);
/** Words that stand for a constraint themselves: "instrumental" is "no vocals". */
const IMPLIED_NEGATIONS: Readonly<Record<string, string>> = { instrumental: 'vocals', instrumentals: 'vocals' };
/** Catalog numbers inside a brief ("No. 1", "Op. 9", "BWV 1007"): never words to match. */
const CATALOG_TOKEN = /\b(?:no|nos|nr|op|opus|bwv|hwv|kv|k|d|rv|woo|l|p|hob|s)\.?\s*[0-9]+[a-z]?\b/giu;

/** One word of a brief: folded, as written, and whether it is a constraint. */
interface BriefWord {
  folded: string;
  shown: string;
  negated: boolean;
}

/**
 * The words of a requirement as a brief writes them: catalog tokens and function words dropped,
 * vocabulary phrases read as one word (`phrase`), constraints marked ("no vocals", "not sad",
 * "without drums", "instrumental", "vocal-free").
 */
export function briefWords(text: string, phrase: (folded: string) => boolean): BriefWord[] {
  const parts: Array<{ folded: string; shown: string }> = [];
  for (const raw of text.replace(CATALOG_TOKEN, ' ').split(/[^\p{L}\p{N}]+/u)) {
    const folded = words(raw)[0];
    if (folded !== undefined) parts.push({ folded, shown: raw });
  }
  const out: BriefWord[] = [];
  let negate = false;
  for (let i = 0; i < parts.length;) {
    const p = parts[i]!;
    if (NEGATORS.has(p.folded)) {
      negate = true;
      i++;
      continue;
    }
    // The longest vocabulary phrase starting here ("laid back", "string quartet").
    let n = 1;
    for (let m = Math.min(4, parts.length - i); m >= 2; m--)
      if (
        phrase(
          parts
            .slice(i, i + m)
            .map((x) => x.folded)
            .join(' '),
        )
      ) {
        n = m;
        break;
      }
    const group = parts.slice(i, i + n);
    i += n;
    const folded = group.map((x) => x.folded).join(' ');
    if (n === 1 && (FUNCTION_WORDS.has(folded) || /^[0-9]+$/.test(folded))) continue;
    const shown = group.map((x) => x.shown).join(' ');
    // "vocal-free", "drum free": a constraint on the word before.
    if (parts[i]?.folded === 'free') {
      out.push({ folded, shown: `${shown} free`, negated: true });
      i++;
      negate = false;
      continue;
    }
    const implied = IMPLIED_NEGATIONS[folded];
    if (implied) out.push({ folded: implied, shown, negated: true });
    else out.push({ folded, shown, negated: negate });
    negate = false;
  }
  const seen = new Set<string>();
  return out.filter((w) => !seen.has(`${w.negated}:${w.folded}`) && seen.add(`${w.negated}:${w.folded}`));
}

/** What `compileMeaningQuery` needs of the meaning vocabulary. */
export interface MeaningLookup {
  isPhrase(folded: string): boolean;
  alternatives(token: string): ReadonlyArray<{ token: string; grade: number }>;
}

/**
 * A requirement query matched by meaning: each word (or phrase) becomes the ids of the field
 * tokens it may meet, each with the grade of that meeting (`alternatives`), so a word is never
 * matched inside another ("lo" is not in "solo") and a word the vocabulary does not hold matches
 * nothing. Null when nothing is left to match.
 */
export function compileMeaningQuery(vocab: Vocabulary, meaning: MeaningLookup, text: string): WordQuery {
  const list = briefWords(text, (f) => meaning.isPhrase(f));
  const alts: Int32Array[] = [];
  const grades: Uint8Array[] = [];
  const maxGrade = new Uint8Array(list.length);
  let negated = 0;
  list.forEach((w, i) => {
    const pairs: Array<[number, number]> = [];
    for (const a of meaning.alternatives(w.folded)) {
      const id = vocab.idOf(a.token);
      if (id !== undefined) pairs.push([id, a.grade]);
    }
    pairs.sort((x, y) => x[0] - y[0]);
    alts.push(Int32Array.from(pairs, (p) => p[0]));
    grades.push(Uint8Array.from(pairs, (p) => p[1]));
    maxGrade[i] = pairs.reduce((m, p) => Math.max(m, p[1]), 0);
    if (w.negated && i < 31) negated |= 1 << i;
  });
  const ranges = new Int32Array(list.length * 2);
  alts.forEach((a, i) => {
    // A reachable word gets a non-empty range (the bound only asks whether the word can match).
    ranges[2 * i] = a.length > 0 ? a[0]! : 0;
    ranges[2 * i + 1] = a.length > 0 ? a[a.length - 1]! + 1 : 0;
  });
  return {
    text,
    words: list.map((w) => w.folded),
    shown: list.map((w) => w.shown),
    ranges,
    alts,
    grades,
    maxGrade,
    negated,
    grade: 0,
  };
}

/** Words of a query that count: the first 31, so a match set fits one integer. */
export function consideredWords(query: WordQuery): number {
  return Math.min(query.words.length, 31);
}

/**
 * Bit i is set when query word i matches one of ids[from .. to) (the sorted word ids of one
 * item). Matching by meaning also leaves in `query.grade` the sum of the best grades of the
 * matched words that are not constraints.
 */
export function matchedWordsMask(query: WordQuery, ids: Int32Array, from = 0, to = ids.length): number {
  let mask = 0;
  const n = consideredWords(query);
  const alts = query.alts;
  if (alts) {
    const grades = query.grades!;
    let total = 0;
    for (let i = 0; i < n; i++) {
      const set = alts[i]!;
      if (set.length === 0) continue;
      const g = grades[i]!;
      let best = 0;
      // Both lists ascending: one merge.
      let a = 0;
      let k = from;
      while (a < set.length && k < to) {
        const x = set[a]!;
        const y = ids[k]!;
        if (x < y) a++;
        else if (y < x) k++;
        else {
          if (g[a]! > best) best = g[a]!;
          a++;
          k++;
        }
      }
      if (best > 0) {
        mask |= 1 << i;
        if ((query.negated & (1 << i)) === 0) total += best;
      }
    }
    query.grade = total;
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
