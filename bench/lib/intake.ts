/**
 * Bench section "intake": latency and throughput of POST /api/v1/music/contributions against a
 * real `npm start` process, with 0, 10,000 and 100,000 submissions already stored (generated
 * straight into the state folders between runs). Goal: p99 <= 50 ms at 100,000.
 *
 * Baselines measured in the same run, at the same concurrency, against the same process:
 *   - GET /api/v1 (a static file): what the HTTP stack alone costs;
 *   - an invalid contribution (400 after parsing and validation, nothing stored): what the
 *     request costs without storage, so the ratio isolates the durable writes;
 *   - the two durable creates alone, timed in this process on the same disk: the floor that
 *     fsync sets (one client at a time only).
 * Each stored-count figure is also compared with the 0-stored one (does the store slow down as
 * it grows?). Traffic goes to 127.0.0.1 only; the process and its temp folder are always removed.
 *
 * Run alone: node bench/lib/intake.ts [--quick]
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';
import { RecordStore } from '../../api/storage/record-store.ts';
import { intakeDirs } from '../../api/contributions/store.ts';
import { contentSha256, keySha256 } from '../../src/domain/contributions/content-hash.ts';
import { generateTrackingCode } from '../../src/domain/contributions/tracking-code.ts';
import { fillTemplate, satieTemplate } from '../../test/helpers/filled-template.ts';
import { newStoredContribution } from '../../src/domain/contributions/tracking.ts';
import type { MusicContributionInput } from '../../src/schemas/contribution.ts';
import { figure, type Figure, type Section } from './results.ts';
import { PROJECT_ROOT, freePort, round, sleep } from './util.ts';

const GOAL_P99_MS = 50;

interface LatencyFigures {
  requests: number;
  concurrency: number;
  wallMs: number;
  requestsPerSecond: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  maxMs: number;
  statuses: Record<string, number>;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

// The template with its placeholders filled: the untouched template is refused.
const TEMPLATE = fillTemplate(satieTemplate());
const submission = (key: string): MusicContributionInput => ({ ...TEMPLATE, idempotencyKey: key });

/**
 * Write `count` more stored submissions (and their idempotency records) the way the store lays
 * them out. Plain synchronous writes: seeding stands in for history, nothing else runs meanwhile,
 * and fsyncing 200,000 files would only slow the setup.
 */
function seed(dataDir: string, from: number, count: number): number {
  const started = performance.now();
  const dirs = intakeDirs(dataDir);
  const contributions = new RecordStore(dirs.contributions);
  const idempotency = new RecordStore(dirs.idempotency);
  for (const dir of [dirs.contributions, dirs.idempotency]) {
    for (let shard = 0; shard < 256; shard++)
      mkdirSync(path.join(dir, shard.toString(16).padStart(2, '0')), { recursive: true });
  }
  for (let j = from; j < from + count; j++) {
    const body = submission(`bench-seed-${j}`);
    const code = generateTrackingCode('contribution');
    const at = new Date(Date.UTC(2026, 0, 1) + j * 1000).toISOString();
    const hash = contentSha256(body);
    writeFileSync(contributions.pathOf(code), `${JSON.stringify(newStoredContribution(body, code, at, hash))}\n`);
    const keyHash = keySha256(body.idempotencyKey);
    writeFileSync(
      idempotency.pathOf(keyHash),
      `${JSON.stringify({ recordVersion: 1, keySha256: keyHash, contentSha256: hash, trackingCode: code, receivedAtUtc: at })}\n`,
    );
  }
  // Flush the seeded files now: left dirty, the kernel would write hundreds of megabytes back
  // during the measurement and every fsync there would wait behind it (real records were
  // fsynced one by one when they were created).
  spawnSync('sync', { stdio: 'ignore' });
  return performance.now() - started;
}

interface Service {
  child: ChildProcess;
  output: () => string;
  stop: () => Promise<void>;
}

