/**
 * The review flow on the GitHub forge, through the public surface: with GITHUB_TOKEN,
 * GITHUB_REPOSITORY, GITHUB_API_URL (a fake GitHub REST server) and GITHUB_WEBHOOK_SECRET set
 * before the app is made, accepting a correction report opens a pull request with the status label;
 * a signed "merged" webhook applies it (JSON changes, no second merge on GitHub); a badly signed
 * delivery changes nothing; a PR closed on GitHub is declined, found by the server's own poll or by
 * a "closed" webhook. Runtime content repository in a temp dir, seeded from test/fixtures/mini.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createApp } from '../../api/app.ts';
import { ensureBuild, Rebuilder } from '../../api/site/builds.ts';
import { loadConfig } from '../../api/config.ts';
import { ensureContentRepo } from '../../api/site/content-repo.ts';
import { statusLabel } from '../../api/forge/forge-github.ts';
import { GITHUB_WEBHOOK_PATH, signPayload } from '../../api/forge/github-webhook.ts';
import { SiteHandle } from '../../api/site/site-handle.ts';
import { PROJECT_ROOT, postJson } from '../helpers/app.ts';
import { startFakeGitHub, type FakeGitHub } from '../helpers/fake-github.ts';

const ADMIN_KEY = 'admin-secret-key-gh';
const TOKEN = 'gh-test-token';
const REPO = 'acme/content';
const SECRET = 'gh-webhook-secret';
const SLUG = 'bach-minuet-in-g';

const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-gh-review-'));
const auth = { authorization: `Bearer ${ADMIN_KEY}` };
let gh: FakeGitHub;
let app: FastifyInstance;
/** The callback of the server's GitHub poll timer (captured when the app registers it). */
let pollTick: (() => void) | null = null;

beforeAll(async () => {
  gh = await startFakeGitHub({ token: TOKEN, repository: REPO });
  const config = loadConfig(
    {
      ARCHIVE_DATA_DIR: root,
      PUBLIC_BASE_URL: 'https://gh-review.example.test',
      ARCHIVE_ADMIN_KEYS: `alice=${ADMIN_KEY}`,
      GITHUB_TOKEN: TOKEN,
      GITHUB_REPOSITORY: REPO,
      GITHUB_API_URL: gh.url,
      GITHUB_WEBHOOK_SECRET: SECRET,
    },
    PROJECT_ROOT,
  );
  const repo = await ensureContentRepo(config.contentRepo, path.join(PROJECT_ROOT, 'test', 'fixtures', 'mini'));
  const handle = await SiteHandle.open(await ensureBuild(config, repo.head));
  // Keep the real (5-minute, unref'd) poll timer, but remember its callback so the test can run one tick now.
  const realSetInterval = globalThis.setInterval;
  const spy = vi.spyOn(globalThis, 'setInterval').mockImplementation(((fn: () => void, ms?: number) => {
    pollTick = fn;
    return realSetInterval(fn, ms);
  }) as typeof setInterval);
  try {
    app = await createApp({ config, handle, rebuilder: new Rebuilder(config, handle) }, { logger: false });
  } finally {
    spy.mockRestore();
  }
});

afterAll(async () => {
  await app?.close();
  await gh?.close();
  rmSync(root, { recursive: true, force: true });
});

const post = (url: string, payload: unknown, headers: Record<string, string> = auth) =>
  postJson(app, url, payload, headers);

async function report(fieldName: string, currentValue: string | null, proposedValue: string): Promise<string> {
  const res = await post(
    '/api/v1/correction-reports',
    {
      workSlug: SLUG,
      targetType: 'work',
      fieldName,
      currentValue,
      proposedValue,
      rationale: 'Checked against the 1725 notebook.',
      evidenceUrl: 'https://en.wikipedia.org/wiki/Minuet_in_G_major_and_G_minor',
      reporterName: 'Bob',
      reporterKind: 'Human',
    },
    {},
  );
  expect(res.statusCode, res.body).toBe(202);
  return (res.json().data ?? res.json()).trackingCode as string;
}

async function accept(code: string) {
  const res = await post(`/api/v1/admin/correction-reports/${code}/accept`, { reviewer: 'Alice' });
  expect(res.statusCode, res.body).toBe(200);
  const item = res.json().data;
  expect(item.status).toBe('accepted');
  expect(item.review.blockers).toEqual([]);
  expect(item.review.forge).toBe('github');
  return item;
}

