/** The small pure parts of resolve: format names, word matching, the ranking order and best-K selection. */
import { describe, expect, it } from 'vitest';
import { normalizeFormat, normalizeFormats, assetReviewPasses } from '../../src/domain/resolve/formats.ts';
import {
  Vocabulary,
  compileQuery,
  matchedWordsMask,
  queryWords,
  catalogNumberWords,
} from '../../src/domain/resolve/text-match.ts';
import { TopK, compareRanked, packKey, type Scored } from '../../src/domain/resolve/rank.ts';
import { durationTolerance } from '../../src/domain/resolve/evaluate.ts';

describe('formats', () => {
  it.each([
    ['MP3', 'mp3', ['mp3']],
    [' .mp3 ', 'mp3', ['mp3']],
    ['MusicXML', 'musicxml', ['musicxml', 'mxl']],
    ['music-xml', 'musicxml', ['musicxml', 'mxl']],
    ['mxl', 'mxl', ['mxl']],
    ['mid', 'midi', ['midi']],
    ['WAVE', 'wav', ['wav']],
    ['pdf', 'score-pdf', ['score-pdf']],
    ['flac', 'flac', []],
  ])('%j is %s, satisfied by %j', (text, format, kinds) => {
    expect(normalizeFormat(text)).toMatchObject({ format, kinds });
  });
  it('de-duplicates after normalization, keeping request order', () => {
    expect(normalizeFormats(['mp3', 'MusicXML', 'MP3', 'musicxml']).map((f) => f.format)).toEqual(['mp3', 'musicxml']);
  });
  it('audio needs listening approval; other files a human review; rights review never passes', () => {
    expect(assetReviewPasses('mp3', 'human-listening-approved')).toBe(true);
    expect(assetReviewPasses('mp3', 'human-reviewed')).toBe(false);
    expect(assetReviewPasses('mp3', 'technical-pass')).toBe(false);
    expect(assetReviewPasses('musicxml', 'human-reviewed')).toBe(true);
    expect(assetReviewPasses('musicxml', 'technical-pass')).toBe(false);
    expect(assetReviewPasses('midi', 'rights-review-required')).toBe(false);
  });
});

describe('word matching', () => {
  const vocab = new Vocabulary([
    'cello',
    'c',
    'string',
    'strings',
    'ensemble',
    'harpsichord',
    'bwv',
    '846',
    '8460',
    'bwv846',
    'calm',
  ]);
  const ids = (...w: string[]) => Int32Array.from(vocab.idsOf(w));
  it('folds case and accents, drops stop words and plurals', () => {
    expect(queryWords('Strings and Flûtes')).toEqual(['string', 'flute']);
    expect(queryWords('The')).toEqual(['the']);
    expect(queryWords(null)).toEqual([]);
  });
  it('catalog numbers are also matched joined', () => {
    expect(catalogNumberWords('BWV', '1007')).toEqual(['bwv', '1007', 'bwv1007']);
  });
  it('a word matches as a prefix; single letters and numbers only as whole words', () => {
    const q = compileQuery(vocab, 'string ensemble');
    expect(matchedWordsMask(q, ids('strings', 'ensemble'))).toBe(0b11);
    expect(matchedWordsMask(compileQuery(vocab, 'C'), ids('cello'))).toBe(0);
    expect(matchedWordsMask(compileQuery(vocab, 'C'), ids('c'))).toBe(1);
    expect(matchedWordsMask(compileQuery(vocab, '846'), ids('8460'))).toBe(0);
    expect(matchedWordsMask(compileQuery(vocab, 'bwv84'), ids('bwv846'))).toBe(1);
    expect(matchedWordsMask(compileQuery(vocab, 'calm harpsichord'), ids('harpsichord'))).toBe(0b10);
  });
  it('a word the vocabulary lacks matches nothing', () => {
    expect(matchedWordsMask(compileQuery(vocab, 'organ'), ids('cello', 'calm'))).toBe(0);
  });
});

describe('duration tolerance', () => {
  it('is 10% of the target, at least 3 seconds', () => {
    expect(durationTolerance(10)).toBe(3);
    expect(durationTolerance(60)).toBe(6);
    expect(durationTolerance(14400)).toBe(1440);
  });
});

describe('ranking order', () => {
  // Arrangement columns for the tie-breaks, indexed by arrangement index.
  const cols = { rank: new Int32Array(300), slugOrder: new Int32Array(300), id: new Int32Array(300) };
  let next = 0;
  type Over = {
    ready?: boolean;
    roleFit?: boolean;
    musicFit?: boolean;
    score?: number;
    rank?: number;
    slugOrder?: number;
    id: number;
  };
  const scored = (over: Over): Scored => {
    const index = next++;
    cols.rank[index] = over.rank ?? 1;
    cols.slugOrder[index] = over.slugOrder ?? 0;
    cols.id[index] = over.id;
    return {
      index,
      key: packKey({
        ready: over.ready ?? false,
        roleFit: over.roleFit ?? true,
        musicFit: over.musicFit ?? true,
        score: over.score ?? 50,
      }),
    };
  };
  const compare = (x: Scored, y: Scored) => compareRanked(cols, x.key, x.index, y.key, y.index);
  it('ready, role fit, music fit, score, rank, slug, id — each only breaks ties of the ones before', () => {
    const list = [
      scored({ id: 7, slugOrder: 2 }),
      scored({ id: 6, slugOrder: 1 }),
      scored({ id: 5, rank: 2 }),
      scored({ id: 4, score: 90 }),
      scored({ id: 3, musicFit: false, score: 99 }),
      scored({ id: 2, roleFit: false, score: 100 }),
      scored({ id: 1, ready: true, score: 10, rank: 9, slugOrder: 9 }),
      scored({ id: 8, slugOrder: 1 }),
    ];
    expect([...list].sort(compare).map((s) => cols.id[s.index])).toEqual([1, 4, 6, 8, 7, 5, 3, 2]);
  });
  it('best-K keeps exactly what a full sort would, whatever the order offered', () => {
    const items = Array.from({ length: 200 }, (_, i) =>
      scored({ id: i + 1000, score: (i * 37) % 101, rank: 1 + (i % 3), slugOrder: i % 17, ready: i % 11 === 0 }),
    );
    const expected = [...items].sort(compare).slice(0, 10);
    for (const offered of [items, [...items].reverse()]) {
      const top = new TopK(10, cols);
      for (const item of offered) top.offer(item.key, item.index);
      expect(top.result()).toEqual(expected);
    }
  });
});
