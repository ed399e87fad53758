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
