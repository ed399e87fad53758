/**
 * Moving a checkout's files between two commits without git's index (api/site/checkout-move.ts):
 * the raw diff's parsing, and a real repository moved forward, back and again after a stop in
 * the middle, compared file by file with a full checkout of each commit.
 */
import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { moveCheckoutFiles, parseRawDiff } from '../../api/site/checkout-move.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-checkout-move-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const git = (dir: string, ...args: string[]) =>
  execFileSync('git', ['-C', dir, '-c', 'user.name=T', '-c', 'user.email=t@example.test', ...args], {
    encoding: 'utf8',
  }).trim();

/** Every file under `dir` (not .git) with its content and executable bit. */
function files(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (d: string, rel: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      if (e.name === '.git') continue;
      const p = path.join(d, e.name);
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        out[`${r}/`] = '(folder)';
        walk(p, r);
      } else out[r] = `${statSync(p).mode & 0o111 ? 'x ' : ''}${readFileSync(p, 'latin1')}`;
    }
  };
  walk(dir, '');
  return out;
}

describe('parseRawDiff', () => {
  it('reads each path with its status, new mode and new blob', () => {
    const z = '0'.repeat(40);
    const a = 'a'.repeat(40);
    const b = 'b'.repeat(40);
    expect(
      parseRawDiff(
        `:000000 100644 ${z} ${a} A\0works/x y/index.md\0:100644 100755 ${a} ${b} M\0run.sh\0:100644 000000 ${a} ${z} D\0old\0`,
      ),
    ).toEqual([
      { status: 'A', mode: '100644', blob: a, path: 'works/x y/index.md' },
      { status: 'M', mode: '100755', blob: b, path: 'run.sh' },
      { status: 'D', mode: '000000', blob: z, path: 'old' },
    ]);
    expect(parseRawDiff('')).toEqual([]);
  });

  it('refuses anything else', () => {
    expect(() => parseRawDiff('not a diff\0path\0')).toThrow(/unexpected entry/);
    expect(() => parseRawDiff(`:000000 100644 ${'0'.repeat(40)} ${'a'.repeat(40)} A\0`)).toThrow(/without its path/);
    expect(() => parseRawDiff(`:000000 100644 ${'0'.repeat(40)} ${'a'.repeat(40)} R100\0a\0b\0`)).toThrow();
  });
});

describe('moveCheckoutFiles', () => {
  it('leaves exactly the files of the target commit, forward, back, and after a stop inside a move', async () => {
    const repo = path.join(root, 'repo');
    mkdirSync(path.join(repo, 'works', 'a'), { recursive: true });
    mkdirSync(path.join(repo, 'works', 'gone', 'deep'), { recursive: true });
    git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(path.join(repo, 'works', 'a', 'index.md'), 'a1\n');
    writeFileSync(path.join(repo, 'works', 'gone', 'deep', 'file.bin'), Buffer.from([0, 1, 2, 255, 10, 13]));
    writeFileSync(path.join(repo, 'shape'), 'a file that becomes a folder\n');
    writeFileSync(path.join(repo, 'tool.sh'), '#!/bin/sh\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-qm', 'one');
    const one = git(repo, 'rev-parse', 'HEAD');
    // Two: an edit, a new work, a removed folder tree, a file turned into a folder, a mode change.
    writeFileSync(path.join(repo, 'works', 'a', 'index.md'), 'a2\n');
    mkdirSync(path.join(repo, 'works', 'new'));
    writeFileSync(path.join(repo, 'works', 'new', 'index.md'), 'new\n');
    rmSync(path.join(repo, 'works', 'gone'), { recursive: true });
    rmSync(path.join(repo, 'shape'));
    mkdirSync(path.join(repo, 'shape'));
    writeFileSync(path.join(repo, 'shape', 'inside'), 'now a folder\n');
    chmodSync(path.join(repo, 'tool.sh'), 0o755);
    git(repo, 'add', '-A');
    git(repo, 'commit', '-qm', 'two');
    const two = git(repo, 'rev-parse', 'HEAD');

    const checkout = path.join(root, 'checkout');
    git(root, 'clone', '-q', '--shared', '--no-checkout', repo, checkout);
    git(checkout, 'checkout', '-q', '--detach', '--force', one);
    const atOne = files(checkout);
    git(checkout, 'checkout', '-q', '--detach', '--force', two);
    const atTwo = files(checkout);
    git(checkout, 'checkout', '-q', '--detach', '--force', one);
    expect(atTwo).not.toEqual(atOne);

    expect(await moveCheckoutFiles(checkout, one, two)).toBe(6);
    expect(files(checkout)).toEqual(atTwo);
    expect(await moveCheckoutFiles(checkout, two, one)).toBe(6);
    expect(files(checkout)).toEqual(atOne);
    // No change: nothing written.
    expect(await moveCheckoutFiles(checkout, one, one)).toBe(0);
    expect(files(checkout)).toEqual(atOne);

    // A stop inside a move: some paths written, others not; the same move again finishes it.
    writeFileSync(path.join(checkout, 'works', 'a', 'index.md'), 'a2\n');
    rmSync(path.join(checkout, 'works', 'gone'), { recursive: true });
    expect(await moveCheckoutFiles(checkout, one, two)).toBe(6);
    expect(files(checkout)).toEqual(atTwo);
  });

  it('refuses a symbolic link, so its caller checks the commit out in full', async () => {
    const repo = path.join(root, 'links');
    mkdirSync(repo);
    git(repo, 'init', '-q', '-b', 'main');
    writeFileSync(path.join(repo, 'a'), 'a\n');
    git(repo, 'add', '-A');
    git(repo, 'commit', '-qm', 'one');
    const one = git(repo, 'rev-parse', 'HEAD');
    symlinkSync('a', path.join(repo, 'b'));
    git(repo, 'add', '-A');
    git(repo, 'commit', '-qm', 'two');
    await expect(moveCheckoutFiles(repo, one, git(repo, 'rev-parse', 'HEAD'))).rejects.toThrow(/not a plain file/);
  });
});
