/**
 * The map cannot drift (issue 60): every folder and file the Layout of docs/architecture.md names
 * exists, and every first-level folder of the source trees is named there; every decision file
 * under docs/decisions/ has its five parts, a number matching its file name and a row in the
 * index; every citation of a decision in code and docs names a decision file that exists; every
 * module of api/site/ is under 400 lines, and the rooms api/site/builds.ts lists are its files.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/app.ts';

/** The top folders the Layout must cover, with their first-level folders. */
const TOPS = ['api', 'build', 'src', 'scripts', 'test', 'bench', 'client', 'content', 'examples', 'docs'];
const DECISIONS = path.join(PROJECT_ROOT, 'docs', 'decisions');
const DECISION_FILE = /^(\d{4})-[a-z0-9-]+\.md$/;

/**
 * The paths the Layout's code block names: a line at column 0 opens a top folder (`api/`), a line
 * indented by two names entries of it (`http/`, `app.ts`, or a list: `review/, desk/`); deeper lines
 * continue a description.
 */
function layoutPaths(architecture: string): string[] {
  const from = architecture.indexOf('\n## Layout');
  const start = architecture.indexOf('```\n', from);
  const block = architecture.slice(start + 4, architecture.indexOf('\n```', start + 4));
  const out: string[] = [];
  let top = '';
  for (const line of block.split('\n')) {
    const indent = line.length - line.trimStart().length;
    if (indent > 2 || line.trim() === '') continue;
    const names: string[] = [];
    for (const token of line.trim().split(' ')) {
      if (token === '') break;
      names.push(token.replace(/,$/, ''));
      if (!token.endsWith(',')) break;
    }
    if (indent === 0) {
      top = names[0]!.replace(/\/$/, '');
      out.push(top);
    } else for (const name of names) out.push(`${top}/${name.replace(/\/$/, '')}`);
  }
  return out;
}

/** The first-level folders of the top folders, as git sees them (tracked or not ignored). */
function sourceFolders(): string[] {
  const files = execFileSync(
    'git',
    ['-C', PROJECT_ROOT, 'ls-files', '--cached', '--others', '--exclude-standard', '--', ...TOPS],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  )
    .split('\n')
    .filter(Boolean);
  const folders = new Set<string>();
  for (const file of files) {
    const parts = file.split('/');
    // Dot folders (content/.github: the content repository's own CI) are not part of the map.
    if (parts.length >= 3 && !parts[1]!.startsWith('.') && existsSync(path.join(PROJECT_ROOT, file)))
      folders.add(`${parts[0]}/${parts[1]}`);
  }
  return [...folders].sort();
}

/** Folders of `actual` (and top folders) the Layout does not name. */
function unnamed(named: string[], actual: string[]): string[] {
  const set = new Set(named);
  return [...TOPS, ...actual].filter((f) => !set.has(f));
}

interface Decision {
  file: string;
  number: number;
  title: string;
  status: string;
  supersededBy: string;
  sections: Record<string, string>;
}

