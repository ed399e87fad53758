/**
 * The GitHub forge against a fake GitHub REST server (branch, files, PR, labels, merge, close),
 * the webhook's signature check and event mapping, and the poll for missed events.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { AppContext } from '../../api/context.ts';
import { GitHubForge, statusLabel } from '../../api/forge/forge-github.ts';
import { gitHubSettingsFromEnv } from '../../api/config.ts';
import {
  GITHUB_WEBHOOK_PATH,
  pollGitHub,
  registerGitHubWebhook,
  signPayload,
  type GitHubEventHandlers,
} from '../../api/forge/github-webhook.ts';
import type { Forge, ProposalInput, ReviewRef } from '../../api/forge/types.ts';
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.ts';
import { expectEach } from '../helpers/expect-each.ts';

const TOKEN = 'test-token';
const REPO = 'acme/content';

/** Stands in for the local forge: records what the GitHub forge asks of it. */
class RecordingLocalForge implements Forge {
  readonly name = 'local' as const;
  calls: [string, ...unknown[]][] = [];
  async open(input: ProposalInput): Promise<ReviewRef> {
    this.calls.push(['open', input.trackingCode]);
    return {
      kind: 'local-branch',
      branch: `review/${input.trackingCode}`,
      url: null,
      openedAtUtc: '2030-01-01T00:00:00Z',
    };
  }
  async setStatus(ref: ReviewRef, status: string) {
    this.calls.push(['setStatus', ref.kind, ref.branch, status]);
  }
  async merge(ref: ReviewRef, message: string) {
    this.calls.push(['merge', ref.kind, ref.branch, message]);
    return { commit: 'a'.repeat(40) };
  }
  async close(ref: ReviewRef, note: string) {
    this.calls.push(['close', ref.kind, ref.branch, note]);
  }
}

const proposal = (code: string): ProposalInput => ({
  trackingCode: code,
  title: `Contribution ${code}: new arrangement`,
  message: `Contribution ${code}: new arrangement\n\nTracking-Code: ${code}`,
  body: `| field | value |\n|---|---|\n| tracking code | ${code} |`,
  changes: [
    { path: `works/test-work/index.md`, content: `---\nslug: test-work\n---\n${code}\n` },
    { path: `works/test-work/${code}.mid`, content: Buffer.from([0x4d, 0x54, 0x68, 0x64, 0, 0xff]) },
    { path: 'README.md', content: null },
  ],
  labels: ['status: pending', 'contribution'],
});

