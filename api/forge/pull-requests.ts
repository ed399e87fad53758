/**
 * Pull requests opened by people on the content repository
 * (docs/github-review.md): each `pull_request` webhook event (opened, synchronize, reopened,
 * closed, edited ...) of a branch that is not one of the archive's own `review/<code>` branches is
 * recorded in ARCHIVE_DATA_DIR/state/pull-requests (one record per PR, id `PR-<number>`), listed
 * by the review queue (kind "pull-request"), and its head is linted:
 *
 *   1. the changed files, through the REST API (`GET /pulls/{n}/files`, paged, at most 3000 as
 *      GitHub lists; more than PULL_REQUEST_MAX_FILES and the lint says so instead of running);
 *   2. a scratch folder holding the shared files (instruments.json, genres.json, profiles/, people/) and the
 *      changed works' folders from the archive's content repository (main), with the pull
 *      request's version of each changed file written over them (`GET /git/blobs/{sha}`; removed
 *      files removed). When a shared file changes, every other work is linked in unchanged;
 *   3. the content lint of what the changes put in question (src/domain/content-lint.ts), with
 *      each problem's line in the pull request's version of the file.
 *
 * A pull request merged on GitHub is brought into the archive's content repository (`sync`): the
 * pull request's version of every file it changes is committed on a branch `review/PR-<n>` from the
 * local main (with the content lint of what it changes; problems refuse it), merged into main, and
 * the site rebuilt and swapped; a failed build resets main. The item records `sync: applied` with
 * the commit, or `failed` with why (retried on the next event or a redelivery).
 *
 * The lint runs inside the webhook delivery (GitHub waits 10 s; the record is written before the
 * lint starts, so a slow lint still leaves the item in the queue, and the next event retries a lint
 * that could not run). Only a result for the current head is stored.
 */
import {
  mkdirSync,
  mkdtempSync,
  cpSync,
  existsSync,
  readdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
  lstatSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Octokit } from '@octokit/rest';
import type { GitHubSettings } from '../config.ts';
import { git, withContentRepoLock } from '../site/content-repo.ts';
import { LocalForge } from './forge-local.ts';
import { RecordExistsError, RecordStore } from '../storage/record-store.ts';
import { createOctokit } from './forge-github.ts';
import { lintContent, lintScope, normalizeContentPath, type LintScope } from '../../src/domain/content-lint.ts';
import {
  lintFailure,
  lintResult,
  needsLint,
  needsSync,
  pullRequestCode,
  pullRequestQueueEntry,
  recordEvent,
  workSlugsOf,
  type PullRequestEvent,
} from '../../src/domain/review/pull-request.ts';
import { formatLocatedMessage } from '../../src/domain/content-lint.ts';
import type { QueueEntry } from '../../src/domain/review/queue.ts';
import { PULL_REQUEST_MAX_FILES, type PullRequestLint, type PullRequestReview } from '../../src/schemas/review.ts';
import { utcTimestamp } from '../../src/schemas/envelope.ts';

/** GitHub lists at most 3000 files of a pull request, 100 per page. */
const MAX_FILE_PAGES = 30;
/** One changed file read through the blob API, and all of them together. */
const MAX_FILE_BYTES = 20 * 1024 * 1024;
const MAX_TOTAL_BYTES = 100 * 1024 * 1024;

export interface PullRequestReviewsOptions {
  /** Where records live (ARCHIVE_DATA_DIR/state/pull-requests). */
  dir: string;
  /** The archive's content repository: the context of everything the pull request leaves unchanged. */
  contentRepo: string;
  github: GitHubSettings;
  /** Scratch worktrees (ARCHIVE_DATA_DIR/worktrees). */
  scratchDir: string;
  /** Rebuild the site from the content repository and swap to it (the server's Rebuilder). */
  rebuild: () => Promise<unknown>;
  now?: () => Date;
}

interface ChangedFile {
  path: string;
  /** Blob of the pull request's version; null when the file is removed. */
  sha: string | null;
}

