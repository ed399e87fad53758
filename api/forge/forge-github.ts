/**
 * The GitHub forge (docs/review-infra.md): mirrors each review as a pull request through Octokit while the
 * local content repository stays the source of truth for builds. `open` commits locally first, then
 * pushes the same changes as one commit (Git Data API: blobs, tree, commit, ref) to branch
 * `review/<code>` from GitHub's default branch and opens a PR; labels carry the status (`status:
 * pending` ...), as Decap CMS does. `merge` and `close` act on GitHub first, then locally. Every
 * GitHub failure becomes an Error naming the step and the HTTP status, for the workflow to record.
 */
import { Octokit } from '@octokit/rest';
import type { Forge, ProposalInput, ReviewRef } from './types.ts';
import type { GitHubSettings } from '../config.ts';
import { installationTokenProvider } from './github-app-auth.ts';

/** GitHub settings (api/config.ts) plus the local forge, which commits and merges in the content repository the site is built from. */
export type GitHubForgeOptions = GitHubSettings & { local: Forge };

export const STATUS_LABEL_PREFIX = 'status: ';

/** "pending" -> "status: pending"; an already prefixed label is kept. */
export function statusLabel(status: string): string {
  return status.startsWith(STATUS_LABEL_PREFIX) ? status : `${STATUS_LABEL_PREFIX}${status}`;
}

/** An Octokit for the settings: with the token, or with a GitHub App's installation tokens, minted as needed. */
export function createOctokit(options: Pick<GitHubSettings, 'token' | 'app' | 'apiUrl'>): Octokit {
  const octokit = new Octokit({
    ...(options.token ? { auth: options.token } : {}),
    baseUrl: options.apiUrl ?? 'https://api.github.com',
    userAgent: 'public-domain-music-archive',
    // Octokit logs 4xx answers at warn level; the forge reports them through its own errors.
    log: { debug: () => undefined, info: () => undefined, warn: () => undefined, error: () => undefined },
  });
  if (!options.token && options.app) {
    const token = installationTokenProvider(options.app, options.apiUrl);
    octokit.hook.before('request', async (request) => {
      request.headers.authorization = `token ${await token()}`;
    });
  }
  return octokit;
}

/** "review/<code>" -> "<code>", or null for any other branch. */
export function trackingCodeFromBranch(branch: string): string | null {
  const m = /^review\/(.+)$/.exec(branch);
  return m ? m[1]! : null;
}

function describe(step: string, err: unknown): Error {
  const e = err as { status?: number; message?: string; response?: { data?: { message?: string } } };
  const detail = e.response?.data?.message ?? e.message ?? String(err);
  return new Error(`GitHub ${step} failed${e.status ? ` (HTTP ${e.status})` : ''}: ${detail}`, { cause: err });
}

export class GitHubForge implements Forge {
  readonly name = 'github' as const;
  readonly owner: string;
  readonly repo: string;
  readonly octokit: Octokit;
  private readonly local: Forge;
  private defaultBranch: string | null = null;

  constructor(options: GitHubForgeOptions) {
    const [owner, repo] = options.repository.split('/');
    if (!owner || !repo) throw new Error(`the GitHub repository must be "owner/name" (got "${options.repository}")`);
    this.owner = owner;
    this.repo = repo;
    this.local = options.local;
    this.octokit = createOctokit(options);
  }

  /** Run one GitHub call, turning its failure into an Error that names the step. */
  private async step<T>(name: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (err) {
      throw describe(name, err);
    }
  }

  private get repoParams() {
    return { owner: this.owner, repo: this.repo };
  }

  private async baseBranch(): Promise<string> {
    if (!this.defaultBranch) {
      const { data } = await this.step('reading the repository', () => this.octokit.rest.repos.get(this.repoParams));
      this.defaultBranch = data.default_branch;
    }
    return this.defaultBranch;
  }

  private static localRef(ref: ReviewRef): ReviewRef {
    return { kind: 'local-branch', branch: ref.branch, url: null, openedAtUtc: ref.openedAtUtc };
  }

  private static number(ref: ReviewRef): number {
    if (ref.kind !== 'github-pull-request' || typeof ref.number !== 'number') {
      throw new Error(`review ${ref.branch} has no GitHub pull request (it is a ${ref.kind})`);
    }
    return ref.number;
  }

