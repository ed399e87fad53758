/**
 * The reconcile by default and on demand, through the server's own wiring (createApp makes the
 * rebuilder from the settings): an applied correction is served from an incremental folder and no
 * reconcile follows; `POST /api/v1/admin/reconcile` replaces that folder with a full build of the
 * same commit, reusing the render cache; GET reports its cost, /metrics its duration, and a second
 * POST finds nothing to do. Then a server with ARCHIVE_RECONCILE_SCHEDULE=1m reconciles the next
 * apply's folder on its own at the next whole minute.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.ts';
import { loadConfig } from '../../api/config.ts';
import { buildKey, ensureBuild, readBuildInfo } from '../../api/site/builds.ts';
import { ensureContentRepo, git } from '../../api/site/content-repo.ts';
import { SiteHandle } from '../../api/site/site-handle.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { appliedCorrection, injectCaller } from '../helpers/corrections.ts';
import { assertMatchesOpenApi } from '../helpers/openapi.ts';

const ADMIN = 'reconcile-on-demand-admin-1';
const METRICS = 'reconcile-on-demand-metrics-1';
const BASE = 'https://reconcile-on-demand.example.test';
const PATH = '/api/v1/admin/reconcile';
const admin = { authorization: `Bearer ${ADMIN}` };
const WORK = 'bach-minuet-in-g';

const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-reconcile-on-demand-'));
// No reconcile setting: the server's defaults.
const config = loadConfig(
  { ARCHIVE_DATA_DIR: root, PUBLIC_BASE_URL: BASE, ARCHIVE_ADMIN_KEYS: ADMIN, ARCHIVE_METRICS_KEYS: METRICS },
  PROJECT_ROOT,
);
let app: FastifyInstance;
let handle: SiteHandle;
let openapi: Record<string, unknown>;
/** The server's log lines (JSON). */
const logs: string[] = [];
const logger = { level: 'info', stream: { write: (line: string) => void logs.push(line) } };

beforeAll(async () => {
  const repo = await ensureContentRepo(config.contentRepo, path.join(PROJECT_ROOT, 'test', 'fixtures', 'mini'));
  handle = await SiteHandle.open(await ensureBuild(config, repo.head));
  openapi = JSON.parse(readFileSync(path.join(handle.current.dir, 'client', 'api', 'v1', 'openapi.json'), 'utf8'));
  app = await createApp({ config, handle, review: {} }, { logger });
}, 300_000);
afterAll(async () => {
  await app?.close();
  rmSync(root, { recursive: true, force: true });
});

async function call(method: 'GET' | 'POST', headers: Record<string, string> = admin) {
  const res = await app.inject({ method, url: PATH, headers });
  assertMatchesOpenApi(openapi, method, PATH, res);
  return { status: res.statusCode, body: res.body, data: (JSON.parse(res.body) as { data: Record<string, any> }).data };
}

/** Apply a correction of the work's year from `from` to `to`: the content repository's new head. */
async function applyYear(from: string, to: string): Promise<string> {
  await appliedCorrection(injectCaller(app), ADMIN, {
    workSlug: WORK,
    fieldName: 'year',
    currentValue: from,
    proposedValue: to,
  });
  return git(config.contentRepo, ['rev-parse', 'HEAD']);
}

