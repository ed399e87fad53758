/**
 * Patterns that let a test pass when it should not (the test-pattern lint,
 * test/unit/test-patterns.test.ts, runs this over every file under test/):
 *
 *   catch-expect   assertions inside a `catch` block: nothing fails when nothing is thrown.
 *                  Use `expect(fn).toThrow(...)`, `await expect(p).rejects...`, or declare
 *                  `expect.assertions(n)` in the test.
 *   every          the `every` of a list wrapped in an expect passes on an empty list; use
 *                  `expectEach` (test/helpers/expect-each.ts), which also needs a non-empty list.
 *   warn-return    `console.warn(...)` then `return`: a missing tool reported as a pass. Fail
 *                  instead (npm test installs the tools: scripts/ensure-test-tools.ts).
 *   skip-if        `skipIf` on anything but SKIP_BROWSER_TESTS (the one documented, knowing skip):
 *                  a regression would be reported as a skip.
 *
 * Text patterns, not a parser: each finding names the file's line so it can be read and mended.
 */

export interface PatternFinding {
  rule: 'catch-expect' | 'every' | 'warn-return' | 'skip-if';
  line: number;
  text: string;
}

/** The index just past the block that opens at `open` (a "{"), or -1 when it does not close within `max` characters. */
function blockEnd(text: string, open: number, max = 20_000): number {
  let depth = 0;
  for (let i = open; i < text.length && i < open + max; i++) {
    const c = text[i];
    if (c === '{') depth++;
    else if (c === '}' && --depth === 0) return i + 1;
  }
  return -1;
}

const lineOf = (text: string, index: number) => text.slice(0, index).split('\n').length;

export function findTestPatterns(text: string): PatternFinding[] {
  const found: PatternFinding[] = [];
  const add = (rule: PatternFinding['rule'], index: number) =>
    found.push({ rule, line: lineOf(text, index), text: text.slice(index, text.indexOf('\n', index)).trim() });

  for (const m of text.matchAll(/\bcatch\s*(\([^)]*\))?\s*\{/g)) {
    const end = blockEnd(text, m.index + m[0].length - 1);
    const body = end < 0 ? '' : text.slice(m.index, end);
    if (!/\bexpect\s*\(/.test(body)) continue;
    // The test around it counts its assertions: a catch that is never entered then fails.
    const before = text.slice(Math.max(0, m.index - 4000), m.index);
    const start = Math.max(before.lastIndexOf('it('), before.lastIndexOf('test('));
    if (/expect\.(assertions|hasAssertions)\s*\(/.test(before.slice(Math.max(0, start)))) continue;
    add('catch-expect', m.index);
  }
  for (const m of text.matchAll(/\bexpect\s*\(/g)) {
    // Only the expect's own argument: up to its closing parenthesis (bounded).
    let depth = 0;
    let i = m.index + m[0].length - 1;
    for (const limit = i + 2000; i < text.length && i < limit; i++) {
      if (text[i] === '(') depth++;
      else if (text[i] === ')' && --depth === 0) break;
    }
    if (/\.every\s*\(/.test(text.slice(m.index, i))) add('every', m.index);
  }
  for (const m of text.matchAll(/console\.warn\s*\([^;]*\);\s*return\b/g)) add('warn-return', m.index);
  for (const m of text.matchAll(/\.skipIf\s*\(([^)]*)\)/g))
    if (m[1]!.trim() !== 'SKIP_BROWSER_TESTS') add('skip-if', m.index);
  return found.sort((a, b) => a.line - b.line);
}
