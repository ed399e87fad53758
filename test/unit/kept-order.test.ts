/**
 * Orders kept between builds (src/lib/site/kept-order.ts): after any change of the items (entries
 * kept, replaced, added, removed), the order equals a full sort of the same items.
 */
import { describe, expect, it } from 'vitest';
import { foldedOf, sortKept } from '../../src/lib/site/kept-order.ts';

interface Entry {
  slug: string;
  title: string;
  composer: { sortName: string };
}
interface Item {
  entry: Entry;
}

const compare = (a: Item, b: Item) =>
  foldedOf(a.entry).title.localeCompare(foldedOf(b.entry).title) || a.entry.slug.localeCompare(b.entry.slug);

// A small deterministic generator, so a failure repeats.
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const TITLES = ['Étude', 'etude', 'Ave Maria', 'Ännchen', 'Zephyr', 'Waltz', 'Nocturne', 'Gymnopédie'];

function entry(next: () => number, n: number): Entry {
  return {
    slug: `work-${n}`,
    title: `${TITLES[Math.floor(next() * TITLES.length)]} ${Math.floor(next() * 20)}`,
    composer: { sortName: 'Satie, Erik' },
  };
}

describe('sortKept', () => {
  it('gives the order of a full sort after every kind of change, build after build', () => {
    const next = random(29);
    const name = `test-${Math.random()}`;
    let serial = 0;
    let entries = Array.from({ length: 400 }, () => entry(next, serial++));
    for (let round = 0; round < 40; round++) {
      // Fresh wrappers each build, as site() makes them; unchanged works keep their entry object.
      const items: Item[] = entries.map((e) => ({ entry: e }));
      const kept = sortKept(name, items, (i) => i.entry, compare);
      expect(kept.map((i) => i.entry.slug)).toEqual([...items].sort(compare).map((i) => i.entry.slug));
      expect(new Set(kept)).toEqual(new Set(items));
      // The next build: a few corrections (a new entry for the same slug), removals and new works.
      entries = entries.filter(() => next() > 0.01);
      entries = entries.map((e) => (next() < 0.02 ? { ...e, title: `${e.title} revised` } : e));
      for (let k = Math.floor(next() * 4); k > 0; k--) entries.push(entry(next, serial++));
      if (round === 20) entries = entries.map((e) => ({ ...e })); // every entry new: a plain sort
    }
  });

  it('sorts plainly when two items share an entry', () => {
    const shared: Entry = { slug: 'b', title: 'B', composer: { sortName: 'X' } };
    const a: Entry = { slug: 'a', title: 'A', composer: { sortName: 'X' } };
    const name = `test-${Math.random()}`;
    sortKept(name, [{ entry: a }, { entry: shared }], (i) => i.entry, compare);
    const items = [{ entry: shared }, { entry: a }, { entry: shared }];
    expect(sortKept(name, items, (i) => i.entry, compare).map((i) => i.entry.slug)).toEqual(['a', 'b', 'b']);
  });
});
