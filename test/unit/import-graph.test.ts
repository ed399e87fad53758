/**
 * The structure drawn from the imports (issue 60): the project's TypeScript under api/, build/,
 * src/, scripts/ and bench/ has no import circle; `api/` and `build/` never import `scripts/`
 * (command lines are thin entry points over libraries: docs/decisions/0067-the-build-is-a-library.md)
 * and `src/` imports neither `api/` nor `build/` (the server and the build are made on `src/`, not
 * the other way round). Every relative import is an arrow, type-only and dynamic ones included:
 * a circle of types is still a circle a reader has to hold in their head.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/app.ts';

const TOPS = ['api', 'build', 'src', 'scripts', 'bench'];

/** Forbidden arrows: from a top folder into another. */
const FORBIDDEN: Array<[from: string, to: string]> = [
  ['api', 'scripts'],
  ['build', 'scripts'],
  ['src', 'api'],
  ['src', 'build'],
];

type Graph = Map<string, string[]>;

/** The TypeScript files of the top folders, as git sees them (tracked or not ignored). */
function sourceFiles(): string[] {
  return execFileSync(
    'git',
    ['-C', PROJECT_ROOT, 'ls-files', '--cached', '--others', '--exclude-standard', '--', ...TOPS],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  )
    .split('\n')
    .filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts') && existsSync(path.join(PROJECT_ROOT, f)))
    .sort();
}

/**
 * The code of a TypeScript file with comments removed and template literals emptied (their `${}`
 * parts kept), so that an import statement is found only where it is code. String and regular
 * expression literals are kept as they are; a `/` opens a regular expression where an operand is
 * expected (after an operator, an opening bracket or a keyword such as `return`).
 */