async function start(env: NodeJS.ProcessEnv, url: string, timeoutMs: number): Promise<Service> {
  let output = '';
  const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'scripts', 'start.ts')], {
    cwd: PROJECT_ROOT,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (output = (output + String(d)).slice(-4000)));
  child.stderr!.on('data', (d) => (output = (output + String(d)).slice(-4000)));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const killGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, signal);
    } catch {
      // already gone
    }
  };
  const service: Service = {
    child,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) {
        killGroup('SIGTERM');
        await Promise.race([exited, sleep(5000)]);
      }
      killGroup('SIGKILL');
    },
  };
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited early (${child.exitCode}):\n${output}`);
    try {
      if ((await fetch(`${url}/api/v1`, { signal: AbortSignal.timeout(2000) })).ok) return service;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      await service.stop();
      throw new Error(`the service did not answer within ${timeoutMs} ms:\n${output}`);
    }
    await sleep(200);
  }
}

/** `total` requests from `concurrency` workers; `make(i)` gives request i. */
async function load(
  url: string,
  total: number,
  concurrency: number,
  make: (i: number) => RequestInit & { path: string },
): Promise<LatencyFigures> {
  if (!url.startsWith('http://127.0.0.1:')) throw new Error(`refusing non-loopback URL ${url}`);
  const latencies: number[] = [];
  const statuses: Record<string, number> = {};
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      for (;;) {
        const i = next++;
        if (i >= total) return;
        const { path: p, ...init } = make(i);
        const t0 = performance.now();
        let status = 'error';
        try {
          const res = await fetch(`${url}${p}`, init);
          await res.arrayBuffer();
          status = String(res.status);
        } catch {
          // counted as "error"
        }
        latencies.push(performance.now() - t0);
        statuses[status] = (statuses[status] ?? 0) + 1;
      }
    }),
  );
  return figures(latencies, performance.now() - started, concurrency, statuses);
}

/** The figures of `latencies.length` requests that took `wallMs` in all. */
function figures(
  latencies: number[],
  wallMs: number,
  concurrency: number,
  statuses: Record<string, number>,
): LatencyFigures {
  const total = latencies.length;
  latencies.sort((a, b) => a - b);
  return {
    requests: total,
    concurrency,
    wallMs: round(wallMs, 0),
    requestsPerSecond: round((total / wallMs) * 1000, 1),
    p50Ms: round(percentile(latencies, 50)),
    p90Ms: round(percentile(latencies, 90)),
    p99Ms: round(percentile(latencies, 99)),
    maxMs: round(latencies.at(-1) ?? NaN),
    statuses,
  };
}

/**
 * The disk's share: the two durable creates one contribution needs (idempotency record, then
 * submission), timed in this process on the same file system, without HTTP or validation.
 */
async function durableWrites(dir: string, total: number): Promise<LatencyFigures> {
  const claims = new RecordStore<object>(path.join(dir, 'idempotency'));
  const records = new RecordStore<object>(path.join(dir, 'contributions'));
  const latencies: number[] = [];
  const started = performance.now();
  for (let i = 0; i < total; i++) {
    const body = submission(`bench-raw-${i}`);
    const code = generateTrackingCode('contribution');
    const t0 = performance.now();
    await claims.create(keySha256(body.idempotencyKey), { trackingCode: code });
    await records.create(code, newStoredContribution(body, code, new Date().toISOString(), contentSha256(body)));
    latencies.push(performance.now() - t0);
  }
  const wallMs = performance.now() - started;
  rmSync(dir, { recursive: true, force: true });
  return figures(latencies, wallMs, 1, { stored: total });
}

const postJson = (body: unknown) => ({
  path: '/api/v1/music/contributions',
  method: 'POST',
  headers: { 'content-type': 'application/json' },
  body: JSON.stringify(body),
});

export async function runIntakeBench(options: {
  quick: boolean;
  log?: (message: string) => void;
}): Promise<Record<string, unknown>> {
  const quick = options.quick;
  const t0 = performance.now();
  const log = (m: string) =>
    (options.log ?? ((x: string) => console.error(`[intake +${((performance.now() - t0) / 1000).toFixed(0)}s] ${x}`)))(
      m,
    );
  // Quick is a smoke run (about 30 s, most of it the site build); the full run gives the figures.
  const storedCounts = quick ? [0, 2_000] : [0, 10_000, 100_000];
  const requests = quick ? 150 : 400;
  const concurrency = 8;
  const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-bench-intake-'));
  const dataDir = path.join(root, 'data');
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    PORT: String(port),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: url,
    ARCHIVE_DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    // The bench measures the store, not the limiter.
    ARCHIVE_CONTRIBUTION_RATE_LIMIT: '100000000/60',
  };
  delete env.ARCHIVE_CONTENT_REPO;

  let service: Service | null = null;
  const stopAll = () => {
    if (service?.child.pid) {
      try {
        process.kill(-service.child.pid, 'SIGKILL');
      } catch {
        // gone
      }
    }
  };
  process.once('exit', stopAll);
  const scenarios: Record<string, unknown>[] = [];
  let stored = 0;
  let run = 0;
  try {
    for (const target of storedCounts) {
      if (target > stored) log(`seeding ${target - stored} stored submissions`);
      const seedMs = target > stored ? seed(dataDir, stored, target - stored) : 0;
      log(`starting the service with ${target} stored submissions`);
      stored = Math.max(stored, target);
      // A fresh process per scenario: no warm caches carried over from the previous count.
      const loadBefore = os.loadavg()[0]!;
      const startedAt = performance.now();
      service = await start(env, url, 240_000);
      const readyMs = performance.now() - startedAt;
      const key = (what: string) => (i: number) => postJson(submission(`bench-${what}-${run}-${i}`));
      const invalid = (i: number) => postJson({ ...submission(`bench-invalid-${i}`), idempotencyKey: 'short' });
      log('measuring');
      await load(url, 100, concurrency, key('warmup'));
      await load(url, 100, concurrency, invalid);
      // One client at a time: the latency a submitter sees (the goal is stated for this).
      const latency = {
        contributionPost: await load(url, requests, 1, key('latency')),
        baselineDurableWritesOnly: await durableWrites(path.join(root, `raw-${run}`), requests),
        baselineStaticGet: await load(url, requests, 1, () => ({ path: '/api/v1' })),
        baselineInvalidPost: await load(url, requests, 1, invalid),
      };
      // Eight clients at once: throughput, and latency under load.
      const throughput = {
        contributionPost: await load(url, requests, concurrency, key('throughput')),
        baselineInvalidPost: await load(url, requests, concurrency, invalid),
      };
      stored += 100 + 2 * requests;
      log('stopping the service');
      await service.stop();
      service = null;
      run++;
      scenarios.push({
        storedBefore: target,
        // Other work on the machine shows up in the tails; the 1-minute load average gives context.
        loadAverage1m: { before: round(loadBefore), after: round(os.loadavg()[0]!) },
        cpus: os.cpus().length,
        seedMs: round(seedMs, 0),
        serviceReadyMs: round(readyMs, 0),
        latency: {
          ...latency,
          ratioP50VsStaticGet: round(latency.contributionPost.p50Ms / latency.baselineStaticGet.p50Ms),
          ratioP50VsInvalidPost: round(latency.contributionPost.p50Ms / latency.baselineInvalidPost.p50Ms),
          ratioP99VsInvalidPost: round(latency.contributionPost.p99Ms / latency.baselineInvalidPost.p99Ms),
          ratioP99VsDurableWritesOnly: round(latency.contributionPost.p99Ms / latency.baselineDurableWritesOnly.p99Ms),
        },
        throughput: {
          ...throughput,
          ratioRpsVsInvalidPost: round(
            throughput.contributionPost.requestsPerSecond / throughput.baselineInvalidPost.requestsPerSecond,
          ),
        },
        meetsGoalP99: latency.contributionPost.p99Ms <= GOAL_P99_MS,
      });
    }
  } finally {
    await service?.stop();
    process.removeListener('exit', stopAll);
    log('removing the temporary data folder');
    rmSync(root, { recursive: true, force: true });
    log('done');
  }
  const post = (s: Record<string, unknown>, part: 'latency' | 'throughput') =>
    (s[part] as { contributionPost: LatencyFigures }).contributionPost;
  const first = scenarios[0]!;
  for (const s of scenarios) {
    s.vsEmptyStore = {
      ratioP50: round(post(s, 'latency').p50Ms / post(first, 'latency').p50Ms),
      ratioP99: round(post(s, 'latency').p99Ms / post(first, 'latency').p99Ms),
      ratioThroughput: round(post(s, 'throughput').requestsPerSecond / post(first, 'throughput').requestsPerSecond),
    };
  }
  const last = scenarios.at(-1)!;
  return {
    description: 'POST /api/v1/music/contributions (202, durable) against npm start, by number of stored submissions',
    goal: `p99 <= ${GOAL_P99_MS} ms at 100,000 stored submissions (one client at a time)`,
    quick,
    requestsPerMeasurement: requests,
    concurrency: { latency: 1, throughput: concurrency },
    storage:
      'RecordStore: one lowdb document per record in 256 hash shards; each accepted contribution = 2 exclusive creates (idempotency record, then submission), each fsynced with its folder',
    scenarios,
    summary: {
      storedBefore: last.storedBefore,
      p50Ms: post(last, 'latency').p50Ms,
      p99Ms: post(last, 'latency').p99Ms,
      p99MsUnderLoad: post(last, 'throughput').p99Ms,
      requestsPerSecond: post(last, 'throughput').requestsPerSecond,
      meetsGoalP99: last.meetsGoalP99,
    },
  };
}

/** The section as bench/run.ts lists it: the figures above, each against its same-run baseline. */
export function intakeSection(): Section {
  return {
    name: 'intake',
    description: 'contribution POST latency and throughput with 0, 10,000 and 100,000 stored submissions',
    async run({ quick, log }) {
      const details = await runIntakeBench({ quick, log });
      const scenarios = details.scenarios as Array<{
        storedBefore: number;
        latency: Record<'contributionPost' | 'baselineDurableWritesOnly' | 'baselineInvalidPost', LatencyFigures>;
        throughput: Record<'contributionPost' | 'baselineInvalidPost', LatencyFigures>;
      }>;
      const figures: Figure[] = [];
      const empty = scenarios[0]!;
      for (const s of scenarios) {
        const n = s.storedBefore.toLocaleString('en-US');
        const l = s.latency;
        const t = s.throughput;
        figures.push(
          figure(
            `POST p50, ${n} stored, 1 client`,
            'ms',
            l.contributionPost.p50Ms,
            l.baselineInvalidPost.p50Ms,
            'invalid POST (no storage), same process',
            'lower',
          ),
          figure(
            `POST p99, ${n} stored, 1 client`,
            'ms',
            l.contributionPost.p99Ms,
            l.baselineDurableWritesOnly.p99Ms,
            'the two durable creates alone, same disk',
            'lower',
          ),
          figure(
            `POST p99, ${n} stored vs empty store`,
            'ms',
            l.contributionPost.p99Ms,
            empty.latency.contributionPost.p99Ms,
            'POST p99 with 0 stored, same run',
            'lower',
          ),
          figure(
            `throughput, ${n} stored, ${t.contributionPost.concurrency} clients`,
            'req/s',
            t.contributionPost.requestsPerSecond,
            t.baselineInvalidPost.requestsPerSecond,
            'invalid POST (no storage), same process',
            'higher',
          ),
        );
      }
      const summary = details.summary as { storedBefore: number; p99Ms: number; meetsGoalP99: boolean };
      return {
        status: 'ok',
        message: `p99 ${summary.p99Ms} ms with ${summary.storedBefore.toLocaleString('en-US')} stored (goal <= ${GOAL_P99_MS} ms at 100,000: ${summary.meetsGoalP99 ? 'met' : 'not met'})`,
        figures,
        details,
      };
    },
  };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const result = await runIntakeBench({ quick: process.argv.includes('--quick') });
  console.log(JSON.stringify(result, null, 2));
}