/** A decision file's parts (empty strings for parts it lacks). */
function readDecision(file: string): Decision & { titleNumber: number } {
  const text = readFileSync(path.join(DECISIONS, file), 'utf8');
  const title = /^# (\d+)\. (.+)$/m.exec(text);
  const sections: Record<string, string> = {};
  for (const m of text.matchAll(/^## (.+)\n([\s\S]*?)(?=^## |(?![\s\S]))/gm)) sections[m[1]!] = m[2]!.trim();
  return {
    file,
    number: Number(DECISION_FILE.exec(file)![1]),
    titleNumber: title ? Number(title[1]) : NaN,
    title: title?.[2] ?? '',
    status: /^- Status: (.+)$/m.exec(text)?.[1] ?? '',
    supersededBy: /^- Superseded by: (.+)$/m.exec(text)?.[1] ?? '',
    sections,
  };
}

/** Files whose text may cite a decision: code and docs of the repository, not history. */
function citingFiles(): string[] {
  const files = execFileSync('git', ['-C', PROJECT_ROOT, 'ls-files', '--cached', '--others', '--exclude-standard'], {
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  })
    .split('\n')
    .filter((f) => /\.(ts|mjs|md|astro)$/.test(f))
    .filter((f) => f !== 'CHANGELOG.md' && !f.startsWith('content/') && !f.startsWith('test/fixtures/'))
    .filter((f) => f !== 'test/unit/architecture-map.test.ts');
  return files.filter((f) => existsSync(path.join(PROJECT_ROOT, f)));
}

/** Every decision a text cites: by path, by Markdown link, by "decision N" / "decisions N and M". */
function citations(text: string, dir: string): Array<{ line: number; cite: string; problem?: string }> {
  const out: Array<{ line: number; cite: string; problem?: string }> = [];
  const numbers = new Set(
    readdirSync(DECISIONS)
      .map((f) => DECISION_FILE.exec(f)?.[1])
      .filter((n): n is string => n !== undefined)
      .map(Number),
  );
  for (const [i, line] of text.split('\n').entries()) {
    for (const m of line.matchAll(/docs\/decisions\/(\d{4}-[a-z0-9-]+\.md)/g))
      out.push({
        line: i + 1,
        cite: m[0],
        ...(existsSync(path.join(DECISIONS, m[1]!)) ? {} : { problem: 'no such file' }),
      });
    for (const m of line.matchAll(/\]\(((?:[./]*decisions\/)?(\d{4})-[a-z0-9-]+\.md)\)/g)) {
      const target = path.resolve(dir, m[1]!);
      const label = /\[decisions? (\d+)\]$/.exec(line.slice(0, m.index + 1));
      const problem = !existsSync(target)
        ? 'no such file'
        : label && Number(label[1]) !== Number(m[2])
          ? `link text says ${label[1]}`
          : undefined;
      out.push({ line: i + 1, cite: m[1]!, ...(problem ? { problem } : {}) });
    }
    for (const m of line.matchAll(/\bdecisions? (\d+)(?: and (\d+))?/g))
      for (const n of [m[1], m[2]].filter((x): x is string => x !== undefined))
        out.push({
          line: i + 1,
          cite: `decision ${n}`,
          ...(numbers.has(Number(n)) ? {} : { problem: 'no such decision' }),
        });
  }
  return out;
}

describe('the architecture map', () => {
  const architecture = readFileSync(path.join(PROJECT_ROOT, 'docs', 'architecture.md'), 'utf8');
  const named = layoutPaths(architecture);

  it('is a map: at most about 300 lines', () => {
    expect(architecture.split('\n').length).toBeLessThanOrEqual(320);
  });

  it('names only folders and files that exist', () => {
    expect(named.length).toBeGreaterThan(50);
    expect(named.filter((p) => !existsSync(path.join(PROJECT_ROOT, p)))).toEqual([]);
  });

  it('names every top folder and every first-level folder of them', () => {
    const actual = sourceFolders();
    expect(actual.length).toBeGreaterThan(40);
    expect(unnamed(named, actual)).toEqual([]);
  });

  it('finds a folder missing from the map (the check can fail)', () => {
    const without = architecture.replace(/^ {2}process\/ .*\n/m, '');
    expect(without).not.toBe(architecture);
    expect(unnamed(layoutPaths(without), sourceFolders())).toEqual(['api/process']);
    expect(layoutPaths('## Layout\n\n```\nsrc/\n  scripts/, styles/  x\n  lib/ y, z/\n```\n')).toEqual([
      'src',
      'src/scripts',
      'src/styles',
      'src/lib',
    ]);
  });
});

describe('the decisions', () => {
  const files = readdirSync(DECISIONS)
    .filter((f) => DECISION_FILE.test(f))
    .sort();
  const decisions = files.map(readDecision);

  it('each has a title numbered as its file, a status, a superseded-by and the three sections', () => {
    expect(decisions.length).toBeGreaterThan(60);
    const faults = decisions.flatMap((d) => [
      ...(d.titleNumber === d.number ? [] : [`${d.file}: title number ${d.titleNumber}`]),
      ...(d.title ? [] : [`${d.file}: no title`]),
      ...(d.status ? [] : [`${d.file}: no Status`]),
      ...(d.supersededBy ? [] : [`${d.file}: no Superseded by`]),
      ...['Context', 'Decision', 'Consequences'].filter((s) => !d.sections[s]).map((s) => `${d.file}: no ${s}`),
      ...(Object.keys(d.sections).slice(0, 3).join() === 'Context,Decision,Consequences'
        ? []
        : [`${d.file}: sections ${Object.keys(d.sections).join()}`]),
    ]);
    expect(faults).toEqual([]);
  });

  it('the index lists each with its number, title and status, and the map links each', () => {
    const index = readFileSync(path.join(DECISIONS, 'README.md'), 'utf8');
    const rows = [...index.matchAll(/^\| (\d{4}) \| \[(.+)\]\(([^)]+)\) \| (.+) \|$/gm)].map((m) => ({
      number: Number(m[1]),
      title: m[2],
      file: m[3],
      status: m[4],
    }));
    expect(rows).toEqual(decisions.map((d) => ({ number: d.number, title: d.title, file: d.file, status: d.status })));
    const architecture = readFileSync(path.join(PROJECT_ROOT, 'docs', 'architecture.md'), 'utf8');
    expect(files.filter((f) => !architecture.includes(`(decisions/${f})`))).toEqual([]);
  });

  it('every citation of a decision in code and docs names a decision that exists', () => {
    const found = citingFiles().flatMap((f) =>
      citations(readFileSync(path.join(PROJECT_ROOT, f), 'utf8'), path.dirname(path.join(PROJECT_ROOT, f))).map(
        (c) => ({ f, ...c }),
      ),
    );
    expect(found.length).toBeGreaterThan(100);
    expect(found.filter((c) => c.problem).map((c) => `${c.f}:${c.line} ${c.cite}: ${c.problem}`)).toEqual([]);
  });

  it('finds a citation of a decision that does not exist (the check can fail)', () => {
    const text =
      'see docs/decisions/0999-nothing.md and [decision 13](0014-blob-store.md), decision 998 and decisions 14 and 997';
    expect(citations(text, DECISIONS).map((c) => `${c.cite}: ${c.problem ?? 'ok'}`)).toEqual([
      'docs/decisions/0999-nothing.md: no such file',
      '0014-blob-store.md: link text says 13',
      'decision 13: ok',
      'decision 998: no such decision',
      'decision 14: ok',
      'decision 997: no such decision',
    ]);
  });
});

