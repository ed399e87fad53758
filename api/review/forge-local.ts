/**
 * The local forge (DESIGN.md 2.6): reviews are branches `review/<code>` in the runtime content
 * repository, made with the git CLI. A proposal is written and committed in a scratch worktree
 * (the main checkout is never touched until the merge), with the submitter as author.
 *
 * Locking: these methods do NOT take `withContentRepoLock`; the review service holds it around
 * every call (so apply can rewrite, merge and rebuild as one step). Call them under the lock.
 */
import { randomBytes } from 'node:crypto';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { git } from '../site/content-repo.ts';
import { utcTimestamp } from '../../src/schemas/envelope.ts';
import type { Forge, ProposalInput, ReviewRef } from './types.ts';

export interface LocalForgeOptions {
  contentRepo: string;
  /** Where scratch worktrees go (ARCHIVE_DATA_DIR/worktrees). */
  scratchDir: string;
  /** Checks the written tree before it is committed; messages refuse the proposal. */
  lint?: (dir: string) => string[];
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

export class LocalForge implements Forge {
  readonly name = 'local' as const;
  readonly repo: string;
  private readonly options: LocalForgeOptions;
  private readonly closed = new Map<string, string>();

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
    const base = await this.main();
    mkdirSync(this.options.scratchDir, { recursive: true });
    const dir = path.join(this.options.scratchDir, `review-${input.trackingCode}-${randomBytes(4).toString('hex')}`);
    await git(this.repo, ['worktree', 'add', '--detach', '--force', dir, base]);
    try {
      for (const change of input.changes) {
        const abs = path.join(dir, change.path);
        if (!abs.startsWith(dir + path.sep)) throw new Error(`refusing to write outside the repository: ${change.path}`);
        if (change.content === null) rmSync(abs, { force: true });
        else {
          mkdirSync(path.dirname(abs), { recursive: true });
          writeFileSync(abs, change.content);
        }
      }
      const messages = this.options.lint?.(dir) ?? [];
      if (messages.length > 0) throw new ProposalLintError(messages);
      await git(dir, ['add', '--all']);
      const author = this.options.author?.(input);
      await git(dir, ['commit', '--quiet', '--allow-empty', ...(author ? ['--author', author] : []), '-m', input.message]);
      const commit = await git(dir, ['rev-parse', 'HEAD']);
      await git(this.repo, ['branch', '--force', branch, commit]);
    } finally {
      await git(this.repo, ['worktree', 'remove', '--force', dir]).catch(() => rmSync(dir, { recursive: true, force: true }));
      await git(this.repo, ['worktree', 'prune']).catch(() => undefined);
    }
    this.closed.delete(input.trackingCode);
    return { kind: 'local-branch', branch, url: null, openedAtUtc: utcTimestamp(this.options.now?.() ?? new Date()) };
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
