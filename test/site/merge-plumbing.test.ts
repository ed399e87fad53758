/**
 * Merging a review branch into the content repository's main by plumbing (mergeIntoMain,
 * moveMain): a real merge commit, the main checkout follows exactly (at once, or before the
 * repository's lock is released), a conflict changes nothing, and a checkout that no longer
 * matches main is put right.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { git, mergeIntoMain, moveMain, settleCheckout, withContentRepoLock } from '../../api/site/content-repo.ts';

let repo: string;

function write(rel: string, text: string) {
  mkdirSync(path.dirname(path.join(repo, rel)), { recursive: true });
  writeFileSync(path.join(repo, rel), text);
}

async function commitAll(message: string): Promise<string> {
  await git(repo, ['add', '--all']);
  await git(repo, ['commit', '--quiet', '-m', message]);
  return git(repo, ['rev-parse', 'HEAD']);
}

/** A branch off main that writes `files`, made with the checkout back on main afterwards. */
async function branch(name: string, files: Record<string, string>): Promise<string> {
  await git(repo, ['checkout', '--quiet', '-b', name]);
  for (const [rel, text] of Object.entries(files)) write(rel, text);
  const commit = await commitAll(`change on ${name}`);
  await git(repo, ['checkout', '--quiet', 'main']);
  return commit;
}

beforeEach(async () => {
  repo = mkdtempSync(path.join(os.tmpdir(), 'pdma-merge-plumbing-'));
  await git(repo, ['init', '--quiet', '--initial-branch=main']);
  write('works/a/index.md', 'a\n');
  write('works/b/index.md', 'b\n');
  write('works/c/index.md', 'c\n');
  await commitAll('seed');
});

afterEach(() => rmSync(repo, { recursive: true, force: true }));

describe('mergeIntoMain', () => {
  it('makes a merge commit with both parents and the checkout follows, rewriting only changed files', async () => {
    const before = await git(repo, ['rev-parse', 'main']);
    const theirs = await branch('review-1', { 'works/b/index.md': 'b changed\n', 'works/d/index.md': 'd\n' });
    // main moves on meanwhile, in another file.
    write('works/c/index.md', 'c on main\n');
    const mainTip = await commitAll('main moves');
    const untouched = statSync(path.join(repo, 'works/a/index.md'));

    const merged = await mergeIntoMain(repo, 'review-1', 'Merge review-1');

    expect(await git(repo, ['rev-parse', 'main'])).toBe(merged);
    expect(await git(repo, ['rev-parse', 'HEAD'])).toBe(merged);
    expect((await git(repo, ['log', '-1', '--format=%P', merged])).split(' ')).toEqual([mainTip, theirs]);
    expect(await git(repo, ['log', '-1', '--format=%s', merged])).toBe('Merge review-1');
    expect(await git(repo, ['merge-base', '--is-ancestor', before, merged]).then(() => true)).toBe(true);
    expect(readFileSync(path.join(repo, 'works/b/index.md'), 'utf8')).toBe('b changed\n');
    expect(readFileSync(path.join(repo, 'works/d/index.md'), 'utf8')).toBe('d\n');
    expect(readFileSync(path.join(repo, 'works/c/index.md'), 'utf8')).toBe('c on main\n');
    expect(await git(repo, ['status', '--porcelain'])).toBe('');
    const after = statSync(path.join(repo, 'works/a/index.md'));
    expect([after.ino, after.mtimeMs]).toEqual([untouched.ino, untouched.mtimeMs]);
  });

  it('with deferCheckout, main moves first and the checkout follows before the lock is released', async () => {
    const theirs = await branch('review-2', { 'works/b/index.md': 'b deferred\n' });
    const merged = await withContentRepoLock(repo, async () => {
      const commit = await mergeIntoMain(repo, 'review-2', 'Merge review-2', { deferCheckout: true });
      // main names the merge at once; the checkout may still be following it.
      expect(await git(repo, ['rev-parse', 'main'])).toBe(commit);
      return commit;
    });
    // The lock was released only once the checkout held the merge.
    expect(readFileSync(path.join(repo, 'works/b/index.md'), 'utf8')).toBe('b deferred\n');
    expect(await git(repo, ['status', '--porcelain'])).toBe('');
    expect((await git(repo, ['log', '-1', '--format=%P', merged])).split(' ')[1]).toBe(theirs);
    // The next move waits for a deferred checkout: back and forth, the files follow each time.
    const before = (await git(repo, ['log', '-1', '--format=%P', merged])).split(' ')[0]!;
    await moveMain(repo, merged, before, 'back', { deferCheckout: true });
    await moveMain(repo, before, merged, 'forth', { deferCheckout: true });
    await settleCheckout(repo);
    expect(readFileSync(path.join(repo, 'works/b/index.md'), 'utf8')).toBe('b deferred\n');
    expect(await git(repo, ['status', '--porcelain'])).toBe('');
  });

  it('removes the files a merge deletes, and the folders they leave empty', async () => {
    await git(repo, ['checkout', '--quiet', '-b', 'review-6']);
    await git(repo, ['rm', '--quiet', 'works/c/index.md']);
    await git(repo, ['commit', '--quiet', '-m', 'delete c']);
    await git(repo, ['checkout', '--quiet', 'main']);
    write('works/a/index.md', 'a on main\n');
    await commitAll('main moves');

    await mergeIntoMain(repo, 'review-6', 'Merge review-6');
    expect(existsSync(path.join(repo, 'works/c'))).toBe(false);
    expect(existsSync(path.join(repo, 'works/b/index.md'))).toBe(true);
    expect(await git(repo, ['status', '--porcelain'])).toBe('');
  });

  it('refuses a conflicting branch, naming the file, and changes nothing', async () => {
    await branch('review-2', { 'works/a/index.md': 'a from the branch\n' });
    write('works/a/index.md', 'a from main\n');
    const mainTip = await commitAll('main edits a');

    await expect(mergeIntoMain(repo, 'review-2', 'Merge review-2')).rejects.toThrow(/works\/a\/index\.md/);
    expect(await git(repo, ['rev-parse', 'main'])).toBe(mainTip);
    expect(readFileSync(path.join(repo, 'works/a/index.md'), 'utf8')).toBe('a from main\n');
    expect(await git(repo, ['status', '--porcelain'])).toBe('');
  });
});