async function tracking(code: string) {
  const res = await app.inject({ url: `/api/v1/correction-reports/${code}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data ?? res.json();
}

const pullOf = (code: string) => {
  const prs = gh.pulls.filter((p) => p.head === `review/${code}`);
  expect(prs).toHaveLength(1); // one PR per review, never a second one
  return prs[0]!;
};

function deliver(event: string, payload: unknown, signature: string | null = 'valid') {
  const body = JSON.stringify(payload);
  const sig = signature === 'valid' ? signPayload(SECRET, body) : signature;
  return app.inject({
    method: 'POST',
    url: GITHUB_WEBHOOK_PATH,
    headers: {
      'content-type': 'application/json',
      'x-github-event': event,
      'x-github-delivery': `d-${Math.random()}`,
      ...(sig ? { 'x-hub-signature-256': sig } : {}),
    },
    payload: body,
  });
}

const closedEvent = (code: string, number: number, merged: boolean) => ({
  action: 'closed',
  number,
  repository: { full_name: REPO },
  pull_request: { number, merged, state: 'closed', head: { ref: `review/${code}` }, base: { ref: 'main' } },
});

async function waitForStatus(code: string, status: string, ms = 10_000) {
  const until = Date.now() + ms;
  for (;;) {
    const t = await tracking(code);
    if (t.status === status || Date.now() > until) return t;
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe('review as pull requests on GitHub', () => {
  let applied: string;

  it('accept opens branch review/<code> and a labelled PR mentioning the code; tracking links the PR', async () => {
    applied = await report('title', 'Minuet in G major', 'Minuet in G major, BWV Anh. 114');
    const item = await accept(applied);
    expect(item.review.review).toMatchObject({
      kind: 'pull-request',
      branch: `review/${applied}`,
      url: 'https://github.com/acme/content/pull/1',
    });

    expect(gh.refs.has(`review/${applied}`)).toBe(true);
    const files = gh.filesAt(gh.refs.get(`review/${applied}`)!);
    expect(files.get(`works/${SLUG}/index.md`)).toContain('Minuet in G major, BWV Anh. 114');
    const pr = pullOf(applied);
    expect(pr).toMatchObject({ number: 1, state: 'open', base: 'main', merged: false });
    expect(pr.body).toContain(applied);
    expect(pr.labels).toContain(statusLabel('accepted'));
    expect(pr.labels).toContain('status: accepted');
    expect(pr.labels.filter((l) => l.startsWith('status: '))).toEqual(['status: accepted']);

    const t = await tracking(applied);
    expect(t.status).toBe('accepted');
    expect(t.review).toMatchObject({ kind: 'pull-request', branch: `review/${applied}` });
    expect(t.review.url).toMatch(/^https:\/\/github\.com\/acme\/content\/pull\/\d+$/);
  });

  it('a badly signed webhook is a 401 problem and changes nothing', async () => {
    const event = closedEvent(applied, 1, true);
    for (const sig of [signPayload('wrong-secret', JSON.stringify(event)), null]) {
      const res = await deliver('pull_request', event, sig);
      expect(res.statusCode).toBe(401);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json()).toMatchObject({ status: 401 });
    }
    expect((await tracking(applied)).status).toBe('accepted');
    expect((await app.inject({ url: `/api/v1/works/${SLUG}` })).json().data.title).toBe('Minuet in G major');
    expect(gh.pulls[0]!.state).toBe('open');
  });

  it('a signed "merged" webhook applies the report: status applied, new title served, PR merged once', async () => {
    // An editor presses "Merge" on github.com; GitHub then delivers the webhook.
    gh.mergeExternally(1);
    const res = await deliver('pull_request', closedEvent(applied, 1, true));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ handled: true, trackingCode: applied });

    const t = await tracking(applied);
    expect(t.status).toBe('applied');
    expect(t.changedCanonicalData).toBe(true);
    const admin = (await app.inject({ url: `/api/v1/admin/correction-reports/${applied}`, headers: auth })).json().data;
    expect(admin.review.lastError).toBeNull();
    expect(admin.review.appliedCommit).toMatch(/^[0-9a-f]{40}$/);
    expect(admin.review.actions.at(-1)).toMatchObject({ action: 'apply', reviewer: 'GitHub' });

    const work = (await app.inject({ url: `/api/v1/works/${SLUG}` })).json().data;
    expect(work.title).toBe('Minuet in G major, BWV Anh. 114');

    const pr = pullOf(applied);
    expect(pr).toMatchObject({ state: 'closed', merged: true });
    expect(pr.labels).toContain('status: applied');
    // Already merged on GitHub: the server merged only locally (no merge call, so none could fail).
    expect(gh.calls.filter((c) => c.method === 'PUT' && c.path.endsWith('/merge'))).toEqual([]);
    expect(gh.pulls).toHaveLength(1);

    // GitHub redelivers: still applied, nothing else happens.
    const again = await deliver('pull_request', closedEvent(applied, 1, true));
    expect(again.statusCode).toBe(200);
    expect((await tracking(applied)).status).toBe('applied');
    expect(gh.pulls).toHaveLength(1);
  });

  it('a PR closed on GitHub without merging is declined: found by the server poll, or by a "closed" webhook', async () => {
    const polled = await report('genre', 'Minuet', 'Dance');
    await accept(polled);
    const hooked = await report(
      'summary',
      'A short keyboard minuet from the 1725 Notebook for Anna Magdalena Bach.',
      'A keyboard minuet.',
    );
    await accept(hooked);
    const polledPr = pullOf(polled);
    const hookedPr = pullOf(hooked);

    // Closed on github.com and no webhook arrived: the server's next poll tick finds it.
    gh.closeExternally(polledPr.number);
    expect(pollTick).toBeTypeOf('function');
    pollTick!();
    const p = await waitForStatus(polled, 'declined');
    expect(p.status).toBe('declined');
    expect(
      gh.calls.some((c) => c.method === 'GET' && c.path === `/repos/${REPO}/pulls` && c.query.state === 'closed'),
    ).toBe(true);

    gh.closeExternally(hookedPr.number);
    const res = await deliver('pull_request', closedEvent(hooked, hookedPr.number, false));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json()).toEqual({ handled: true, trackingCode: hooked });
    expect((await tracking(hooked)).status).toBe('declined');

    for (const code of [polled, hooked]) {
      const admin = (await app.inject({ url: `/api/v1/admin/correction-reports/${code}`, headers: auth })).json().data;
      expect(admin.review.actions.at(-1)).toMatchObject({ action: 'decline', reviewer: 'GitHub', outcome: 'declined' });
      expect(pullOf(code)).toMatchObject({ state: 'closed', merged: false });
      expect(pullOf(code).labels).toContain('status: declined');
    }
    const work = (await app.inject({ url: `/api/v1/works/${SLUG}` })).json().data;
    expect(work.genre).toBe('Minuet');
    expect(work.title).toBe('Minuet in G major, BWV Anh. 114');
    expect(gh.calls.filter((c) => c.method === 'PUT' && c.path.endsWith('/merge'))).toEqual([]);
  });
});