class LintRefused extends Error {}

export class PullRequestReviews {
  readonly store: RecordStore<PullRequestReview>;
  private readonly options: PullRequestReviewsOptions;
  private readonly octokit: Octokit;
  private readonly owner: string;
  private readonly repo: string;
  private readonly now: () => Date;

  constructor(options: PullRequestReviewsOptions) {
    this.options = options;
    this.store = new RecordStore(options.dir);
    this.octokit = createOctokit(options.github);
    [this.owner, this.repo] = options.github.repository.split('/') as [string, string];
    this.now = options.now ?? (() => new Date());
  }

  get(number: number): Promise<PullRequestReview | null> {
    return this.store.get(pullRequestCode(number));
  }

  /** The queue's view of this store: every record once, then every write. */
  queueSource(): { all(): AsyncIterable<QueueEntry>; watch(onWrite: (entry: QueueEntry) => void): void } {
    const store = this.store;
    return {
      async *all() {
        for await (const pr of store.all()) yield pullRequestQueueEntry(pr);
      },
      watch: (onWrite) => store.watch((_id, pr) => onWrite(pullRequestQueueEntry(pr))),
    };
  }

  /** Record one webhook event, then lint the head when it has no result yet. */
  async onEvent(event: PullRequestEvent): Promise<PullRequestReview> {
    const id = pullRequestCode(event.number);
    const at = utcTimestamp(this.now());
    let record = await this.store.update(id, (current) => recordEvent(current, event, at));
    if (!record) {
      try {
        record = recordEvent(null, event, at);
        await this.store.create(id, record);
      } catch (err) {
        if (!(err instanceof RecordExistsError)) throw err;
        // Created meanwhile by a concurrent delivery: record the event on it.
        record = (await this.store.update(id, (current) => recordEvent(current, event, at)))!;
      }
    }
    if (needsSync(record)) return this.sync(record);
    if (!needsLint(record)) return record;

    const headSha = record.headSha;
    let files: string[] = [];
    let total = 0;
    let lint: PullRequestLint;
    try {
      const changed = await this.listFiles(record.number);
      total = changed.total;
      files = [...new Set(changed.files.map((f) => f.path))].sort();
      lint =
        changed.total > PULL_REQUEST_MAX_FILES
          ? lintFailure(
              headSha,
              `The pull request changes ${changed.total} files; the archive lints at most ${PULL_REQUEST_MAX_FILES} (the content repository's CI lint checks them all).`,
              utcTimestamp(this.now()),
            )
          : await this.lint(headSha, changed.files);
    } catch (err) {
      const reason = err instanceof LintRefused ? err.message : `The lint could not run: ${(err as Error).message}`;
      lint = lintFailure(headSha, reason.slice(0, 2000), utcTimestamp(this.now()));
    }
    const listed = files.slice(0, PULL_REQUEST_MAX_FILES);
    // Only a result for the head the record still has (a newer push may have arrived meanwhile).
    const next = await this.store.update(id, (current) =>
      current.headSha !== headSha
        ? undefined
        : { ...current, changedFiles: listed, changedFilesTotal: total, workSlugs: workSlugsOf(listed), lint },
    );
    return next ?? record;
  }

