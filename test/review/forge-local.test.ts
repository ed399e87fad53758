/**
 * The local forge writes a proposal with git plumbing (a temporary index, no checkout of the
 * whole tree) and lints only what it touches: the commit is what a checkout-and-commit
 * made (parent main, the submitter as author, the service as committer, main's tree plus the
 * change), main's checkout and worktree list are untouched, and the content lint still refuses —
 * per-file rules on the changed work, the rule across works (a unique slug) against every other
 * work folder, and a changed shared file against every work. The whole-tree lint
 * (`loadCatalog` of a full checkout) is the oracle for the messages.
 */
import { execFileSync } from 'node:child_process';
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LocalForge, ProposalLintError } from '../../api/forge/forge-local.ts';
import { ensureContentRepo, git } from '../../api/site/content-repo.ts';
import { formatLintMessage, loadCatalog } from '../../src/domain/catalog.ts';
import { lintPartialCopy } from '../../src/domain/content-lint.ts';
import type { ProposalInput } from '../../api/forge/types.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';

const WORK = 'works/bach-minuet-in-g/index.md';
let root: string;
let repo: string;
let scratch: string;
let forge: LocalForge;

beforeEach(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'pdma-forge-local-'));
  repo = path.join(root, 'content');
  scratch = path.join(root, 'worktrees');
  await ensureContentRepo(repo, path.join(PROJECT_ROOT, 'test', 'fixtures', 'mini'));
  forge = new LocalForge({
    contentRepo: repo,
    scratchDir: scratch,
    lint: (dir, otherWorks) => lintPartialCopy(dir, otherWorks).map(formatLintMessage),
    author: () => 'Cleo Reporter <human@contributors.invalid>',
  });
});
afterEach(() => rmSync(root, { recursive: true, force: true }));

const original = () => readFileSync(path.join(repo, WORK), 'utf8');
const proposal = (changes: ProposalInput['changes'], code = 'R-TEST-AAAA-BBBB-CCCC'): ProposalInput => ({
  trackingCode: code,
  title: `${code}: a change`,
  message: `${code}: a change\n\nTracking-Code: ${code}\n`,
  body: '',
  labels: [],
  changes,
});

/** The whole-tree lint of a branch: a full checkout of it, loaded as the build loads it. */
function wholeTreeLint(ref: string): string[] {
  const dir = mkdtempSync(path.join(root, 'oracle-'));
  execFileSync('sh', ['-c', `git -C "${repo}" archive "${ref}" | tar -x -C "${dir}"`]);
  return loadCatalog(dir).messages.map(formatLintMessage);
}

/** The proposed tree as an unmerged commit, for the oracle (what the old checkout would have held). */
function commitOf(changes: Array<{ path: string; content: string | null }>): string {
  const dir = mkdtempSync(path.join(root, 'tree-'));
  execFileSync('git', ['-C', repo, 'worktree', 'add', '--detach', '--quiet', dir, 'main']);
  for (const c of changes) {
    const abs = path.join(dir, c.path);
    if (c.content === null) rmSync(abs, { force: true });
    else {
      execFileSync('mkdir', ['-p', path.dirname(abs)]);
      execFileSync('sh', ['-c', 'cat > "$1"', 'sh', abs], { input: c.content });
    }
  }
  execFileSync('git', ['-C', dir, 'add', '--all']);
  execFileSync('git', [
    '-C',
    dir,
    '-c',
    'user.name=T',
    '-c',
    'user.email=t@t',
    'commit',
    '--quiet',
    '--allow-empty',
    '-m',
    'oracle',
  ]);
  const commit = execFileSync('git', ['-C', dir, 'rev-parse', 'HEAD'], { encoding: 'utf8' }).trim();
  execFileSync('git', ['-C', repo, 'worktree', 'remove', '--force', dir]);
  return commit;
}

async function refusal(changes: Array<{ path: string; content: string | null }>): Promise<string[]> {
  const err = await forge.open(proposal(changes)).then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProposalLintError);
  return (err as ProposalLintError).messages;
}

