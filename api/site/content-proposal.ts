/**
 * A change to the content repository written with git plumbing, never in a checkout of the whole
 * tree and without git's index of it: the editors' proposals (api/forge/forge-local.ts) and the
 * curators' publications (api/library/publish.ts) both go this way.
 *
 *   1. the changed files are written as blobs (`hash-object -w`) and kept as a list of changes
 *      on top of the base commit;
 *   2. the content lint runs on a partial copy (`checkout-index` of a small index holding only
 *      its files): the shared files and the work folders the change touches, with the names of
 *      every other work folder for the rule across works (unique slugs). A change to an existing
 *      shared file (instruments.json, genres.json, a profile, a person) can break any work: then the copy
 *      is the whole tree;
 *   3. the new tree is the base's with only the trees on the changed paths' way written again
 *      (api/site/git-tree.ts), then `commit-tree` on top of the base; no branch moves here (the
 *      caller moves one).
 *
 * Cost: O(changed files) plus the trees on their way (at 100,000 works the `works/` tree, about
 * 4 MB, read and written once), where an index of the whole tree (16 MB there) was copied, read
 * by each of six git commands and written by two: 0.55 s of a correction's apply before
 * 2026-11-29, about 0.2 s since (bench/README.md, run 21).
 */
import { randomBytes } from 'node:crypto';
import { runCommand } from '../process/spawner.ts';
import { mkdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { git, SERVICE_GIT_IDENTITY } from './content-repo.ts';
import { editTree, findEntry, isTreeEntry, otherWorksInTree, treeEditOf, type TreeStore } from './git-tree.ts';
import { isSharedContentFile, otherWorksFrom, type OtherWorks } from '../../src/domain/content-lint.ts';

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
 * A change on top of `base` in the content repository. Callers hold the content-repository lock
 * while they use one, and `dispose()` it when done.
 */
export class ContentProposal {
  readonly repo: string;
  readonly base: string;
  /** A small index for the lint's copy (its own files only), removed by dispose(). */
  private readonly index: string;
  private readonly scratch: string;
  /** The base commit's tree. */
  private readonly baseTree: string;
  /** Every path written so far: its blob, or null when removed. */
  private readonly changes = new Map<string, string | null>();
  /** Tree objects' bodies read so far, by id (the lint's listing and the commit read the same ones). */
  private readonly trees = new Map<string, Buffer>();
  /** The proposed tree of the changes so far, once asked for (`tree`); a write forgets it. */
  private proposedTree: Promise<string> | null = null;

  private constructor(repo: string, base: string, baseTree: string, scratch: string) {
    this.repo = repo;
    this.base = base;
    this.baseTree = baseTree;
    this.scratch = scratch;
    this.index = `${scratch}.index`;
  }

  /** A proposal on `base`; its scratch files live under `scratchDir` (ARCHIVE_DATA_DIR/worktrees). */
  static async open(repo: string, scratchDir: string, label: string, base: string): Promise<ContentProposal> {
    mkdirSync(scratchDir, { recursive: true });
    const baseTree = await git(repo, ['rev-parse', '--verify', `${base}^{tree}`]);
    return new ContentProposal(
      repo,
      base,
      baseTree,
      path.join(scratchDir, `${label}-${randomBytes(4).toString('hex')}`),
    );
  }

  /** git on the lint's small index (trimmed text output). */
  private async git(args: string[], options?: GitOptions): Promise<string> {
    return (await gitIndexedRaw(this.repo, this.index, args, options)).toString('utf8').trim();
  }

  /** The object store as the tree edit uses it. */
  private get store(): TreeStore {
    return {
      idBytes: this.baseTree.length / 2,
      read: async (id) => {
        let body = this.trees.get(id);
        if (!body) this.trees.set(id, (body = await gitIndexedRaw(this.repo, this.index, ['cat-file', 'tree', id])));
        return body;
      },
      write: (body) => this.git(['hash-object', '-t', 'tree', '-w', '--stdin'], { input: body }),
    };
  }

  /** A file as the base commit holds it (its exact bytes); null when it has no such file. */
  async readBase(file: string): Promise<Buffer | null> {
    try {
      return await gitIndexedRaw(this.repo, this.index, ['cat-file', 'blob', `${this.base}:${file}`]);
    } catch {
      return null;
    }
  }

  /** Take in the changes (each new content as a blob in the object store). */
  async write(changes: readonly ContentChange[]): Promise<void> {
    const blobs = await Promise.all(
      changes.map((change) =>
        change.content === null ? null : this.git(['hash-object', '-w', '--stdin'], { input: change.content }),
      ),
    );
    changes.forEach((change, i) => {
      // A path written again replaces its earlier change (and goes last, as the index had it).
      this.changes.delete(change.path);
      this.changes.set(change.path, blobs[i]!);
    });
    this.proposedTree = null;
  }

  /** The proposed tree: the base's with the changes (made once per set of changes: the lint's listing and the commit share it). */
  tree(): Promise<string> {
    this.proposedTree ??= editTree(this.store, this.baseTree, treeEditOf(this.changes)).then(
      (tree) => tree ?? this.git(['hash-object', '-t', 'tree', '-w', '--stdin'], { input: Buffer.alloc(0) }),
    );
    return this.proposedTree;
  }

  /**
   * Run `check` on a partial copy of the proposed tree (shared files plus the work folders the
   * `changed` paths touch) with the names of the other work folders, or on the whole tree
   * when one of `changed` is an existing shared file of the base (it can break any work).
   * `scope` says which ("changed works", or "whole tree (...)").
   */
  async checkChanged<T>(changed: readonly string[], check: PartialCopyCheck<T>): Promise<{ result: T; scope: string }> {
    const dir = this.scratch;
    rmSync(dir, { recursive: true, force: true });
    rmSync(this.index, { force: true });
    const shared = changed.filter(isSharedContentFile);
    const existing =
      shared.length > 0
        ? (await git(this.repo, ['ls-tree', '-r', '--name-only', '-z', this.base, '--', ...shared]))
            .split('\0')
            .filter((f) => f !== '')
        : [];
    if (existing.length > 0) {
      await this.git(['read-tree', await this.tree()]);
      await this.git(['checkout-index', '--all', '--force', `--prefix=${dir}/`]);
      return {
        result: check(dir, otherWorksFrom([])),
        scope: `whole tree (changed shared file: ${existing.join(', ')})`,
      };
    }
    const works = [
      ...new Set(changed.map((p) => /^works\/([^/]+)(\/|$)/.exec(p)?.[1]).filter((w): w is string => w !== undefined)),
    ];
    const inCopy = (p: string) =>
      p === 'instruments.json' ||
      p === 'genres.json' ||
      p.startsWith('profiles/') ||
      p.startsWith('people/') ||
      works.some((w) => p.startsWith(`works/${w}/`));
    const pathspecs = ['instruments.json', 'genres.json', 'profiles/', 'people/', ...works.map((w) => `works/${w}/`)];
    // The copy's files: the base's ("<mode> <type> <id>\t<path>"), then the changes over them.
    const entries = new Map<string, string>();
    for (const line of (
      await git(this.repo, ['ls-tree', '-r', '-z', '--full-tree', this.base, '--', ...pathspecs])
    ).split('\0')) {
      const tab = line.indexOf('\t');
      if (tab < 0) continue;
      const [mode, type, id] = line.slice(0, tab).split(' ');
      if (type === 'blob') entries.set(line.slice(tab + 1), `${mode} ${id}`);
    }
    for (const [p, blob] of this.changes) {
      if (!inCopy(p)) continue;
      if (blob === null) entries.delete(p);
      else entries.set(p, `100644 ${blob}`);
    }
    // works/ exists even when no work changes (a new profile alone): the folder, not its absence, is what the tree has.
    mkdirSync(path.join(dir, 'works'), { recursive: true });
    if (entries.size > 0) {
      await this.git(['update-index', '-z', '--index-info'], {
        input: [...entries].map(([p, modeAndId]) => `${modeAndId}\t${p}\0`).join(''),
      });
      await this.git(['checkout-index', '--all', '--force', `--prefix=${dir}/`]);
    }
    // Every work folder but the ones copied (one entry each, no file read), looked up in the
    // listing as it comes: the base's when every change is in the copy (the proposed tree's
    // other folders are the base's), else the proposed tree's.
    return {
      result: check(dir, await this.otherWorks([...this.changes.keys()].every(inCopy), new Set(works))),
      scope: 'changed works',
    };
  }

  /** The other work folders of the base (`fromBase`) or of the proposed tree, less `exclude`. */
  private async otherWorks(fromBase: boolean, exclude: ReadonlySet<string>): Promise<OtherWorks> {
    const store = this.store;
    const root = fromBase ? this.baseTree : await this.tree();
    const works = findEntry(await store.read(root), store.idBytes, 'works');
    if (!works || !isTreeEntry(works)) return otherWorksFrom([]);
    return otherWorksInTree(await store.read(works.id.toString('hex')), store.idBytes, exclude);
  }

  /** The proposed tree committed on top of the base; returns the new commit (no ref moves). */
  async commit(message: string, author?: string | null): Promise<string> {
    return this.git(['commit-tree', await this.tree(), '-p', this.base, '-F', '-'], {
      input: message,
      env: authorEnv(author),
    });
  }

  /** Remove the small index and the partial copy. */
  dispose(): void {
    rmSync(this.index, { force: true });
    rmSync(`${this.index}.lock`, { force: true });
    rmSync(this.scratch, { recursive: true, force: true });
  }
}