  /**
   * Bring a merged pull request's change into the archive's content repository and rebuild. The
   * whole step holds the content-repository lock, like an apply.
   */
  private async sync(record: PullRequestReview): Promise<PullRequestReview> {
    const id = record.trackingCode;
    const at = () => utcTimestamp(this.now());
    let sync: NonNullable<PullRequestReview['sync']>;
    try {
      const changed = await this.listFiles(record.number);
      if (changed.total > PULL_REQUEST_MAX_FILES)
        throw new LintRefused(
          `The pull request changes ${changed.total} files; the archive brings in at most ${PULL_REQUEST_MAX_FILES}. Pull GitHub's main into the archive's content repository by hand (docs/github-review.md).`,
        );
      const changes: { path: string; content: Buffer | null }[] = [];
      let bytes = 0;
      for (const f of changed.files) {
        const p = normalizeContentPath(f.path);
        if (p === null || p !== f.path || p === '.git' || p.startsWith('.git/'))
          throw new LintRefused(
            `The pull request names a path the archive does not accept: ${JSON.stringify(f.path).slice(0, 200)}.`,
          );
        if (f.sha === null) {
          changes.push({ path: p, content: null });
          continue;
        }
        const content = await this.blob(f.sha, f.path);
        bytes += content.length;
        if (bytes > MAX_TOTAL_BYTES)
          throw new LintRefused(`The changed files exceed ${MAX_TOTAL_BYTES} bytes together.`);
        changes.push({ path: p, content });
      }
      const commit = await withContentRepoLock(this.options.contentRepo, () => this.mergeLocally(record, changes));
      sync = { state: 'applied', atUtc: at(), commit, detail: null };
    } catch (err) {
      sync = {
        state: 'failed',
        atUtc: at(),
        commit: null,
        detail: (err instanceof LintRefused
          ? err.message
          : `The merged change could not be brought in: ${(err as Error).message}`
        ).slice(0, 4000),
      };
    }
    return (await this.store.update(id, (current) => ({ ...current, sync }))) ?? { ...record, sync };
  }

  /** Commit the changes on review/PR-<n> from main (linted), merge it, rebuild; main is reset when the build fails. Caller holds the lock. */
  private async mergeLocally(
    record: PullRequestReview,
    changes: { path: string; content: Buffer | null }[],
  ): Promise<string> {
    const repo = this.options.contentRepo;
    const paths = changes.map((c) => c.path);
    const forge = new LocalForge({
      contentRepo: repo,
      scratchDir: this.options.scratchDir,
      lint: (dir) => lintContent(dir, paths).messages.map(formatLocatedMessage),
      author: () => `${record.author} <${record.author}@users.noreply.github.com>`,
      now: this.now,
    });
    const title = `Merge pull request #${record.number} from GitHub: ${record.title}`.slice(0, 300);
    const message = `${title}\n\nPull-Request: ${record.url}\nHead: ${record.headSha}`;
    const ref = await forge.open({ trackingCode: record.trackingCode, title, message, body: '', labels: [], changes });
    const before = await forge.main();
    const { commit } = await forge.merge(ref, message);
    try {
      await this.options.rebuild();
    } catch (err) {
      await forge.resetMain(before);
      throw new Error(
        `the site did not build with it, so main was reset and the previous site keeps serving: ${(err as Error).message.split('\n')[0]}`,
      );
    }
    await git(repo, ['branch', '--quiet', '-D', ref.branch]).catch(() => undefined);
    return commit;
  }

  /** One blob's bytes, within the size bound. */
  private async blob(sha: string, file: string): Promise<Buffer> {
    const { data } = await this.octokit.rest.git.getBlob({ owner: this.owner, repo: this.repo, file_sha: sha });
    const content = Buffer.from(data.content, data.encoding === 'base64' ? 'base64' : 'utf8');
    const size = data.size ?? content.length;
    if (size > MAX_FILE_BYTES)
      throw new LintRefused(`${file} is ${size} bytes; the archive reads files of at most ${MAX_FILE_BYTES} bytes.`);
    return content;
  }

  /** Changed files of the pull request: paths (a rename as its old and new path) and blob shas. */
  private async listFiles(number: number): Promise<{ files: ChangedFile[]; total: number }> {
    const files: ChangedFile[] = [];
    let total = 0;
    for (let page = 1; page <= MAX_FILE_PAGES; page++) {
      const { data } = await this.octokit.rest.pulls.listFiles({
        owner: this.owner,
        repo: this.repo,
        pull_number: number,
        per_page: 100,
        page,
      });
      total += data.length;
      for (const f of data) {
        if (files.length > PULL_REQUEST_MAX_FILES * 2) break;
        files.push({ path: f.filename, sha: f.status === 'removed' ? null : f.sha });
        if (f.previous_filename) files.push({ path: f.previous_filename, sha: null });
      }
      if (data.length < 100) break;
    }
    return { files, total };
  }

