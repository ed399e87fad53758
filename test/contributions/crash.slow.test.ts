/**
 * Durability: ~500 submissions race into a real `npm start` process, which is SIGKILLed
 * mid-stream. After a restart on the same data folder, every submission that was answered 202
 * is retrievable by its code, every state file parses, and retrying every submission with its
 * key yields the same codes (claims cut off between their two writes are completed, not doubled).
 */
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { type Started, ServiceRun } from '../helpers/process.ts';
import { fillTemplate, satieTemplate } from '../helpers/filled-template.ts';
import { expectEach } from '../helpers/expect-each.ts';

const serviceRun = new ServiceRun('pdma-crash-');
const dataDir = serviceRun.dataDir;
const BASE = 'http://archive.crash.test:4321';
const ENV = {
  ARCHIVE_DATA_DIR: dataDir,
  PUBLIC_BASE_URL: BASE,
  ARCHIVE_CONTRIBUTION_RATE_LIMIT: '1000000/60',
  ARCHIVE_CORRECTION_RATE_LIMIT: '1000000/60',
};
const TOTAL = 500;
const KILL_AFTER = 120;
let running: Started | null = null;
afterAll(() => serviceRun.dispose());

const body = (i: number) =>
  JSON.stringify({
    ...fillTemplate(satieTemplate()),
    idempotencyKey: `crash-test-${String(i).padStart(4, '0')}`,
  });

function post(url: string, i: number): Promise<{ i: number; status: number; code: string | null }> {
  return fetch(`${url}/api/v1/music/contributions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: body(i),
  })
    .then(async (res) => ({
      i,
      status: res.status,
      code: res.status === 202 ? ((await res.json()) as { data: { trackingCode: string } }).data.trackingCode : null,
    }))
    .catch(() => ({ i, status: 0, code: null }));
}

function stateFiles(dir: string): string[] {
  return readdirSync(dir, { recursive: true })
    .map(String)
    .filter((f) => path.basename(f).endsWith('.json'))
    .map((f) => path.join(dir, f));
}

describe('SIGKILL during a burst of submissions', () => {
  it('loses no accepted submission and leaves only parseable state', async () => {
    running = await serviceRun.start(ENV);
    const service = running;
    // 64 requests in flight at a time, so the burst is concurrent and still outlasts the kill
    // (sending all 500 at once lets a fast server answer them all before SIGKILL lands).
    let accepted = 0;
    let next = 0;
    const answers: Array<{ i: number; status: number; code: string | null }> = [];
    await Promise.all(
      Array.from({ length: 64 }, async () => {
        while (next < TOTAL) {
          const a = await post(service.url, next++);
          if (a.status === 202 && ++accepted === KILL_AFTER) service.child.kill('SIGKILL');
          answers.push(a);
        }
      }),
    );
    answers.sort((a, b) => a.i - b.i);
    await service.stop('SIGKILL');
    const got202 = answers.filter((a) => a.status === 202);
    // The kill really happened mid-stream: some answered, some never did.
    expect(got202.length).toBeGreaterThanOrEqual(KILL_AFTER);
    expect(answers.some((a) => a.status === 0)).toBe(true);
    expectEach(answers, (a) => a.status === 202 || a.status === 0);

    // Every state file parses (temporary files never end in .json).
    const state = path.join(dataDir, 'state');
    for (const file of stateFiles(state)) expect(() => JSON.parse(readFileSync(file, 'utf8')), file).not.toThrow();

    running = await serviceRun.start(ENV);
    const restarted = running;
    for (const a of got202) {
      const res = await fetch(`${restarted.url}/api/v1/music/contributions/${a.code}`);
      expect(res.status, a.code!).toBe(200);
      expect(((await res.json()) as { data: { status: string } }).data.status).toBe('pending');
    }

    // Retrying everything: the answered ones keep their codes; none is stored twice.
    const retried = await Promise.all(Array.from({ length: TOTAL }, (_, i) => post(restarted.url, i)));
    expectEach(retried, (a) => a.status === 202);
    for (const a of got202) expect(retried[a.i]!.code).toBe(a.code);
    const contributions = stateFiles(path.join(state, 'contributions'));
    expect(contributions).toHaveLength(TOTAL);
    expect(new Set(retried.map((a) => a.code)).size).toBe(TOTAL);
    // A backstop, not a budget: two starts of the service and a 500-request burst on a loaded machine.
  }, 600_000);
});
