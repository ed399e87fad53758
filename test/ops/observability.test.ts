/**
 * Operator endpoints over HTTP on a real socket: /healthz, /readyz (ready, and 503 naming what is
 * not), /metrics behind ARCHIVE_METRICS_KEYS (refused with how-to when none is set) or on the
 * ARCHIVE_METRICS_PORT loopback listener; requests by route and status with latency histograms,
 * the fast path counted and logged by sampling, 429s, upload bytes, queue sizes, build/apply families.
 */
import { randomBytes } from 'node:crypto';
import { readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { fillTemplate, satieTemplate } from '../helpers/filled-template.ts';
import { fileInput, importInput, KEY_ENV, LIB } from '../library/library-helpers.ts';
import { openServed, type Served } from './ops-helpers.ts';

const METRICS_SECRET = 'metrics-secret-0123456789';
let s: Served | null = null;
afterEach(async () => {
  await s?.close();
  s = null;
});

const contribution = (i: number) =>
  JSON.stringify({
    ...fillTemplate(satieTemplate()),
    idempotencyKey: `observability-${i}-${randomBytes(4).toString('hex')}`,
  });

/** The value of one sample line `name{labels} value` (labels in any order), or undefined. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const m = /^[^{ ]+(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!m) continue;
    const have = Object.fromEntries([...(m[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((x) => [x[1], x[2]]));
    if (Object.entries(labels).every(([k, v]) => have[k] === v)) return Number(m[2]);
  }
  return undefined;
}

async function scrape(url: string, key = METRICS_SECRET): Promise<string> {
  const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${key}` } });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
  expect(res.headers.get('cache-control')).toBe('no-store');
  return res.text();
}

describe('health and readiness', () => {
  it('answers /healthz 200 and /readyz 200 with every check when a build, the content repository and storage are there', async () => {
    s = await openServed({}, { contentRepo: true });
    const health = await fetch(`${s.url}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'alive' });
    expect(health.headers.get('cache-control')).toBe('no-store');
    expect(health.headers.get('x-content-type-options')).toBe('nosniff');
    const ready = await fetch(`${s.url}/readyz`);
    const body = (await ready.json()) as { status: string; checks: Record<string, { ok: boolean; detail: string }> };
    expect(ready.status, JSON.stringify(body)).toBe(200);
    expect(body.status).toBe('ready');
    expect(Object.keys(body.checks).sort()).toEqual(['build', 'contentRepository', 'storage']);
    for (const c of Object.values(body.checks)) expect(c.ok).toBe(true);
    expect(body.checks.contentRepository!.detail).toMatch(/^HEAD [0-9a-f]{12}$/);
  });

  it('answers /readyz 503 not-ready naming the content repository and storage when they fail', async () => {
    s = await openServed({}, { contentRepo: false });
    // No content repository, and the state folder is a file (a broken mount in miniature).
    writeFileSync(path.join(s.dataDir, 'state'), 'not a folder');
    const res = await fetch(`${s.url}/readyz`);
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect(res.headers.get('retry-after')).toBe('5');
    const problem = (await res.json()) as {
      type: string;
      detail: string;
      checks: Record<string, { ok: boolean; detail: string }>;
    };
    expect(problem.type).toMatch(/\/problems\/not-ready$/);
    expect(problem.detail).toContain('contentRepository');
    expect(problem.detail).toContain('storage');
    expect(problem.detail).not.toContain('build (');
    expect(problem.checks.build!.ok).toBe(true);
    expect(problem.checks.contentRepository!.ok).toBe(false);
    expect(problem.checks.storage!.ok).toBe(false);
    // Fixed storage: only the repository is named.
    rmSync(path.join(s.dataDir, 'state'));
    const again = (await (await fetch(`${s.url}/readyz`)).json()) as {
      detail: string;
      checks: Record<string, { ok: boolean }>;
    };
    expect(again.checks.storage!.ok).toBe(true);
    expect(again.detail).toContain('contentRepository');
  });
});

describe('readiness under concurrent probes', () => {
  it("answers 400 probes, 40 at a time, all 200: overlapping checks never remove each other's probe", async () => {
    s = await openServed({}, { contentRepo: true });
    const statuses: number[] = [];
    const details: string[] = [];
    for (let round = 0; round < 10; round++) {
      const answers = await Promise.all(
        Array.from({ length: 40 }, async () => {
          const res = await fetch(`${s!.url}/readyz`);
          return { status: res.status, text: await res.text() };
        }),
      );
      for (const a of answers) {
        statuses.push(a.status);
        if (a.status !== 200) details.push(a.text.slice(0, 200));
      }
    }
    expect(details).toEqual([]);
    expect(statuses.filter((x) => x === 200).length).toBe(400);
    // No probe file is left behind in the state folder.
    expect(readdirSync(path.join(s.dataDir, 'state')).filter((n) => n.endsWith('.probe'))).toEqual([]);
  });
});

describe('metrics', () => {
  it('refuses /metrics with a problem that says how to configure it when no metrics key is set', async () => {
    s = await openServed();
    const res = await fetch(`${s.url}/metrics`);
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = (await res.json()) as { detail: string };
    expect(problem.detail).toContain('ARCHIVE_METRICS_KEYS');
    expect(problem.detail).toContain('ARCHIVE_METRICS_PORT');
  });

  it("admits only a metrics key; another role's key or a wrong one is refused", async () => {
    s = await openServed({ ...KEY_ENV, ARCHIVE_METRICS_KEYS: `prometheus=${METRICS_SECRET}` });
    expect((await fetch(`${s.url}/metrics`)).status).toBe(401);
    expect(
      (await fetch(`${s.url}/metrics`, { headers: { authorization: 'Bearer wrong-key-0123456789' } })).status,
    ).toBe(401);
    const other = await fetch(`${s.url}/metrics`, { headers: LIB });
    expect(other.status).toBe(403);
    expect(other.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    await scrape(s.url);
  });

  it('counts requests by route and status with latency, the fast path, 429s, upload bytes and the review queue', async () => {
    s = await openServed(
      {
        ...KEY_ENV,
        ARCHIVE_METRICS_KEYS: METRICS_SECRET,
        ARCHIVE_CONTRIBUTION_RATE_LIMIT: '2/600',
        ARCHIVE_FAST_PATH_LOG_SAMPLE: '1',
      },
      { log: true },
    );
    const url = s.url;
    // Fastify routes: a work record by pattern, and an unknown path.
    expect((await fetch(`${url}/api/v1/works?composer=bach`)).status).toBe(200);
    expect((await fetch(`${url}/no/such/path`)).status).toBe(404);
    // The fast path: the same in-memory record three times (the first load goes through Fastify).
    for (let i = 0; i < 4; i++) expect((await fetch(`${url}/api/v1/works/beethoven-fur-elise`)).status).toBe(200);
    // Two submissions pass the 2/600 limit, the third is a 429.
    const statuses = [];
    for (let i = 0; i < 3; i++)
      statuses.push(
        (
          await fetch(`${url}/api/v1/music/contributions`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: contribution(i),
          })
        ).status,
      );
    expect(statuses).toEqual([202, 202, 429]);
    // A library upload of 3000 bytes.
    const bytes = randomBytes(3000);
    const created = await fetch(`${url}/api/v1/library/imports`, {
      method: 'POST',
      headers: { ...LIB, 'content-type': 'application/json' },
      body: JSON.stringify(importInput([fileInput(bytes)])),
    });
    expect(created.status).toBe(200);
    const imp = ((await created.json()) as { data: { id: string; files: Array<{ id: string }> } }).data;
    const put = await fetch(`${url}/api/v1/library/imports/${imp.id}/files/${imp.files[0]!.id}?offset=0`, {
      method: 'PUT',
      headers: { ...LIB, 'content-type': 'application/octet-stream' },
      body: bytes,
    });
    expect(put.status).toBe(200);

    const text = await scrape(url);
    expect(sample(text, 'archive_http_requests_total', { method: 'GET', route: '/api/v1/works', status: '200' })).toBe(
      1,
    );
    expect(sample(text, 'archive_http_requests_total', { method: 'GET', route: 'static', status: '404' })).toBe(1);
    expect(
      sample(text, 'archive_http_requests_total', {
        method: 'POST',
        route: '/api/v1/music/contributions',
        status: '202',
      }),
    ).toBe(2);
    expect(
      sample(text, 'archive_http_requests_total', {
        method: 'POST',
        route: '/api/v1/music/contributions',
        status: '429',
      }),
    ).toBe(1);
    expect(sample(text, 'archive_rate_limited_total', { route: '/api/v1/music/contributions' })).toBe(1);
    expect(
      sample(text, 'archive_http_request_duration_seconds_count', {
        method: 'GET',
        route: '/api/v1/works',
        status: '200',
      }),
    ).toBe(1);
    expect(
      sample(text, 'archive_http_request_duration_seconds_bucket', {
        method: 'GET',
        route: '/api/v1/works',
        status: '200',
        le: '+Inf',
      }),
    ).toBe(1);
    const fast =
      sample(text, 'archive_http_requests_total', { method: 'GET', route: 'fast-static', status: '200' }) ?? 0;
    const slow = sample(text, 'archive_http_requests_total', { method: 'GET', route: 'static', status: '200' }) ?? 0;
    expect(fast).toBeGreaterThanOrEqual(3);
    expect(fast + slow).toBe(4);
    expect(
      sample(text, 'archive_http_request_duration_seconds_count', {
        method: 'GET',
        route: 'fast-static',
        status: '200',
      }),
    ).toBe(fast);
    expect(sample(text, 'archive_upload_bytes_total')).toBe(3000);
    expect(sample(text, 'archive_review_queue_size', { kind: 'contribution', status: 'pending' })).toBe(2);
    expect(sample(text, 'archive_rebuild_queue_size')).toBe(0);
    expect(sample(text, 'archive_http_requests_in_flight')).toBe(1); // the scrape itself
    for (const family of [
      'archive_build_duration_seconds',
      'archive_apply_duration_seconds',
      'process_cpu_seconds_total',
      'nodejs_eventloop_lag_seconds',
    ]) {
      expect(text).toContain(`# TYPE ${family} `);
    }
    // The fast path is logged (sample 1 = every answer) with its path and status.
    const fastLogs = s.logs.map((l) => JSON.parse(l) as { fastPath?: boolean }).filter((l) => l.fastPath);
    expect(fastLogs.length).toBe(fast);
    expect(fastLogs[0]).toMatchObject({
      method: 'GET',
      path: '/api/v1/works/beethoven-fur-elise',
      statusCode: 200,
      ip: '127.0.0.1',
    });
  });

  it('logs no fast-path answer at sample 0, yet counts every one', async () => {
    s = await openServed({ ARCHIVE_METRICS_KEYS: METRICS_SECRET, ARCHIVE_FAST_PATH_LOG_SAMPLE: '0' }, { log: true });
    for (let i = 0; i < 5; i++) await fetch(`${s.url}/api/v1/works/beethoven-fur-elise`);
    const text = await scrape(s.url);
    expect(
      sample(text, 'archive_http_requests_total', { method: 'GET', route: 'fast-static', status: '200' }),
    ).toBeGreaterThanOrEqual(4);
    expect(s.logs.filter((l) => l.includes('"fastPath":true'))).toEqual([]);
  });

  it('serves /metrics without a key on the ARCHIVE_METRICS_PORT loopback listener, and nothing else there', async () => {
    s = await openServed({ ARCHIVE_METRICS_PORT: '0' });
    expect(s.serving.metricsPort).toBeGreaterThan(0);
    const metricsUrl = `http://127.0.0.1:${s.serving.metricsPort}`;
    await fetch(`${s.url}/healthz`);
    const res = await fetch(`${metricsUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    expect(
      sample(await res.text(), 'archive_http_requests_total', { method: 'GET', route: '/healthz', status: '200' }),
    ).toBe(1);
    const other = await fetch(`${metricsUrl}/api/v1`);
    expect(other.status).toBe(404);
    expect(other.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    expect((await fetch(`${metricsUrl}/metrics`, { method: 'POST' })).status).toBe(405);
    // The main port still wants a key.
    expect((await fetch(`${s.url}/metrics`)).status).toBe(401);
  });
});

describe('build and apply durations', () => {
  it('times rebuild-and-swap (its own duration, not the wait), counts the rebuild queue, and times apply only', async () => {
    const { ArchiveMetrics } = await import('../../api/observability/metrics.ts');
    const { instrumentRebuilder, instrumentReview } = await import('../../api/observability/instrument.ts');
    const metrics = new ArchiveMetrics(() => 0);
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const rebuilder = {
      rebuildAndSwap: async () => {
        await gate;
        return { commit: 'c', buildDir: 'b', durationMs: 1500 };
      },
    };
    instrumentRebuilder(rebuilder as never, metrics);
    const running = [rebuilder.rebuildAndSwap(), rebuilder.rebuildAndSwap()];
    expect(sample((await metrics.text()).body, 'archive_rebuild_queue_size')).toBe(2);
    release();
    await Promise.all(running);
    let text = (await metrics.text()).body;
    expect(sample(text, 'archive_rebuild_queue_size')).toBe(0);
    expect(sample(text, 'archive_build_duration_seconds_count', { outcome: 'ok' })).toBe(2);
    expect(sample(text, 'archive_build_duration_seconds_sum', { outcome: 'ok' })).toBe(3);

    const calls: string[] = [];
    const review = {
      act: async (_kind: string, code: string, action: string, _body: unknown) => {
        calls.push(`${action} ${code}`);
        if (code === 'C-FAIL') throw new Error('merge failed');
        return { record: {}, review: null };
      },
      queue: async (filter: { statuses: string[]; kind: string }) => ({
        items: [],
        total: filter.kind === 'contribution' && filter.statuses[0] === 'pending' ? 3 : 0,
        counts: {},
      }),
    };
    instrumentReview(review as never, metrics);
    await review.act('contribution', 'C-1', 'apply', {} as never);
    await review.act('contribution', 'C-2', 'accept', {} as never);
    await expect(review.act('contribution', 'C-FAIL', 'apply', {} as never)).rejects.toThrow('merge failed');
    expect(calls).toEqual(['apply C-1', 'accept C-2', 'apply C-FAIL']);
    text = (await metrics.text()).body;
    expect(sample(text, 'archive_apply_duration_seconds_count', { kind: 'contribution', outcome: 'ok' })).toBe(1);
    expect(sample(text, 'archive_apply_duration_seconds_count', { kind: 'contribution', outcome: 'failed' })).toBe(1);
    expect(sample(text, 'archive_review_queue_size', { kind: 'contribution', status: 'pending' })).toBe(3);
    expect(sample(text, 'archive_review_queue_size', { kind: 'correction-report', status: 'accepted' })).toBe(0);
  });
});
