/**
 * A score over the engraving budget, through a real `npm start` process over a real socket: with
 * a tiny CPU time budget (ARCHIVE_ENGRAVE_CPU_MS), accepting a contribution whose file is the
 * largest real string quartet (../shared/corpora) answers with the check refused by a problem
 * detail that names the limit, and `/healthz` keeps answering while the accept runs, because
 * Verovio runs in the engraving pool's worker threads, never on the server's thread.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findScore, LARGEST_QUARTET, QUARTETS } from '../helpers/corpus-content.ts';
import { startHttpsServer, type HttpsTestServer } from '../helpers/https-server.ts';
import { startService, type Started } from '../helpers/process.ts';
import { postContribution, scoreArrangement, serviceTemplate } from '../helpers/score-contribution.ts';
import { expectEach } from '../helpers/expect-each.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-engrave-budget-'));
const KEY = 'admin-engrave-budget-1';
const auth = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
const SCORE = readFileSync(findScore(QUARTETS, LARGEST_QUARTET));
const BUDGET_MS = 200;
let files: HttpsTestServer;
let running: Started;

beforeAll(async () => {
  files = await startHttpsServer({
    '/quartet.mxl': { body: SCORE, contentType: 'application/vnd.recordare.musicxml' },
  });
  writeFileSync(path.join(root, 'ca.pem'), files.ca);
  running = await startService({
    ARCHIVE_DATA_DIR: path.join(root, 'data'),
    ARCHIVE_ADMIN_KEYS: KEY,
    ARCHIVE_FETCH_ALLOW_HOSTS: `localhost:${files.port}`,
    ARCHIVE_ENGRAVE_CPU_MS: String(BUDGET_MS),
    // The service trusts the test's file server the way an operator adds a private CA.
    NODE_EXTRA_CA_CERTS: path.join(root, 'ca.pem'),
  });
}, 300_000);

afterAll(async () => {
  await running?.stop('SIGKILL');
  await files?.close();
  rmSync(root, { recursive: true, force: true });
});

async function contribute(url: string): Promise<string> {
  const t = scoreArrangement(await serviceTemplate(url), {
    idempotencyKey: 'engrave-budget-1',
    submitter: 'Quinn Quartet',
    kind: 'mxl',
    title: 'A whole string quartet (OpenScore, CC0)',
    downloadUrl: `${files.url}/quartet.mxl`,
    bytes: SCORE,
    arrangementTitle: 'The quartet, whole',
    changeSummary: 'Adds a whole quartet as a score.',
    rationale: 'A long real score.',
  });
  const { status, body } = await postContribution(url, t);
  expect(status, JSON.stringify(body)).toBe(202);
  return (body.data ?? body).trackingCode as string;
}

describe('a score over the engraving budget at accept', () => {
  it('is refused with a problem detail naming the CPU time limit while /healthz answers throughout', async () => {
    const url = running.url;
    const code = await contribute(url);

    let accepting = true;
    const health: { status: number; during: boolean }[] = [];
    const poll = (async () => {
      while (accepting) {
        const res = await fetch(`${url}/healthz`);
        await res.arrayBuffer();
        health.push({ status: res.status, during: accepting });
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    const res = await fetch(`${url}/api/v1/admin/contributions/${code}/accept`, {
      method: 'POST',
      headers: auth,
      body: JSON.stringify({ reviewer: 'Dana Editor' }),
    });
    accepting = false;
    await poll;
    const body = (await res.json()) as Record<string, any>;
    expect(res.status, JSON.stringify(body)).toBe(200);
    const entry = body.data.review.verification[0];
    expect(entry.status, JSON.stringify(entry)).toBe('verified');
    const checks = entry.checks;
    expect(checks.passed).toBe(false);
    expect(checks.summary).toContain(`CPU time budget of ${BUDGET_MS} ms`);
    expect(checks.summary).toContain('ARCHIVE_ENGRAVE_CPU_MS');
    expect(checks.measurements.problem).toMatchObject({
      type: '/problems/engraving-over-budget',
      status: 422,
      limit: 'cpu',
      budget: BUDGET_MS,
      setting: 'ARCHIVE_ENGRAVE_CPU_MS',
    });
    // The server answered health checks while the accept (fetch, hash, checks) was in progress.
    expect(health.filter((h) => h.during).length).toBeGreaterThanOrEqual(3);
    expectEach(health, (h) => h.status === 200);
    // And the pool is still there for the next score: the problem page exists.
    const page = await fetch(`${url}/problems/engraving-over-budget`);
    expect(page.status).toBe(200);
  }, 300_000);
});
