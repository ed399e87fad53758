/**
 * The content lint of a pull request's changes: `npm run lint:content -- DIR
 * --base REF --format github` on a fixture diff — a temp git repository with a base commit (which
 * already holds an unrelated broken work) and a branch that breaks one work — prints GitHub
 * `::error file=…,line=…::` annotations on the right file and line, for the changed files only,
 * and exits 1; a change to a shared file re-checks everything; a clean change exits 0.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { replaceInFile } from '../helpers/fixture-copies.ts';
import { afterEach, describe, expect, it } from 'vitest';
import { githubAnnotation, lintScope } from '../../src/domain/content-lint.ts';

const FIXTURE = path.resolve(import.meta.dirname, '..', 'fixtures', 'mini');
const CLI = path.resolve(import.meta.dirname, '..', '..', 'scripts', 'lint-content.ts');
const WORK = 'works/bach-minuet-in-g/index.md';
const OLD = 'works/zz-old-broken/index.md';
const dirs: string[] = [];

afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-c', 'user.name=T', '-c', 'user.email=t@example.org', '-c', 'commit.gpgsign=false', '-C', dir, ...args], { encoding: 'utf8' });

const edit = replaceInFile;

/** The 1-based line of `text` in `file` (the expected annotation line, found independently). */
function lineOf(dir: string, file: string, text: string): number {
  const lines = readFileSync(path.join(dir, file), 'utf8').split('\n');
  const i = lines.findIndex((l) => l.includes(text));
  if (i === -1) throw new Error(`${file} has no line with "${text}"`);
  return i + 1;
}

/**
 * A content repository at `sub` inside a fresh git repository: the mini fixture plus a work that
 * is already broken on main, committed; then branch `change` checked out.
 */
function repoWithBase(sub = ''): { root: string; dir: string } {
  const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-lint-diff-'));
  dirs.push(root);
  const dir = path.join(root, sub);
  cpSync(FIXTURE, dir, { recursive: true });
  cpSync(path.join(dir, 'works', 'bach-minuet-in-g'), path.join(dir, 'works', 'zz-old-broken'), { recursive: true });
  edit(dir, OLD, 'slug: bach-minuet-in-g', 'slug: zz-old-broken');
  edit(dir, OLD, 'durationSeconds: 90', 'durationSeconds: 92');
  git(root, 'init', '--quiet', '--initial-branch=main');
  git(root, 'add', '--all');
  git(root, 'commit', '--quiet', '-m', 'base');
  git(root, 'checkout', '--quiet', '-b', 'change');
  return { root, dir };
}

function commit(root: string): void {
  git(root, 'add', '--all');
  git(root, 'commit', '--quiet', '-m', 'change');
}

const lint = (dir: string, ...args: string[]) => spawnSync(process.execPath, [CLI, dir, ...args], { encoding: 'utf8' });

