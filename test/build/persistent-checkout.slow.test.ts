/**
 * The rebuilder's persistent build checkout (api/site/builds.ts, `checkoutPersistent`): moved
 * between commits by a two-tree `read-tree -m -u`, which writes only the paths that differ, and
 * checked out in full when a stop may have left it between two commits (its move marker).
 */
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

/** The checkout's files, with what git's index and HEAD say of them. */
async function state() {
  return {
    head: await git(checkout, ['rev-parse', 'HEAD']),
    status: await git(checkout, ['status', '--porcelain', '--untracked-files=all']),
    works: readdirSync(path.join(checkout, 'works')).sort(),
    marker: existsSync(path.join(checkout, '.git', 'archive-moving')),
  };
}

describe('the persistent build checkout', () => {
  it('moves to the next commit path by path, removing a deleted work’s folder, and is checked out in full after a stop inside a move', async () => {
    const seeded = await ensureContentRepo(repo, path.join(PROJECT_ROOT, 'content'));
    await ensureBuild(config, seeded.head, { worktree: 'rebuild' });
    const works = readdirSync(path.join(repo, 'works')).sort();
    expect((await state()).works).toEqual(works);

    // One work edited, one removed.
    const [edited, removed] = works;
    const file = path.join(repo, 'works', edited!, 'index.md');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^title: (.*)$/m, 'title: $1 (moved)'));
    rmSync(path.join(repo, 'works', removed!), { recursive: true });
    const second = await commitAll('Edit one work, remove another');
    // A file the move does not touch, edited by hand in the checkout: the two-tree move leaves it
    // as it is (it looks at no other path; a full checkout would restore it).
    const untouched = works[2]!;
    const untouchedFile = path.join(checkout, 'works', untouched, 'index.md');
    const original = readFileSync(untouchedFile, 'utf8');
    writeFileSync(untouchedFile, 'edited by hand\n');
    await ensureBuild(config, second, { worktree: 'rebuild', incrementalFromLatest: true });
    expect(await state()).toEqual({
      head: second,
      status: `M works/${untouched}/index.md`, // (the git helper trims the leading space)
      works: works.filter((w) => w !== removed),
      marker: false,
    });
    writeFileSync(untouchedFile, original);
    expect((await state()).status).toBe('');
    expect(readFileSync(path.join(checkout, 'works', edited!, 'index.md'), 'utf8')).toContain('(moved)');

    // A stop inside a move: the marker is there and a file is not HEAD's. The next move checks
    // out in full, so the file is the commit's again.
    writeFileSync(path.join(checkout, '.git', 'archive-moving'), 'stopped\n');
    // (A work the next commit does not change: only the full checkout looks at it.)
    writeFileSync(untouchedFile, 'left by a stop\n');
    writeFileSync(file, readFileSync(file, 'utf8').replace('(moved)', '(moved twice)'));
    const third = await commitAll('Edit the work again');
    await ensureBuild(config, third, { worktree: 'rebuild', incrementalFromLatest: true });
    expect(await state()).toEqual({
      head: third,
      status: '',
      works: works.filter((w) => w !== removed),
      marker: false,
    });
    expect(readFileSync(path.join(checkout, 'works', edited!, 'index.md'), 'utf8')).toContain('(moved twice)');
  }, 600_000);
});
