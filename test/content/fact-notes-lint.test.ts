/**
 * The content lint's rules for notes that quote facts and for the works index's folders: an
 * unknown placeholder in a rights note, and a work slug the works index uses (/works/by-title/).
 */
import { cpSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { formatLintMessage, loadCatalog } from '../../src/domain/catalog.ts';

const FIXTURE = path.resolve(import.meta.dirname, '..', 'fixtures', 'mini');
const WORK = 'works/bach-minuet-in-g/index.md';
const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function copy(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pdma-fact-lint-'));
  dirs.push(dir);
  cpSync(FIXTURE, dir, { recursive: true });
  return dir;
}
const lint = (dir: string) => loadCatalog(dir).messages.map(formatLintMessage);
function edit(dir: string, file: string, from: string, to: string): void {
  const abs = path.join(dir, file);
  const text = readFileSync(abs, 'utf8');
  if (!text.includes(from)) throw new Error(`no "${from}" in ${file}`);
  writeFileSync(abs, text.replace(from, to));
}

describe('notes that quote facts', () => {
  it('known placeholders pass the lint', () => {
    const dir = copy();
    edit(dir, WORK, 'rightsNote: The composition', 'rightsNote: "{composer} died in {died}; the composition');
    edit(dir, WORK, 'our transcription is CC0.', 'our transcription is CC0."');
    expect(lint(dir)).toEqual([]);
  });

  it('an unknown placeholder is refused with its pointer and the known ones', () => {
    const dir = copy();
    edit(dir, WORK, 'rightsNote: The composition', 'rightsNote: "{diedd}: the composition');
    edit(dir, WORK, 'our transcription is CC0.', 'our transcription is CC0."');
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
