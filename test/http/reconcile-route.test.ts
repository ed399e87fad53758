/**
 * The reconcile's admin route over a served full build: nothing to do ("not-needed", 200, and
 * GET reports it), the schedule as the server read it, the usual 401/403 problems without an
 * admin key, and the answers match the OpenAPI document. The run of a reconcile over an
 * incremental build is test/build/reconcile-on-demand.slow.test.ts.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { openApp, type TestApp } from '../helpers/app.ts';

const ADMIN = 'reconcile-admin-secret-1';
const LIBRARY = 'reconcile-library-secret-1';
const PATH = '/api/v1/admin/reconcile';
const admin = { authorization: `Bearer ${ADMIN}` };

let t: TestApp | null = null;
let dataDir: string | null = null;
afterEach(async () => {
  await t?.close();
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  t = null;
  dataDir = null;
});

async function open(env: Record<string, string> = {}): Promise<TestApp> {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'archive-reconcile-route-'));
  t = await openApp(undefined, {
    ARCHIVE_DATA_DIR: dataDir,
    ARCHIVE_ADMIN_KEYS: `ops=${ADMIN}`,
    ARCHIVE_LIBRARY_KEYS: `lib=${LIBRARY}`,
    ...env,
  });
  return t;
}

const data = (body: string) => (JSON.parse(body) as { data: Record<string, any> }).data;

describe('POST and GET /api/v1/admin/reconcile', () => {
  it('reports idle, then "not-needed" for a served full build, without starting anything', async () => {
    const app = await open();
    const before = await app.request({ url: PATH, headers: admin });
    expect(before.statusCode, before.body).toBe(200);
    expect(before.headers['cache-control']).toBe('no-store');
    expect(data(before.body)).toMatchObject({
      state: 'idle',
      trigger: null,
      commit: null,
      cost: null,
      schedule: 'off',
      nextScheduledAtUtc: null,
    });

    const post = await app.request({ method: 'POST', url: PATH, headers: admin });
    expect(post.statusCode, post.body).toBe(200);
    const answered = data(post.body);
    expect(answered).toMatchObject({ state: 'not-needed', trigger: 'on-demand', cost: null, startedAtUtc: null });
    expect(answered.detail).toMatch(/already a full build|is a full build/);
    expect(answered.requestedAtUtc).toMatch(/Z$/);
    expect(answered.finishedAtUtc).toMatch(/Z$/);

    const after = data((await app.request({ url: PATH, headers: admin })).body);
    expect(after).toEqual(answered);
  });

  it('names the schedule and its next due time (UTC)', async () => {
    const app = await open({ ARCHIVE_RECONCILE_SCHEDULE: 'daily@03:00' });
    const status = data((await app.request({ url: PATH, headers: admin })).body);
    expect(status.schedule).toBe('daily@03:00');
    expect(status.nextScheduledAtUtc).toMatch(/T03:00:00\.000Z$/);
    const due = Date.parse(status.nextScheduledAtUtc);
    expect(due).toBeGreaterThan(Date.now());
    expect(due - Date.now()).toBeLessThanOrEqual(24 * 3_600_000);
  });

  it('answers 401 without a key and 403 for a key without the admin role, as problem details', async () => {
    const app = await open();
    for (const method of ['GET', 'POST']) {
      const none = await app.request({ method, url: PATH });
      expect(none.statusCode).toBe(401);
      expect(none.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(none.headers['www-authenticate']).toMatch(/^Bearer/);
      const library = await app.request({ method, url: PATH, headers: { authorization: `Bearer ${LIBRARY}` } });
      expect(library.statusCode).toBe(403);
      expect(library.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect((JSON.parse(library.body) as { detail: string }).detail).toContain('admin');
    }
    // Nothing was asked for by the refused requests.
    expect(data((await app.request({ url: PATH, headers: admin })).body).state).toBe('idle');
  });
});
