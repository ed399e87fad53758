/**
 * HTTP load with wrk (the Debian package; installed with apt-get when missing and the bench runs
 * as root, like nginx). wrk is a C load generator: it leaves more of the 2 CPUs to the servers
 * than autocannon does, and reports latency in microseconds. A small Lua script picks each
 * request from a list (random slugs, per-path If-None-Match, a JSON body) and prints the summary
 * as one JSON line.
 */
import { runCommand } from '../../api/process/spawner.ts';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { findOrInstallDebianPackage, round } from './util.ts';

export interface WrkBinary {
  path: string | null;
  note: string;
}

/** Find wrk; if absent and root, `apt-get install -y wrk` (120 s budget, `apt-get update` once if needed). */
export function findOrInstallWrk(log: (m: string) => void): WrkBinary {
  const found = findOrInstallDebianPackage({
    pkg: 'wrk',
    command: 'wrk',
    candidates: ['/usr/bin/wrk', '/usr/local/bin/wrk'],
    version: () => null,
    budgetMs: 120_000,
    log,
  });
  return { path: found.path, note: found.note };
}

export interface WrkRequest {
  path: string;
  method?: string;
  /** Extra headers, e.g. If-None-Match. */
  headers?: Record<string, string>;
  body?: string;
}

export interface WrkResult {
  requests: number;
  durationSeconds: number;
  requestsPerSecond: number;
  latencyP50Ms: number;
  latencyP90Ms: number;
  latencyP99Ms: number;
  latencyMaxMs: number;
  /** Socket errors and answers with status >= 400 (wrk counts those as "status" errors). */
  errors: { connect: number; read: number; write: number; timeout: number; status: number };
}

const LUA = `
local requests = {}
function init(args)
  for line in io.lines(args[1]) do
    local method, path, headers, body = line:match("^([^\\t]*)\\t([^\\t]*)\\t([^\\t]*)\\t(.*)$")
    local h = {}
    for k, v in headers:gmatch("([^=;]+)=([^;]*)") do h[k] = v end
    requests[#requests + 1] = wrk.format(method, path, h, body ~= "" and body or nil)
  end
  math.randomseed(os.time() + tonumber(tostring({}):sub(8), 16) % 100000)
end
function request()
  return requests[math.random(#requests)]
end
function done(summary, latency, requests_)
  local e = summary.errors
  io.write(string.format('WRKJSON {"requests":%d,"duration_us":%d,"p50":%d,"p90":%d,"p99":%d,"max":%d,"connect":%d,"read":%d,"write":%d,"timeout":%d,"status":%d}\\n',
    summary.requests, summary.duration, latency:percentile(50), latency:percentile(90), latency:percentile(99), latency.max,
    e.connect, e.read, e.write, e.timeout, e.status))
end
`;

/**
 * Run wrk against `base` with requests drawn at random from `requests` (no Lua response hook: it
 * would slow wrk down; answers are checked by the caller before the run, and wrk counts any
 * status >= 400 under errors.status).
 */
export async function runWrk(
  bin: string,
  workDir: string,
  base: string,
  requests: WrkRequest[],
  options: { connections: number; durationSeconds: number; threads?: number; timeoutSeconds?: number },
): Promise<WrkResult> {
  if (!base.startsWith('http://127.0.0.1:')) throw new Error(`refusing non-loopback URL ${base}`);
  const script = path.join(workDir, 'wrk.lua');
  const list = path.join(workDir, `wrk-requests-${process.hrtime.bigint()}.tsv`);
  writeFileSync(script, LUA);
  writeFileSync(
    list,
    requests
      .map((r) =>
        [
          r.method ?? 'GET',
          r.path,
          Object.entries(r.headers ?? {})
            .map(([k, v]) => `${k}=${v}`)
            .join(';'),
          r.body ?? '',
        ].join('\t'),
      )
      .join('\n') + '\n',
  );
  const args = [
    '-t',
    String(options.threads ?? 1),
    '-c',
    String(options.connections),
    '-d',
    `${options.durationSeconds}s`,
    '--timeout',
    `${options.timeoutSeconds ?? 10}s`,
    '-s',
    script,
    base,
    '--',
    list,
  ];
  // Started from the spawner process, not this one: the apply bench's server runs in this
  // process, and a start from it would hold the server's thread (api/process/spawner.ts).
  const run = await runCommand(bin, args);
  const out = run.stdout.toString('utf8') + run.stderr;
  if (run.code !== 0) throw new Error(`wrk exited ${run.code ?? run.signal}: ${out.slice(-2000)}`);
  const line = out.split('\n').find((l) => l.startsWith('WRKJSON '));
  if (!line) throw new Error(`wrk printed no summary: ${out.slice(-2000)}`);
  const j = JSON.parse(line.slice('WRKJSON '.length)) as Record<string, number>;
  const seconds = j.duration_us! / 1e6;
  return {
    requests: j.requests!,
    durationSeconds: round(seconds, 2),
    requestsPerSecond: round(j.requests! / seconds, 1),
    latencyP50Ms: round(j.p50! / 1000, 3),
    latencyP90Ms: round(j.p90! / 1000, 3),
    latencyP99Ms: round(j.p99! / 1000, 3),
    latencyMaxMs: round(j.max! / 1000, 3),
    errors: { connect: j.connect!, read: j.read!, write: j.write!, timeout: j.timeout!, status: j.status! },
  };
}
