/**
 * Long review actions are action records (docs/review.md, "Long actions are action records"):
 * accept answers 202 with a tracking resource at once (Prefer: respond-async), or after a wait
 * the idle timeout allows, never after it; the record shows progress, then the outcome; one
 * action per item at a time; a refusal is answered at once with nothing stored; a stop leaves the
 * action to be resumed; an item whose fetch the allow-list refused is fetched again once fixed.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.ts';
import { RecordStore } from '../../api/storage/record-store.ts';
import type { RunTechnicalChecks } from '../../api/review/types.ts';
import { startItemAction, type StoredItemAction } from '../../src/domain/review/item-actions.ts';
import { contributorFileServer, fetchOptionsTrusting, type HttpsTestServer } from '../helpers/https-server.ts';
import { openWritableApp, type WritableApp } from '../helpers/writable-app.ts';
import { deskContribution, FILES } from '../desk/helpers.ts';
import { LABELED_ADMIN_KEY } from './harness.ts';
import { validReport } from '../contributions/helpers.ts';
import path from 'node:path';

const KEY = LABELED_ADMIN_KEY;
const auth = { authorization: `Bearer ${KEY}` };

let server: HttpsTestServer | null = null;
let w: WritableApp | null = null;
afterEach(async () => {
  await w?.close();
  await server?.close();
  w = null;
  server = null;
});

/**
 * The technical checks stand in (what they find is test/review-infra/checks.test.ts's subject):
 * they pass at once, or wait at a gate so an accept runs as long as the test wants.
 */
const passing: RunTechnicalChecks = async (kind) => ({ kind, passed: true, summary: 'checked', measurements: {} });
function gatedChecks(): { runChecks: RunTechnicalChecks; open(): void; reached: Promise<void> } {
  let open!: () => void;
  let reached!: () => void;
  const gate = new Promise<void>((r) => (open = r));
  const atGate = new Promise<void>((r) => (reached = r));
  return {
    runChecks: async (kind, file) => {
      reached();
      await gate;
      return passing(kind, file);
    },
    open,
    reached: atGate,
  };
}

async function openApp(env: Record<string, string> = {}, runChecks: RunTechnicalChecks = passing) {
  server = await contributorFileServer(FILES);
  w = await openWritableApp({
    prefix: 'pdma-item-actions-',
    env: { ARCHIVE_ADMIN_KEYS: `alice=${KEY}`, ...env },
    review: { fetchOptions: fetchOptionsTrusting(server), runChecks },
  });
  return w;
}

async function contribute(app: WritableApp['app'], key: string): Promise<string> {
  const body = deskContribution({ fileUrl: (name) => `${server!.url}${name}` }, key, `Arrangement ${key}`);
  const res = await app.inject({ method: 'POST', url: '/api/v1/music/contributions', payload: body });
  expect(res.statusCode, res.body).toBe(202);
  return res.json().data.trackingCode as string;
}

const accept = (app: WritableApp['app'], code: string, headers: Record<string, string> = {}) =>
  app.inject({
    method: 'POST',
    url: `/api/v1/admin/contributions/${code}/accept`,
    payload: { reviewer: 'Dana Editor' },
    headers: { ...auth, 'content-type': 'application/json', ...headers },
  });

