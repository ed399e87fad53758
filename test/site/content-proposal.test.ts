/**
 * ContentProposal (api/site/content-proposal.ts), the git plumbing shared by the local forge's
 * proposals and curator publication: files are read from the base commit byte for byte, the
 * lint's partial copy holds the shared files and only the changed work (another work's error
 * already in the base is not looked at, where the whole tree's lint reports it), an existing
 * shared file puts the whole tree in question, and a commit is made on the base without moving
 * any branch or leaving scratch files behind.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
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
  // A second work with an error already in the base (a duration that disagrees with its seconds).
  cpSync(path.join(seed, 'works', 'bach-minuet-in-g'), path.join(seed, 'works', 'broken-minuet'), { recursive: true });
  const text = readFileSync(path.join(seed, MINUET), 'utf8');
  writeFileSync(
    path.join(seed, BROKEN),
    text.replace('slug: bach-minuet-in-g', 'slug: broken-minuet').replace('durationSeconds: 90', 'durationSeconds: 91'),
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
    expect(whole).toEqual([`${BROKEN}: /arrangements/0/durationSeconds: disagrees with duration "1:30" (90 s)`]);

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
      await proposal.write([{ path: MINUET, content: edited.replace('durationSeconds: 90', 'durationSeconds: 92') }]);
      const broken = await proposal.checkChanged([MINUET], lint);
      expect(broken.result).toEqual([
        `${MINUET}: /arrangements/0/durationSeconds: disagrees with duration "1:30" (90 s)`,
      ]);

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

  it('commits on the base tree whatever the main checkout holds: a hand edit staged there reaches no proposal', async () => {
    writeFileSync(path.join(repo, MINUET), 'staged by hand\n');
    await git(repo, ['add', MINUET]);
    const proposal = await ContentProposal.open(repo, scratch, 'staged', base);
    try {
      await proposal.write([{ path: 'works/new-two/index.md', content: 'y\n' }]);
      const commit = await proposal.commit('Add another file');
      expect(await git(repo, ['diff-tree', '-r', '--name-only', '--no-commit-id', base, commit])).toBe(
        'works/new-two/index.md',
      );
    } finally {
      proposal.dispose();
    }
    expect(readdirSync(scratch)).toEqual([]);
  });

  it("makes the tree git's own index makes of the same changes: nested, removed, re-written, emptied and new folders", async () => {
    // A base with folders at three depths and names whose order differs with and without the "/"
    // git compares folders with ("a.b" sorts before "a/" as a folder, "a-" before both).
    const files = [
      'works/a/index.md',
      'works/a/files/x.txt',
      'works/a/files/deep/y.txt',
      'works/a.b/index.md',
      'works/a-/index.md',
      'works/b/index.md',
      'works/only/one.txt',
      'top.txt',
    ];
    for (const f of files) {
      mkdirSync(path.dirname(path.join(repo, f)), { recursive: true });
      writeFileSync(path.join(repo, f), `${f}\n`);
    }
    await git(repo, ['add', '-A']);
    await git(repo, ['commit', '-q', '-m', 'Folders at three depths']);
    const head = await git(repo, ['rev-parse', 'HEAD']);
    const rounds: [string, string | null][][] = [
      [['works/a/index.md', 'edited\n']],
      [['works/a/files/deep/y.txt', null]], // its folder is emptied, so gone
      [['works/only/one.txt', null]], // a work folder emptied
      [
        ['works/a/files/deep/z/w.txt', 'new, four folders down\n'],
        ['works/a', null], // removing a path that is a folder: nothing happens
        ['works/new/index.md', 'new work\n'],
        ['works/a.b/index.md', null],
        ['works/a-/index.md', 'changed\n'],
        ['works/a-/index.md', 'changed twice\n'], // the later change wins
        ['works/no-such/file.md', null], // removing what is not there: nothing happens
        ['top.txt', null],
        ['new-top/x.txt', 'x\n'],
      ],
      [],
    ];
    for (const changes of rounds) {
      const proposal = await ContentProposal.open(repo, scratch, 'tree', head);
      try {
        await proposal.write(changes.map(([p, content]) => ({ path: p, content })));
        const commit = await proposal.commit('Edit');
        // git's answer: the base's tree in an index of its own, the same changes entered, write-tree.
        const index = path.join(root, 'oracle-index');
        rmSync(index, { force: true });
        const env = { ...process.env, GIT_INDEX_FILE: index };
        const run = (args: string[], input?: string) =>
          execFileSync('git', ['-C', repo, ...args], { env, input, encoding: 'utf8' }).trim();
        run(['read-tree', head]);
        for (const [p, content] of changes) {
          if (content === null) run(['update-index', '--force-remove', p]);
          else
            run([
              'update-index',
              '--add',
              '--cacheinfo',
              `100644,${run(['hash-object', '-w', '--stdin'], content)},${p}`,
            ]);
        }
        expect(await git(repo, ['rev-parse', `${commit}^{tree}`])).toBe(run(['write-tree']));
        expect(await git(repo, ['rev-parse', `${commit}^`])).toBe(head);
      } finally {
        proposal.dispose();
      }
    }
  });

  it('refuses a file written where the base has a folder, and a folder where it has a file', async () => {
    for (const change of ['works/bach-minuet-in-g', 'works/bach-minuet-in-g/index.md/inside.txt']) {
      const proposal = await ContentProposal.open(repo, scratch, 'conflict', base);
      try {
        await proposal.write([{ path: change, content: 'x\n' }]);
        await expect(proposal.commit('Conflict')).rejects.toThrow(
          /a change writes a (file|folder) where the base has a/,
        );
      } finally {
        proposal.dispose();
      }
    }
    expect(await git(repo, ['rev-parse', 'HEAD'])).toBe(base);
  });
});