  /** The content lint of the pull request's version of what it changes. */
  private async lint(headSha: string, changed: ChangedFile[]): Promise<PullRequestLint> {
    const accepted: ChangedFile[] = [];
    for (const f of changed) {
      const p = normalizeContentPath(f.path);
      if (p === null || p !== f.path)
        throw new LintRefused(
          `The pull request names a path the archive does not accept: ${JSON.stringify(f.path).slice(0, 200)}.`,
        );
      accepted.push(f);
    }
    const scope = lintScope(accepted.map((f) => f.path));
    const scopeWords = describeScope(scope);
    if (!scope.full && scope.works.length === 0) return lintResult(headSha, [], scopeWords, utcTimestamp(this.now()));

    // Only content files are read from GitHub: the ones the lint looks at.
    const relevant = accepted.filter((f) => scope.files.includes(f.path));
    const scratch = mkdtempSync(path.join(os.tmpdir(), 'pdma-pr-lint-'));
    try {
      await withContentRepoLock(this.options.contentRepo, async () => this.stageContext(scratch, scope));
      let bytes = 0;
      for (const f of relevant) {
        const target = path.join(scratch, ...f.path.split('/'));
        ensureInside(scratch, target);
        if (f.sha === null) {
          rmSync(target, { force: true, recursive: true });
          continue;
        }
        const content = await this.blob(f.sha, f.path);
        bytes += content.length;
        if (bytes > MAX_TOTAL_BYTES)
          throw new LintRefused(
            `The changed files exceed ${MAX_TOTAL_BYTES} bytes together; the content repository's CI lint checks them.`,
          );
        mkdirSync(path.dirname(target), { recursive: true });
        writeFileSync(target, content);
      }
      const result = lintContent(
        scratch,
        accepted.map((f) => f.path),
      );
      return lintResult(headSha, result.messages, scopeWords, utcTimestamp(this.now()));
    } finally {
      rmSync(scratch, { recursive: true, force: true });
    }
  }

  /** Copy from main what the lint needs beside the changed files (caller holds the repository lock). */
  private stageContext(scratch: string, scope: LintScope): void {
    const repo = this.options.contentRepo;
    for (const shared of ['instruments.json', 'genres.json', 'profiles', 'people']) {
      const from = path.join(repo, shared);
      if (existsSync(from)) cpSync(from, path.join(scratch, shared), { recursive: true });
    }
    mkdirSync(path.join(scratch, 'works'), { recursive: true });
    const worksDir = path.join(repo, 'works');
    for (const folder of scope.works) {
      const from = path.join(worksDir, folder);
      if (existsSync(from) && lstatSync(from).isDirectory())
        cpSync(from, path.join(scratch, 'works', folder), { recursive: true });
    }
    if (scope.full && existsSync(worksDir)) {
      // Every other work is linted as it is on main: linked, not copied (nothing is written into them).
      const changed = new Set(scope.works);
      for (const folder of readdirSync(worksDir)) {
        if (!changed.has(folder)) symlinkSync(path.join(worksDir, folder), path.join(scratch, 'works', folder));
      }
    }
  }
}

function ensureInside(root: string, target: string): void {
  const rel = path.relative(root, target);
  if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel))
    throw new LintRefused(`The path ${JSON.stringify(rel)} is outside the content repository.`);
}

function describeScope(scope: LintScope): string {
  if (scope.full)
    return `the whole repository (a shared file changed: ${scope.files.filter((f) => !f.startsWith('works/')).join(', ')})`;
  if (scope.works.length === 0) return 'no content file changed';
  return `${scope.works.length} changed work(s): ${scope.works.join(', ')}`;
}
