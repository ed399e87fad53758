/**
 * The review diff (src/domain/review/diff.ts, api/review/diff.ts): text cut at a line end within
 * the byte bound, numstat parsing, line kinds, and the git reader on a real repository: a branch
 * against where it left main, an applied merge against its first parent, a huge change bounded.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundDiffText, diffLineKind, parseNumstat } from '../../src/domain/review/diff.ts';
import { reviewDiff } from '../../api/review/diff.ts';

describe('diff text helpers', () => {
  it('cuts at the last whole line within the bound, counting UTF-8 bytes', () => {
    expect(boundDiffText('a\nbb\n', 100)).toEqual({ text: 'a\nbb\n', truncated: false });
    expect(boundDiffText('a\nbb\nccc\n', 6)).toEqual({ text: 'a\nbb\n', truncated: true });
    expect(boundDiffText('é\néé\n', 5)).toEqual({ text: 'é\n', truncated: true });
    expect(boundDiffText('long line without end', 4)).toEqual({ text: '', truncated: true });
  });

  it('reads numstat lines (binary as null) and bounds the list', () => {
    expect(parseNumstat('3\t1\tworks/a/index.md\n-\t-\tworks/a/x.mp3\n')).toEqual({
      files: [
        { path: 'works/a/index.md', added: 3, deleted: 1 },
        { path: 'works/a/x.mp3', added: null, deleted: null },
      ],
      more: 0,
    });
    expect(parseNumstat('1\t0\ta\n1\t0\tb\n1\t0\tc\n', 2)).toEqual({
      files: [
        { path: 'a', added: 1, deleted: 0 },
        { path: 'b', added: 1, deleted: 0 },
      ],
      more: 1,
    });
  });

  it('classifies lines', () => {
    expect(
      ['diff --git a/x b/x', '@@ -1 +1 @@', '--- a/x', '+++ b/x', '+new', '-old', ' same', 'index 1..2'].map(
        diffLineKind,
      ),
    ).toEqual(['file', 'hunk', 'meta', 'meta', 'add', 'del', 'context', 'meta']);
  });
});

describe('reviewDiff on a git repository', () => {
  let repo: string;
  const git = (...args: string[]) =>
    execFileSync(
      'git',
      ['-c', 'user.name=T', '-c', 'user.email=t@localhost', '-c', 'commit.gpgsign=false', '-C', repo, ...args],
      { encoding: 'utf8' },
    ).trim();
  beforeAll(() => {
    repo = mkdtempSync(path.join(os.tmpdir(), 'pdma-diff-'));
    git('init', '--quiet', '--initial-branch=main');
    writeFileSync(path.join(repo, 'a.md'), 'one\ntwo\n');
    git('add', '--all');
    git('commit', '--quiet', '-m', 'base');
    git('checkout', '--quiet', '-b', 'review/C-1');
    writeFileSync(path.join(repo, 'a.md'), 'one\nTWO\n');
    writeFileSync(path.join(repo, 'big.md'), `${'x'.repeat(100)}\n`.repeat(20_000));
    git('add', '--all');
    git('commit', '--quiet', '-m', 'proposal');
    git('checkout', '--quiet', 'main');
    // main moves on after the branch left it: the diff still shows only the proposal.
    writeFileSync(path.join(repo, 'other.md'), 'later\n');
    git('add', '--all');
    git('commit', '--quiet', '-m', 'later on main');
  });
  afterAll(() => rmSync(repo, { recursive: true, force: true }));

  it('shows the branch against where it left main, bounded', async () => {
    const diff = await reviewDiff(repo, { branch: 'review/C-1', appliedCommit: null }, 4096);
    expect(diff).not.toBeNull();
    expect(diff!.files.map((f) => f.path).sort()).toEqual(['a.md', 'big.md']);
    expect(diff!.files.find((f) => f.path === 'big.md')).toEqual({ path: 'big.md', added: 20_000, deleted: 0 });
    expect(diff!.truncated).toBe(true);
    expect(Buffer.byteLength(diff!.text)).toBeLessThanOrEqual(4096);
    expect(diff!.text).toContain('+TWO');
    expect(diff!.text).not.toContain('other.md');
    expect(diff!.text.endsWith('\n')).toBe(true);
  });

  it('shows an applied merge against its first parent; nothing without a branch', async () => {
    git('merge', '--no-ff', '--quiet', '-m', 'apply', 'review/C-1');
    const merge = git('rev-parse', 'HEAD');
    const diff = await reviewDiff(repo, { branch: 'review/C-1', appliedCommit: merge });
    expect(diff!.head).toBe(merge);
    // 2 MB of change, cut at the default bound.
    expect(diff!.truncated).toBe(true);
    expect(Buffer.byteLength(diff!.text)).toBeLessThanOrEqual(diff!.maxBytes);
    expect(diff!.text).toContain('+TWO');
    expect(await reviewDiff(repo, { branch: null, appliedCommit: null })).toBeNull();
    expect(await reviewDiff(repo, { branch: 'review/C-none', appliedCommit: null })).toBeNull();
  });
});