/** The files of `dir` (relative to the project) ending in .ts with more than `max` lines. */
function longModules(dir: string, max: number): string[] {
  return readdirSync(path.join(PROJECT_ROOT, dir))
    .filter((f) => f.endsWith('.ts'))
    .map((f) => ({ f, lines: readFileSync(path.join(PROJECT_ROOT, dir, f), 'utf8').split('\n').length - 1 }))
    .filter((m) => m.lines > max)
    .map((m) => `${dir}/${m.f}: ${m.lines} lines`);
}

/** The module names a room list in a header comment gives (` *   name.ts   what it does`). */
function roomsListed(text: string): string[] {
  return [...text.matchAll(/^ \* {3}([a-z-]+\.ts) /gm)].map((m) => m[1]!);
}

describe('api/site/ in rooms', () => {
  it('every module of api/site/ is under 400 lines', () => {
    expect(readdirSync(path.join(PROJECT_ROOT, 'api', 'site')).length).toBeGreaterThan(20);
    expect(longModules('api/site', 400)).toEqual([]);
  });

  it('the rooms api/site/builds.ts lists are files of api/site/, and every rebuilder room is listed', () => {
    const rooms = roomsListed(readFileSync(path.join(PROJECT_ROOT, 'api', 'site', 'builds.ts'), 'utf8'));
    expect(rooms.length).toBeGreaterThanOrEqual(8);
    expect(rooms.filter((f) => !existsSync(path.join(PROJECT_ROOT, 'api', 'site', f)))).toEqual([]);
    for (const room of ['served.ts', 'child-builds.ts', 'prune.ts', 'reconcile.ts', 'compaction.ts', 'warm-up.ts'])
      expect(rooms).toContain(room);
  });

  it('finds a long module (the check can fail)', () => {
    expect(longModules('api/site', 100).length).toBeGreaterThan(5);
    expect(roomsListed(' *   a.ts   one\n *   b-c.ts  two\n * x.ts not a room\n')).toEqual(['a.ts', 'b-c.ts']);
  });
});
