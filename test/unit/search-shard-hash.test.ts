/**
 * How works are spread over the search index's shards (src/lib/site/search-index.ts, `shardOf`):
 * linear hashing, so a catalog that gains a shard moves the works of one shard only.
 */
import { describe, expect, it } from 'vitest';
import { shardOf } from '../../src/lib/site/search-index.ts';

const slugs = Array.from({ length: 5000 }, (_, i) => `composer-${i % 97}-work-${i}-${(i * 7919) % 1000}`);

describe('search shard hashing', () => {
  it('puts every work in a shard below the count, the same one every time', () => {
    for (const n of [1, 2, 3, 5, 8, 13, 100]) {
      for (const s of slugs.slice(0, 500)) {
        const k = shardOf(s, n);
        expect(k).toBeGreaterThanOrEqual(0);
        expect(k).toBeLessThan(n);
        expect(shardOf(s, n)).toBe(k);
      }
    }
    expect(shardOf('anything', 1)).toBe(0);
    expect(shardOf('anything', 0)).toBe(0);
  });

  it('going from n to n + 1 shards moves works out of one shard (n - 2^L) into the new one only', () => {
    for (let n = 1; n <= 70; n++) {
      let level = 1;
      while (level * 2 <= n) level *= 2;
      const split = n === 1 ? 0 : n - level;
      let moved = 0;
      for (const s of slugs) {
        const before = shardOf(s, n);
        const after = shardOf(s, n + 1);
        if (before !== after) {
          expect([n, s, before, after]).toEqual([n, s, split, n]);
          moved++;
        }
      }
      // About half of the split shard's works move (it holds about 1 / 2^L of them), never more.
      expect(moved).toBeGreaterThan(0);
      expect(moved).toBeLessThan((0.6 * slugs.length) / level + 30);
    }
  });

  it('spreads works evenly enough: no shard is empty, none holds more than twice its share', () => {
    for (const n of [4, 5, 7, 10]) {
      const sizes = new Array<number>(n).fill(0);
      for (const s of slugs) sizes[shardOf(s, n)]!++;
      for (const size of sizes) {
        expect(size).toBeGreaterThan(0);
        expect(size).toBeLessThanOrEqual((2 * slugs.length) / n + 50);
      }
    }
  });
});
