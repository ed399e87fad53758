/**
 * The local forge (docs/review.md, "Forge choice"): reviews are branches `review/<code>` in the runtime content
 * repository, made with the git CLI. A proposal is committed with git plumbing, never in a
 * checkout of the whole tree (the main checkout is never touched until the merge), with the
 * submitter as author, by `ContentProposal` (api/site/content-proposal.ts, which curator
 * publication uses too): the changed files written as blobs on top of main's commit, the
 * content lint on a partial copy (the shared files and the work folders the proposal touches,
 * with the names of every other work folder; the whole tree when an existing shared file
 * changes), the new tree (only the trees on the changed paths' way written again) and
 * `commit-tree` on top of main, and only then the branch moves — a
 * refused proposal leaves the previous branch as it was.
 *
 * Cost: O(changed files) plus the trees on their way (the `works/` tree, one entry per work),
 * instead of writing and linting the whole catalog.
 *
 * Locking: these methods do NOT take `withContentRepoLock`; the review service holds it around
 * every call (so apply can rewrite, merge and rebuild as one step). Call them under the lock.
 */
import { git, mergeIntoMain, moveMain } from '../site/content-repo.ts';
import { runChecked } from '../process/spawner.ts';
import { ContentProposal } from '../site/content-proposal.ts';
import { normalizeContentPath, type OtherWorks } from '../../src/domain/content-lint.ts';
import { utcTimestamp } from '../../src/schemas/envelope.ts';
import type { Forge, ProposalInput, ReviewRef } from './types.ts';

export interface LocalForgeOptions {
  contentRepo: string;
  /** Where scratch files go (ARCHIVE_DATA_DIR/worktrees): the lint's partial copies and their small indexes. */
  scratchDir: string;
  /**
   * Checks the proposed content before it is committed; messages refuse the proposal. `dir` is a
   * copy of the shared files and the work folders in question (or the whole tree), `otherWorks`
   * finds every other work folder of the proposed tree (none when `dir` is the whole tree).
   */
  lint?: (dir: string, otherWorks: OtherWorks) => string[];
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

/** The changes with their paths checked and normalized; one that would leave the repository refuses them all. */
function insideRepository<C extends string | Buffer | null>(
  changes: ReadonlyArray<{ path: string; content: C }>,
): Array<{ path: string; content: C }> {
  return changes.map((change) => {
    const rel = normalizeContentPath(change.path);
    if (
      rel === null ||
      rel !== change.path.replace(/^\.\//, '') ||
      rel.split('/').some((s) => s === '.git' || s === '')
    )
      throw new Error(`refusing to write outside the repository: ${change.path}`);
    return { path: rel, content: change.content };
  });
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
   * (Re)write branch review/<code> as one commit on top of the current main (or `input.base`: a
   * review batch's line). The branch moves only once the commit exists, so a refused proposal
   * leaves the previous branch as it was.
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
    const changes = insideRepository(input.changes);
    const base = input.base ?? (await this.main());
    const proposal = await ContentProposal.open(
      this.repo,
      this.options.scratchDir,
      `review-${input.trackingCode}`,
      base,
    );
    try {
      lap('baseMs');
      await proposal.write(changes);
      lap('writeMs');
      if (this.options.lint) {
        const { result: messages, scope } = await proposal.checkChanged(
          changes.map((c) => c.path),
          this.options.lint,
        );
        timings.lintScope = scope;
        lap('lintMs');
        if (messages.length > 0) throw new ProposalLintError(messages);
      }
      const commit = await proposal.commit(input.message, this.options.author?.(input));
      await git(this.repo, ['update-ref', `refs/heads/${branch}`, commit]);
      lap('commitMs');
    } finally {
      proposal.dispose();
    }
    this.closed.delete(input.trackingCode);
    return { kind: 'local-branch', branch, url: null, openedAtUtc: utcTimestamp(this.options.now?.() ?? new Date()) };
  }

  /**
   * One commit on `base` holding every change of a review batch's apply (api/review/apply.ts,
   * `treeGroup`): the changes written as blobs, the content lint run once over every work they
   * touch, the tree written once, `commit-tree` on top of `base`. No ref moves here; with lint
   * messages nothing is committed. Each item's review branch is pointed at the commit (one
   * `update-ref --stdin`), so every branch holds its change.
   */
  async commitCombined(
    base: string,
    label: string,
    changes: ReadonlyArray<{ path: string; content: string | Buffer | null }>,
    message: string,
  ): Promise<{ commit: string; lintScope: string } | { lint: string[] }> {
    const checked = insideRepository(changes);
    const proposal = await ContentProposal.open(this.repo, this.options.scratchDir, label, base);
    try {
      await proposal.write(checked);
      let lintScope = 'none';
      if (this.options.lint) {
        const { result: messages, scope } = await proposal.checkChanged(
          [...new Set(checked.map((c) => c.path))],
          this.options.lint,
        );
        lintScope = scope;
        if (messages.length > 0) return { lint: messages };
      }
      return { commit: await proposal.commit(message), lintScope };
    } finally {
      proposal.dispose();
    }
  }

  /** Point each code's review branch at `commit` in one git call. */
  async pointReviewBranches(codes: readonly string[], commit: string): Promise<ReviewRef[]> {
    if (codes.length > 0)
      await runChecked('git', ['-C', this.repo, 'update-ref', '--stdin'], {
        input: codes.map((c) => `update refs/heads/${reviewBranch(c)} ${commit}\n`).join(''),
      });
    const at = utcTimestamp(this.options.now?.() ?? new Date());
    for (const c of codes) this.closed.delete(c);
    return codes.map((c) => ({ kind: 'local-branch' as const, branch: reviewBranch(c), url: null, openedAtUtc: at }));
  }

  /** Labels exist only on GitHub; locally the status lives in the tracking record. */
  async setStatus(_ref: ReviewRef, _status: string): Promise<void> {}

  /**
   * Merge the review branch into main with a merge commit, by plumbing (api/site/content-repo.ts
   * mergeIntoMain): nothing is checked out but the paths the merge changes.
   */
  async merge(ref: ReviewRef, message: string): Promise<{ commit: string }> {
    const current = await git(this.repo, ['symbolic-ref', '--short', 'HEAD']);
    if (current !== 'main') throw new Error(`the content repository has "${current}" checked out, not main`);
    try {
      // The main checkout follows while the apply builds (its build has a checkout of its own);
      // the content repository's lock is released only once it has (settleCheckout).
      return { commit: await mergeIntoMain(this.repo, ref.branch, message, { deferCheckout: true }) };
    } catch (err) {
      throw new Error(`merging ${ref.branch} into main failed: ${(err as Error).message}`);
    }
  }

  /** Close without merging: the branch is kept for the record. */
  async close(ref: ReviewRef, note: string): Promise<void> {
    this.closed.set(ref.branch, note);
  }

  /** Move main back to `commit` (undo a merge whose build failed); the caller holds the lock. */
  async resetMain(commit: string): Promise<void> {
    await moveMain(this.repo, await this.main(), commit, 'undo a merge whose build failed');
  }
}
