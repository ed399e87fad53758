/**
 * Content-defined listing pages (src/domain/listing-pages.ts): bounded pages, the same pages for
 * the same works whatever led to them, and a new or removed work that changes its own page only
 * (unless it is a cut: then its page splits or joins its neighbor).
 */
import { describe, expect, it } from 'vitest';
import {
  commonEnds,
  isCut,
  maxPageWorks,
  minPageWorks,
  pageRange,
  pageStarts,
  patchPageStarts,
  slugHash,
} from '../../src/domain/listing-pages.ts';
import { PROPERTY_BACKSTOP_MS } from '../helpers/property-budget.ts';

const slugs = (n: number, prefix = 'work'): string[] =>
  Array.from({ length: n }, (_, i) => `${prefix}-${String(i).padStart(6, '0')}`);

const startsOf = (list: readonly string[], size: number) => pageStarts(list.length, (i) => list[i]!, size);

/** Each page's works, as lists of slugs. */
const pagesOf = (list: readonly string[], size: number): string[][] => {
  const starts = startsOf(list, size);
  return starts.map((_, i) => {
    const { from, to } = pageRange(starts, list.length, i + 1);
    return list.slice(from, to);
  });
};

/**
 * Each page as a key naming its works: its first and last slug and its length. In a listing of
 * distinct slugs, or in one with a work added or removed, those fix the page's works (a page that
 * keeps its ends but gained or lost a work changes its length), without joining 50,000 slugs a trial.
 */
const pageKeysOf = (list: readonly string[], size: number): string[] => {
  const starts = startsOf(list, size);
  return starts.map((_, i) => {
    const { from, to } = pageRange(starts, list.length, i + 1);
    return `${list[from]} ${list[to - 1]} ${to - from}`;
  });
};