async function until(app: WritableApp['app'], url: string, done: (a: Record<string, any>) => boolean) {
  for (let n = 0; n < 14_400; n++) {
    const a = (await app.inject({ url, headers: auth })).json().data as Record<string, any>;
    if (done(a)) return a;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('never');
}

describe('a long accept', () => {
  it('with Prefer: respond-async answers 202 at once with the action, which shows progress and then the outcome', async () => {
    const gate = gatedChecks();
    const { app } = await openApp({}, gate.runChecks);
    const code = await contribute(app, 'item-action-async');
    const res = await accept(app, code, { prefer: 'respond-async' });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.headers['preference-applied']).toBe('respond-async');
    const action = res.json().data;
    expect(action).toMatchObject({
      kind: 'contribution',
      trackingCode: code,
      action: 'accept',
      state: 'running',
      actor: 'alice',
      reviewer: 'Dana Editor',
      status: 'pending',
      error: null,
    });
    expect(res.headers.location).toBe(action.links.self);
    const self = new URL(action.links.self).pathname;
    expect(self).toBe(`/api/v1/admin/contributions/${code}/actions/${action.actionId}`);
    // While the checks wait at the gate: the step in words, steps done of all (two files: fetch and check each, then the review).
    await gate.reached;
    const running = await until(app, self, (a) => a.progress.step === 'checking file 1 of 2');
    expect(running).toMatchObject({ state: 'running', progress: { done: 1, total: 5 } });
    // One action per item at a time.
    const second = await accept(app, code);
    expect(second.statusCode).toBe(409);
    expect(second.json().runningAction).toMatchObject({ actionId: action.actionId, action: 'accept' });
    gate.open();
    const done = await until(app, self, (a) => a.state !== 'running');
    expect(done).toMatchObject({
      state: 'completed',
      status: 'accepted',
      progress: { step: 'done', done: 5, total: 5 },
    });
    expect(done.finishedAtUtc).toMatch(/Z$/);
    const item = (await app.inject({ url: new URL(done.links.item).pathname, headers: auth })).json().data;
    expect(item.status).toBe('accepted');
    expect(item.review.verification.map((v: { status: string }) => v.status)).toEqual(['verified', 'verified']);
  });

  it('without Prefer waits only a third of the idle timeout, then answers 202 with the running action: never cut', async () => {
    const gate = gatedChecks();
    // A 3 s idle timeout: the answer may wait 1 s.
    const { app } = await openApp({ ARCHIVE_IDLE_TIMEOUT_MS: '3000' }, gate.runChecks);
    const code = await contribute(app, 'item-action-wait');
    const res = await accept(app, code);
    expect(res.statusCode, res.body).toBe(202);
    expect(res.headers['preference-applied']).toBeUndefined();
    expect(res.json().data).toMatchObject({ state: 'running', trackingCode: code });
    gate.open();
    const done = await until(app, new URL(res.json().data.links.self).pathname, (a) => a.state !== 'running');
    expect(done.state).toBe('completed');
    // A quick action still answers as it always did: the item, 200, with the action named.
    const decline = await app.inject({
      method: 'POST',
      url: `/api/v1/admin/contributions/${code}/decline`,
      payload: { reviewer: 'Dana Editor', note: 'Not this one.' },
      headers: { ...auth, 'content-type': 'application/json' },
    });
    expect(decline.statusCode, decline.body).toBe(200);
    expect(decline.json().data.status).toBe('declined');
    expect(decline.headers['content-location']).toMatch(
      new RegExp(`/api/v1/admin/contributions/${code}/actions/decline-`),
    );
  });

  it('a refusal is answered at once and stores no action; a failure inside the action is its outcome', async () => {
    const { app, root } = await openApp();
    const code = await contribute(app, 'item-action-refused');
    const store = new RecordStore<StoredItemAction>(path.join(root, 'state', 'review-actions'));
    const illegal = await app.inject({
      method: 'POST',
      url: `/api/v1/admin/contributions/${code}/apply`,
      payload: { reviewer: 'Dana Editor' },
      headers: { ...auth, 'content-type': 'application/json' },
    });
    expect(illegal.statusCode).toBe(409);
    const forbidden = await app.inject({
      method: 'POST',
      url: `/api/v1/admin/contributions/${code}/accept`,
      payload: { reviewer: 'Dana Editor', assert: { assets: [{ index: 0, reviewState: 'human-listening-approved' }] } },
      headers: { authorization: 'Bearer unlabeled-admin-secret-9', 'content-type': 'application/json' },
    });
    expect([401, 403]).toContain(forbidden.statusCode);
    let stored = 0;
    for await (const _ of store.all()) stored++;
    expect(stored).toBe(0);
    // A correction that would change nothing is refused inside the accept: the action failed with
    // the problem (nothing changed), and the answer that waited for it is that problem, as before.
    const report = await app.inject({
      method: 'POST',
      url: '/api/v1/correction-reports',
      payload: { ...validReport(), currentValue: '1888', proposedValue: '1888' },
    });
    expect(report.statusCode, report.body).toBe(202);
    const rcode = report.json().data.trackingCode as string;
    const asked = await app.inject({
      method: 'POST',
      url: `/api/v1/admin/correction-reports/${rcode}/accept`,
      payload: { reviewer: 'Dana Editor' },
      headers: { ...auth, 'content-type': 'application/json', prefer: 'respond-async' },
    });
    expect(asked.statusCode, asked.body).toBe(202);
    const failed = await until(app, new URL(asked.json().data.links.self).pathname, (a) => a.state !== 'running');
    expect(failed).toMatchObject({
      state: 'failed',
      status: 'pending',
      error: { status: 409, reasons: expect.any(Array) },
    });
    expect(failed.error.detail).toContain('was not accepted');
    const sync = await app.inject({
      method: 'POST',
      url: `/api/v1/admin/correction-reports/${rcode}/accept`,
      payload: { reviewer: 'Dana Editor' },
      headers: { ...auth, 'content-type': 'application/json' },
    });
    expect(sync.statusCode).toBe(409);
    expect(sync.json()).toMatchObject({ status: 409, detail: failed.error.detail, reasons: failed.error.reasons });
    const unknown = await app.inject({
      url: `/api/v1/admin/contributions/${code}/actions/accept-20260101T000000Z-0`,
      headers: auth,
    });
    expect(unknown.statusCode).toBe(404);
  });

  it('a stop that cut an action short leaves it running; the next start resumes it to its outcome', async () => {
    const { app, config, handle, root } = await openApp();
    const code = await contribute(app, 'item-action-resume');
    // What a kill -9 during the accept leaves: the record, running, and the item still pending.
    const store = new RecordStore<StoredItemAction>(path.join(root, 'state', 'review-actions'));
    const cut = startItemAction({
      actionId: 'accept-20260101T000000Z-cut1',
      kind: 'contribution',
      trackingCode: code,
      action: 'accept',
      actor: 'alice',
      body: { reviewer: 'Dana Editor' },
      startedAtUtc: '2026-01-01T00:00:00.000Z',
      status: 'pending',
    });
    await store.create(cut.actionId, cut);
    await app.close();
    const again = await createApp({
      config,
      handle,
      review: { fetchOptions: fetchOptionsTrusting(server!), runChecks: passing },
    });
    try {
      await again.ready();
      const done = await until(
        again,
        `/api/v1/admin/contributions/${code}/actions/${cut.actionId}`,
        (a) => a.state !== 'running',
      );
      expect(done).toMatchObject({ state: 'completed', status: 'accepted' });
      expect(done.resumedAtUtc).toHaveLength(1);
      const item = (await again.inject({ url: `/api/v1/admin/contributions/${code}`, headers: auth })).json().data;
      expect(item.status).toBe('accepted');
      expect(item.review.actions.at(-1)).toMatchObject({ action: 'accept', actor: 'alice' });
    } finally {
      await again.close();
    }
  });
});