describe('the reconcile on demand', () => {
  it('follows no apply by default; POST replaces the incremental folder with a full build and GET reports its cost', async () => {
    expect(config.reconcileDelayMs).toBeNull();
    expect(config.reconcileSchedule).toEqual({ kind: 'off' });

    // An applied correction, served from an incremental folder.
    const head = await applyYear('c. 1725', 'c. 1724');
    const key = buildKey(head, BASE);
    expect(path.basename(handle.current.dir)).toBe(`${key}-inc`);
    expect(readBuildInfo(handle.current.dir)).toMatchObject({ mode: 'incremental', commit: head });

    // Nothing waits or runs after the apply (the old default waited 30 s, then rebuilt everything).
    const after = await call('GET');
    expect(after.status).toBe(200);
    expect(after.data).toMatchObject({ state: 'idle', trigger: null, commit: null });

    const post = await call('POST');
    expect(post.status, post.body).toBe(202);
    expect(post.data).toMatchObject({ state: 'running', trigger: 'on-demand', commit: head, finishedAtUtc: null });
    expect(post.data.startedAtUtc).toMatch(/Z$/);
    // A second request while it runs starts nothing new: the same reconcile.
    const again = await call('POST');
    expect(again.status).toBe(202);
    expect(again.data).toMatchObject({ state: 'running', startedAtUtc: post.data.startedAtUtc, commit: head });

    const deadline = Date.now() + 400_000;
    let status = (await call('GET')).data;
    while (status.state === 'running') {
      if (Date.now() > deadline) throw new Error(`reconcile still running: ${JSON.stringify(status)}`);
      await new Promise((r) => setTimeout(r, 250));
      status = (await call('GET')).data;
    }
    expect(status, JSON.stringify(status)).toMatchObject({ state: 'completed', trigger: 'on-demand', commit: head });
    expect(status.finishedAtUtc).toMatch(/Z$/);
    expect(Date.parse(status.finishedAtUtc)).toBeGreaterThanOrEqual(Date.parse(status.startedAtUtc));
    expect(status.durationMs).toBe(Date.parse(status.finishedAtUtc) - Date.parse(status.startedAtUtc));

    // The served folder is now the full build of the same commit, and serves the correction.
    expect(path.basename(handle.current.dir)).toBe(key);
    const info = JSON.parse(readFileSync(path.join(handle.current.dir, 'build.json'), 'utf8'));
    expect(info).toMatchObject({ mode: 'full', commit: head });
    const record = await app.inject({ url: `/api/v1/works/${WORK}` });
    expect(JSON.parse(record.body).data.year).toBe('c. 1724');

    // Its cost is the full build's build.json; every score came from the render cache the first
    // build filled (the mini catalog's score did not change).
    expect(status.cost).toEqual({
      buildMs: info.durationMs,
      works: info.works,
      pages: info.searchIndex.pages,
      scoresRendered: info.scores.rendered,
      scoresEngraved: info.scores.engraved,
      scoresFromCache: info.scores.fromCache,
      scoresFailed: info.scores.failed,
      peakRssBytes: info.peakRssBytes,
    });
    expect(status.cost.works).toBeGreaterThan(0);
    expect(status.cost.scoresRendered).toBeGreaterThan(0);
    expect(status.cost.scoresEngraved).toBe(0);
    expect(status.cost.scoresFromCache).toBe(status.cost.scoresRendered);

    // One log line says how it ended, what asked for it, its time and its cost.
    const line = logs
      .map((l) => JSON.parse(l) as { msg: string })
      .find((l) => l.msg.startsWith(`background reconcile of ${head.slice(0, 12)}: `));
    expect(line?.msg).toBe(
      `background reconcile of ${head.slice(0, 12)}: swapped (on-demand; ${status.durationMs} ms; full build ${info.durationMs} ms: ` +
        `${info.works} works, ${info.searchIndex.pages} pages, ${info.scores.rendered} scores (0 engraved, ${info.scores.fromCache} from the render cache), ` +
        `peak RSS ${Math.round(info.peakRssBytes / 1048576)} MiB)`,
    );

    // /metrics has the last reconcile's duration.
    const metrics = await app.inject({ url: '/metrics', headers: { authorization: `Bearer ${METRICS}` } });
    expect(metrics.statusCode).toBe(200);
    const seconds = Number(/^archive_reconcile_last_duration_seconds (\S+)$/m.exec(metrics.body)?.[1]);
    expect(seconds).toBeCloseTo(status.durationMs / 1000, 3);
    expect(metrics.body).toMatch(/^archive_reconciles_total\{trigger="on-demand",outcome="swapped"\} 1$/m);

    // Served in full now: nothing to do.
    const none = await call('POST');
    expect(none.status).toBe(200);
    expect(none.data).toMatchObject({ state: 'not-needed', commit: head });
  }, 900_000);

  it('ARCHIVE_RECONCILE_SCHEDULE reconciles a served incremental build at its next due time', async () => {
    // The same data folder, served by a server that reconciles every minute (on the minute, UTC).
    await app.close();
    const scheduled = loadConfig(
      { ARCHIVE_DATA_DIR: root, PUBLIC_BASE_URL: BASE, ARCHIVE_ADMIN_KEYS: ADMIN, ARCHIVE_RECONCILE_SCHEDULE: '1m' },
      PROJECT_ROOT,
    );
    app = await createApp({ config: scheduled, handle, review: {} }, { logger: false });
    const first = (await call('GET')).data;
    expect(first).toMatchObject({ state: 'idle', schedule: '1m' });
    expect(first.nextScheduledAtUtc).toMatch(/:00\.000Z$/);

    const head = await applyYear('c. 1724', 'c. 1723');
    expect(readBuildInfo(handle.current.dir)).toMatchObject({ mode: 'incremental', commit: head });

    // A due time that found the full build served did nothing; the first one after the apply runs.
    const deadline = Date.now() + 400_000;
    let status = (await call('GET')).data;
    while (!(status.commit === head && ['completed', 'failed', 'cancelled'].includes(status.state))) {
      if (Date.now() > deadline) throw new Error(`no scheduled reconcile: ${JSON.stringify(status)}`);
      await new Promise((r) => setTimeout(r, 250));
      status = (await call('GET')).data;
    }
    expect(status, JSON.stringify(status)).toMatchObject({ state: 'completed', trigger: 'schedule', commit: head });
    // It started on a due time: a whole minute.
    expect(Date.parse(status.startedAtUtc) % 60_000).toBeLessThan(15_000);
    expect(status.cost.scoresEngraved).toBe(0);
    expect(path.basename(handle.current.dir)).toBe(buildKey(head, BASE));
    expect(readBuildInfo(handle.current.dir)).toMatchObject({ mode: 'full', commit: head });
  }, 900_000);
});