describe('GitHubForge', () => {
  let gh: FakeGitHub;
  let local: RecordingLocalForge;
  let forge: GitHubForge;
  beforeEach(async () => {
    gh = await startFakeGitHub({ token: TOKEN, repository: REPO });
    local = new RecordingLocalForge();
    forge = new GitHubForge({ token: TOKEN, repository: REPO, apiUrl: gh.url, local });
  });
  afterEach(() => gh.close());

  it('opens: local commit, branch with the files in one commit, PR with the body, status label', async () => {
    const ref = await forge.open(proposal('ABC123'));
    expect(local.calls).toEqual([['open', 'ABC123']]);
    expect(ref).toEqual({
      kind: 'github-pull-request',
      branch: 'review/ABC123',
      url: 'https://github.com/acme/content/pull/1',
      number: 1,
      openedAtUtc: '2030-01-01T00:00:00Z',
    });
    const head = gh.refs.get('review/ABC123')!;
    const files = gh.filesAt(head);
    expect(files.get('works/test-work/index.md')).toContain('ABC123');
    expect(files.has('works/test-work/ABC123.mid')).toBe(true);
    expect(files.has('README.md')).toBe(false);
    const pr = gh.pulls[0]!;
    expect(pr).toMatchObject({
      title: 'Contribution ABC123: new arrangement',
      head: 'review/ABC123',
      base: 'main',
      state: 'open',
      labels: ['status: pending', 'contribution'],
    });
    expect(pr.body).toContain('| tracking code | ABC123 |');
    // Branch from main, via the Git Data API.
    expect(gh.calls.filter((c) => c.method === 'POST').map((c) => c.path.replace('/repos/acme/content', ''))).toEqual([
      '/git/blobs',
      '/git/blobs',
      '/git/trees',
      '/git/commits',
      '/git/refs',
      '/pulls',
    ]);
  });

  it('a retried open moves the branch and reuses the PR', async () => {
    await forge.open(proposal('RETRY1'));
    const again = await forge.open(proposal('RETRY1'));
    expect(again.number).toBe(1);
    expect(gh.pulls).toHaveLength(1);
    expect(gh.pulls[0]!.labels.sort()).toEqual(['contribution', 'status: pending']);
  });

  it('setStatus swaps the status label and keeps the others', async () => {
    const ref = await forge.open(proposal('LBL1'));
    await forge.setStatus(ref, 'accepted');
    expect(gh.pulls[0]!.labels.sort()).toEqual(['contribution', 'status: accepted']);
    await forge.setStatus(ref, 'status: needs-information');
    expect(gh.pulls[0]!.labels.sort()).toEqual(['contribution', 'status: needs-information']);
    expect(local.calls.at(-1)).toEqual(['setStatus', 'local-branch', 'review/LBL1', 'status: needs-information']);
    expect(statusLabel('declined')).toBe('status: declined');
  });

  it('merge merges the PR with the merge method, then the local branch', async () => {
    const ref = await forge.open(proposal('MRG1'));
    const result = await forge.merge(ref, 'Apply MRG1\n\nTracking-Code: MRG1');
    expect(result).toEqual({ commit: 'a'.repeat(40) });
    expect(gh.pulls[0]).toMatchObject({ state: 'closed', merged: true });
    const mergeCall = gh.calls.find((c) => c.method === 'PUT' && c.path.endsWith('/merge'))!;
    expect(mergeCall.body).toEqual({
      merge_method: 'merge',
      commit_title: 'Apply MRG1',
      commit_message: 'Tracking-Code: MRG1',
    });
    expect(gh.filesAt(gh.refs.get('main')!).get('works/test-work/index.md')).toContain('MRG1');
    expect(local.calls.at(-1)).toEqual(['merge', 'local-branch', 'review/MRG1', 'Apply MRG1\n\nTracking-Code: MRG1']);
  });

  it('merge of a PR already merged on GitHub only merges locally', async () => {
    const ref = await forge.open(proposal('MRG2'));
    gh.mergeExternally(ref.number!);
    await forge.merge(ref, 'Apply MRG2');
    expect(gh.calls.filter((c) => c.path.endsWith('/merge'))).toEqual([]);
    expect(local.calls.at(-1)?.[0]).toBe('merge');
  });

  it('close comments, closes the PR, then closes locally', async () => {
    const ref = await forge.open(proposal('CLS1'));
    await forge.close(ref, 'Declined: the edition is not public domain.');
    expect(gh.pulls[0]).toMatchObject({
      state: 'closed',
      merged: false,
      comments: ['Declined: the edition is not public domain.'],
    });
    expect(local.calls.at(-1)).toEqual([
      'close',
      'local-branch',
      'review/CLS1',
      'Declined: the edition is not public domain.',
    ]);
  });

  it('turns GitHub failures into clear errors and leaves the local side alone', async () => {
    const ref = await forge.open(proposal('ERR1'));
    gh.failNext('PUT', /\/pulls\/1\/merge$/, 405, 'Pull Request is not mergeable');
    await expect(forge.merge(ref, 'Apply ERR1')).rejects.toThrow(
      'GitHub merging pull request #1 failed (HTTP 405): Pull Request is not mergeable',
    );
    expect(local.calls.map((c) => c[0])).toEqual(['open']);
    const bad = new GitHubForge({ token: 'wrong', repository: REPO, apiUrl: gh.url, local });
    await expect(bad.open(proposal('ERR2'))).rejects.toThrow(
      /GitHub reading the repository failed \(HTTP 401\): Bad credentials/,
    );
    await expect(
      forge.merge({ kind: 'local-branch', branch: 'review/X', url: null, openedAtUtc: '' }, 'm'),
    ).rejects.toThrow(/no GitHub pull request/);
  });

  it('reads its settings from the environment', () => {
    expect(gitHubSettingsFromEnv({})).toBeNull();
    expect(gitHubSettingsFromEnv({ GITHUB_TOKEN: 't' })).toBeNull();
    expect(
      gitHubSettingsFromEnv({ GITHUB_TOKEN: 't', GITHUB_REPOSITORY: 'a/b', GITHUB_API_URL: 'http://127.0.0.1:9/' }),
    ).toEqual({ token: 't', repository: 'a/b', apiUrl: 'http://127.0.0.1:9' });
    expect(() => gitHubSettingsFromEnv({ GITHUB_TOKEN: 't', GITHUB_REPOSITORY: 'nope' })).toThrow(/owner\/name/);
  });
});

