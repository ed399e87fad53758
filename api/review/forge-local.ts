/**
 * The local forge (DESIGN.md 2.6): reviews are branches `review/<code>` in the runtime content
 * repository, made with the git CLI. A proposal is committed with git plumbing, never in a
 * checkout of the whole tree (the main checkout is never touched until the merge), with the
 * submitter as author:
 *
 *   1. a temporary index reads main's tree (`read-tree`), the changed files are written as blobs
 *      (`hash-object -w`) and entered into it (`update-index --index-info`);
 *   2. the content lint runs on a partial copy of that index (`checkout-index` into a scratch
 *      folder): the shared files and the work folders the proposal touches, with the names of
 *      every other work folder for the rule across works (unique slugs). A change to an existing
 *      shared file (instruments.json, genres.json, a profile) can break any work: then the copy
 *      is the whole tree, as before;
 *   3. `write-tree`, `commit-tree` on top of main, and only then the branch moves — a refused
 *      proposal leaves the previous branch as it was.
 *
 * Cost: O(changed files) plus one read of main's index (O(entries), no file written), instead of
 * writing and linting the whole catalog.
 *
 * Locking: these methods do NOT take `withContentRepoLock`; the review service holds it around
 * every call (so apply can rewrite, merge and rebuild as one step). Call them under the lock.
 */
import { randomBytes } from 'node:crypto';
import { spawn } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { git, SERVICE_GIT_IDENTITY } from '../site/content-repo.ts';
import { isSharedContentFile, normalizeContentPath } from '../../src/domain/content-lint.ts';
import { utcTimestamp } from '../../src/schemas/envelope.ts';
import type { Forge, ProposalInput, ReviewRef } from './types.ts';

export interface LocalForgeOptions {
  contentRepo: string;
  /** Where scratch files go (ARCHIVE_DATA_DIR/worktrees): temporary indexes and the lint's partial copies. */
  scratchDir: string;
  /**
   * Checks the proposed content before it is committed; messages refuse the proposal. `dir` is a
   * copy of the shared files and the work folders in question (or the whole tree), `otherWorks`
   * every other work folder of the proposed tree (empty when `dir` is the whole tree).
   */
  lint?: (dir: string, otherWorks: readonly string[]) => string[];
  /** Author of proposal commits (the submitter); the committer is always the service. */
  author?: (input: ProposalInput) => string | null;
  now?: () => Date;
}

/** A proposal whose tree does not pass the content lint. */
export class ProposalLintError extends Error {
  readonly messages: string[];
  constructor(messages: string[]) {
    super(`The proposal does not pass the content lint: ${messages.slice(0, 10).join('; ')}`);
    this.messages = messages;
  }
}

export const reviewBranch = (code: string) => `review/${code}`;

/** git with a separate index file and, optionally, bytes on stdin and more environment. */
function gitIndexed(repo: string, indexFile: string, args: string[], options: { input?: string | Buffer; env?: Record<string, string> } = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn('git', [...SERVICE_GIT_IDENTITY, '-C', repo, ...args], { env: { ...process.env, GIT_INDEX_FILE: indexFile, ...options.env }, stdio: ['pipe', 'pipe', 'pipe'] });
    const out: Buffer[] = [];
    let err = '';
    child.stdout.on('data', (d: Buffer) => out.push(d));
    child.stderr.on('data', (d: Buffer) => (err += String(d)));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(Buffer.concat(out).toString('utf8').trim()) : reject(new Error(`git ${args[0]} failed (exit ${code}): ${err.trim().slice(0, 2000)}`))));
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input ?? '');
  });
}

/** "Name <email>" -> the author environment of commit-tree; null when it is not of that form. */
function authorEnv(author: string | null | undefined): Record<string, string> {
  const m = author ? /^(.*?)\s*<([^<>]*)>\s*$/.exec(author) : null;
  return m ? { GIT_AUTHOR_NAME: m[1]!, GIT_AUTHOR_EMAIL: m[2]! } : {};
}

export class LocalForge implements Forge {
  readonly name = 'local' as const;
  readonly repo: string;
  private readonly options: LocalForgeOptions;
  private readonly closed = new Map<string, string>();
  /** Where the last `open` spent its time (milliseconds by step), for the apply's log. */
  lastOpenTimings: Record<string, number | string> = {};

  constructor(options: LocalForgeOptions) {
    this.options = options;
    this.repo = options.contentRepo;
  }

  /** The commit main points at. */
  main(): Promise<string> {
    return git(this.repo, ['rev-parse', 'refs/heads/main']);
  }