describe('moveMain', () => {
  it('moves main back and forth with the checkout, and refuses when main is no longer where the caller thinks', async () => {
    const first = await git(repo, ['rev-parse', 'main']);
    await branch('review-3', { 'works/a/index.md': 'a2\n' });
    const merged = await mergeIntoMain(repo, 'review-3', 'Merge review-3');

    await moveMain(repo, merged, first, 'undo');
    expect(await git(repo, ['rev-parse', 'main'])).toBe(first);
    expect(readFileSync(path.join(repo, 'works/a/index.md'), 'utf8')).toBe('a\n');
    expect(await git(repo, ['status', '--porcelain'])).toBe('');

    // main is at `first`; a caller that believes it is at `merged` must not move it.
    await expect(moveMain(repo, merged, first, 'stale')).rejects.toThrow();
    expect(await git(repo, ['rev-parse', 'main'])).toBe(first);
  });

  it('puts a checkout right that no longer matches main (a stop between the ref and the files)', async () => {
    const first = await git(repo, ['rev-parse', 'main']);
    const theirs = await branch('review-4', { 'works/b/index.md': 'b2\n' });
    await branch('review-5', { 'works/c/index.md': 'c2\n' });
    // As after a stop between update-ref and the checkout: main moved, the files did not.
    await git(repo, ['update-ref', 'refs/heads/main', theirs, first]);
    expect(readFileSync(path.join(repo, 'works/b/index.md'), 'utf8')).toBe('b\n');

    await mergeIntoMain(repo, 'review-5', 'Merge review-5');
    expect(readFileSync(path.join(repo, 'works/b/index.md'), 'utf8')).toBe('b2\n');
    expect(readFileSync(path.join(repo, 'works/c/index.md'), 'utf8')).toBe('c2\n');
    expect(await git(repo, ['status', '--porcelain'])).toBe('');
  });
});
