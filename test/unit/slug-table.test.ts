/**
 * The slug table of a changed order made from its base's (`SlugTable.splice`, what an
 * incremental build's index merge uses) is the table `fromList` makes of the same slugs, and
 * its checks (`duplicate`, `equals`) find what they name.
 */
import { describe, expect, it } from 'vitest';
import { SlugTable } from '../../src/domain/catalog-index/slug-table.ts';

/** A small deterministic generator, so a failure names its seed. */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const sameTable = (a: SlugTable, b: SlugTable) => {
  expect(a.toArray()).toEqual(b.toArray());
  expect([...a.bySlug]).toEqual([...b.bySlug]);
  expect(a.equals(b)).toBe(true);
};

describe('SlugTable.splice', () => {
  it('equals fromList over the changed order, for random removals and additions', () => {
    for (let seed = 1; seed <= 40; seed++) {
      const rand = random(seed);
      const pick = (n: number) => Math.floor(rand() * n);
      const alphabet = ['a', 'b', 'é', 'z', '-', '1', 'ß'];
      const word = () => Array.from({ length: 1 + pick(6) }, () => alphabet[pick(alphabet.length)]).join('');
      const baseSlugs = [...new Set(Array.from({ length: 1 + pick(60) }, word))];
      // Listing order is not slug order: shuffle.
      baseSlugs.sort(() => rand() - 0.5);
      const base = SlugTable.fromList(baseSlugs);
      const kept = new Set(baseSlugs.filter(() => rand() > 0.2));
      const added = [...new Set(Array.from({ length: pick(8) }, word))].filter((s) => !kept.has(s));
      // The new order: the kept base ids in order, each added slug somewhere among them.
      const items: number[] = baseSlugs.flatMap((s, id) => (kept.has(s) ? [id] : []));
      added.forEach((_, k) => items.splice(pick(items.length + 1), 0, ~k));
      const spliced = SlugTable.splice(base, Int32Array.from(items), added);
      const fresh = SlugTable.fromList(items.map((it) => (it >= 0 ? baseSlugs[it]! : added[~it]!)));
      sameTable(spliced, fresh);
      expect(spliced.duplicate(), `seed ${seed}`).toBeNull();
      for (const slug of [...kept, ...added]) expect(spliced.at(spliced.indexOf(slug))).toBe(slug);
    }
  });

  it('keeps an added slug that a removed base work had (a rename back, a removal and re-addition)', () => {
    const base = SlugTable.fromList(['c', 'a', 'b']);
    const spliced = SlugTable.splice(base, Int32Array.from([0, ~0, 2]), ['a']);
    sameTable(spliced, SlugTable.fromList(['c', 'a', 'b']));
  });
});

describe('SlugTable checks', () => {
  it('duplicate names a slug listed twice, and only then', () => {
    expect(SlugTable.fromList(['b', 'a', 'c']).duplicate()).toBeNull();
    expect(SlugTable.fromList(['b', 'a', 'b']).duplicate()).toBe('b');
    // Equal lengths, different bytes; a prefix of another slug.
    expect(SlugTable.fromList(['ab', 'ba', 'a', 'abc']).duplicate()).toBeNull();
    // Added beside a live base work of the same slug.
    const base = SlugTable.fromList(['a', 'b']);
    expect(SlugTable.splice(base, Int32Array.from([0, 1, ~0]), ['b']).duplicate()).toBe('b');
  });

  it('equals compares slugs by id, not as sets', () => {
    expect(SlugTable.fromList(['a', 'b']).equals(SlugTable.fromList(['a', 'b']))).toBe(true);
    expect(SlugTable.fromList(['a', 'b']).equals(SlugTable.fromList(['b', 'a']))).toBe(false);
    expect(SlugTable.fromList(['ab', 'c']).equals(SlugTable.fromList(['a', 'bc']))).toBe(false);
    expect(SlugTable.fromList(['a']).equals(SlugTable.fromList(['a', 'b']))).toBe(false);
  });
});