  /**
   * (Re)write branch review/<code> as one commit on top of the current main. The branch moves
   * only once the commit exists, so a refused proposal leaves the previous branch as it was.
   */
  async open(input: ProposalInput): Promise<ReviewRef> {
    const branch = reviewBranch(input.trackingCode);
    const timings: Record<string, number | string> = {};
    this.lastOpenTimings = timings;
    let t = Date.now();
    const lap = (name: string) => {
      timings[name] = Date.now() - t;
      t = Date.now();
    };
    // Every path is checked before anything is written.
    const changes = input.changes.map((change) => {
      const rel = normalizeContentPath(change.path);
      if (rel === null || rel !== change.path.replace(/^\.\//, '') || rel.split('/').some((s) => s === '.git' || s === '')) throw new Error(`refusing to write outside the repository: ${change.path}`);
      return { path: rel, content: change.content };
    });
    const base = await this.main();
    mkdirSync(this.options.scratchDir, { recursive: true });
    const scratch = path.join(this.options.scratchDir, `review-${input.trackingCode}-${randomBytes(4).toString('hex')}`);
    const index = `${scratch}.index`;
    const ix = (args: string[], options?: { input?: string | Buffer; env?: Record<string, string> }) => gitIndexed(this.repo, index, args, options);
    try {
      await ix(['read-tree', base]);
      lap('readTreeMs');
      const entries: string[] = [];
      for (const change of changes) {
        if (change.content === null) {
          // Mode 0 removes the entry (a path that is not there stays absent, as rm --force did).
          entries.push(`0 ${'0'.repeat(40)}\t${change.path}`);
        } else {
          const blob = await ix(['hash-object', '-w', '--stdin'], { input: change.content });
          entries.push(`100644 ${blob}\t${change.path}`);
        }
      }
      if (entries.length > 0) await ix(['update-index', '--index-info'], { input: `${entries.join('\n')}\n` });
      lap('writeMs');
      if (this.options.lint) {
        const messages = await this.lintIndex(ix, base, changes.map((c) => c.path), scratch, timings);
        lap('lintMs');
        if (messages.length > 0) throw new ProposalLintError(messages);
      }
      const tree = await ix(['write-tree']);
      const commit = await ix(['commit-tree', tree, '-p', base, '-F', '-'], { input: input.message, env: authorEnv(this.options.author?.(input)) });
      await git(this.repo, ['update-ref', `refs/heads/${branch}`, commit]);
      lap('commitMs');
    } finally {
      rmSync(index, { force: true });
      rmSync(`${index}.lock`, { force: true });
      rmSync(scratch, { recursive: true, force: true });
    }
    this.closed.delete(input.trackingCode);
    return { kind: 'local-branch', branch, url: null, openedAtUtc: utcTimestamp(this.options.now?.() ?? new Date()) };
  }

  /**
   * Lint the proposed index: a partial copy (shared files plus the work folders the proposal
   * touches) with the names of the other work folders, or the whole tree when an existing shared
   * file changes (it can break any work).
   */
  private async lintIndex(ix: (args: string[], options?: { input?: string | Buffer }) => Promise<string>, base: string, changed: string[], dir: string, timings: Record<string, number | string>): Promise<string[]> {
    const shared = changed.filter(isSharedContentFile);
    const existing = shared.length > 0 ? (await git(this.repo, ['ls-tree', '-r', '--name-only', '-z', base, '--', ...shared])).split('\0').filter((f) => f !== '') : [];
    const whole = existing.length > 0;
    timings.lintScope = whole ? `whole tree (changed shared file: ${existing.join(', ')})` : 'changed works';
    if (whole) {
      await ix(['checkout-index', '--all', '--force', `--prefix=${dir}/`]);
      return this.options.lint!(dir, []);
    }
    const works = [...new Set(changed.map((p) => /^works\/([^/]+)(\/|$)/.exec(p)?.[1]).filter((w): w is string => w !== undefined))];
    const pathspecs = ['instruments.json', 'genres.json', 'profiles/', ...works.map((w) => `works/${w}/`)];
    const files = (await ix(['ls-files', '-z', '--', ...pathspecs])).split('\0').filter((f) => f !== '');
    // works/ exists even when no work changes (a new profile alone): the folder, not its absence, is what the tree has.
    mkdirSync(path.join(dir, 'works'), { recursive: true });
    if (files.length > 0) await ix(['checkout-index', '--force', '-z', '--stdin', `--prefix=${dir}/`], { input: `${files.join('\0')}\0` });
    // Every work folder of the proposed tree but the ones copied (one line each, no file read).
    const inQuestion = new Set(works);
    const folders = (await ix(['ls-tree', '-z', '--name-only', (await ix(['write-tree'])), 'works/'])).split('\0').filter((f) => f !== '');
    const otherWorks = folders.map((f) => f.slice('works/'.length)).filter((w) => !inQuestion.has(w));
    return this.options.lint!(dir, otherWorks);
  }

  /** Labels exist only on GitHub; locally the status lives in the tracking record. */
  async setStatus(_ref: ReviewRef, _status: string): Promise<void> {}

  /** Merge the review branch into main with a merge commit; main's checkout must be clean. */
  async merge(ref: ReviewRef, message: string): Promise<{ commit: string }> {
    const current = await git(this.repo, ['symbolic-ref', '--short', 'HEAD']);
    if (current !== 'main') throw new Error(`the content repository has "${current}" checked out, not main`);
    try {
      await git(this.repo, ['merge', '--no-ff', '--quiet', '-m', message, ref.branch]);
    } catch (err) {
      await git(this.repo, ['merge', '--abort']).catch(() => undefined);
      throw new Error(`merging ${ref.branch} into main failed: ${(err as Error).message}`);
    }
    return { commit: await this.main() };
  }

  /** Close without merging: the branch is kept for the record. */
  async close(ref: ReviewRef, note: string): Promise<void> {
    this.closed.set(ref.branch, note);
  }

  /** Move main back to `commit` (undo a merge whose build failed); the caller holds the lock. */
  async resetMain(commit: string): Promise<void> {
    await git(this.repo, ['reset', '--hard', '--quiet', commit]);
  }
}
