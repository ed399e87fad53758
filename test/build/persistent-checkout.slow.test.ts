/**
 * The rebuilder's persistent build checkout (api/site/builds.ts, `checkoutPersistent`): moved
 * between commits by writing only the paths that differ (api/site/checkout-move.ts, without
 * git's index); after a stop inside a move (its marker names the move), the move is done again;
 * with a marker that names none, or after a stop before its first checkout ended, it is checked
 * out in full.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureBuild } from '../../api/site/builds.ts';
import { loadConfig } from '../../api/config.ts';
import { ensureContentRepo, git } from '../../api/site/content-repo.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-persistent-checkout-'));
const config = loadConfig({ ARCHIVE_DATA_DIR: root, PUBLIC_BASE_URL: 'https://checkout.example.test' }, PROJECT_ROOT);
const repo = config.contentRepo;
const checkout = path.join(root, 'worktrees', 'rebuild-checkout');
afterAll(() => rmSync(root, { recursive: true, force: true }));

/** Commit the content repository's checkout as it is on disk. */
async function commitAll(message: string): Promise<string> {
  await git(repo, ['add', '-A']);
  await git(repo, ['commit', '-q', '-m', message]);
  return git(repo, ['rev-parse', 'HEAD']);
}

/**
 * The checkout's files against its HEAD: git's status through an index made afresh from HEAD (the
 * moves leave the checkout's own index as it was at its last full checkout; nothing reads it).
 */
function statusAgainstHead(): string {
  const index = path.join(root, 'status-index');
  rmSync(index, { force: true });
  const run = (args: string[]) =>
    execFileSync('git', ['-C', checkout, ...args], {
      encoding: 'utf8',
      env: { ...process.env, GIT_INDEX_FILE: index },
    }).trim();
  run(['read-tree', 'HEAD']);
  return run(['status', '--porcelain', '--untracked-files=all']);
}

/** The checkout's files, with what HEAD says of them. */
async function state() {
  return {
    head: await git(checkout, ['rev-parse', 'HEAD']),
    status: statusAgainstHead(),
    works: readdirSync(path.join(checkout, 'works')).sort(),
    marker: existsSync(path.join(checkout, '.git', 'archive-moving')),
  };
}

/** A build of `commit` that moves the checkout from the latest build's commit; then the checkout's state. */
async function stateAfterMoveTo(commit: string) {
  await ensureBuild(config, commit, { worktree: 'rebuild', incrementalFromLatest: true });
  return state();
}

describe('the persistent build checkout', () => {
  it('moves to the next commit path by path, removing a deleted work’s folder, and is checked out in full after a stop inside a move', async () => {
    const seeded = await ensureContentRepo(repo, path.join(PROJECT_ROOT, 'content'));
    await ensureBuild(config, seeded.head, { worktree: 'rebuild' });
    const works = readdirSync(path.join(repo, 'works')).sort();
    expect((await state()).works).toEqual(works);

    // One work edited, one removed.
    const [edited, removed] = works;
    const kept = works.filter((w) => w !== removed);
    const file = path.join(repo, 'works', edited!, 'index.md');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^title: (.*)$/m, 'title: $1 (moved)'));
    rmSync(path.join(repo, 'works', removed!), { recursive: true });
    const second = await commitAll('Edit one work, remove another');
    // A file the move does not touch, edited by hand in the checkout: the move leaves it as it is
    // (it looks at no other path; a full checkout would restore it).
    const untouched = works[2]!;
    const untouchedFile = path.join(checkout, 'works', untouched, 'index.md');
    const original = readFileSync(untouchedFile, 'utf8');
    writeFileSync(untouchedFile, 'edited by hand\n');
    // (The status is trimmed: its leading space is gone.)
    expect(await stateAfterMoveTo(second)).toEqual({
      head: second,
      status: `M works/${untouched}/index.md`,
      works: kept,
      marker: false,
    });
    writeFileSync(untouchedFile, original);
    expect((await state()).status).toBe('');
    expect(readFileSync(path.join(checkout, 'works', edited!, 'index.md'), 'utf8')).toContain('(moved)');

    // A stop inside a move whose marker names it: HEAD is still the old commit, and the work's
    // file already the new one's. The next build, of a commit with the old commit's files again
    // (a revert), must not find "nothing to do": it does the stopped move again, then its own.
    // It does not check out in full (the hand-edited file stays as it is).
    writeFileSync(untouchedFile, 'edited by hand\n');
    const moved = readFileSync(file, 'utf8');
    writeFileSync(file, moved.replace('(moved)', '(moved twice)'));
    const third = await commitAll('Edit the work again');
    writeFileSync(path.join(checkout, '.git', 'archive-moving'), `${second} ${third}\n`);
    writeFileSync(path.join(checkout, 'works', edited!, 'index.md'), readFileSync(file, 'utf8'));
    writeFileSync(file, moved);
    const fourth = await commitAll('Revert the edit');
    expect(await stateAfterMoveTo(fourth)).toEqual({
      head: fourth,
      status: `M works/${untouched}/index.md`,
      works: kept,
      marker: false,
    });
    expect(readFileSync(path.join(checkout, 'works', edited!, 'index.md'), 'utf8')).toBe(moved);

    // A marker that names no move (a stop left something else): the next move checks out in
    // full, so the hand-edited file is the commit's again.
    writeFileSync(path.join(checkout, '.git', 'archive-moving'), 'stopped\n');
    writeFileSync(untouchedFile, 'left by a stop\n');
    writeFileSync(file, moved.replace('(moved)', '(moved four times)'));
    const fifth = await commitAll('Edit the work a fourth time');
    expect(await stateAfterMoveTo(fifth)).toEqual({ head: fifth, status: '', works: kept, marker: false });
    expect(readFileSync(path.join(checkout, 'works', edited!, 'index.md'), 'utf8')).toContain('(moved four times)');

    // A stop between the clone and its checkout: a clone whose HEAD names a commit but with no
    // files (what earlier versions left in place), and a half-made one beside it. The next build
    // checks out in full instead of taking it for a checkout of that commit to move from.
    rmSync(checkout, { recursive: true });
    for (const dir of [checkout, `${checkout}.adding`])
      execFileSync('git', ['clone', '--quiet', '--shared', '--no-checkout', repo, dir]);
    expect(await git(checkout, ['rev-parse', 'HEAD'])).toBe(fifth);
    expect(readdirSync(checkout)).toEqual(['.git']);
    writeFileSync(file, moved.replace('(moved)', '(moved five times)'));
    const sixth = await commitAll('Edit the work a fifth time');
    expect(await stateAfterMoveTo(sixth)).toEqual({ head: sixth, status: '', works: kept, marker: false });
    expect(existsSync(`${checkout}.adding`)).toBe(false);
  }, 600_000);
});