function codeOf(text: string): string {
  let out = '';
  let i = 0;
  const braces: number[] = []; // depth of `{` inside each open template's `${`
  const regexBefore =
    /[(,=:[!&|?{};+\-*%<>~^]$|(?:^|[^\w$])(?:return|typeof|case|do|else|in|of|new|delete|void|throw|yield|await)$|^$/;
  const template = (): void => {
    // at the character after a backtick or a closing `}` of `${`
    out += '`';
    while (i < text.length) {
      const c = text[i]!;
      if (c === '\\') i += 2;
      else if (c === '`') {
        out += '`';
        i++;
        return;
      } else if (c === '$' && text[i + 1] === '{') {
        out += '${';
        i += 2;
        braces.push(0);
        return;
      } else i++;
    }
  };
  while (i < text.length) {
    const c = text[i]!;
    const next = text[i + 1];
    if (c === '/' && next === '/') {
      while (i < text.length && text[i] !== '\n') i++;
    } else if (c === '/' && next === '*') {
      const end = text.indexOf('*/', i + 2);
      i = end < 0 ? text.length : end + 2;
      out += ' ';
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== c && text[j] !== '\n') j += text[j] === '\\' ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (c === '`') {
      i++;
      template();
    } else if (c === '}' && braces.length > 0 && braces[braces.length - 1] === 0) {
      braces.pop();
      out += '}';
      i++;
      template();
    } else if (c === '/' && regexBefore.test(out.trimEnd())) {
      let j = i + 1;
      let inClass = false;
      while (j < text.length && text[j] !== '\n' && (inClass || text[j] !== '/')) {
        if (text[j] === '\\') j++;
        else if (text[j] === '[') inClass = true;
        else if (text[j] === ']') inClass = false;
        j++;
      }
      out += text.slice(i, j + 1);
      i = j + 1;
    } else {
      if (braces.length > 0 && c === '{') braces[braces.length - 1]!++;
      if (braces.length > 0 && c === '}') braces[braces.length - 1]!--;
      out += c;
      i++;
    }
  }
  return out;
}

const IMPORT = [
  // import x from '…', import type { X } from '…', export { x } from '…', export * from '…'
  /(?<![\w$.])(?:import|export)(?:\s+type)?\s[^;'"`]*?\bfrom\s*(['"])([^'"\n]+)\1/g,
  // import '…' (for its effects)
  /(?<![\w$.])import\s*(['"])([^'"\n]+)\1/g,
  // import('…'), await import('…')
  /(?<![\w$.])import\s*\(\s*(['"])([^'"\n]+)\1\s*[,)]/g,
];

/** The project files a file's relative imports (static, type-only, dynamic, re-exports) name. */
function importsOf(file: string, text: string, files: Set<string>): string[] {
  const code = codeOf(text);
  const out = new Set<string>();
  for (const pattern of IMPORT)
    for (const m of code.matchAll(pattern)) {
      const spec = m[2]!;
      if (!spec.startsWith('.')) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), spec));
      const candidates = [target, target.replace(/\.js$/, '.ts'), `${target}.ts`, `${target}/index.ts`];
      const hit = candidates.find((c) => files.has(c));
      if (hit) out.add(hit);
    }
  return [...out].sort();
}

function buildGraph(sources: Record<string, string>): Graph {
  const files = new Set(Object.keys(sources));
  return new Map(Object.entries(sources).map(([f, text]) => [f, importsOf(f, text, files)]));
}

/** The strongly connected components of more than one file (or a file importing itself): Tarjan. */
function circles(graph: Graph): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  // Iterative, so a long chain of imports cannot overflow the call stack.
  for (const root of [...graph.keys()].sort()) {
    if (index.has(root)) continue;
    const work: Array<{ node: string; next: number }> = [{ node: root, next: 0 }];
    index.set(root, counter);
    low.set(root, counter++);
    stack.push(root);
    onStack.add(root);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const edges = graph.get(frame.node) ?? [];
      if (frame.next < edges.length) {
        const to = edges[frame.next++]!;
        if (!index.has(to)) {
          index.set(to, counter);
          low.set(to, counter++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, next: 0 });
        } else if (onStack.has(to)) low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        let member: string;
        do {
          member = stack.pop()!;
          onStack.delete(member);
          component.push(member);
        } while (member !== frame.node);
        if (component.length > 1 || (graph.get(frame.node) ?? []).includes(frame.node)) out.push(component.sort());
      }
    }
  }
  return out.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** The arrows that cross a forbidden boundary, as `from -> to`. */
function forbiddenArrows(graph: Graph): string[] {
  const out: string[] = [];
  for (const [from, tos] of graph)
    for (const to of tos)
      for (const [a, b] of FORBIDDEN)
        if (from.startsWith(`${a}/`) && to.startsWith(`${b}/`)) out.push(`${from} -> ${to}`);
  return out.sort();
}

describe('the import graph', () => {
  const files = sourceFiles();
  const graph = buildGraph(Object.fromEntries(files.map((f) => [f, readFileSync(path.join(PROJECT_ROOT, f), 'utf8')])));

  it('reads the project: hundreds of files, most of them importing another', () => {
    expect(files.length).toBeGreaterThan(300);
    expect([...graph.values()].filter((tos) => tos.length > 0).length).toBeGreaterThan(200);
  });

  it('has no import circle in api/, build/, src/, scripts/ or bench/', () => {
    expect(circles(graph)).toEqual([]);
  });

  it('has no api/ or build/ -> scripts/ and no src/ -> api/ or build/ arrow', () => {
    expect(forbiddenArrows(graph)).toEqual([]);
  });

  it('finds a circle and a forbidden arrow (the checks can fail)', () => {
    const made = buildGraph({
      'api/a.ts': "import { b } from './b.ts';\nimport type { S } from '../scripts/s.ts';",
      'api/b.ts': "export const b = async () => (await import('./c.ts')).c;",
      'api/c.ts': "export { a } from './a.ts';",
      'scripts/s.ts': "import { x } from 'node:fs';\nexport type S = 1;",
      'src/d.ts': "import { z } from './d.ts';\nimport { b } from '../api/b.ts';",
      // Not imports: comments, template and string literals, regular expressions.
      'src/e.ts': [
        "// import { a } from '../api/a.ts';",
        "/* import '../api/b.ts' */ const t = `import('../api/c.ts') ${'x'}`;",
        'const r = /[\'"]/; const s = "from \'../api/a.ts\'";',
        'export { r, t, s };',
      ].join('\n'),
    });
    expect(circles(made)).toEqual([['api/a.ts', 'api/b.ts', 'api/c.ts'], ['src/d.ts']]);
    expect(forbiddenArrows(made)).toEqual(['api/a.ts -> scripts/s.ts', 'src/d.ts -> api/b.ts']);
  });
});
