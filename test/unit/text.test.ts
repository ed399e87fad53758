import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fold, matchesAllWords, words } from '../../src/domain/text.ts';

describe('fold', () => {
  it.each([
    ['Dvořák', 'dvorak'],
    ['Frédéric Chopin', 'frederic chopin'],
    ['Händel', 'handel'],
    ['  Straße  ', 'strasse'],
    ['Søren', 'soren'],
    ['FAURÉ', 'faure'],
  ])('%s -> %s', (input, expected) => {
    expect(fold(input)).toBe(expected);
  });
});

describe('words', () => {
  it('splits name forms on punctuation', () => {
    expect(words('Bach, J.S.')).toEqual(['bach', 'j', 's']);
    expect(words('BWV 1007')).toEqual(['bwv', '1007']);
  });
});

describe('the ASCII shortcut', () => {
  // A leading "é" sends a text down the general path (NFD, marks, Unicode classes): an ASCII text's
  // answer must be the general path's answer for the same text behind that word.
  // Any ASCII character, and often the letters of the transliterated pairs ("ae", "oe", "ue").
  const ascii = fc.string({
    unit: fc.oneof(
      fc.integer({ min: 0, max: 0x7f }).map((c) => String.fromCharCode(c)),
      fc.constantFrom('a', 'e', 'o', 'u', 'A', 'E', 'U', ' ', '-'),
    ),
  });
  it('folds and splits ASCII text as the general path does', () => {
    fc.assert(
      fc.property(ascii, (text) => {
        expect(fold(`é ${text}`)).toBe(`e ${fold(text)}`.trim());
        expect(words(`é ${text}`)).toEqual(['e', ...words(text)]);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('matchesAllWords', () => {
  it('needs every query word as a word prefix, in any order', () => {
    expect(matchesAllWords('Johann Sebastian Bach', 'bach johann')).toBe(true);
    expect(matchesAllWords('Johann Sebastian Bach', 'seb')).toBe(true);
    expect(matchesAllWords('Johann Sebastian Bach', 'bach mozart')).toBe(false);
    expect(matchesAllWords('Antonín Dvořák', 'DVORAK')).toBe(true);
  });
  it('does not match inside a word', () => {
    expect(matchesAllWords('Offenbach', 'bach')).toBe(false);
  });
});
