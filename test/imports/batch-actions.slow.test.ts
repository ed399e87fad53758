/**
 * Batch actions run in the background (docs/imports.md, "Batch actions run in the background"),
 * over HTTP in-process with real songs of the OpenScore Lieder corpus: an accept of the whole
 * batch answers 202 at once with its tracking resource, which reaches "completed" with every
 * work accepted; a second action meanwhile gets 409 naming the running one; a server stopped
 * mid-action leaves it running on disk and the next start resumes it to the end, acting on no
 * item twice.
 */
import { rmSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { LIEDER, plannedImportItem } from '../helpers/corpus-content.ts';
import { stageImportItem } from '../helpers/import-items.ts';
import { openWritableApp, type WritableApp } from '../helpers/writable-app.ts';
import { createApp } from '../../api/app.ts';
import { Rebuilder } from '../../api/site/builds.ts';
import { SiteHandle } from '../../api/site/site-handle.ts';
import { ImportStore } from '../../api/imports/store.ts';
import { cookieOf, csrfOf } from '../desk/helpers.ts';

const KEY = 'alice-batch-actions-secret-1';
const BATCH = 'openscore-lieder';
const FIRST = ['5016466', '5701612', '5001925'];
const SECOND = ['5100073', '5092612', '6019054'];
const UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/;

let w: WritableApp;
let app: FastifyInstance;
const codes: Record<string, string> = {};

const auth = { authorization: `Bearer ${KEY}` };
const get = (url: string) => app.inject({ url, headers: auth });
const act = (action: string, body: object, prefer: string | null = 'respond-async') =>
  app.inject({
    method: 'POST',
    url: `/api/v1/admin/batches/${BATCH}/${action}`,
    payload: body,
    headers: { ...auth, 'content-type': 'application/json', ...(prefer ? { prefer } : {}) },
  });

async function submit(id: string) {
  const { put, res } = await stageImportItem(
    app,
    auth,
    plannedImportItem(LIEDER, `lc${id}.mxl`, `batch-actions-song-${id}`),
  );
  expect(put.statusCode, put.body).toBe(201);
  expect(res.statusCode, res.body).toBe(201);
  codes[id] = res.json().data.trackingCode;
}

/** Poll the tracking resource until the action is no longer running (bounded). */
async function untilFinished(url: string): Promise<Record<string, any>> {
  const path = new URL(url).pathname;
  for (let n = 0; n < 1200; n++) {
    const res = await get(path);
    expect(res.statusCode, res.body).toBe(200);
    const data = res.json().data;
    if (data.state !== 'running') return data;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} still running after 300 s`);
}

beforeAll(async () => {
  // One engraving worker: a batch accept then runs two items side by side, so a stop mid-action
  // with three items leaves one waiting.
  w = await openWritableApp({
    prefix: 'pdma-batch-actions-',
    env: { ARCHIVE_ADMIN_KEYS: `alice=${KEY}`, ARCHIVE_ENGRAVE_WORKERS: '1' },
  });
  app = w.app;
  for (const id of FIRST) await submit(id);
}, 120_000);
afterAll(async () => {
  await app?.close();
  if (w) rmSync(w.root, { recursive: true, force: true });
});

describe('a batch action runs in the background', () => {
  let location = '';

  it('an accept of the whole batch answers 202 at once with its tracking resource', async () => {
    const res = await act('accept', { reviewer: 'Alice' });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.headers['preference-applied']).toBe('respond-async');
    const a = res.json().data;
    location = String(res.headers.location);
    expect(location).toBe(a.links.self);
    expect(location).toMatch(new RegExp(`/api/v1/admin/batches/${BATCH}/actions/accept-[0-9]{8}T[0-9]{6}Z-[a-z0-9]+$`));
    expect(a).toMatchObject({ batchId: BATCH, action: 'accept', state: 'running', actor: 'alice', reviewer: 'Alice' });
    expect(a.total).toBe(FIRST.length);
    expect(a.done).toBeLessThan(a.total);
    expect(a.startedAtUtc).toMatch(UTC);
    expect(a.finishedAtUtc).toBeNull();
    expect(a.items.map((i: { trackingCode: string }) => i.trackingCode).sort()).toEqual(
      FIRST.map((id) => codes[id]).sort(),
    );
  });

  it('a second action on the batch meanwhile gets 409 naming the running one, and starts nothing', async () => {
    const running = (await get(new URL(location).pathname)).json().data;
    expect(running.state).toBe('running');
    const res = await act('decline', { items: [codes[FIRST[2]!]!] }, null);
    expect(res.statusCode, res.body).toBe(409);
    expect(res.headers['content-type']).toContain('application/problem+json');
    const p = res.json();
    expect(p.detail).toContain(running.actionId);
    expect(p.runningAction).toEqual({ actionId: running.actionId, action: 'accept', href: location });
    const list = (await get(`/api/v1/admin/batches/${BATCH}/actions`)).json().data.items;
    expect(list.map((x: { actionId: string }) => x.actionId)).toEqual([running.actionId]);

    // The desk shows the running action, offers no new one, and refuses one posted anyway.
    const signIn = await app.inject({
      method: 'POST',
      url: '/admin/sign-in',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ key: KEY }).toString(),
    });
    const cookie = cookieOf(signIn.headers['set-cookie']);
    const page = await app.inject({ url: `/admin/batches/${BATCH}`, headers: { cookie } });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(`data-state="running" data-action="accept" data-action-id="${running.actionId}"`);
    expect(page.body).toContain(`data-poll="/api/v1/admin/batches/${BATCH}/actions/${running.actionId}"`);
    expect(page.body).toMatch(/<progress id="batch-action-bar" max="3" value="[0-2]">/);
    expect(page.body).not.toContain('name="action" value="accept"');
    const posted = await app.inject({
      method: 'POST',
      url: `/admin/batches/${BATCH}/act`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      payload: new URLSearchParams({
        _csrf: csrfOf(page.body),
        scope: 'all',
        reviewer: 'Alice',
        action: 'decline',
      }).toString(),
    });
    expect(posted.statusCode).toBe(409);
    expect(posted.body).toContain(`Not done: The batch already has an action running: accept ${running.actionId}`);
  });

  it('the tracking resource reaches "completed" with every work accepted, each recorded with the key label', async () => {
    const a = await untilFinished(location);
    expect(a).toMatchObject({ state: 'completed', total: 3, done: 3, actedOn: 3, failed: 0, error: null });
    expect(a.finishedAtUtc).toMatch(UTC);
    expect(a.resumedAtUtc).toEqual([]);
    for (const i of a.items) {
      expect(i).toMatchObject({ outcome: 'done', status: 'accepted', problem: null });
      expect(i.finishedAtUtc).toMatch(UTC);
    }
    const batch = (await get(`/api/v1/admin/batches/${BATCH}`)).json().data;
    expect(batch.items.map((i: { status: string }) => i.status)).toEqual(['accepted', 'accepted', 'accepted']);
    expect(batch.latestAction).toMatchObject({ actionId: a.actionId, state: 'completed', done: 3 });
    const listed = (await get('/api/v1/admin/batches')).json().data.items[0];
    expect(listed.latestAction).toMatchObject({ actionId: a.actionId, state: 'completed', actedOn: 3 });
    for (const id of FIRST) {
      const review = (await get(`/api/v1/admin/contributions/${codes[id]}`)).json().data.review;
      expect(review.actions.at(-1)).toMatchObject({ action: 'accept', actor: 'alice', reviewer: 'Alice' });
    }
    // Finished: a new action may start; without the preference a small one answers 200 with its outcome.
    const none = await act('accept', {}, null);
    expect(none.statusCode, none.body).toBe(200);
    expect(none.json().data).toMatchObject({ state: 'completed', total: 0, actedOn: 0 });
  });

  it('an unknown action id is a 404 problem', async () => {
    const res = await get(`/api/v1/admin/batches/${BATCH}/actions/accept-20200101T000000Z-0`);
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toContain('application/problem+json');
  });

  it('a stop mid-action leaves it running with the items done so far; the next start resumes it to the end', async () => {
    for (const id of SECOND) await submit(id);
    const res = await act('accept', { items: SECOND.map((id) => `lc${id}`) });
    expect(res.statusCode, res.body).toBe(202);
    const actionId = res.json().data.actionId as string;
    // The stop: the item in progress finishes, the rest waits.
    await app.close();
    const stored = await new ImportStore(w.config.dataDir).actions.get(actionId);
    expect(stored?.state).toBe('running');
    const waiting = stored!.items.filter((i) => i.outcome === 'waiting').length;
    expect(waiting).toBeGreaterThan(0);
    expect(waiting).toBeLessThan(SECOND.length);

    // The next start, on the same data folder.
    const handle = await SiteHandle.open(inject('sampleBuildDir'));
    app = await createApp({ config: w.config, handle, rebuilder: new Rebuilder(w.config, handle), review: {} });
    const a = await untilFinished(String(res.headers.location));
    expect(a).toMatchObject({ state: 'completed', total: 3, actedOn: 3, failed: 0 });
    expect(a.resumedAtUtc).toHaveLength(1);
    expect(a.resumedAtUtc[0]).toMatch(UTC);
    for (const id of SECOND) {
      const item = (await get(`/api/v1/admin/contributions/${codes[id]}`)).json().data;
      expect(item.status).toBe('accepted');
      // Accepted once: the resume did not act again on what the stop had let finish.
      expect(item.review.actions.filter((x: { action: string }) => x.action === 'accept')).toHaveLength(1);
    }
  }, 300_000);
});
