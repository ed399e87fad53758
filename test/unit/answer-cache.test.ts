/** AnswerCache (api/catalog/answer-cache.ts): least recently used out, bounded by entries and bytes. */
import { describe, expect, it } from 'vitest';
import { AnswerCache } from '../../api/catalog/answer-cache.ts';

const answer = (bytes: number) => ({ body: Buffer.alloc(bytes, 1), etag: `"${bytes}"` });

describe('AnswerCache', () => {
  it('keeps at most maxEntries, dropping the least recently used', () => {
    const cache = new AnswerCache(2, 1_000_000);
    cache.set('a', answer(1));
    cache.set('b', answer(2));
    expect(cache.get('a')).toBeDefined(); // a is now the most recent
    cache.set('c', answer(3));
    expect(cache.get('b')).toBeUndefined();
    expect(cache.get('a')?.etag).toBe('"1"');
    expect(cache.get('c')?.etag).toBe('"3"');
  });

  it('keeps its bytes within maxBytes and never stores an answer over an eighth of them', () => {
    const cache = new AnswerCache(100, 800);
    for (let i = 0; i < 20; i++) cache.set(`k${i}`, answer(100));
    expect(cache.size).toBe(8);
    expect(cache.get('k19')).toBeDefined();
    expect(cache.get('k11')).toBeUndefined();
    cache.set('big', answer(101));
    expect(cache.get('big')).toBeUndefined();
  });

  it('replaces an entry under the same key without counting it twice', () => {
    const cache = new AnswerCache(100, 800);
    for (let i = 0; i < 10; i++) cache.set('same', answer(100));
    expect(cache.size).toBe(1);
    for (let i = 0; i < 7; i++) cache.set(`k${i}`, answer(100));
    expect(cache.size).toBe(8);
  });
});