describe('content-defined listing pages', () => {
  it('the hash is a fixed function of the slug', () => {
    expect(slugHash('bach-minuet-in-g')).toBe(slugHash('bach-minuet-in-g'));
    expect(slugHash('bach-minuet-in-g')).not.toBe(slugHash('bach-minuet-in-h'));
    // Pinned: a change of the function moves every page of every listing (each build's page keys
    // change, and every reader's bookmarked page 2.. shows other works).
    expect(slugHash('bach-minuet-in-g')).toBe(128471438);
    expect(slugHash('')).toBe(2872998923);
  });

  it('an empty listing is one empty page', () => {
    expect(startsOf([], 100)).toEqual([0]);
    expect(pageRange([0], 0, 1)).toEqual({ from: 0, to: 0 });
  });

  it('a page of one work each at size 1', () => {
    expect(startsOf(slugs(5), 1)).toEqual([0, 1, 2, 3, 4]);
  });

  it.each([2, 5, 20, 100])('pages at size %i: every work once, in order, within the bounds', (size) => {
    const list = slugs(20_000);
    const pages = pagesOf(list, size);
    expect(pages.flat()).toEqual(list);
    for (const [i, page] of pages.entries()) {
      expect(page.length).toBeLessThanOrEqual(maxPageWorks(size));
      if (i < pages.length - 1) expect(page.length).toBeGreaterThanOrEqual(Math.max(1, minPageWorks(size)));
      // A page starts at a cut, or where the page before it reached the maximum.
      if (i > 0) expect(isCut(page[0]!, size) || pages[i - 1]!.length === maxPageWorks(size)).toBe(true);
    }
    // About `size` works a page on average.
    const mean = list.length / pages.length;
    expect(mean).toBeGreaterThan(size * 0.8);
    expect(mean).toBeLessThan(size * 1.25);
  });

  // 200 trials over 50,000 slugs: bounded by its work, so its timeout is the backstop, not a budget.
  it(
    'a new work changes its own page, and the pages before and after it keep their works',
    () => {
      const size = 100;
      const list = slugs(50_000);
      const before = pageKeysOf(list, size);
      const kept = new Set(before);
      let splits = 0;
      let changedTotal = 0;
      const trials = 200;
      for (let t = 0; t < trials; t++) {
        const at = (t * 7919) % list.length;
        const added = list.toSpliced(at, 0, `new-${t}`);
        const after = pageKeysOf(added, size);
        const changed = after.filter((p) => !kept.has(p)).length;
        changedTotal += changed;
        if (after.length !== before.length) splits++;
        // Its page, or its page split in two; cuts ignored or forced near it may move one more.
        expect(changed).toBeLessThanOrEqual(3);
      }
      // A split about once in `size` new works; on average barely more than one page changes.
      expect(splits).toBeLessThan(trials / 10);
      expect(changedTotal / trials).toBeLessThan(1.2);
    },
    PROPERTY_BACKSTOP_MS,
  );

  it('a removed work changes its own page only (or joins two pages when it started one)', () => {
    const size = 20;
    const list = slugs(10_000);
    const before = new Set(pageKeysOf(list, size));
    for (let at = 0; at < list.length; at += 397) {
      const removed = list.toSpliced(at, 1);
      const after = pageKeysOf(removed, size);
      expect(after.filter((p) => !before.has(p)).length).toBeLessThanOrEqual(3);
    }
  });

  it('refuses a page size below one', () => {
    expect(() => pageStarts(3, () => 'x', 0)).toThrow(RangeError);
  });

  it('the common ends of two listings, by identity', () => {
    const a = ['a', 'b', 'c', 'd', 'e'];
    expect(commonEnds(a, a)).toEqual({ prefix: 5, suffix: 0 });
    expect(commonEnds(a, ['a', 'b', 'x', 'd', 'e'])).toEqual({ prefix: 2, suffix: 2 });
    expect(commonEnds(a, ['a', 'b', 'c', 'x', 'd', 'e'])).toEqual({ prefix: 3, suffix: 2 });
    expect(commonEnds(a, ['b', 'c', 'd', 'e'])).toEqual({ prefix: 0, suffix: 4 });
    // Never overlapping: "a a" after "a" shares one work, not two.
    expect(commonEnds(['a'], ['a', 'a'])).toEqual({ prefix: 1, suffix: 0 });
    expect(commonEnds([], ['a'])).toEqual({ prefix: 0, suffix: 0 });
  });

  it.each([1, 2, 5, 20, 100])('patched starts equal fresh ones after random changes (size %i)', (size) => {
    // A deterministic generator: the same cases every run.
    let seed = size * 7919;
    const next = (n: number) => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed % n;
    };
    let list = slugs(3_000);
    let starts = startsOf(list, size);
    let fresh = 0;
    for (let round = 0; round < 300; round++) {
      const after = list.slice();
      // One to three inserts or removals, near each other or far apart; now and then a run of them.
      const edits = 1 + next(3);
      for (let e = 0; e < edits; e++) {
        const at = next(after.length + 1);
        if (next(2) === 0 && after.length > 0)
          after.splice(Math.min(at, after.length - 1), 1 + (round % 17 === 0 ? next(50) : 0));
        else after.splice(at, 0, `new-${round}-${e}`);
      }
      if (round % 50 === 49) after.length = next(after.length + 1); // a cut at the end
      const patched = patchPageStarts(
        starts,
        list.length,
        after.length,
        commonEnds(list, after),
        (i) => after[i]!,
        size,
      );
      const expected = startsOf(after, size);
      expect(patched).toEqual(expected);
      if (patched.length !== starts.length) fresh++;
      list = after;
      starts = patched;
      if (list.length < 100) list = [...list, ...slugs(3_000, `refill-${round}`)];
      if (list !== after) starts = startsOf(list, size);
    }
    expect(fresh).toBeGreaterThan(0);
  });

  it('a patch reads only the works near the change', () => {
    const list = slugs(100_000);
    const starts = startsOf(list, 100);
    const after = [...list.slice(0, 50_000), 'new-work', ...list.slice(50_000)];
    let read = 0;
    const patched = patchPageStarts(
      starts,
      list.length,
      after.length,
      commonEnds(list, after),
      (i) => {
        read++;
        return after[i]!;
      },
      100,
    );
    expect(patched).toEqual(startsOf(after, 100));
    expect(read).toBeLessThan(2_000);
  });
});
