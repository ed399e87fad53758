/**
 * A pull request a person opens on the content repository shows up in the review queue with its
 * content lint, through the public surface: signed `pull_request` webhook
 * deliveries (opened, synchronize, closed) as GitHub sends them, the changed files read from a
 * local fake of GitHub's REST API, the admin queue and the item read over HTTP (answers checked
 * against the OpenAPI document). The archive's content repository (the lint's context) is a temp
 * copy of test/fixtures/mini. A merged pull request's change is brought into that repository and
 * the site is rebuilt from it (a real Astro build of the small fixture).
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureContentRepo } from '../../api/site/content-repo.ts';
import { GITHUB_WEBHOOK_PATH, signPayload } from '../../api/forge/github-webhook.ts';
import { openApp, PROJECT_ROOT, type TestApp } from '../helpers/app.ts';
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.ts';
import type { AdminQueue, PullRequestReview } from '../../src/schemas/review.ts';

const ADMIN_KEY = 'admin-secret-key-prs';
const TOKEN = 'gh-test-token-prs';
const REPO = 'acme/content';
const SECRET = 'gh-webhook-secret-prs';
const WORK = 'works/bach-minuet-in-g/index.md';

const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-gh-prs-'));
const contentRepo = path.join(root, 'content');
const auth = { authorization: `Bearer ${ADMIN_KEY}` };
let gh: FakeGitHub;
let t: TestApp;
let original = '';

beforeAll(async () => {
  gh = await startFakeGitHub({ token: TOKEN, repository: REPO });
  await ensureContentRepo(contentRepo, path.join(PROJECT_ROOT, 'test', 'fixtures', 'mini'));
  original = readFileSync(path.join(contentRepo, WORK), 'utf8');
  t = await openApp(undefined, {
    ARCHIVE_DATA_DIR: path.join(root, 'data'),
    ARCHIVE_CONTENT_REPO: contentRepo,
    ARCHIVE_ADMIN_KEYS: `alice=${ADMIN_KEY}`,
    GITHUB_TOKEN: TOKEN,
    GITHUB_REPOSITORY: REPO,
    GITHUB_API_URL: gh.url,
    GITHUB_WEBHOOK_SECRET: SECRET,
  });
});

afterAll(async () => {
  await t?.close();
  await gh?.close();
  rmSync(root, { recursive: true, force: true });
});

function deliver(event: string, payload: unknown, secret: string | null = SECRET) {
  const body = JSON.stringify(payload);
  return t.app.inject({
    method: 'POST',
    url: GITHUB_WEBHOOK_PATH,
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': `d-${Math.random()}`,
      ...(secret ? { 'x-hub-signature-256': signPayload(secret, body) } : {}),
    },
    payload: body,
  });
}

async function queue(query = ''): Promise<AdminQueue> {
  const res = await t.request({ url: `/api/v1/admin/queue${query}`, headers: auth });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data as AdminQueue;
}

/** The 1-based line of `text` in `content`, found independently of the lint. */
const lineIn = (content: string, text: string) => content.split('\n').findIndex((l) => l.includes(text)) + 1;

