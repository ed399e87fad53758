/**
 * Apply answers at once: with `Prefer: respond-async` the admin apply is 202 with the
 * item `applying` (status still "accepted"), before anything is merged or built; the tracking
 * record and the admin view then show when the change became visible, or that it failed and the
 * old site keeps serving. The rebuild waits on a gate the test opens, so "at once" is not a race.
 * Seeded from the mini fixture; the successful case runs the real build and swap.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { Config } from '../../api/config.ts';
import { git } from '../../api/site/content-repo.ts';
import type { SiteHandle } from '../../api/site/site-handle.ts';
import { acceptedCorrection, injectCaller } from '../helpers/corrections.ts';
// Real (gated) builds of the mini fixture: on a loaded machine they take longer than the default
// 60 s, so each test's timeout (its last argument) is a backstop, not a budget.
import { gatedWritableApps } from '../helpers/writable-app.ts';
import { followItemAction } from '../helpers/app.ts';

const KEY = 'admin-apply-async-1';
const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };

const apps = gatedWritableApps('pdma-apply-async-', KEY);
afterEach(() => apps.closeAll());
const setUp = () => apps.open();

const data = (body: string) => {
  const parsed = JSON.parse(body) as { data?: Record<string, unknown> } & Record<string, unknown>;
  return (parsed.data ?? parsed) as Record<string, any>;
};

const acceptedReport = (app: FastifyInstance, proposedValue: string): Promise<string> =>
  acceptedCorrection(injectCaller(app), KEY, {
    workSlug: 'bach-minuet-in-g',
    fieldName: 'composer.died',
    currentValue: '1733-07-25',
    proposedValue,
    rationale: 'Burial register.',
  });

/** Dana Editor's POST of `action` on the report (with `headers` besides the key). */
const reviewerAction = (
  app: FastifyInstance,
  code: string,
  action: 'apply' | 'decline',
  headers: Record<string, string> = {},
) =>
  app.inject({
    method: 'POST',
    url: `/api/v1/admin/correction-reports/${code}/${action}`,
    headers: { ...auth, ...headers },
    payload: { reviewer: 'Dana Editor' },
  });

async function applyAsync(app: FastifyInstance, code: string) {
  return app.inject({
    method: 'POST',
    url: `/api/v1/admin/correction-reports/${code}/apply`,
    headers: { ...auth, prefer: 'respond-async' },
    payload: { reviewer: 'Dana Editor', note: 'Register checked.' },
  });
}