describe('GitHub webhook', () => {
  const SECRET = 'webhook-secret';
  let app: FastifyInstance;
  const events: string[] = [];
  const handlers: GitHubEventHandlers = {
    onMerged: async (code) => void events.push(`merged ${code}`),
    onClosed: async (code) => void events.push(`closed ${code}`),
    onReview: async (code, state, reviewer) => void events.push(`review ${code} ${state} ${reviewer}`),
  };
  const ctx = { config: { publicBaseUrl: 'https://archive.example.test' } } as AppContext;

  beforeAll(async () => {
    app = Fastify();
    // A sibling JSON route proves the raw-body parser stays inside the webhook's scope.
    app.post('/api/v1/echo', async (request) => request.body);
    await registerGitHubWebhook(app, ctx, handlers, { secret: SECRET, repository: REPO });
    await app.ready();
  });
  afterAll(() => app.close());
  beforeEach(() => void events.splice(0));

  const pullEvent = (branch: string, merged: boolean) =>
    JSON.stringify({
      action: 'closed',
      number: 7,
      repository: { full_name: REPO },
      pull_request: { number: 7, merged, head: { ref: branch }, base: { ref: 'main' } },
    });
  const deliver = (event: string, body: string, signature: string | null, contentType = 'application/json') =>
    app.inject({
      method: 'POST',
      url: GITHUB_WEBHOOK_PATH,
      headers: {
        'content-type': contentType,
        'x-github-event': event,
        'x-github-delivery': 'd-1',
        ...(signature ? { 'x-hub-signature-256': signature } : {}),
      },
      payload: body,
    });

  it('a signed merged event calls onMerged with the tracking code', async () => {
    const body = pullEvent('review/ABC123', true);
    const res = await deliver('pull_request', body, signPayload(SECRET, body));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ handled: true, trackingCode: 'ABC123' });
    expect(events).toEqual(['merged ABC123']);
  });

  it('a closed unmerged PR calls onClosed; a submitted review calls onReview', async () => {
    const closed = pullEvent('review/DEF456', false);
    expect((await deliver('pull_request', closed, signPayload(SECRET, closed))).statusCode).toBe(200);
    const review = JSON.stringify({
      action: 'submitted',
      repository: { full_name: REPO },
      review: { state: 'APPROVED', user: { login: 'editor1' } },
      pull_request: { head: { ref: 'review/DEF456' } },
    });
    expect((await deliver('pull_request_review', review, signPayload(SECRET, review))).statusCode).toBe(200);
    expect(events).toEqual(['closed DEF456', 'review DEF456 approved editor1']);
  });

  it('accepts the form-encoded payload type', async () => {
    const body = new URLSearchParams({ payload: pullEvent('review/FORM1', true) }).toString();
    const res = await deliver('pull_request', body, signPayload(SECRET, body), 'application/x-www-form-urlencoded');
    expect(res.statusCode).toBe(200);
    expect(events).toEqual(['merged FORM1']);
  });

  it.each([
    ['a wrong signature', (b: string) => signPayload('other-secret', b)],
    ['a signature of another body', () => signPayload(SECRET, '{}')],
    ['a malformed signature', () => 'sha256=zz'],
    ['a sha1 signature', () => 'sha1=0000'],
    ['no signature', () => null],
  ])('%s -> 401 problem and no effect', async (_name, sign) => {
    const body = pullEvent('review/BAD1', true);
    const res = await deliver('pull_request', body, sign(body));
    expect(res.statusCode).toBe(401);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json()).toMatchObject({ type: 'https://archive.example.test/problems/unauthorized', status: 401 });
    expect(events).toEqual([]);
  });

  it('answers ping, ignores other branches, events and repositories', async () => {
    const ping = JSON.stringify({ zen: 'Keep it logically awesome.', hook_id: 1 });
    expect((await deliver('ping', ping, signPayload(SECRET, ping))).statusCode).toBe(204);
    const other = pullEvent('feature/x', true);
    expect((await deliver('pull_request', other, signPayload(SECRET, other))).json()).toEqual({
      handled: false,
      trackingCode: null,
    });
    const opened = JSON.stringify({
      action: 'opened',
      repository: { full_name: REPO },
      pull_request: { merged: false, head: { ref: 'review/OPEN1' } },
    });
    expect((await deliver('pull_request', opened, signPayload(SECRET, opened))).statusCode).toBe(202);
    const foreign = JSON.stringify({
      action: 'closed',
      repository: { full_name: 'evil/repo' },
      pull_request: { merged: true, head: { ref: 'review/X1' } },
    });
    expect((await deliver('pull_request', foreign, signPayload(SECRET, foreign))).statusCode).toBe(202);
    expect(events).toEqual([]);
  });

  it('other routes keep their JSON parser', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/echo',
      headers: { 'content-type': 'application/json' },
      payload: '{"a":1}',
    });
    expect(res.json()).toEqual({ a: 1 });
  });

  it('without a configured secret every delivery is refused, saying how to configure', async () => {
    const bare = Fastify();
    await registerGitHubWebhook(bare, ctx, handlers, { secret: null });
    const body = pullEvent('review/NOSECRET', true);
    const res = await bare.inject({
      method: 'POST',
      url: GITHUB_WEBHOOK_PATH,
      headers: {
        'content-type': 'application/json',
        'x-github-event': 'pull_request',
        'x-hub-signature-256': signPayload('', body),
      },
      payload: body,
    });
    expect(res.statusCode).toBe(401);
    expect(res.json().detail).toMatch(/GITHUB_WEBHOOK_SECRET/);
    expect(events).toEqual([]);
    await bare.close();
  });
});