describe('pull requests people open on the content repository', () => {
  const broken = () =>
    original
      .replace('durationSeconds: 90', 'durationSeconds: 91')
      .replace('instruments: [piano]', 'instruments: [piano, kazoo]');
  /** A person's pull request whose one change breaks the work file (two lint errors). */
  const openBroken = (author: string, branch: string, title: string) =>
    gh.openPullRequestAsPerson({ author, branch, title, files: { [WORK]: broken() } });

  it('an unsigned or badly signed delivery records nothing', async () => {
    const pr = openBroken('mallory', 'sneaky', 'Sneaky');
    for (const secret of ['wrong-secret', null]) {
      const res = await deliver('pull_request', gh.pullRequestPayload(pr.number, 'opened'), secret);
      expect(res.statusCode).toBe(401);
      expect(res.headers['content-type']).toContain('application/problem+json');
    }
    const res = await t.request({ url: `/api/v1/admin/pull-requests/${pr.number}`, headers: auth });
    expect(res.statusCode).toBe(404);
    expect((await queue('?kind=pull-request')).total).toBe(0);
  });

  it('opened: the queue lists it with number, title, author, head, URL, changed files and lint errors at file:line', async () => {
    const content = broken();
    const pr = gh.openPullRequestAsPerson({
      author: 'carol',
      branch: 'fix-minuet-date',
      title: 'Correct the death date <script>alert(1)</script>',
      files: { [WORK]: content, 'README.md': 'notes\n' },
    });
    const res = await deliver('pull_request', gh.pullRequestPayload(pr.number, 'opened'));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({
      handled: true,
      trackingCode: `PR-${pr.number}`,
      pullRequest: pr.number,
      lint: 'failed',
    });

    const q = await queue();
    const item = q.items.find((i) => i.trackingCode === `PR-${pr.number}`)!;
    expect(item).toMatchObject({
      kind: 'pull-request',
      status: 'pending',
      blockers: 2,
      summary: `pull request #${pr.number} by @carol: Correct the death date <script>alert(1)</script>`,
    });
    expect(item.links.tracking).toBe(`https://github.com/${REPO}/pull/${pr.number}`);
    expect(item.links.admin).toBe(`${t.baseUrl}/api/v1/admin/pull-requests/${pr.number}`);
    const review = item.pullRequest!;
    expect(review).toMatchObject({
      number: pr.number,
      title: 'Correct the death date <script>alert(1)</script>',
      author: 'carol',
      url: `https://github.com/${REPO}/pull/${pr.number}`,
      state: 'open',
      headRef: 'fix-minuet-date',
      headSha: pr.headSha,
      baseRef: 'main',
      changedFiles: ['README.md', WORK],
      changedFilesTotal: 2,
      workSlugs: ['bach-minuet-in-g'],
    });
    expect(review.lint).toMatchObject({
      state: 'failed',
      headSha: pr.headSha,
      errorCount: 2,
      scope: '1 changed work(s): bach-minuet-in-g',
    });
    expect(review.lint.errors).toEqual([
      {
        file: WORK,
        line: lineIn(content, 'instruments: [piano, kazoo]'),
        pointer: '/instruments/1',
        message: 'names unknown instrument "kazoo" (not in instruments.json)',
      },
      {
        file: WORK,
        line: lineIn(content, 'durationSeconds: 91'),
        pointer: '/arrangements/0/durationSeconds',
        message: 'disagrees with duration "1:30" (90 s)',
      },
    ]);
    // The lint read the pull request's files through the REST API.
    expect(gh.calls.some((c) => c.method === 'GET' && c.path === `/repos/${REPO}/pulls/${pr.number}/files`)).toBe(true);
    expect(gh.calls.some((c) => c.method === 'GET' && c.path.startsWith(`/repos/${REPO}/git/blobs/`))).toBe(true);

    // Filters and counts: by kind and by work; the item itself over HTTP.
    expect((await queue('?kind=pull-request')).items.map((i) => i.trackingCode)).toEqual([`PR-${pr.number}`]);
    expect((await queue('?kind=contribution')).items.some((i) => i.kind === 'pull-request')).toBe(false);
    expect((await queue('?workSlug=bach-minuet-in-g')).items.map((i) => i.trackingCode)).toContain(`PR-${pr.number}`);
    expect(q.counts.pending).toBeGreaterThanOrEqual(1);
    const one = await t.request({ url: `/api/v1/admin/pull-requests/${pr.number}`, headers: auth });
    expect(one.statusCode).toBe(200);
    expect((one.json().data as PullRequestReview).lint.errors).toHaveLength(2);
    expect((await t.request({ url: `/api/v1/admin/pull-requests/${pr.number}` })).statusCode).toBe(401);
  });

  it('synchronize: a fixing push is linted again and passes; closed: it leaves the open queue', async () => {
    const pr = openBroken('dave', 'dave-edit', 'Better key');
    expect((await deliver('pull_request', gh.pullRequestPayload(pr.number, 'opened'))).json().lint).toBe('failed');

    const fixed = gh.pushToPullRequest(pr.number, {
      [WORK]: original.replace('key: G major', 'key: G major # checked'),
    });
    const res = await deliver('pull_request', gh.pullRequestPayload(pr.number, 'synchronize'));
    expect(res.json()).toMatchObject({ handled: true, lint: 'passed' });
    let item = (await queue('?kind=pull-request')).items.find((i) => i.trackingCode === `PR-${pr.number}`)!;
    expect(item.blockers).toBe(0);
    expect(item.pullRequest).toMatchObject({
      headSha: fixed,
      lint: { state: 'passed', headSha: fixed, errorCount: 0, errors: [] },
    });
    expect(item.pullRequest!.events.map((e) => e.action)).toEqual(['opened', 'synchronize']);

    // A redelivery of the same event changes nothing but the event log (the head is linted already).
    const blobReads = gh.calls.filter((c) => c.path.startsWith(`/repos/${REPO}/git/blobs/`)).length;
    await deliver('pull_request', gh.pullRequestPayload(pr.number, 'synchronize'));
    expect(gh.calls.filter((c) => c.path.startsWith(`/repos/${REPO}/git/blobs/`)).length).toBe(blobReads);

    gh.closeExternally(pr.number);
    expect((await deliver('pull_request', gh.pullRequestPayload(pr.number, 'closed'))).json()).toMatchObject({
      handled: true,
      lint: 'passed',
    });
    expect((await queue()).items.some((i) => i.trackingCode === `PR-${pr.number}`)).toBe(false);
    item = (await queue('?status=closed')).items.find((i) => i.trackingCode === `PR-${pr.number}`)!;
    expect(item).toMatchObject({ kind: 'pull-request', status: 'closed', pullRequest: { state: 'closed' } });
    expect((await queue()).counts.closed).toBe(1);
  });

  it('a changed shared file re-checks every work; a malformed payload is a problem naming the field', async () => {
    const instruments = JSON.parse(readFileSync(path.join(contentRepo, 'instruments.json'), 'utf8')) as {
      slug: string;
    }[];
    // Removing "piano" breaks the unchanged work that names it, and its profile.
    const without = `${JSON.stringify(
      instruments.filter((i) => i.slug !== 'piano'),
      null,
      2,
    )}\n`;
    const pr = gh.openPullRequestAsPerson({
      author: 'erin',
      branch: 'drop-piano',
      title: 'Drop piano',
      files: { 'instruments.json': without },
    });
    expect((await deliver('pull_request', gh.pullRequestPayload(pr.number, 'opened'))).json().lint).toBe('failed');
    const review = (await t.request({ url: `/api/v1/admin/pull-requests/${pr.number}`, headers: auth })).json()
      .data as PullRequestReview;
    expect(review.lint.scope).toBe('the whole repository (a shared file changed: instruments.json)');
    expect(review.lint.errors).toContainEqual({
      file: WORK,
      line: lineIn(original, 'instruments: [piano]'),
      pointer: '/instruments/0',
      message: 'names unknown instrument "piano" (not in instruments.json)',
    });

    const payload = gh.pullRequestPayload(pr.number, 'edited') as { pull_request: Record<string, unknown> };
    payload.pull_request.number = 'seven';
    const bad = await deliver('pull_request', payload);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({
      errors: [{ pointer: '/pull_request/number', detail: 'must be a positive integer' }],
    });
    const notAnObject = await deliver('pull_request', null);
    expect(notAnObject.statusCode).toBe(400);
    expect(notAnObject.headers['content-type']).toContain('application/problem+json');
  });

  it("merged: the change is brought into the archive's content repository and the site; a merged broken change is refused", async () => {
    const git = (...args: string[]) => execFileSync('git', ['-C', contentRepo, ...args], { encoding: 'utf8' }).trim();
    const before = git('rev-parse', 'main');
    const changed = original.replace('key: G major', 'key: G major (corrected)');
    const pr = gh.openPullRequestAsPerson({
      author: 'frank',
      branch: 'frank-key',
      title: 'Correct the key',
      files: { [WORK]: changed },
    });
    expect((await deliver('pull_request', gh.pullRequestPayload(pr.number, 'opened'))).json().lint).toBe('passed');
    gh.mergeExternally(pr.number);
    const res = await deliver('pull_request', gh.pullRequestPayload(pr.number, 'closed'));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toMatchObject({ handled: true, trackingCode: `PR-${pr.number}`, sync: 'applied' });

    const review = (await t.request({ url: `/api/v1/admin/pull-requests/${pr.number}`, headers: auth })).json()
      .data as PullRequestReview;
    expect(review).toMatchObject({ state: 'merged', sync: { state: 'applied', detail: null } });
    expect(git('rev-parse', 'main')).toBe(review.sync!.commit);
    expect(readFileSync(path.join(contentRepo, WORK), 'utf8')).toBe(changed);
    expect(git('log', '-1', '--format=%s', `${review.sync!.commit}^2`)).toBe(
      `Merge pull request #${pr.number} from GitHub: Correct the key`,
    );
    expect(git('log', '-1', '--format=%an', `${review.sync!.commit}^2`)).toBe('frank');
    expect(git('rev-list', '--count', `${before}..main`)).toBe('2');
    // The site serves the merged change.
    const work = await t.app.inject({ url: '/api/v1/works/bach-minuet-in-g' });
    expect(work.statusCode).toBe(200);
    expect(work.json().data.key).toBe('G major (corrected)');
    expect((await queue('?status=merged')).items.map((i) => i.trackingCode)).toContain(`PR-${pr.number}`);
    // A redelivery does not bring it in twice.
    expect((await deliver('pull_request', gh.pullRequestPayload(pr.number, 'closed'))).json()).toMatchObject({
      sync: 'applied',
    });
    expect(git('rev-parse', 'main')).toBe(review.sync!.commit);

    // Merged on GitHub although broken: the archive refuses it and says why; main does not move.
    const head = git('rev-parse', 'main');
    const bad = gh.openPullRequestAsPerson({
      author: 'gina',
      branch: 'gina-date',
      title: 'Bad date',
      files: { [WORK]: changed.replace('durationSeconds: 90', 'durationSeconds: 91') },
    });
    gh.mergeExternally(bad.number);
    expect((await deliver('pull_request', gh.pullRequestPayload(bad.number, 'closed'))).json()).toMatchObject({
      sync: 'failed',
    });
    const refused = (await t.request({ url: `/api/v1/admin/pull-requests/${bad.number}`, headers: auth })).json()
      .data as PullRequestReview;
    expect(refused.sync).toMatchObject({ state: 'failed', commit: null });
    expect(refused.sync!.detail).toContain('does not pass the content lint');
    expect(refused.sync!.detail).toContain(
      `${WORK}:${lineIn(changed, 'durationSeconds: 90')}: /arrangements/0/durationSeconds: disagrees with duration "1:30" (90 s)`,
    );
    expect(git('rev-parse', 'main')).toBe(head);
  });
});
