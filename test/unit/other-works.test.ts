import { describe, expect, it } from 'vitest';
import { otherWorksFrom, otherWorksInListing } from '../../src/domain/content-lint.ts';

const listingOf = (folders: string[]) => folders.map((f) => `works/${f}\0`).join('');

describe('otherWorksInListing', () => {
  it('finds a folder by its whole name, without case, never by a part of a name', () => {
    const works = otherWorksInListing(
      listingOf(['bach-minuet-in-g-2', 'Handel-Sarabande', 'minuet', 'x-bach-minuet-in-g']),
      new Set(),
    );
    expect(works.find('minuet')).toBe('minuet');
    expect(works.find('MINUET')).toBe('minuet');
    expect(works.find('handel-sarabande')).toBe('Handel-Sarabande');
    expect(works.find('bach-minuet-in-g')).toBeUndefined();
    expect(works.find('sarabande')).toBeUndefined();
    expect(works.find('bach-minuet-in-g-2')).toBe('bach-minuet-in-g-2');
    expect(works.find('')).toBeUndefined();
  });

  it('leaves out the excluded folders, and finds another of the same name past one', () => {
    const works = otherWorksInListing(listingOf(['abc', 'Abc', 'def']), new Set(['abc', 'def']));
    expect(works.find('abc')).toBe('Abc');
    expect(works.find('def')).toBeUndefined();
    expect(otherWorksInListing('', new Set()).find('abc')).toBeUndefined();
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
        const listed = otherWorksInListing(listingOf(folders), exclude);
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
