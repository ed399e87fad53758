/**
 * Memory is bounded by configuration, not by traffic (docs/operations.md, "Memory"). The real
 * server (`node scripts/start.ts`) serves a generated catalog (bench/lib/generated-build.ts: records
 * and index, no Astro) with small cache budgets, so its caches fill and churn through the whole
 * run; 100,000 distinct record GETs over keep-alive sockets (JSON and Markdown records, each also
 * with distinct query strings, which take the full Fastify path, plus catalog listings with
 * distinct parameters) must keep the process's resident memory (VmRSS of /proc/<pid>/status) under
 * the documented bound, and every cache's reported size (/metrics) within its budget.
 */
import { readFileSync } from 'node:fs';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeGeneratedBuild } from '../../bench/lib/generated-build.ts';
import { freePort, ServiceRun, type Started } from '../helpers/process.ts';
import { memoryBoundMiB } from '../../api/site/cache-budgets.ts';

const WORKS = 3000;
const REQUESTS = 100_000;
const CONNECTIONS = 4;
const BASE_URL = 'http://archive.test';
/** Small budgets (MiB), so every cache fills and evicts many times over the run. */
const BUDGETS = {
  ARCHIVE_STATIC_CACHE_MB: '4',
  ARCHIVE_STATIC_FACTS_MB: '2',
  ARCHIVE_RECORD_CACHE_MB: '1',
  ARCHIVE_ANSWER_CACHE_MB: '1',
};

const run = new ServiceRun('pdma-memory-');
let slugs: string[] = [];
let service: Started | null = null;
let metricsUrl = '';

beforeAll(async () => {
  slugs = (await writeGeneratedBuild({ works: WORKS, dataDir: run.dataDir, baseUrl: BASE_URL })).slugs;
  const metricsPort = await freePort();
  metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
  service = await run.start({
    PUBLIC_BASE_URL: BASE_URL,
    ARCHIVE_METRICS_PORT: String(metricsPort),
    ARCHIVE_FAST_PATH_LOG_SAMPLE: '0',
    ...BUDGETS,
  });
}, 900_000);

afterAll(() => run.dispose());

function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
  if (!m) throw new Error(`no VmRSS for ${pid}`);
  return Number(m[1]) / 1024;
}

interface CacheReading {
  bytes: Record<string, number>;
  budget: Record<string, number>;
}

async function caches(): Promise<CacheReading> {
  const text = await (await fetch(metricsUrl)).text();
  const read = (metric: string) =>
    Object.fromEntries(
      [...text.matchAll(new RegExp(`^${metric}\\{cache="(\\w+)"\\} (\\S+)$`, 'gm'))].map((m) => [m[1]!, Number(m[2])]),
    );
  return { bytes: read('archive_cache_bytes'), budget: read('archive_cache_budget_bytes') };
}

/** The k-th request: distinct files (each record's JSON and Markdown), and distinct URLs for the same files. */
function requestPath(k: number): string {
  if (k % 50 === 49) return `/api/v1/works?page=${1 + (k % 97)}&pageSize=${10 + (k % 41)}`;
  // Each work's JSON and Markdown, plainly and with a query string of their own.
  const slug = slugs[Math.floor(k / 4) % slugs.length]!;
  switch (k % 4) {
    case 0:
      return `/api/v1/works/${slug}`;
    case 1:
      return `/api/v1/works/${slug}/index.md`;
    case 2:
      return `/api/v1/works/${slug}?v=${k}`;
    default:
      return `/api/v1/works/${slug}/index.md?k=${k}`;
  }
}

describe('memory under 100,000 distinct record GETs', () => {
  it('stays under the documented bound, every cache within its budget', { timeout: 1_800_000 }, async () => {
    const pid = service!.child.pid!;
    const agent = new http.Agent({ keepAlive: true, maxSockets: CONNECTIONS });
    const get = (p: string) =>
      new Promise<number>((resolve, reject) => {
        http
          .get(`${service!.url}${p}`, { agent, headers: { 'accept-encoding': 'br, gzip' } }, (res) => {
            res.resume();
            res.on('end', () => resolve(res.statusCode ?? 0));
          })
          .on('error', reject);
      });

    const atStart = rssMiB(pid);
    const statuses = new Map<number, number>();
    const samples: Array<{ at: number; rss: number; caches: CacheReading }> = [];
    let next = 0;
    const started = Date.now();
    const worker = async () => {
      while (next < REQUESTS) {
        const k = next++;
        const status = await get(requestPath(k));
        statuses.set(status, (statuses.get(status) ?? 0) + 1);
        if (k % 5000 === 4999) samples.push({ at: k + 1, rss: rssMiB(pid), caches: await caches() });
      }
    };
    await Promise.all(Array.from({ length: CONNECTIONS }, worker));
    agent.destroy();
    const seconds = (Date.now() - started) / 1000;

    const budgetsMiB = {
      staticBytes: Number(BUDGETS.ARCHIVE_STATIC_CACHE_MB),
      staticFactBytes: Number(BUDGETS.ARCHIVE_STATIC_FACTS_MB),
      recordBytes: Number(BUDGETS.ARCHIVE_RECORD_CACHE_MB),
      answerBytes: Number(BUDGETS.ARCHIVE_ANSWER_CACHE_MB),
    };
    const bound = atStart + memoryBoundMiB(budgetsMiB);
    const peak = Math.max(...samples.map((s) => s.rss));
    const last = samples.at(-1)!;
    // The figures for the report (docs/operations.md, "Memory").
    console.log(
      JSON.stringify({
        works: WORKS,
        requests: REQUESTS,
        seconds,
        rssAtStartMiB: Math.round(atStart),
        rssPeakMiB: Math.round(peak),
        rssAfterMiB: Math.round(last.rss),
        boundMiB: Math.round(bound),
        caches: last.caches.bytes,
        rssEvery5000MiB: samples.map((s) => Math.round(s.rss)),
      }),
    );

    expect(Object.fromEntries(statuses)).toEqual({ 200: REQUESTS });
    expect(samples.length).toBe(REQUESTS / 5000);
    for (const s of samples) {
      expect(s.rss, `RSS after ${s.at} requests`).toBeLessThanOrEqual(bound);
      for (const [cache, bytes] of Object.entries(s.caches.bytes))
        expect(bytes, `${cache} after ${s.at} requests`).toBeLessThanOrEqual(s.caches.budget[cache]!);
    }
    // The caches were in use, so their budgets (not an idle cache) are what held memory down.
    expect(last.caches.bytes.static_bytes).toBeGreaterThan((budgetsMiB.staticBytes * 1048576) / 2);
    expect(last.caches.bytes.static_facts).toBeGreaterThan((budgetsMiB.staticFactBytes * 1048576) / 2);
    expect(last.caches.bytes.listing_answers).toBeGreaterThan(0);
  });
});