/** Poll the admin view until the apply left "applying" (bounded). */
async function settled(app: FastifyInstance, code: string): Promise<Record<string, any>> {
  const deadline = Date.now() + 180_000;
  for (;;) {
    const item = data((await app.inject({ url: `/api/v1/admin/correction-reports/${code}`, headers: auth })).body);
    if (item.apply?.state !== 'applying') return item;
    if (Date.now() > deadline) throw new Error(`${code} still applying: ${JSON.stringify(item.apply)}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

describe('apply answers at once', () => {
  it('answers 202 "applying" before merging, then shows when the change became visible', async () => {
    const { app, config, handle, rebuilder, root } = await setUp();
    const code = await acceptedReport(app, '1733-07-26');
    const mainBefore = await git(config.contentRepo, ['rev-parse', 'main']);

    const res = await applyAsync(app, code);
    expect(res.statusCode, res.body).toBe(202);
    expect(res.headers['preference-applied']).toBe('respond-async');
    const answered = data(res.body);
    expect(answered.status).toBe('accepted');
    expect(answered.changedCanonicalData).toBe(false);
    expect(answered.apply).toMatchObject({ state: 'applying', visibleAtUtc: null, failedAtUtc: null });
    expect(answered.apply.requestedAtUtc).toMatch(/Z$/);
    // The public tracking record says the same; the acknowledged request is on disk.
    const tracking = data((await app.inject({ url: `/api/v1/correction-reports/${code}` })).body);
    expect(tracking.status).toBe('accepted');
    expect(tracking.apply.state).toBe('applying');
    expect(existsSync(path.join(root, 'state', 'applying', `${code}.json`))).toBe(true);
    // Other actions, and a second apply, wait for the outcome: 409 naming the running apply.
    const decline = await reviewerAction(app, code, 'decline');
    expect(decline.statusCode).toBe(409);
    expect(decline.json().detail).toContain('being applied');
    const again = await applyAsync(app, code);
    expect(again.statusCode, again.body).toBe(409);
    expect(again.json().detail).toContain('being applied');

    // The merge happens off the request; the rebuild is held at the gate, the old site serves.
    const servedBefore = handle.current.dir;
    rebuilder.open();
    const item = await settled(app, code);
    expect(item.status, JSON.stringify(item.review.lastError)).toBe('applied');
    expect(item.changedCanonicalData).toBe(true);
    expect(item.apply.state).toBe('visible');
    expect(Date.parse(item.apply.visibleAtUtc)).toBeGreaterThanOrEqual(Date.parse(item.apply.requestedAtUtc));
    expect(item.review.appliedCommit).toBe(await git(config.contentRepo, ['rev-parse', 'main']));
    expect(item.review.appliedCommit).not.toBe(mainBefore);
    expect(rebuilder.calls).toBe(1);
    expect(handle.current.dir).not.toBe(servedBefore);
    const work = data((await app.inject({ url: '/api/v1/works/bach-minuet-in-g' })).body);
    expect(work.composer.died).toBe('1733-07-26');
    const after = data((await app.inject({ url: `/api/v1/correction-reports/${code}` })).body);
    expect(after.status).toBe('applied');
    expect(after.apply).toEqual(item.apply);
    expect(existsSync(path.join(root, 'state', 'applying', `${code}.json`))).toBe(false);
  }, 600_000);

  it('records a failed build as "failed": main reset, the old site serving, the item still accepted', async () => {
    const { app, config, handle, rebuilder, root } = await setUp();
    const code = await acceptedReport(app, '1733-07-27');
    const mainBefore = await git(config.contentRepo, ['rev-parse', 'main']);
    const served = handle.current.dir;
    rebuilder.fail = true;
    const res = await applyAsync(app, code);
    expect(res.statusCode, res.body).toBe(202);
    rebuilder.open();
    const item = await settled(app, code);
    expect(item.status).toBe('accepted');
    expect(item.changedCanonicalData).toBe(false);
    expect(item.apply).toMatchObject({ state: 'failed', visibleAtUtc: null });
    expect(Date.parse(item.apply.failedAtUtc)).toBeGreaterThanOrEqual(Date.parse(item.apply.requestedAtUtc));
    expect(item.review.lastError.message).toContain('simulated build failure');
    expect(await git(config.contentRepo, ['rev-parse', 'main'])).toBe(mainBefore);
    expect(readFileSync(path.join(config.contentRepo, 'people', 'petzold-christian.json'), 'utf8')).toContain(
      '"died": "1733-07-25"',
    );
    expect(handle.current.dir).toBe(served);
    expect(data((await app.inject({ url: `/api/v1/correction-reports/${code}` })).body).apply.state).toBe('failed');
    expect(existsSync(path.join(root, 'state', 'applying', `${code}.json`))).toBe(false);
    // A reviewer may apply it again (here it fails again: the gate stays failing).
    const retry = await reviewerAction(app, code, 'apply');
    expect(retry.statusCode).toBe(409);
    expect(retry.json().detail).toContain('previous site keeps serving');
  }, 600_000);

  it('without respond-async, an apply still running after the wait answers 202 "applying" with the item as Location, never cut', async () => {
    const { app, rebuilder } = await setUp();
    const code = await acceptedReport(app, '1733-07-29');
    // The rebuild waits at the gate; `Prefer: wait=1` (RFC 7240) stands for the idle timeout's third.
    const res = await reviewerAction(app, code, 'apply', { prefer: 'wait=1' });
    expect(res.statusCode, res.body).toBe(202);
    expect(res.headers.location).toMatch(new RegExp(`/api/v1/admin/correction-reports/${code}$`));
    expect(data(res.body).apply.state).toBe('applying');
    rebuilder.open();
    const item = await settled(app, code);
    expect(item.apply.state).toBe('visible');
    expect(item.status).toBe('applied');
  }, 600_000);

  it('without Prefer, apply still answers once the change is visible (200 "applied")', async () => {
    const { app, rebuilder } = await setUp();
    const code = await acceptedReport(app, '1733-07-28');
    rebuilder.open();
    // Within the wait (a third of the idle timeout) the answer is the outcome; a loaded machine
    // may take longer, and then the 202 is followed to it as a client would.
    const res = await followItemAction(app, await reviewerAction(app, code, 'apply'), auth);
    expect(res.statusCode, res.body).toBe(200);
    const item = data(res.body);
    expect(item.status).toBe('applied');
    expect(item.apply.state).toBe('visible');
    expect(data((await app.inject({ url: '/api/v1/works/bach-minuet-in-g' })).body).composer.died).toBe('1733-07-28');
  }, 600_000);
});
