/**
 * HTTP load with autocannon's programmatic API (autocannon ships no types; the few fields used
 * here are typed locally). One warm-up run, then the measured run, same URL and connections.
 */
import { createRequire } from 'node:module';
import { round } from './util.ts';

interface Histogram {
  average: number;
  mean: number;
  stddev: number;
  min: number;
  max: number;
  p50: number;
  p90: number;
  p99: number;
}

interface AutocannonResult {
  requests: Histogram & { total: number };
  latency: Histogram;
  throughput: Histogram & { total: number };
  duration: number;
  errors: number;
  timeouts: number;
  non2xx: number;
  statusCodeStats?: Record<string, { count: number }>;
}

interface AutocannonOptions {
  url: string;
  connections: number;
  duration: number;
  pipelining?: number;
  timeout?: number;
}

type Autocannon = (options: AutocannonOptions) => Promise<AutocannonResult>;

const autocannon = createRequire(import.meta.url)('autocannon') as Autocannon;

export interface LoadResult {
  url: string;
  connections: number;
  durationSeconds: number;
  requestsPerSecond: number;
  requestsTotal: number;
  latencyP50Ms: number;
  latencyP90Ms: number;
  latencyP99Ms: number;
  latencyMaxMs: number;
  bytesPerSecond: number;
  errors: number;
  timeouts: number;
  non2xx: number;
}

export async function runLoad(
  url: string,
  options: { connections: number; durationSeconds: number; warmupSeconds: number },
): Promise<LoadResult> {
  if (!url.startsWith('http://127.0.0.1:')) throw new Error(`refusing non-loopback URL ${url}`);
  if (options.warmupSeconds > 0)
    await autocannon({ url, connections: options.connections, duration: options.warmupSeconds });
  const r = await autocannon({ url, connections: options.connections, duration: options.durationSeconds, timeout: 10 });
  return {
    url,
    connections: options.connections,
    durationSeconds: r.duration,
    // Total over the measured duration: the per-second average excludes partial seconds.
    requestsPerSecond: round(r.requests.total / r.duration, 1),
    requestsTotal: r.requests.total,
    latencyP50Ms: r.latency.p50,
    latencyP90Ms: r.latency.p90,
    latencyP99Ms: r.latency.p99,
    latencyMaxMs: r.latency.max,
    bytesPerSecond: Math.round(r.throughput.total / r.duration),
    errors: r.errors,
    timeouts: r.timeouts,
    non2xx: r.non2xx,
  };
}
