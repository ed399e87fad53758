import { describe, expect, it } from 'vitest';
import { compareEntries, otherWorksInTree, serializeTree } from '../../api/site/git-tree.ts';
import { otherWorksFrom } from '../../src/domain/content-lint.ts';

/** A works/ tree's body holding these folders (in git's order, each with a made-up id). */
const treeOf = (folders: string[]) =>
  serializeTree(
    folders
      .map((f, i) => ({ mode: '40000', name: Buffer.from(f, 'utf8'), id: Buffer.alloc(20, i) }))
      .sort(compareEntries),
  );
const inTree = (body: Buffer, exclude: ReadonlySet<string>) => otherWorksInTree(body, 20, exclude);

describe('otherWorksInTree', () => {
  it('finds a folder by its whole name, without case, never by a part of a name', () => {
    const works = inTree(treeOf(['bach-minuet-in-g-2', 'Handel-Sarabande', 'minuet', 'x-bach-minuet-in-g']), new Set());
    expect(works.find('minuet')).toBe('minuet');
    expect(works.find('MINUET')).toBe('minuet');
    expect(works.find('handel-sarabande')).toBe('Handel-Sarabande');
    expect(works.find('bach-minuet-in-g')).toBeUndefined();
    expect(works.find('sarabande')).toBeUndefined();
    expect(works.find('bach-minuet-in-g-2')).toBe('bach-minuet-in-g-2');
    expect(works.find('')).toBeUndefined();
  });

  it('leaves out the excluded folders, and finds another of the same name past one', () => {
    const works = inTree(treeOf(['abc', 'Abc', 'def']), new Set(['abc', 'def']));
    expect(works.find('abc')).toBe('Abc');
    expect(works.find('def')).toBeUndefined();
    expect(inTree(Buffer.alloc(0), new Set()).find('abc')).toBeUndefined();
  });

  it('answers as a list of the same folders does, ASCII or not', () => {
    let seed = 7;
    const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    const alphabet = ['a', 'b', 'A', 'B', '-', '1', 'é', 'É', 'ß', 'Σ'];
    const name = (ascii: boolean) =>
      Array.from(
        { length: 1 + Math.floor(random() * 4) },
        () => alphabet[Math.floor(random() * (ascii ? 6 : 10))],
      ).join('');
    for (const ascii of [true, false]) {
      for (let round = 0; round < 50; round++) {
        const folders = [...new Set(Array.from({ length: 30 }, () => name(ascii)))];
        const exclude = new Set(folders.filter(() => random() < 0.2));
        const listed = inTree(treeOf(folders), exclude);
        const kept = folders.filter((f) => !exclude.has(f));
        const fromList = otherWorksFrom(kept);
        for (let q = 0; q < 40; q++) {
          const query = name(ascii);
          const found = listed.find(query);
          // Found or not as the list says; what is found is a kept folder equal without case.
          expect(found === undefined, `${query} in ${JSON.stringify(kept)}`).toBe(fromList.find(query) === undefined);
          if (found !== undefined) {
            expect(kept).toContain(found);
            expect(found.toLowerCase()).toBe(query.toLowerCase());
          }
        }
      }
    }
  });
});
