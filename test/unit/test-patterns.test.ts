/**
 * The test-pattern lint (test/helpers/test-patterns.ts): no file under test/ holds a pattern that
 * lets a test pass when it should not, and the checker finds each pattern in a small sample.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { findTestPatterns } from '../helpers/test-patterns.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';

/** Every .ts file under test/ (a bounded walk: the folder is a few levels deep). */
function testFiles(dir: string, depth = 0): string[] {
  if (depth > 6) return [];
  return readdirSync(dir)
    .sort()
    .flatMap((name) => {
      const p = path.join(dir, name);
      if (statSync(p).isDirectory()) return name === 'fixtures' ? [] : testFiles(p, depth + 1);
      return name.endsWith('.ts') ? [p] : [];
    });
}

describe('the test-pattern lint', () => {
  it('finds each pattern that lets a test pass when it should not', () => {
    const sample = [
      "it('a', () => {",
      '  try {',
      '    run();',
      '  } catch (err) {',
      '    expect(err).toBeInstanceOf(Error);',
      '  }',
      '});',
      "it('b', () => {",
      '  expect(list.filter((x) => x.ok).every((x) => x.done)).toBe(true);',
      '});',
      "it('c', () => {",
      "  if (!bin) { console.warn('nginx missing'); return; }",
      '});',
      "it.skipIf(!rendered)('d', () => {});",
      "describe.skipIf(SKIP_BROWSER_TESTS)('e', () => {});",
      "it('f', () => {",
      '  expect.assertions(1);',
      '  try { run(); } catch (err) { expect(err).toBeDefined(); }',
      '});',
      "it('g', () => { try { run(); } catch { cleanUp(); } });",
    ].join('\n');
    expect(findTestPatterns(sample).map((f) => `${f.rule}:${f.line}`)).toEqual([
      'catch-expect:4',
      'every:9',
      'warn-return:12',
      'skip-if:14',
    ]);
  });

  it('no file under test/ holds one', () => {
    const files = testFiles(path.join(PROJECT_ROOT, 'test'));
    expect(files.length).toBeGreaterThan(100);
    const findings = files
      // The lint and its own samples hold the patterns on purpose.
      .filter((f) => !f.endsWith('test-patterns.ts') && !f.endsWith('test-patterns.test.ts'))
      .flatMap((f) =>
        findTestPatterns(readFileSync(f, 'utf8')).map(
          (x) => `${path.relative(PROJECT_ROOT, f)}:${x.line} ${x.rule}: ${x.text}`,
        ),
      );
    expect(findings).toEqual([]);
  });
});
