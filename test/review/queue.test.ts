/**
 * GET /api/v1/admin/queue over HTTP (inject): filters, paging with exact totals and links,
 * per-status counts, items stored before the server started, status changes seen at once, bad
 * parameters as problem details -- and that a page is answered without reading the stored
 * submissions.
 */
import { mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, inject, it } from 'vitest';
import { openApp, type TestApp } from '../helpers/app.ts';
import { REPORTS, validReport } from '../contributions/helpers.ts';
import { fillArrangement } from '../helpers/score-contribution.ts';

const ADMIN_KEY = 'admin-queue-secret-1';
const auth = { authorization: `Bearer ${ADMIN_KEY}` };
const QUEUE = '/api/v1/admin/queue';

let dataDir: string;
let t: TestApp | undefined;

async function open(dir: string): Promise<TestApp> {
  t = await openApp(inject('sampleBuildDir'), {
    ARCHIVE_DATA_DIR: dir,
    ARCHIVE_ADMIN_KEYS: `queue-editor=${ADMIN_KEY}`,
    ARCHIVE_CONTRIBUTION_RATE_LIMIT: '100000/60',
    ARCHIVE_CORRECTION_RATE_LIMIT: '100000/60',
  });
  return t;
}

afterEach(async () => {
  await t?.close();
  t = undefined;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
});

async function report(app: TestApp, workSlug: string, fieldName: string): Promise<string> {
  const res = await app.request({
    method: 'POST',
    url: REPORTS,
    payload: JSON.stringify({ ...validReport(), workSlug, fieldName }),
    headers: { 'content-type': 'application/json' },
  });
  expect(res.statusCode, res.body).toBe(202);
  return res.json().data.trackingCode as string;
}

async function contribution(app: TestApp, key: string): Promise<string> {
  const body = (await app.request({ url: '/api/v1/music/contributions/template' })).json();
  const t0 = body.data ?? body;
  const c = fillArrangement(structuredClone(t0), {
    idempotencyKey: key,
    submitter: 'Queue Tester',
    contact: 'queue@example.org',
    target: { ...t0.target, workSlug: 'satie-gymnopedie-1' },
    rights: { territory: 'US, EU', evidenceUrls: ['https://en.wikipedia.org/wiki/Gymnop%C3%A9dies'] },
    assets: t0.assets.map((a: Record<string, unknown>, i: number) => ({
      ...a,
      title: `Queue test asset ${i + 1}`,
      downloadUrl: `https://files.example.org/queue-${key}-${i}.bin`,
      sourcePageUrl: 'https://en.wikipedia.org/wiki/Gymnop%C3%A9dies',
      sha256: `${String(i + 1).repeat(64)}`.slice(0, 64),
      license: 'CC0-1.0',
      reviewState: 'pending',
    })),
    arrangement: {
      ...t0.arrangement,
      title: `Queue test arrangement ${key}`,
      style: 'solo piano, calm',
      instrumentation: 'Piano',
      duration: '0:19',
      intendedRole: 'music-bed',
      renderingProfileSlugs: [],
    },
    technicalValidationPassed: false,
    changeSummary: 'Adds a calm solo-piano arrangement for the queue test.',
    rationale: 'Queue test.',
  });
  const res = await app.request({
    method: 'POST',
    url: '/api/v1/music/contributions',
    payload: JSON.stringify(c),
    headers: { 'content-type': 'application/json' },
  });
  expect(res.statusCode, res.body).toBe(202);
  return res.json().data.trackingCode as string;
}

const queue = async (app: TestApp, query = '') => {
  const res = await app.request({ url: `${QUEUE}${query}`, headers: auth });
  expect(res.statusCode, res.body).toBe(200);
  expect(res.headers['cache-control']).toBe('no-store');
  return res.json().data as {
    items: Array<{ trackingCode: string; kind: string; status: string; summary: string; receivedAtUtc: string }>;
    page: number;
    pageSize: number;
    total: number;
    totalPages: number;
    links: Record<string, string | null>;
    counts: Record<string, number>;
  };
};

