/**
 * The content lint's rules for notes that quote facts and for the works index's folders: an
 * unknown placeholder in a rights note, and a work slug the works index uses (/works/by-title/).
 */
import { renameSync } from 'node:fs';
import path from 'node:path';
import { fixtureCopies, MINI_WORK, replaceInFile } from '../helpers/fixture-copies.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { formatLintMessage, loadCatalog } from '../../src/domain/catalog.ts';

const WORK = MINI_WORK;
const copies = fixtureCopies('pdma-fact-lint-');
afterEach(() => copies.removeAll());
const copy = copies.copy;
const lint = (dir: string) => loadCatalog(dir).messages.map(formatLintMessage);
const edit = replaceInFile;

describe('notes that quote facts', () => {
  it('known placeholders pass the lint', () => {
    const dir = copy();
    edit(dir, WORK, 'rightsNote: Our transcription is CC0.', 'rightsNote: "{composer} died in {died}; our transcription is CC0."');
    expect(lint(dir)).toEqual([]);
  });

  it('an unknown placeholder is refused with its pointer and the known ones', () => {
    const dir = copy();
    edit(dir, WORK, 'rightsNote: Our transcription is CC0.', 'rightsNote: "{diedd}: our transcription is CC0."');
    expect(lint(dir)).toEqual([
      `${WORK}: /rightsNote: names an unknown fact "{diedd}"; a note may quote {composer}, {born}, {died}, {year}, {title}, {workNumber}`,
    ]);
  });
});

describe('works index folders', () => {
  it('a work slug "by-title" is refused: /works/by-title/ is the works index', () => {
    const dir = copy();
    renameSync(path.join(dir, 'works', 'bach-minuet-in-g'), path.join(dir, 'works', 'by-title'));
    edit(dir, 'works/by-title/index.md', 'slug: bach-minuet-in-g', 'slug: by-title');
    expect(lint(dir)).toContain(
      'works/by-title/index.md: /slug: "by-title" is reserved for the works index (/works/by-title/); choose another slug',
    );
  });
});
