/**
 * ContentProposal (api/site/content-proposal.ts), the git plumbing shared by the local forge's
 * proposals and curator publication: files are read from the base commit byte for byte, the
 * lint's partial copy holds the shared files and only the changed work (another work's error
 * already in the base is not looked at, where the whole tree's lint reports it), an existing
 * shared file puts the whole tree in question, and a commit is made on the base without moving
 * any branch or leaving scratch files behind.
 */
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ContentProposal } from '../../api/site/content-proposal.ts';
import { ensureContentRepo, git } from '../../api/site/content-repo.ts';
import { formatLintMessage, loadCatalog } from '../../src/domain/catalog.ts';
import { lintPartialCopy, type OtherWorks } from '../../src/domain/content-lint.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';

const MINUET = 'works/bach-minuet-in-g/index.md';
const BROKEN = 'works/broken-minuet/index.md';
let root: string;
let repo: string;
let scratch: string;
let base: string;

beforeEach(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'pdma-content-proposal-'));
  const seed = path.join(root, 'seed');
  cpSync(path.join(PROJECT_ROOT, 'test', 'fixtures', 'mini'), seed, { recursive: true });
  // A second work with an error already in the base (a died date that is not a real date).
  cpSync(path.join(seed, 'works', 'bach-minuet-in-g'), path.join(seed, 'works', 'broken-minuet'), { recursive: true });
  const text = readFileSync(path.join(seed, MINUET), 'utf8');
  writeFileSync(
    path.join(seed, BROKEN),
    text.replace('slug: bach-minuet-in-g', 'slug: broken-minuet').replace('died: "1733-07-25"', 'died: "1733-02-30"'),
  );
  repo = path.join(root, 'content');
  base = (await ensureContentRepo(repo, seed)).head;
  scratch = path.join(root, 'scratch');
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const lint = (dir: string, others: OtherWorks) => lintPartialCopy(dir, others).map(formatLintMessage);

describe('ContentProposal', () => {
  it('lints only the changed work: an error already in another work is not looked at, as the whole tree would report it', async () => {
    const whole = loadCatalog(repo).messages.map(formatLintMessage);
    expect(whole).toEqual([`${BROKEN}: /composer/died: is not a real calendar date (got "1733-02-30")`]);

    const proposal = await ContentProposal.open(repo, scratch, 'test', base);
    try {
      const before = await proposal.readBase(MINUET);
      expect(before!.equals(readFileSync(path.join(repo, MINUET)))).toBe(true);
      expect(await proposal.readBase('works/no-such-work/index.md')).toBeNull();
      const edited = `${before!.toString('utf8')}\nA new paragraph.\n`;
      await proposal.write([{ path: MINUET, content: edited }]);
      const seen = await proposal.checkChanged([MINUET], (dir, others) => ({
        works: readdirSync(path.join(dir, 'works')),
        // The other work found by its slug, with or without case; the work in question is not another.
        others: [others.find('broken-minuet'), others.find('Broken-Minuet'), others.find('bach-minuet-in-g')],
        text: readFileSync(path.join(dir, MINUET), 'utf8'),
        messages: lint(dir, others),
      }));
      expect(seen.scope).toBe('changed works');
      expect(seen.result).toEqual({
        works: ['bach-minuet-in-g'],
        others: ['broken-minuet', 'broken-minuet', undefined],
        text: edited,
        messages: [],
      });

      // The change itself breaking the lint is reported with the whole tree's message.
      await proposal.write([{ path: MINUET, content: edited.replace('died: "1733-07-25"', 'died: "1733-13-01"') }]);
      const broken = await proposal.checkChanged([MINUET], lint);
      expect(broken.result).toEqual([`${MINUET}: /composer/died: is not a real calendar date (got "1733-13-01")`]);

      // An existing shared file can break any work: the whole tree, and the base's error with it.
      const instruments = readFileSync(path.join(repo, 'instruments.json'), 'utf8');
      await proposal.write([
        { path: 'instruments.json', content: instruments },
        { path: MINUET, content: edited },
      ]);
      const shared = await proposal.checkChanged(['instruments.json'], (dir, others) => ({
        works: readdirSync(path.join(dir, 'works')).sort(),
        others: [others.find('broken-minuet'), others.find('bach-minuet-in-g')],
        messages: lint(dir, others),
      }));
      expect(shared.scope).toBe('whole tree (changed shared file: instruments.json)');
      expect(shared.result).toEqual({
        works: ['bach-minuet-in-g', 'broken-minuet'],
        others: [undefined, undefined],
        messages: whole,
      });

      const commit = await proposal.commit(
        'Add a paragraph\n\nBody line.\n',
        'Ada Curator <ada@curators.archive.invalid>',
      );
      expect(await git(repo, ['rev-parse', `${commit}^`])).toBe(base);
      expect(await git(repo, ['log', '-1', '--format=%an <%ae>|%s|%b', commit])).toBe(
        'Ada Curator <ada@curators.archive.invalid>|Add a paragraph|Body line.',
      );
      expect(await git(repo, ['diff', '--name-only', base, commit])).toBe(MINUET);
      expect(await git(repo, ['show', `${commit}:${MINUET}`])).toBe(edited.trim());
      // No branch moved, the checkout is untouched.
      expect(await git(repo, ['rev-parse', 'HEAD'])).toBe(base);
      expect(await git(repo, ['status', '--porcelain'])).toBe('');
    } finally {
      proposal.dispose();
    }
    expect(readdirSync(scratch)).toEqual([]);
  });

  it("starts from a copy of the main checkout's index when it holds the base, and from the tree when a hand edit is staged there", async () => {
    const first = await ContentProposal.open(repo, scratch, 'from-index', base);
    try {
      expect(first.treeFrom).toBe('checkout index');
      await first.write([{ path: 'works/new-one/index.md', content: 'x\n' }]);
      const commit = await first.commit('Add a file');
      expect(await git(repo, ['diff-tree', '-r', '--name-only', '--no-commit-id', base, commit])).toBe(
        'works/new-one/index.md',
      );
    } finally {
      first.dispose();
    }
    // A hand edit staged in the checkout: its index no longer holds the base, and nothing of it
    // may reach a proposal.
    writeFileSync(path.join(repo, MINUET), 'staged by hand\n');
    await git(repo, ['add', MINUET]);
    const second = await ContentProposal.open(repo, scratch, 'from-tree', base);
    try {
      expect(second.treeFrom).toBe('read-tree');
      await second.write([{ path: 'works/new-two/index.md', content: 'y\n' }]);
      const commit = await second.commit('Add another file');
      expect(await git(repo, ['diff-tree', '-r', '--name-only', '--no-commit-id', base, commit])).toBe(
        'works/new-two/index.md',
      );
    } finally {
      second.dispose();
    }
    // Neither left an index or a copy behind.
    expect(readdirSync(scratch)).toEqual([]);
  });
});
