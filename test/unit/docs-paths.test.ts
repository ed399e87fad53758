/**
 * Docs that cannot drift: every repository path the README and the docs cite exists (or is an
 * output git ignores, such as bench results and test screenshots), and every `npm run <script>`
 * they show is a script of package.json. CHANGELOG.md is history and may name what has since
 * moved, so it is not read.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/app.ts';

/** The documents read: the README, docs/*.md and the folders' own READMEs. */
function documents(): string[] {
  const docs = readdirSync(path.join(PROJECT_ROOT, 'docs'), { recursive: true, encoding: 'utf8' })
    .filter((f) => f.endsWith('.md'))
    .map((f) => path.join('docs', f));
  const folders = ['bench', 'client', 'content', 'examples', 'scripts', 'test'].map((d) => path.join(d, 'README.md'));
  return ['README.md', ...docs, ...folders].filter((f) => existsSync(path.join(PROJECT_ROOT, f))).sort();
}

// A path starts with one of the repository's top folders; `api/v1/…` is a served URL, not a file.
const CITED_PATH =
  /(?<![\w/.@-])((?:api|build|src|scripts|test|docs|bench|content|client|examples|\.ci)\/[A-Za-z0-9_./-]*[A-Za-z0-9_])(?![\w*{}<>])/g;

function citedPaths(text: string): Array<{ line: number; path: string }> {
  const out: Array<{ line: number; path: string }> = [];
  for (const [i, line] of text.split('\n').entries())
    for (const m of line.matchAll(CITED_PATH)) {
      const p = m[1]!.replace(/\.$/, '');
      // Patterns and templates (`incremental-*.slow.test.ts`, `works/<slug>/`) name no one file.
      if (p.startsWith('api/v1') || /^[\w.-]*\*|^\/[<*{]/.test(line.slice(m.index + m[0].length))) continue;
      out.push({ line: i + 1, path: p });
    }
  return out;
}

/** Of `paths`, those git ignores (outputs: bench results, test artifacts). */
function ignored(paths: string[]): Set<string> {
  if (paths.length === 0) return new Set();
  try {
    const out = execFileSync('git', ['-C', PROJECT_ROOT, 'check-ignore', '--no-index', '--stdin'], {
      input: paths.join('\n'),
      encoding: 'utf8',
    });
    return new Set(out.split('\n').filter(Boolean));
  } catch (err) {
    // Exit 1: none of them is ignored.
    if ((err as { status?: number }).status === 1) return new Set();
    throw err;
  }
}

describe('docs that cannot drift', () => {
  const docs = documents();

  it('every repository path the README and docs cite exists (or is an ignored output)', () => {
    expect(docs.length).toBeGreaterThan(10);
    const cited = docs.flatMap((doc) =>
      citedPaths(readFileSync(path.join(PROJECT_ROOT, doc), 'utf8')).map((c) => ({ doc, ...c })),
    );
    expect(cited.length).toBeGreaterThan(100);
    const absent = cited.filter((c) => !existsSync(path.join(PROJECT_ROOT, c.path)));
    const outputs = ignored([...new Set(absent.map((c) => c.path))]);
    expect(absent.filter((c) => !outputs.has(c.path)).map((c) => `${c.doc}:${c.line} ${c.path}`)).toEqual([]);
  });

  it('every `npm run <script>` they show is a script of package.json', () => {
    const scripts = Object.keys(JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')).scripts);
    const shown = docs.flatMap((doc) =>
      [...readFileSync(path.join(PROJECT_ROOT, doc), 'utf8').matchAll(/npm run (?:--silent )?([a-z][a-z0-9:-]*)/g)].map(
        (m) => ({ doc, script: m[1]! }),
      ),
    );
    expect(shown.length).toBeGreaterThan(20);
    expect(shown.filter((s) => !scripts.includes(s.script)).map((s) => `${s.doc}: npm run ${s.script}`)).toEqual([]);
  });

  it("the README's quick start is two command lines: the service on embedded defaults and the tests, the latter exactly CI's", () => {
    const readme = readFileSync(path.join(PROJECT_ROOT, 'README.md'), 'utf8');
    const from = readme.indexOf('## Quick start');
    const quickStart = readme.slice(from, readme.indexOf('\n## ', from + 1));
    const blocks = [...quickStart.matchAll(/```sh\n([^`]*?)\n```/g)].map((m) => m[1]!.trim());
    expect(blocks).toEqual(['npm install && npm start', 'npm install && npm test']);
    // .ci/run ends by running exactly the README's test line.
    const ci = readFileSync(path.join(PROJECT_ROOT, '.ci', 'run'), 'utf8')
      .trim()
      .split('\n');
    expect(ci.at(-1)).toBe(blocks[1]);
    // npm start is the service's own start (test/e2e/start.slow.test.ts runs scripts/start.ts on a
    // fresh data folder); npm test installs the suite's tools first (test/unit/install.slow.test.ts).
    const scripts = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'package.json'), 'utf8')).scripts;
    expect(scripts.start).toBe('node scripts/start.ts');
    expect(scripts.test).toMatch(/vitest run$/);
  });

  it('finds a cited path that does not exist (the check can fail)', () => {
    expect(citedPaths('see `test/http/hostile.test.ts` and api/v1/works').map((c) => c.path)).toEqual([
      'test/http/hostile.test.ts',
    ]);
    expect(existsSync(path.join(PROJECT_ROOT, 'test/http/hostile.test.ts'))).toBe(false);
  });
});