  async open(input: ProposalInput): Promise<ReviewRef> {
    const localRef = await this.local.open(input);
    const branch = `review/${input.trackingCode}`;
    const base = await this.baseBranch();
    const p = this.repoParams;

    // Merged on GitHub already (apply after the webhook or poll): push nothing, keep that PR, so
    // merge only merges locally instead of opening and merging a second PR.
    const { data: closed } = await this.step('listing pull requests', () =>
      this.octokit.rest.pulls.list({ ...p, state: 'closed', head: `${this.owner}:${branch}`, base, per_page: 100 }),
    );
    const merged = closed.find((pr) => pr.merged_at !== null);
    if (merged)
      return {
        kind: 'github-pull-request',
        branch,
        url: merged.html_url,
        number: merged.number,
        openedAtUtc: localRef.openedAtUtc,
      };

    const { data: baseRef } = await this.step(`reading branch ${base}`, () =>
      this.octokit.rest.git.getRef({ ...p, ref: `heads/${base}` }),
    );
    const baseSha = baseRef.object.sha;
    const { data: baseCommit } = await this.step('reading the base commit', () =>
      this.octokit.rest.git.getCommit({ ...p, commit_sha: baseSha }),
    );

    const tree: { path: string; mode: '100644'; type: 'blob'; sha: string | null }[] = [];
    for (const change of input.changes) {
      if (change.content === null) {
        tree.push({ path: change.path, mode: '100644', type: 'blob', sha: null });
        continue;
      }
      const content = Buffer.isBuffer(change.content) ? change.content : Buffer.from(change.content, 'utf8');
      const { data: blob } = await this.step(`uploading ${change.path}`, () =>
        this.octokit.rest.git.createBlob({ ...p, content: content.toString('base64'), encoding: 'base64' }),
      );
      tree.push({ path: change.path, mode: '100644', type: 'blob', sha: blob.sha });
    }
    const { data: newTree } = await this.step('creating the tree', () =>
      this.octokit.rest.git.createTree({ ...p, base_tree: baseCommit.tree.sha, tree }),
    );
    const { data: commit } = await this.step('creating the commit', () =>
      this.octokit.rest.git.createCommit({ ...p, message: input.message, tree: newTree.sha, parents: [baseSha] }),
    );

    // A retried open finds its branch (and maybe its PR) already there: move the branch, reuse the PR.
    const existingBranch = await this.octokit.rest.git.getRef({ ...p, ref: `heads/${branch}` }).then(
      () => true,
      (err: { status?: number }) => {
        if (err.status === 404) return false;
        throw describe(`reading branch ${branch}`, err);
      },
    );
    if (existingBranch) {
      await this.step(`updating branch ${branch}`, () =>
        this.octokit.rest.git.updateRef({ ...p, ref: `heads/${branch}`, sha: commit.sha, force: true }),
      );
    } else {
      await this.step(`creating branch ${branch}`, () =>
        this.octokit.rest.git.createRef({ ...p, ref: `refs/heads/${branch}`, sha: commit.sha }),
      );
    }

    const { data: open } = await this.step('listing pull requests', () =>
      this.octokit.rest.pulls.list({ ...p, state: 'open', head: `${this.owner}:${branch}`, base, per_page: 1 }),
    );
    const pull =
      open[0] ??
      (
        await this.step('opening the pull request', () =>
          this.octokit.rest.pulls.create({ ...p, title: input.title, body: input.body, head: branch, base }),
        )
      ).data;

    await this.replaceLabels(pull.number, input.labels);
    return {
      kind: 'github-pull-request',
      branch,
      url: pull.html_url,
      number: pull.number,
      openedAtUtc: localRef.openedAtUtc,
    };
  }

  /** Set the labels of a PR: keeps labels that are not about status, replaces the `status: *` one. */
  private async replaceLabels(issueNumber: number, labels: string[]): Promise<void> {
    const p = this.repoParams;
    const { data: current } = await this.step('reading labels', () =>
      this.octokit.rest.issues.listLabelsOnIssue({ ...p, issue_number: issueNumber, per_page: 100 }),
    );
    const incomingStatus = labels.some((l) => l.startsWith(STATUS_LABEL_PREFIX));
    const kept = current.map((l) => l.name).filter((name) => !(incomingStatus && name.startsWith(STATUS_LABEL_PREFIX)));
    const next = [...new Set([...kept, ...labels])];
    await this.step('setting labels', () =>
      this.octokit.rest.issues.setLabels({ ...p, issue_number: issueNumber, labels: next }),
    );
  }

  async setStatus(ref: ReviewRef, status: string): Promise<void> {
    await this.replaceLabels(GitHubForge.number(ref), [statusLabel(status)]);
    await this.local.setStatus(GitHubForge.localRef(ref), status);
  }

  async merge(ref: ReviewRef, message: string): Promise<{ commit: string }> {
    const n = GitHubForge.number(ref);
    const p = this.repoParams;
    const { data: pull } = await this.step(`reading pull request #${n}`, () =>
      this.octokit.rest.pulls.get({ ...p, pull_number: n }),
    );
    // Merged on GitHub already (an editor pressed the button; the webhook brought us here): only the local merge is left.
    if (!pull.merged) {
      if (pull.state === 'closed')
        throw new Error(`GitHub pull request #${n} is closed without merging; reopen it or decline the submission`);
      const [title, ...rest] = message.split('\n');
      await this.step(`merging pull request #${n}`, () =>
        this.octokit.rest.pulls.merge({
          ...p,
          pull_number: n,
          merge_method: 'merge',
          commit_title: title ?? '',
          commit_message: rest.join('\n').trim(),
        }),
      );
    }
    return this.local.merge(GitHubForge.localRef(ref), message);
  }

  async close(ref: ReviewRef, note: string): Promise<void> {
    const n = GitHubForge.number(ref);
    const p = this.repoParams;
    const { data: pull } = await this.step(`reading pull request #${n}`, () =>
      this.octokit.rest.pulls.get({ ...p, pull_number: n }),
    );
    if (pull.merged) throw new Error(`GitHub pull request #${n} is already merged; it cannot be closed`);
    if (pull.state !== 'closed') {
      if (note.trim())
        await this.step(`commenting on pull request #${n}`, () =>
          this.octokit.rest.issues.createComment({ ...p, issue_number: n, body: note }),
        );
      await this.step(`closing pull request #${n}`, () =>
        this.octokit.rest.pulls.update({ ...p, pull_number: n, state: 'closed' }),
      );
    }
    await this.local.close(GitHubForge.localRef(ref), note);
  }
}