describe('the admin queue', () => {
  it('pages oldest first with exact totals and links, filters by kind, work, operation and time, and counts per status', async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'pdma-queue-'));
    const app = await open(dataDir);
    const codes: string[] = [];
    for (let i = 0; i < 5; i++)
      codes.push(
        await report(
          app,
          i % 2 === 0 ? 'satie-gymnopedie-1' : 'bach-air-orchestral-suite-3',
          // Fields a report can change (intake refuses the others, as apply would).
          ['year', 'title', 'genre', 'period', 'summary'][i]!,
        ),
      );
    const c1 = await contribution(app, 'queue-contribution-1');

    const all = await queue(app);
    expect(all.total).toBe(6);
    expect(all.items.map((i) => i.trackingCode)).toEqual([...codes, c1]);
    expect(all.counts).toEqual({ pending: 6 });

    const p1 = await queue(app, '?pageSize=4');
    const p2 = await queue(app, '?pageSize=4&page=2');
    expect([p1.total, p1.totalPages, p1.items.length, p2.items.length]).toEqual([6, 2, 4, 2]);
    expect([...p1.items, ...p2.items].map((i) => i.trackingCode)).toEqual([...codes, c1]);
    expect(p1.links.next).toBe(p2.links.self);
    expect(p2.links.next).toBeNull();
    expect(p2.links.prev).toBe(p1.links.self);
    expect((await queue(app, '?pageSize=4&page=9')).items).toEqual([]);

    expect((await queue(app, '?kind=contribution')).items.map((i) => i.trackingCode)).toEqual([c1]);
    const reports = await queue(app, '?kind=correction-report&workSlug=bach-air-orchestral-suite-3');
    expect(reports.items.map((i) => i.trackingCode)).toEqual([codes[1], codes[3]]);
    expect(reports.items[0]!.summary).toBe('correct title of bach-air-orchestral-suite-3');
    expect((await queue(app, '?operation=arrangement')).items.map((i) => i.trackingCode)).toEqual([c1]);

    const cut = all.items[3]!.receivedAtUtc;
    const before = await queue(app, `?receivedBefore=${encodeURIComponent(cut)}`);
    const after = await queue(app, `?receivedAfter=${encodeURIComponent(cut)}`);
    expect(before.total + after.total).toBe(6);
    expect(after.items.map((i) => i.trackingCode)).toContain(codes[3]);
  });

  it('sees a status change at once: a declined item leaves the open queue and is listed under its status', async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'pdma-queue-'));
    const app = await open(dataDir);
    const a = await report(app, 'satie-gymnopedie-1', 'year');
    const b = await report(app, 'satie-gymnopedie-1', 'title');
    expect((await queue(app)).total).toBe(2);
    const declined = await app.request({
      method: 'POST',
      url: `/api/v1/admin/correction-reports/${a}/decline`,
      payload: JSON.stringify({ reviewer: 'Queue Editor', note: 'Not needed.' }),
      headers: { ...auth, 'content-type': 'application/json' },
    });
    expect(declined.statusCode, declined.body).toBe(200);
    const openItems = await queue(app);
    expect(openItems.items.map((i) => i.trackingCode)).toEqual([b]);
    expect(openItems.counts).toEqual({ pending: 1, declined: 1 });
    expect((await queue(app, '?status=declined')).items.map((i) => [i.trackingCode, i.status])).toEqual([
      [a, 'declined'],
    ]);
    expect((await queue(app, '?status=declined,pending')).total).toBe(2);
  });

  it('lists items stored before the server started, and answers pages without reading the stored submissions again', async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'pdma-queue-'));
    let app = await open(dataDir);
    const codes = [
      await report(app, 'satie-gymnopedie-1', 'year'),
      await report(app, 'satie-gymnopedie-1', 'title'),
      await report(app, 'satie-gymnopedie-1', 'genre'),
    ];
    await app.close();
    t = undefined;

    app = await open(dataDir);
    expect((await queue(app)).items.map((i) => i.trackingCode)).toEqual(codes);
    // Spoil every stored report on disk: a queue that re-read them per request would now fail or
    // drop them; the index answers as before.
    const dir = path.join(dataDir, 'state', 'correction-reports');
    for (const shard of readdirSync(dir))
      for (const f of readdirSync(path.join(dir, shard))) writeFileSync(path.join(dir, shard, f), 'not json');
    const again = await queue(app, '?pageSize=2');
    expect(again.total).toBe(3);
    expect(again.items.map((i) => i.trackingCode)).toEqual(codes.slice(0, 2));
  });

  it('answers bad or unknown parameters with a problem detail naming them, and needs an admin key', async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'pdma-queue-'));
    const app = await open(dataDir);
    for (const [query, name] of [
      ['?page=0', 'page'],
      ['?pageSize=201', 'pageSize'],
      ['?status=open', 'status'],
      ['?kind=everything', 'kind'],
      ['?receivedBefore=yesterday', 'receivedBefore'],
      ['?colour=blue', 'colour'],
    ] as const) {
      const res = await app.request({ url: `${QUEUE}${query}`, headers: auth });
      expect(res.statusCode, query).toBe(400);
      expect(res.headers['content-type']).toContain('application/problem+json');
      expect(res.body, query).toContain(name);
    }
    expect((await app.request({ url: QUEUE })).statusCode).toBe(401);
  });
});