describe('content lint of changed files', () => {
  it('annotates the broken lines of the changed work only, with file and line, and exits 1', () => {
    const { root, dir } = repoWithBase();
    edit(dir, WORK, 'durationSeconds: 90', 'durationSeconds: 91');
    edit(dir, WORK, 'instruments: [piano]', 'instruments: [piano, kazoo]');
    commit(root);

    const run = lint(dir, '--base', 'main', '--format', 'github');
    expect(run.stderr).toBe('');
    expect(run.status).toBe(1);
    const annotations = run.stdout.split('\n').filter((l) => l.startsWith('::error file='));
    expect(annotations).toEqual([
      `::error file=${WORK},line=${lineOf(dir, WORK, 'instruments: [piano, kazoo]')},title=Content lint /instruments/1::/instruments/1: names unknown instrument "kazoo" (not in instruments.json)`,
      `::error file=${WORK},line=${lineOf(dir, WORK, 'durationSeconds: 91')},title=Content lint /arrangements/0/durationSeconds::/arrangements/0/durationSeconds: disagrees with duration "1:30" (90 s)`,
    ]);
    // The work broken on main is not this change's problem.
    expect(run.stdout).not.toContain('zz-old-broken');
    expect(run.stdout).toMatch(/^::error title=Content lint::content lint: 2 problem\(s\) in 1 changed work\(s\); 1 work\(s\) checked/m);

    // The same change as a list of files, in text form with lines.
    const listed = lint(dir, '--file', WORK, '--file', 'README.md');
    expect(listed.status).toBe(1);
    expect(listed.stderr).toContain(`${WORK}:${lineOf(dir, WORK, 'durationSeconds: 91')}: /arrangements/0/durationSeconds: disagrees with duration "1:30" (90 s)`);
    expect(listed.stderr).not.toContain('zz-old-broken');
  });

  it('a changed profile re-checks the whole repository and points into the JSON', () => {
    const { root, dir } = repoWithBase();
    const profile = 'profiles/calm-piano.json';
    edit(dir, profile, '"renderReady": true', '"renderReady": "yes"');
    commit(root);
    const run = lint(dir, '--base', 'main', '--format', 'github');
    expect(run.status).toBe(1);
    expect(run.stdout).toContain(`::error file=${profile},line=${lineOf(dir, profile, '"renderReady": "yes"')},title=Content lint /renderReady::/renderReady: must be boolean (got "yes")`);
    // Every work is in question now, so the one broken on main is reported too.
    expect(run.stdout).toContain(`::error file=${OLD},line=${lineOf(dir, OLD, 'durationSeconds: 92')},`);
  });

  it('prefixes paths when the content repository is a folder of the checkout, and names the line of broken YAML', () => {
    const { root, dir } = repoWithBase('content');
    edit(dir, WORK, 'title: Minuet in G major', 'title: [unclosed');
    commit(root);
    const run = lint(dir, '--base', 'main', '--format', 'github');
    expect(run.status).toBe(1);
    const line = run.stdout.split('\n').find((l) => l.startsWith('::error file='));
    expect(line).toMatch(new RegExp(`^::error file=content/${WORK.replace(/\//g, '\\/')},line=(\\d+),title=Content lint::has front matter that is not valid YAML`));
    // js-yaml reports where it noticed the problem: at or after the broken line, never before it.
    expect(Number(/line=(\d+)/.exec(line!)![1])).toBeGreaterThanOrEqual(lineOf(dir, WORK, 'title: [unclosed'));
  });

  it('a missing field points at the line of the object that lacks it', () => {
    const { dir } = repoWithBase();
    edit(dir, WORK, '  checkedAtUtc: "2026-11-01T00:00:00Z"\n', '');
    const run = lint(dir, '--file', WORK);
    expect(run.status).toBe(1);
    expect(run.stderr).toContain(`${WORK}:${lineOf(dir, WORK, 'rights:')}: /rights/checkedAtUtc: is required`);
  });

  it('exits 0 when the changed files are fine or not content, and 2 on an unknown base', () => {
    const { root, dir } = repoWithBase();
    edit(dir, WORK, 'key: G major', 'key: G major # checked');
    writeFileSync(path.join(dir, 'README.md'), 'notes\n');
    commit(root);
    const run = lint(dir, '--base', 'main', '--format', 'github');
    expect(run.status).toBe(0);
    expect(run.stdout).toContain('content lint: 0 problem(s) in 1 changed work(s); 1 work(s) checked');
    expect(run.stdout).not.toContain('::error');

    const unknown = lint(dir, '--base', 'no-such-branch');
    expect(unknown.status).toBe(2);
    expect(unknown.stderr).toContain('the base "no-such-branch" is not a commit known in');
  });
});

describe('lint scope and annotations (pure)', () => {
  it('classifies changed paths', () => {
    expect(lintScope(['README.md', 'works/a/index.md', './works/a/score.musicxml', 'works/b/x.mp3', '../etc/passwd', '.github/workflows/x.yml'])).toEqual({
      full: false,
      works: ['a', 'b'],
      files: ['works/a/index.md', 'works/a/score.musicxml', 'works/b/x.mp3'],
    });
    expect(lintScope(['instruments.json']).full).toBe(true);
    expect(lintScope(['profiles/x.json']).full).toBe(true);
    expect(lintScope(['genres.json', 'works/a/index.md'])).toMatchObject({ full: true, works: ['a'] });
  });

  it('escapes workflow-command data and properties', () => {
    const line = githubAnnotation({ file: 'works/a,b/index.md', pointer: '/x', message: 'bad: 100%\nnext', line: 3 });
    expect(line).toBe('::error file=works/a%2Cb/index.md,line=3,title=Content lint /x::/x: bad: 100%25%0Anext');
  });
});