describe('pollGitHub', () => {
  it('finds merges and closes the webhook missed, once per open review', async () => {
    const gh = await startFakeGitHub({ token: TOKEN, repository: REPO });
    try {
      const forge = new GitHubForge({
        token: TOKEN,
        repository: REPO,
        apiUrl: gh.url,
        local: new RecordingLocalForge(),
      });
      const a = await forge.open(proposal('POLLA'));
      const b = await forge.open(proposal('POLLB'));
      const c = await forge.open(proposal('POLLC'));
      gh.mergeExternally(a.number!);
      gh.closeExternally(b.number!);
      const seen: string[] = [];
      const handlers: GitHubEventHandlers = {
        onMerged: async (code) => void seen.push(`merged ${code}`),
        onClosed: async (code) => void seen.push(`closed ${code}`),
      };
      const now = new Date(Date.now() - 1000).toISOString();
      const refs = [a, b, c].map((r) => ({ ...r, openedAtUtc: now }));
      const result = await pollGitHub({ token: TOKEN, repository: REPO, apiUrl: gh.url }, refs, handlers);
      expect(result).toEqual({ merged: ['POLLA'], closed: ['POLLB'], errors: [] });
      expect(seen.sort()).toEqual(['closed POLLB', 'merged POLLA']);
      // Once the workflow has recorded them, only the still-open review remains to watch.
      const again = await pollGitHub({ token: TOKEN, repository: REPO, apiUrl: gh.url }, [refs[2]!], handlers);
      expect(again).toEqual({ merged: [], closed: [], errors: [] });
      expectEach(
        gh.calls.filter((call) => call.method === 'GET' && call.path.endsWith('/pulls')),
        (call) => call.query.state === 'closed' || call.query.state === 'open',
      );
    } finally {
      await gh.close();
    }
  });
});
