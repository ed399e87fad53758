/**
 * `isAncestor` answers git's "yes" and "no" and throws on anything else: a resumed apply asks
 * it whether main still holds its merge, and a command that could not run must not read as "no"
 * (the apply would then be built again on a main that holds it, and refused).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { isAncestor } from '../../api/site/content-repo.ts';

const repo = mkdtempSync(path.join(os.tmpdir(), 'pdma-is-ancestor-'));
afterAll(() => rmSync(repo, { recursive: true, force: true }));
const run = (...args: string[]) =>
  execFileSync('git', ['-C', repo, '-c', 'user.name=t', '-c', 'user.email=t@example.test', ...args], {
    encoding: 'utf8',
  }).trim();

describe('isAncestor', () => {
  it('is true for an ancestor, false for a descendant, and throws when git cannot answer', async () => {
    run('init', '--quiet', '--initial-branch=main');
    writeFileSync(path.join(repo, 'a.txt'), 'a\n');
    run('add', 'a.txt');
    run('commit', '--quiet', '-m', 'first');
    const first = run('rev-parse', 'HEAD');
    writeFileSync(path.join(repo, 'a.txt'), 'b\n');
    run('commit', '--quiet', '-am', 'second');
    const second = run('rev-parse', 'HEAD');
    expect(await isAncestor(repo, first, 'refs/heads/main')).toBe(true);
    expect(await isAncestor(repo, second, second)).toBe(true);
    expect(await isAncestor(repo, second, first)).toBe(false);
    // A commit the repository does not have: git fails (exit 128), which is no answer.
    await expect(isAncestor(repo, 'f'.repeat(40), 'refs/heads/main')).rejects.toThrow(/merge-base/);
    await expect(isAncestor(path.join(repo, 'missing'), first, second)).rejects.toThrow();
  });
});