describe('local forge: proposals without a checkout', () => {
  it('commits main plus the change on review/<code>, as the submitter, leaving main and its checkout alone', async () => {
    const main = await git(repo, ['rev-parse', 'main']);
    const edited = original().replace('title: Minuet in G major', 'title: Minuet in G major (revised)');
    const score = Buffer.from([0x3c, 0x3f, 0x78, 0x6d, 0x6c, 0x00, 0xff]);
    const ref = await forge.open(
      proposal([
        { path: WORK, content: edited },
        { path: 'works/bach-minuet-in-g/extra.bin', content: score },
      ]),
    );
    expect(ref).toMatchObject({ kind: 'local-branch', branch: 'review/R-TEST-AAAA-BBBB-CCCC', url: null });
    const head = await git(repo, ['rev-parse', ref.branch]);
    expect(await git(repo, ['rev-parse', `${head}^`])).toBe(main);
    expect(await git(repo, ['log', '-1', '--format=%an <%ae>|%cn <%ce>|%B', head])).toBe(
      'Cleo Reporter <human@contributors.invalid>|Archive Service <archive-service@localhost>|R-TEST-AAAA-BBBB-CCCC: a change\n\nTracking-Code: R-TEST-AAAA-BBBB-CCCC',
    );
    expect(await git(repo, ['show', `${head}:${WORK}`])).toBe(edited.trim());
    expect(execFileSync('git', ['-C', repo, 'show', `${head}:works/bach-minuet-in-g/extra.bin`])).toEqual(score);
    // Only those two paths differ from main.
    expect((await git(repo, ['diff', '--name-only', main, head])).split('\n').sort()).toEqual([
      'works/bach-minuet-in-g/extra.bin',
      WORK,
    ]);
    // main, its checkout and the worktree list are as they were; no scratch file is left.
    expect(await git(repo, ['rev-parse', 'main'])).toBe(main);
    expect(await git(repo, ['status', '--porcelain'])).toBe('');
    expect(original()).toContain('title: Minuet in G major\n');
    expect((await git(repo, ['worktree', 'list'])).split('\n')).toHaveLength(1);
    expect(readdirSync(scratch)).toEqual([]);
    // A deletion is a deletion.
    const again = await forge.open(
      proposal([
        { path: 'works/bach-minuet-in-g/extra.bin', content: null },
        { path: WORK, content: edited },
      ]),
    );
    expect(await git(repo, ['diff', '--name-only', main, await git(repo, ['rev-parse', again.branch])])).toBe(WORK);
  });

  it("refuses a per-file problem of the changed work, with the whole-tree lint's message, and leaves the branch as it was", async () => {
    const first = await forge.open(
      proposal([{ path: WORK, content: original().replace('title: Minuet in G major', 'title: Minuet') }]),
    );
    const before = await git(repo, ['rev-parse', first.branch]);
    const broken = original().replace('durationSeconds: 90', 'durationSeconds: 91');
    const messages = await refusal([{ path: WORK, content: broken }]);
    expect(messages).toEqual([
      'works/bach-minuet-in-g/index.md: /arrangements/0/durationSeconds: disagrees with duration "1:30" (90 s)',
    ]);
    expect(messages).toEqual(wholeTreeLint(commitOf([{ path: WORK, content: broken }])));
    expect(await git(repo, ['rev-parse', first.branch])).toBe(before);
    expect(readdirSync(scratch)).toEqual([]);
  });

  it('refuses a new work whose slug another work already has (the rule across works), as the whole-tree lint does', async () => {
    // A second folder holding the minuet under the same slug: its slug is also not its folder name.
    const copy = { path: 'works/minuet-copy/index.md', content: original() };
    const messages = await refusal([copy]);
    expect(messages).toContain(
      'works/minuet-copy/index.md: /slug: duplicate slug "bach-minuet-in-g" (also in works/bach-minuet-in-g/index.md)',
    );
    expect([...messages].sort()).toEqual([...wholeTreeLint(commitOf([copy]))].sort());
    // Without the names of the other folders, the partial copy alone would not see the duplicate.
    expect(messages.filter((m) => m.includes('duplicate slug'))).toHaveLength(1);
  });

  it('lints every work when an existing shared file changes (a removed instrument breaks an unchanged work)', async () => {
    const instruments = JSON.stringify(
      [{ slug: 'cello', name: 'Cello', family: 'strings', aliases: ['violoncello'] }],
      null,
      2,
    );
    const change = { path: 'instruments.json', content: instruments };
    const messages = await refusal([change]);
    expect(messages).toContain(
      'works/bach-minuet-in-g/index.md: /instruments/0: names unknown instrument "piano" (not in instruments.json)',
    );
    expect(messages).toEqual(wholeTreeLint(commitOf([change])));
    expect(forge.lastOpenTimings.lintScope).toBe('whole tree (changed shared file: instruments.json)');
  });

  it('a new profile is linted with the changed works only (it cannot break an unchanged work)', async () => {
    const profile = JSON.parse(
      readFileSync(path.join(PROJECT_ROOT, 'test', 'fixtures', 'mini', 'profiles', 'calm-piano.json'), 'utf8'),
    ) as Record<string, unknown>;
    const ref = await forge.open(
      proposal([
        { path: 'profiles/calm-cello.json', content: JSON.stringify({ ...profile, slug: 'calm-cello' }, null, 2) },
      ]),
    );
    expect(forge.lastOpenTimings.lintScope).toBe('changed works');
    expect(await git(repo, ['show', `${ref.branch}:profiles/calm-cello.json`])).toContain('"slug": "calm-cello"');
    const bad = await refusal([
      {
        path: 'profiles/calm-viola.json',
        content: JSON.stringify({ ...profile, slug: 'calm-cello', instruments: ['viola'] }, null, 2),
      },
    ]);
    expect(bad).toEqual(
      expect.arrayContaining([
        'profiles/calm-viola.json: /slug: must equal the file name "calm-viola" (got "calm-cello")',
        'profiles/calm-viola.json: /instruments/0: names unknown instrument "viola" (not in instruments.json)',
      ]),
    );
  });

  it('refuses a path outside the repository before writing anything', async () => {
    await expect(forge.open(proposal([{ path: '../escape.md', content: 'x' }]))).rejects.toThrow(
      /refusing to write outside the repository/,
    );
    await expect(forge.open(proposal([{ path: '.git/config', content: 'x' }]))).rejects.toThrow(
      /refusing to write outside the repository/,
    );
    expect(await git(repo, ['branch', '--list', 'review/*'])).toBe('');
  });
});
