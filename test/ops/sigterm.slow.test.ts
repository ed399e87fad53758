/**
 * A SIGTERM under 200 in-flight submissions loses none of the acknowledged.
 * The real server (`node scripts/start.ts`) runs as a child process on a temporary data folder;
 * 200 contributions are sent at once and SIGTERM lands after the first few are acknowledged. The
 * process must drain and exit 0; every answer is a 202, a 503 `shutting-down` problem, or a
 * refused connection (never another status); after a restart every 202 is there, and nothing
 * else was stored. A stale temporary file planted meanwhile is gone after the restart.
 */
import { cpSync, readdirSync, writeFileSync, existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { buildKey } from '../../api/site/builds.ts';
import { ensureContentRepo } from '../../api/site/content-repo.ts';
import { fillTemplate, satieTemplate } from '../helpers/filled-template.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { type Started, ServiceRun } from '../helpers/process.ts';

const serviceRun = new ServiceRun('pdma-sigterm-');
const dataDir = serviceRun.dataDir;
const TOTAL = 200;
const SIGNAL_AFTER = 10;
let running: Started | null = null;
afterAll(() => serviceRun.dispose());

const body = (i: number) =>
  JSON.stringify({
    ...fillTemplate(satieTemplate()),
    idempotencyKey: `sigterm-test-${String(i).padStart(4, '0')}`,
  });

interface Answer {
  i: number;
  status: number;
  code: string | null;
  problemType: string | null;
}

function post(url: string, i: number): Promise<Answer> {
  return fetch(`${url}/api/v1/music/contributions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: body(i),
  })
    .then(async (res) => {
      const json = (await res.json()) as { data?: { trackingCode: string }; type?: string };
      return {
        i,
        status: res.status,
        code: res.status === 202 ? json.data!.trackingCode : null,
        problemType: json.type ?? null,
      };
    })
    .catch(() => ({ i, status: 0, code: null, problemType: null }));
}

describe('SIGTERM under 200 in-flight submissions', () => {
  it('drains, exits 0, and loses none of the acknowledged', async () => {
    // A content repository and the already-built sample site, so the start does not build.
    const baseUrl = inject('testBaseUrl');
    const { head } = await ensureContentRepo(path.join(dataDir, 'content'), path.join(PROJECT_ROOT, 'content'));
    cpSync(inject('sampleBuildDir'), path.join(dataDir, 'builds', buildKey(head, baseUrl)), { recursive: true });
    const env = {
      ARCHIVE_DATA_DIR: dataDir,
      PUBLIC_BASE_URL: baseUrl,
      ARCHIVE_CONTRIBUTION_RATE_LIMIT: '1000000/60',
      ARCHIVE_DRAIN_TIMEOUT_MS: '30000',
      LOG_LEVEL: 'info',
    };

    running = await serviceRun.start(env);
    const service = running;
    expect(service.output()).not.toContain('building the site');
    let acknowledged = 0;
    let signalledAt = 0;
    const answeredAt = new Map<number, number>();
    const answers = await Promise.all(
      Array.from({ length: TOTAL }, (_, i) =>
        post(service.url, i).then((a) => {
          answeredAt.set(i, Date.now());
          if (a.status === 202 && ++acknowledged === SIGNAL_AFTER) {
            signalledAt = Date.now();
            service.child.kill('SIGTERM');
          }
          return a;
        }),
      ),
    );
    // Wait for the exit (stop() would send a second signal).
    const exitCode = await new Promise<number | null>((resolve) =>
      service.child.exitCode !== null ? resolve(service.child.exitCode) : service.child.once('exit', resolve),
    );
    running = null;
    expect(signalledAt).toBeGreaterThan(0);
    expect(exitCode, service.output()).toBe(0);
    expect(service.output()).toContain('draining');

    const got202 = answers.filter((a) => a.status === 202);
    const refused = answers.filter((a) => a.status === 503);
    const dropped = answers.filter((a) => a.status === 0);
    // Nothing but 202, a 503 shutting-down problem, or a connection the stopping server never took.
    expect(
      got202.length + refused.length + dropped.length,
      JSON.stringify(answers.filter((a) => ![0, 202, 503].includes(a.status))),
    ).toBe(TOTAL);
    for (const r of refused) expect(r.problemType).toMatch(/\/problems\/shutting-down$/);
    // The signal really landed mid-flight: requests in progress were still answered 202 after it.
    const ackedAfterSignal = got202.filter((a) => answeredAt.get(a.i)! > signalledAt).length;
    expect(ackedAfterSignal, `202s after SIGTERM (of ${got202.length})`).toBeGreaterThan(0);

    // A stale temporary file, as a kill -9 during an atomic write would leave.
    const shard = path.join(dataDir, 'state', 'contributions', '00');
    mkdirSync(shard, { recursive: true });
    const stale = path.join(shard, '.C-XXXX.json.4194303.0123456789ab.tmp');
    writeFileSync(stale, '{"half":');

    running = await serviceRun.start(env);
    const restarted = running;
    expect(existsSync(stale)).toBe(false);
    expect(restarted.output()).toContain('removed 1 stale temporary file(s)');
    for (const a of got202) {
      const res = await fetch(`${restarted.url}/api/v1/music/contributions/${a.code}`);
      expect(res.status, a.code!).toBe(200);
      expect(((await res.json()) as { data: { status: string } }).data.status).toBe('pending');
    }
    // Exactly the acknowledged submissions were stored: no half-started one slipped in.
    const stored = readdirSync(path.join(dataDir, 'state', 'contributions'), { recursive: true })
      .map(String)
      .filter((f) => f.endsWith('.json') && !path.basename(f).startsWith('.'));
    expect(stored).toHaveLength(got202.length);
    expect(await restarted.stop()).toBe(0);
    running = null;
  });
});
