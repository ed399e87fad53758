/**
 * Copies of the small valid content repository (`test/fixtures/mini`) for tests that break one
 * rule at a time: each copy is a fresh temporary folder, removed by `removeAll()` (call it in
 * `afterEach`), and `editFile` refuses an edit that changes nothing, so a test cannot pass
 * because its edit silently missed.
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PROJECT_ROOT } from './app.ts';

export const MINI_FIXTURE = path.join(PROJECT_ROOT, 'test', 'fixtures', 'mini');
/** The mini fixture's one work file, relative to the repository. */
export const MINI_WORK = 'works/bach-minuet-in-g/index.md';

export interface FixtureCopies {
  copy(): string;
  removeAll(): void;
}

export function fixtureCopies(prefix: string, fixture = MINI_FIXTURE): FixtureCopies {
  const dirs: string[] = [];
  return {
    copy() {
      const dir = mkdtempSync(path.join(os.tmpdir(), prefix));
      dirs.push(dir);
      cpSync(fixture, dir, { recursive: true });
      return dir;
    },
    removeAll() {
      for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
    },
  };
}

/** Rewrite `file` (relative to `dir`) through `change`; throws when the text stays the same. */
export function editFile(dir: string, file: string, change: (text: string) => string): void {
  const abs = path.join(dir, file);
  const before = readFileSync(abs, 'utf8');
  const after = change(before);
  if (after === before) throw new Error(`edit of ${file} changed nothing`);
  writeFileSync(abs, after);
}

/** Replace the first `from` in `file` (relative to `dir`) with `to`; throws when `from` is not there. */
export function replaceInFile(dir: string, file: string, from: string, to: string): void {
  editFile(dir, file, (text) => {
    if (!text.includes(from)) throw new Error(`${file} has no "${from}"`);
    return text.replace(from, to);
  });
}