describe('an item whose fetch the allow-list refused', () => {
  it('is fetched and checked again by a second accept once the setting names the port', async () => {
    // The allow-list names the host without its port: port 443 only.
    server = await contributorFileServer(FILES);
    w = await openWritableApp({
      prefix: 'pdma-item-refetch-',
      env: { ARCHIVE_ADMIN_KEYS: `alice=${KEY}` },
      review: { fetchOptions: { ...fetchOptionsTrusting(server), allowHosts: ['localhost'] }, runChecks: passing },
    });
    const code = await contribute(w.app, 'item-action-refetch');
    const first = await accept(w.app, code, { prefer: 'respond-async' });
    await until(w.app, new URL(first.json().data.links.self).pathname, (a) => a.state !== 'running');
    const refused = (await w.app.inject({ url: `/api/v1/admin/contributions/${code}`, headers: auth })).json().data;
    expect(refused.status).toBe('accepted');
    expect(refused.review.blockers[0]).toContain(
      `localhost names an internal host on port ${server.port}: ARCHIVE_FETCH_ALLOW_HOSTS allows it on port 443 only`,
    );
    // The operator fixes the setting and restarts; the editor accepts again (no decline, no resubmission).
    await w.app.close();
    const fixed = await createApp({
      config: w.config,
      handle: w.handle,
      review: { fetchOptions: fetchOptionsTrusting(server), runChecks: passing },
    });
    try {
      const again = await accept(fixed, code, { prefer: 'respond-async' });
      expect(again.statusCode, again.body).toBe(202);
      const done = await until(fixed, new URL(again.json().data.links.self).pathname, (a) => a.state !== 'running');
      expect(done.state).toBe('completed');
      const item = (await fixed.inject({ url: `/api/v1/admin/contributions/${code}`, headers: auth })).json().data;
      expect(item.review.verification.map((v: { status: string }) => v.status)).toEqual(['verified', 'verified']);
      expect(item.review.blockers).toEqual([]);
      // Without blockers, a third accept is refused as before.
      const third = await accept(fixed, code);
      expect(third.statusCode).toBe(409);
      expect(third.json().detail).toContain('accepted again only to approve its terms');
    } finally {
      await fixed.close();
    }
  });
});

