/**
 * A change to the content repository written with git plumbing, never in a checkout of the whole
 * tree: the editors' proposals (api/forge/forge-local.ts) and the curators'
 * publications (api/library/publish.ts) both go this way.
 *
 *   1. a temporary index holds the base commit's tree (a copy of the main checkout's index when
 *      that holds it, else `read-tree`), the changed files are written as blobs
 *      (`hash-object -w`) and entered into it (`update-index --index-info`);
 *   2. the content lint runs on a partial copy of that index (`checkout-index` into a scratch
 *      folder): the shared files and the work folders the change touches, with the names of
 *      every other work folder for the rule across works (unique slugs). A change to an existing
 *      shared file (instruments.json, genres.json, a profile) can break any work: then the copy
 *      is the whole tree;
 *   3. `write-tree`, `commit-tree` on top of the base; no branch moves here (the caller moves one).
 *
 * Cost: O(changed files) plus one read of the base's index (O(entries), no file written),
 * instead of writing and linting the whole catalog.
 */
import { randomBytes } from 'node:crypto';
import { runCommand } from '../process/spawner.ts';
import { copyFileSync, mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { git, SERVICE_GIT_IDENTITY, settleCheckout } from './content-repo.ts';
import {
  isSharedContentFile,
  otherWorksFrom,
  otherWorksInListing,
  type OtherWorks,
} from '../../src/domain/content-lint.ts';

/**
 * Checks a partial copy: `dir` holds the shared files and the work folders in question (or the
 * whole tree), `otherWorks` finds every other work folder of the proposed tree (none when `dir`
 * is the whole tree).
 */
export type PartialCopyCheck<T> = (dir: string, otherWorks: OtherWorks) => T;

interface GitOptions {
  input?: string | Buffer;
  env?: Record<string, string>;
}

/** git with a separate index file and, optionally, bytes on stdin and more environment; raw stdout. */
async function gitIndexedRaw(
  repo: string,
  indexFile: string,
  args: string[],
  options: GitOptions = {},
): Promise<Buffer> {
  // env(1) adds the index file (and the author) to the environment git inherits from the
  // server, which the server never reads itself: its own settings come from loadConfig.
  const assignments = Object.entries({ GIT_INDEX_FILE: indexFile, ...options.env }).map(([k, v]) => `${k}=${v}`);
  const r = await runCommand('env', [...assignments, 'git', ...SERVICE_GIT_IDENTITY, '-C', repo, ...args], {
    input: options.input ?? '',
  });
  if (r.code === 0 && !r.cut) return r.stdout;
  throw new Error(
    `git ${args[0]} failed (${r.cut ? 'output too large' : `exit ${r.code}`}): ${r.stderr.trim().slice(0, 2000)}`,
  );
}

/** "Name <email>" -> the author environment of commit-tree; empty when it is not of that form. */
export function authorEnv(author: string | null | undefined): Record<string, string> {
  const m = author ? /^(.*?)\s*<([^<>]*)>\s*$/.exec(author) : null;
  return m ? { GIT_AUTHOR_NAME: m[1]!, GIT_AUTHOR_EMAIL: m[2]! } : {};
}

/** One change: a path relative to the repository root (already checked) and its new bytes, or null to remove it. */
export interface ContentChange {
  path: string;
  content: string | Buffer | null;
}

/**
 * A temporary index on top of `base` in the content repository. Callers hold the
 * content-repository lock while they use one, and `dispose()` it when done.
 */
export class ContentProposal {
  readonly repo: string;
  readonly base: string;
  private readonly index: string;
  private readonly scratch: string;
  /** Where the index's base tree came from: the main checkout's index (copied) or the tree objects. */
  treeFrom: 'checkout index' | 'read-tree' = 'read-tree';

  private constructor(repo: string, base: string, scratch: string) {
    this.repo = repo;
    this.base = base;
    this.scratch = scratch;
    this.index = `${scratch}.index`;
  }

  /** A temporary index holding `base`'s tree; its files live under `scratchDir` (ARCHIVE_DATA_DIR/worktrees). */
  static async open(repo: string, scratchDir: string, label: string, base: string): Promise<ContentProposal> {
    mkdirSync(scratchDir, { recursive: true });
    const proposal = new ContentProposal(
      repo,
      base,
      path.join(scratchDir, `${label}-${randomBytes(4).toString('hex')}`),
    );
    try {
      if (await proposal.fromCheckoutIndex()) proposal.treeFrom = 'checkout index';
      else await proposal.git(['read-tree', base]);
    } catch (err) {
      proposal.dispose();
      throw err;
    }
    return proposal;
  }

  /**
   * Start from a copy of the main checkout's index when it holds exactly the base's tree (as it
   * does after every merge: api/site/content-repo.ts keeps it so), checked by `write-tree` on the
   * copy, which its cached trees answer at once. `read-tree` builds the index from the tree
   * objects instead: one per work folder, about 1 s at 100,000 works, against about 0.1 s for the
   * copy and its check. False (nothing to use) when the copy holds anything else.
   */
  private async fromCheckoutIndex(): Promise<boolean> {
    const checkoutIndex = path.join(this.repo, '.git', 'index');
    await settleCheckout(this.repo);
    try {
      copyFileSync(checkoutIndex, this.index);
      const [tree, baseTree] = await Promise.all([
        this.git(['write-tree']),
        this.git(['rev-parse', `${this.base}^{tree}`]),
      ]);
      if (tree === baseTree) return true;
    } catch {
      // No checkout index, or one git cannot use: read the tree instead.
    }
    rmSync(this.index, { force: true });
    rmSync(`${this.index}.lock`, { force: true });
    return false;
  }

  /** git on this index (trimmed text output). */
  async git(args: string[], options?: GitOptions): Promise<string> {
    return (await gitIndexedRaw(this.repo, this.index, args, options)).toString('utf8').trim();
  }

  /** A file as the base commit holds it (its exact bytes); null when it has no such file. */
  async readBase(file: string): Promise<Buffer | null> {
    try {
      return await gitIndexedRaw(this.repo, this.index, ['cat-file', 'blob', `${this.base}:${file}`]);
    } catch {
      return null;
    }
  }

  /** Enter the changes into the index (each new content as a blob in the object store). */
  async write(changes: readonly ContentChange[]): Promise<void> {
    const entries: string[] = [];
    for (const change of changes) {
      if (change.content === null) {
        // Mode 0 removes the entry (a path that is not there stays absent, as rm --force did).
        entries.push(`0 ${'0'.repeat(40)}\t${change.path}`);
      } else {
        const blob = await this.git(['hash-object', '-w', '--stdin'], { input: change.content });
        entries.push(`100644 ${blob}\t${change.path}`);
      }
    }
    if (entries.length > 0) await this.git(['update-index', '--index-info'], { input: `${entries.join('\n')}\n` });
  }

  /**
   * Run `check` on a partial copy of the index as it is now (shared files plus the work folders
   * the `changed` paths touch) with the names of the other work folders, or on the whole tree
   * when one of `changed` is an existing shared file of the base (it can break any work).
   * `scope` says which ("changed works", or "whole tree (...)").
   */
  async checkChanged<T>(changed: readonly string[], check: PartialCopyCheck<T>): Promise<{ result: T; scope: string }> {
    const dir = this.scratch;
    rmSync(dir, { recursive: true, force: true });
    const shared = changed.filter(isSharedContentFile);
    const existing =
      shared.length > 0
        ? (await git(this.repo, ['ls-tree', '-r', '--name-only', '-z', this.base, '--', ...shared]))
            .split('\0')
            .filter((f) => f !== '')
        : [];
    if (existing.length > 0) {
      await this.git(['checkout-index', '--all', '--force', `--prefix=${dir}/`]);
      return {
        result: check(dir, otherWorksFrom([])),
        scope: `whole tree (changed shared file: ${existing.join(', ')})`,
      };
    }
    const works = [
      ...new Set(changed.map((p) => /^works\/([^/]+)(\/|$)/.exec(p)?.[1]).filter((w): w is string => w !== undefined)),
    ];
    const pathspecs = ['instruments.json', 'genres.json', 'profiles/', ...works.map((w) => `works/${w}/`)];
    const files = (await this.git(['ls-files', '-z', '--', ...pathspecs])).split('\0').filter((f) => f !== '');
    // works/ exists even when no work changes (a new profile alone): the folder, not its absence, is what the tree has.
    mkdirSync(path.join(dir, 'works'), { recursive: true });
    if (files.length > 0)
      await this.git(['checkout-index', '--force', '-z', '--stdin', `--prefix=${dir}/`], {
        input: `${files.join('\0')}\0`,
      });
    // Every work folder of the proposed tree but the ones copied (one entry each, no file read),
    // looked up in the listing as it comes: not split into one string per work.
    const listing = await this.git(['ls-tree', '-z', '--name-only', await this.git(['write-tree']), 'works/']);
    return { result: check(dir, otherWorksInListing(listing, new Set(works))), scope: 'changed works' };
  }

  /** `write-tree` and `commit-tree` on top of the base; returns the new commit (no ref moves). */
  async commit(message: string, author?: string | null): Promise<string> {
    const tree = await this.git(['write-tree']);
    return this.git(['commit-tree', tree, '-p', this.base, '-F', '-'], { input: message, env: authorEnv(author) });
  }

  /** Remove the temporary index and the partial copy. */
  dispose(): void {
    rmSync(this.index, { force: true });
    rmSync(`${this.index}.lock`, { force: true });
    rmSync(this.scratch, { recursive: true, force: true });
  }
}
