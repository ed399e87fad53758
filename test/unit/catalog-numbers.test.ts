import { describe, expect, it } from 'vitest';
import { parseCatalogNumbers } from '../../src/domain/catalog-numbers.ts';
import { foldTransliterations, matchesAllWords, words } from '../../src/domain/text.ts';

describe('catalog numbers written in titles', () => {
  it.each([
    ['Winterreise, D.911', [{ catalog: 'D.', number: '911' }]],
    ['Gretchen am Spinnrade, D 118', [{ catalog: 'D.', number: '118' }]],
    ['String Quartet No.1, Op.18 No.1', [{ catalog: 'Op.', number: '18 No. 1' }]],
    [
      'String Quartet in A major, Hob.III:24, Op.9 No.6',
      [
        { catalog: 'Hob.', number: 'III:24' },
        { catalog: 'Op.', number: '9 No. 6' },
      ],
    ],
    ['Serenade K. 525', [{ catalog: 'K.', number: '525' }]],
    ['Cello Suite BWV 1007', [{ catalog: 'BWV', number: '1007' }]],
    ['String Quartet in D minor', []],
    ['Opus one', []],
  ])('%s', (title, expected) => {
    expect(parseCatalogNumbers(title)).toEqual(expected);
  });
});

describe('transliteration folding in search', () => {
  it('oe, ae and ue find the umlaut, and the umlaut finds them', () => {
    expect(foldTransliterations('erlkoenig')).toBe('erlkonig');
    expect(matchesAllWords('Der Erlkönig', 'erlkoenig')).toBe(true);
    expect(matchesAllWords('Der Erlkoenig', 'Erlkönig')).toBe(true);
    expect(matchesAllWords('Mädchen', 'maedchen')).toBe(true);
    expect(matchesAllWords('Müller', 'mueller')).toBe(true);
    expect(matchesAllWords('Straße', 'strasse')).toBe(true);
    expect(matchesAllWords('Johann Wolfgang von Goethe', 'goethe')).toBe(true);
    expect(matchesAllWords('Der Erlkönig', 'erlkaenig')).toBe(false);
    expect(words('Goethe')).toEqual(['gothe']);
  });
});