describe("the desk's Accept", () => {
  it('follows a long accept on the item page: a progress bar with the step, then the outcome', async () => {
    const gate = gatedChecks();
    const { app } = await openApp({}, gate.runChecks);
    const code = await contribute(app, 'item-action-desk');
    const form = { 'content-type': 'application/x-www-form-urlencoded' };
    const signIn = await app.inject({
      method: 'POST',
      url: '/admin/sign-in',
      headers: form,
      payload: new URLSearchParams({ key: KEY }).toString(),
    });
    const cookie = String(signIn.headers['set-cookie']).split(';')[0]!;
    const item = await app.inject({ url: `/admin/contributions/${code}`, headers: { cookie } });
    const csrf = /name="_csrf" value="([^"]+)"/.exec(item.body)![1]!;
    const posted = await app.inject({
      method: 'POST',
      url: `/admin/contributions/${code}/accept`,
      headers: { ...form, cookie, origin: 'http://localhost:80' },
      payload: new URLSearchParams({ _csrf: csrf, reviewer: 'Dana Editor' }).toString(),
    });
    // The checks wait at the gate, longer than the desk's 5 s: the page follows the action.
    expect(posted.statusCode, posted.body).toBe(303);
    const location = posted.headers.location!;
    const actionId = new RegExp(`^/admin/contributions/${code}\\?action=(accept-[0-9TZ]+-[a-z0-9]+)$`).exec(
      location,
    )?.[1];
    expect(actionId, location).toBeDefined();
    await gate.reached;
    await until(app, `/api/v1/admin/contributions/${code}/actions/${actionId}`, (a) =>
      a.progress.step.startsWith('checking'),
    );
    const running = await app.inject({ url: location, headers: { cookie } });
    expect(running.body).toContain(`data-poll="/api/v1/admin/contributions/${code}/actions/${actionId}"`);
    expect(running.body).toMatch(
      /<section id="item-action" class="notice warn" aria-live="polite" data-state="running"/,
    );
    expect(running.body).toMatch(/<progress id="item-action-bar" max="5" value="1">/);
    expect(running.body).toContain('Now checking file 1 of 2 (1 of 5 steps done).');
    // No second action is offered while it runs; without JavaScript the page refreshes itself.
    expect(running.body).not.toContain(`action="/admin/contributions/${code}/accept"`);
    expect(running.body).toContain('<meta http-equiv="refresh" content="3">');
    gate.open();
    await until(app, `/api/v1/admin/contributions/${code}/actions/${actionId}`, (a) => a.state !== 'running');
    const done = await app.inject({ url: location, headers: { cookie } });
    expect(done.body).toMatch(/<section id="item-action" class="notice ok" data-state="completed"/);
    expect(done.body).toContain('<h2>Done: accept</h2>');
    expect(done.body).toContain('data-status="accepted"');
  });
});
