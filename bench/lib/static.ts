/**
 * Section "static": the front server answering one static work record, against nginx serving
 * the same build folder with the project's own nginx server block. Same URL, connections and
 * duration; both must answer 200 with identical bytes before anything is measured.
 */
import { readdirSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { figure, type Figure, type Section, type SectionContext, type SectionResult } from './results.ts';
import { runLoad, type LoadResult } from './load.ts';
import { findOrInstallNginx, startNginx } from './nginx.ts';
import { ensureGenerated, startOn } from './scale-data.ts';
import { memoryOf, startService, type RunningService } from './service.ts';
import { PROJECT_ROOT, TrackedProcess, freePort, get, retried, round, waitForHttp } from './util.ts';
import { findOrInstallWrk, runWrk, type WrkRequest, type WrkResult } from './wrk.ts';

export interface StaticOptions {
  /** Serve this content folder instead of the shipped ./content. */
  contentDir?: string;
}

export function staticSection(options: StaticOptions = {}): Section {
  return {
    name: 'static',
    description:
      'req/s and latency of GET /api/v1/works/<slug> from the front server vs nginx on the same build folder',
    run: (ctx) => runStatic(ctx, options),
  };
}

async function runStatic(ctx: SectionContext, options: StaticOptions): Promise<Omit<SectionResult, 'durationMs'>> {
  const connections = 50;
  const durationSeconds = ctx.quick ? 5 : 10;
  const warmupSeconds = ctx.quick ? 1 : 3;
  const details: Record<string, unknown> = {
    connections,
    durationSeconds,
    warmupSeconds,
    content: options.contentDir ? path.resolve(options.contentDir) : 'shipped ./content',
  };
  let service: RunningService | undefined;
  let nginx: TrackedProcess | undefined;
  try {
    const bin = findOrInstallNginx(ctx.log);
    details.nginx = bin;

    ctx.log('starting the service (seed, build, serve) ...');
    service = await startService({ cleanup: ctx.cleanup, contentDir: options.contentDir });
    details.serviceReadyAfterMs = service.readyAfterMs;
    details.buildDir = service.buildDir;

    const list = await get(`${service.baseUrl}/api/v1/works`);
    if (list.status !== 200) throw new Error(`GET /api/v1/works answered ${list.status}`);
    const listing = (
      JSON.parse(list.body.toString('utf8')) as { data?: { items?: Array<{ slug: string }>; total?: number } }
    ).data;
    const items = listing?.items ?? [];
    const slug = items[0]?.slug;
    if (!slug) throw new Error('GET /api/v1/works returned no works; nothing to measure');
    const urlPath = `/api/v1/works/${encodeURIComponent(slug)}`;
    details.path = urlPath;
    details.worksInCatalog = listing?.total ?? null;

    const serviceUrl = `${service.baseUrl}${urlPath}`;
    const fromService = await get(serviceUrl);
    if (fromService.status !== 200) throw new Error(`the service answered ${fromService.status} for ${urlPath}`);
    details.bodyBytes = fromService.body.length;
    details.serviceContentType = fromService.headers['content-type'] ?? null;

    let nginxUrl: string | undefined;
    if (bin.path) {
      const prefix = ctx.cleanup.tempDir('nginx');
      const port = await freePort();
      nginx = startNginx(bin.path, prefix, path.join(service.buildDir, 'client'), port, service.baseUrl, ctx.cleanup);
      nginxUrl = `http://127.0.0.1:${port}${urlPath}`;
      await waitForHttp(nginxUrl, nginx, 20_000);
      const fromNginx = await get(nginxUrl);
      details.nginxContentType = fromNginx.headers['content-type'] ?? null;
      if (fromNginx.status !== 200) throw new Error(`nginx answered ${fromNginx.status} for ${urlPath}`);
      if (!fromNginx.body.equals(fromService.body)) {
        throw new Error(
          `the service and nginx answer different bytes for ${urlPath} (${fromService.body.length} vs ${fromNginx.body.length} bytes); not measuring`,
        );
      }
      details.identicalBodies = true;
    }

    ctx.log(
      `load: service ${serviceUrl} (${connections} connections, ${durationSeconds} s after ${warmupSeconds} s warm-up)`,
    );
    const svc: LoadResult = await runLoad(serviceUrl, { connections, durationSeconds, warmupSeconds });
    details.service = { ...svc, memoryAfterLoad: memoryOf(service.proc.pid) };

    let base: LoadResult | undefined;
    if (nginxUrl) {
      ctx.log(`load: nginx ${nginxUrl}`);
      base = await runLoad(nginxUrl, { connections, durationSeconds, warmupSeconds });
      details.baseline = base;
    }
    const label = bin.version ? `nginx ${bin.version}, same build folder` : 'nginx (not available)';
    const figures = [
      figure('requests per second', 'req/s', svc.requestsPerSecond, base?.requestsPerSecond ?? null, label, 'higher', {
        ratio: 0.5,
        op: '>=',
      }),
      figure('latency p50', 'ms', svc.latencyP50Ms, base?.latencyP50Ms ?? null, label, 'lower'),
      figure('latency p99', 'ms', svc.latencyP99Ms, base?.latencyP99Ms ?? null, label, 'lower'),
    ];
    const problems = [svc, base].filter((r): r is LoadResult => !!r && r.errors + r.timeouts + r.non2xx > 0);
    const notes: string[] = [];
    if (!bin.path) notes.push(`baseline skipped: ${bin.note}`);
    for (const p of problems)
      notes.push(`${p.url}: ${p.errors} errors, ${p.timeouts} timeouts, ${p.non2xx} non-2xx during load`);
    return { status: 'ok', ...(notes.length ? { message: notes.join('; ') } : {}), figures, details };
  } catch (err) {
    return { status: 'error', message: (err as Error).message, figures: [], details };
  } finally {
    await Promise.all([nginx?.stop(), service?.proc.stop()]);
  }
}

/**
 * Static records at scale (run by the scale section at 10,000 works, and alone as the
 * `scale-static` section): GETs with random slugs and 304s with each server's own ETag per path,
 * three contenders measured interleaved in the same run, `rounds` times each:
 *   - the service (already running at `base`),
 *   - nginx with one worker on the same build folder (the target's anchor),
 *   - a bare `node:http` server of the same Node, one process, answering one fixed in-memory body
 *     of a record's size with the service's own header set (bench/lib/bare-node-static.ts): the
 *     ceiling of any one-thread Node server here, so service/bare-node says what is left to win in
 *     the service and bare-node/nginx whether the target is reachable by one Node thread at all.
 * The load average is recorded with every measurement (the machine is shared).
 */
export interface StaticAtScaleInput {
  ctx: SectionContext;
  wrkPath: string;
  workDir: string;
  /** The running service. */
  base: string;
  /** The build's client folder (what nginx serves). */
  clientDir: string;
  slugs: string[];
  seconds: number;
  rounds?: number;
  connections?: number;
  label: string;
}

export async function staticAtScale(
  input: StaticAtScaleInput,
): Promise<{ figures: Figure[]; details: Record<string, unknown>; notes: string[] }> {
  const { ctx, wrkPath, workDir, base, clientDir, slugs, seconds } = input;
  const rounds = input.rounds ?? 2;
  const connections = input.connections ?? 10;
  const notes: string[] = [];
  const nginx = findOrInstallNginx(ctx.log);
  if (!nginx.path) return { figures: [], details: {}, notes: [`static vs nginx skipped: ${nginx.note}`] };
  const staticReqs: WrkRequest[] = slugs.map((s) => ({ path: `/api/v1/works/${s}` }));

  const nport = await freePort();
  const prefix = ctx.cleanup.tempDir('scale-nginx');
  const proc = startNginx(nginx.path, prefix, clientDir, nport, base, ctx.cleanup, { workers: 1 });
  const nbase = `http://127.0.0.1:${nport}`;
  await waitForHttp(`${nbase}/api/v1`, proc, 20_000);
  await checkAll(nbase, staticReqs.slice(0, 20), 200);
  const a = await retried(() => get(`${base}${staticReqs[0]!.path}`));
  const b = await retried(() => get(`${nbase}${staticReqs[0]!.path}`));
  if (a.status !== 200 || !a.body.equals(b.body))
    throw new Error('the service and nginx answer different bytes for the same record');

  // The bare server answers the record of median size with the service's own headers.
  const sizes = await Promise.all(
    slugs
      .slice(0, 200)
      .map(async (s) => ({ s, n: (await retried(() => get(`${base}/api/v1/works/${s}`))).body.length })),
  );
  const median = sizes.sort((x, y) => x.n - y.n)[Math.floor(sizes.length / 2)]!;
  // The service's own header names, case and order (rawHeaders), without those Node adds itself.
  const sampleRes = await new Promise<{ body: Buffer; raw: string[] }>((resolve, reject) => {
    http
      .get(`${base}/api/v1/works/${median.s}`, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => resolve({ body: Buffer.concat(chunks), raw: res.rawHeaders }));
        res.on('error', reject);
      })
      .on('error', reject);
  });
  const sampleBody = sampleRes.body;
  const sampleHeaders: string[] = [];
  let bareEtag = '';
  for (let i = 0; i < sampleRes.raw.length; i += 2) {
    const name = sampleRes.raw[i]!;
    if (name.toLowerCase() === 'etag') bareEtag = sampleRes.raw[i + 1]!;
    if (!['date', 'connection', 'keep-alive'].includes(name.toLowerCase()))
      sampleHeaders.push(name, sampleRes.raw[i + 1]!);
  }
  const sampleFile = path.join(workDir, 'bare-node-sample.json');
  writeFileSync(sampleFile, JSON.stringify({ body: sampleBody.toString('base64'), headers: sampleHeaders }));
  const bport = await freePort();
  const bare = new TrackedProcess(
    'bare node:http',
    process.execPath,
    [path.join(PROJECT_ROOT, 'bench', 'lib', 'bare-node-static.ts'), '--port', String(bport), '--sample', sampleFile],
    { cwd: PROJECT_ROOT },
  );
  ctx.cleanup.track(bare);
  const bbase = `http://127.0.0.1:${bport}`;
  await waitForHttp(`${bbase}/`, bare, 20_000);

  const load = () => round(os.loadavg()[0]!, 2);
  type Round = { service: WrkResult; nginx: WrkResult; bareNode: WrkResult; loadAverage1m: number[] };
  const measure = async (svc: WrkRequest[], ngx: WrkRequest[], bn: WrkRequest[]): Promise<Round[]> => {
    const out: Round[] = [];
    for (let k = 0; k < rounds; k++) {
      const l0 = load();
      const service = await runWrk(wrkPath, workDir, base, svc, { connections, durationSeconds: seconds });
      const l1 = load();
      const n = await runWrk(wrkPath, workDir, nbase, ngx, { connections, durationSeconds: seconds });
      const l2 = load();
      const bareNode = await runWrk(wrkPath, workDir, bbase, bn, { connections, durationSeconds: seconds });
      out.push({ service, nginx: n, bareNode, loadAverage1m: [l0, l1, l2, load()] });
    }
    return out;
  };

  try {
    ctx.log(
      `${input.label}: static record GETs, service / nginx (one worker) / bare node:http, ${rounds} interleaved rounds of ${seconds} s`,
    );
    const get200 = await measure(staticReqs, staticReqs, staticReqs);
    // 304s: each server's own ETag per path, for a sample of 2,000 random slugs.
    const sample = [...slugs].sort(() => Math.random() - 0.5).slice(0, 2000);
    const etags = async (origin: string) => {
      const out: WrkRequest[] = [];
      for (let i = 0; i < sample.length; i += 32) {
        const part = await Promise.all(
          sample.slice(i, i + 32).map(async (s) => ({
            path: `/api/v1/works/${s}`,
            headers: { 'If-None-Match': (await retried(() => get(`${origin}/api/v1/works/${s}`))).headers.etag! },
          })),
        );
        out.push(...part);
      }
      return out;
    };
    const svc304 = await etags(base);
    const ngx304 = await etags(nbase);
    const bare304 = sample.map((s) => ({ path: `/api/v1/works/${s}`, headers: { 'If-None-Match': bareEtag } }));
    await checkAll(base, svc304.slice(0, 20), 304);
    await checkAll(nbase, ngx304.slice(0, 20), 304);
    await checkAll(bbase, bare304.slice(0, 20), 304);
    ctx.log(`${input.label}: static record 304s, same three, ${rounds} interleaved rounds`);
    const get304 = await measure(svc304, ngx304, bare304);

    const mean = (xs: number[]) => round(xs.reduce((s, x) => s + x, 0) / xs.length, 1);
    const rps = (rs: Round[], who: 'service' | 'nginx' | 'bareNode') => mean(rs.map((r) => r[who].requestsPerSecond));
    const loads = [...get200, ...get304].flatMap((r) => r.loadAverage1m);
    const loadNote = `load average (1 min) during the runs ${Math.min(...loads)}-${Math.max(...loads)}`;
    for (const [what, rs] of [
      ['GET', get200],
      ['304', get304],
    ] as const) {
      for (const r of rs)
        for (const who of ['service', 'nginx', 'bareNode'] as const) {
          const e = r[who].errors;
          if (e.status + e.timeout + e.connect + e.read + e.write > 0)
            notes.push(`${what} ${who}: wrk errors ${JSON.stringify(e)}`);
        }
    }
    const figures = [
      figure(
        `static record GET, random slugs, ${input.label}, ${connections} clients`,
        'req/s',
        rps(get200, 'service'),
        rps(get200, 'nginx'),
        'nginx, one worker, same folder',
        'higher',
        { ratio: 0.8, op: '>=' },
      ),
      figure(
        `static record 304, random slugs, ${input.label}, ${connections} clients`,
        'req/s',
        rps(get304, 'service'),
        rps(get304, 'nginx'),
        'nginx, one worker, same folder',
        'higher',
        { ratio: 1, op: '>=' },
      ),
      figure(
        `ceiling: bare node:http GET (one fixed body, same headers), ${connections} clients`,
        'req/s',
        rps(get200, 'bareNode'),
        rps(get200, 'nginx'),
        'nginx, one worker, same folder',
        'higher',
      ),
      figure(
        `ceiling: bare node:http 304, ${connections} clients`,
        'req/s',
        rps(get304, 'bareNode'),
        rps(get304, 'nginx'),
        'nginx, one worker, same folder',
        'higher',
      ),
      figure(
        `static record GET, service vs the bare node:http ceiling, ${input.label}`,
        'req/s',
        rps(get200, 'service'),
        rps(get200, 'bareNode'),
        'bare node:http, same Node, one process',
        'higher',
      ),
      figure(
        `static record 304, service vs the bare node:http ceiling, ${input.label}`,
        'req/s',
        rps(get304, 'service'),
        rps(get304, 'bareNode'),
        'bare node:http, same Node, one process',
        'higher',
      ),
    ];
    return {
      figures,
      details: {
        nginx: nginx.note,
        node: process.version,
        bareNodeSample: { slug: median.s, bytes: sampleBody.length, headers: sampleHeaders },
        loadNote,
        rounds: get200,
        rounds304: get304,
      },
      notes,
    };
  } finally {
    await Promise.all([proc.stop(), bare.stop()]);
  }
}

async function checkAll(origin: string, requests: WrkRequest[], status: number): Promise<void> {
  for (const r of requests) {
    const res = await retried(() => fetch(`${origin}${r.path}`, { headers: r.headers ?? {} }));
    await res.arrayBuffer();
    if (res.status !== status) throw new Error(`${origin}${r.path} answered ${res.status}, expected ${status}`);
  }
}

export interface ScaleStaticOptions {
  /** Generated data folders (as `--scale-data`); the one for `works` is reused or generated. */
  dataDir?: string;
  works?: number;
}

/**
 * Section "scale-static": only the static part of the scale section (service vs nginx vs bare
 * node:http at 10,000 generated works, quick: 2,000), for working on the static fast path without
 * the query, resolve and restart runs.
 */
export function scaleStaticSection(options: ScaleStaticOptions = {}): Section {
  return {
    name: 'scale-static',
    optIn: true,
    description:
      'static record GETs and 304s with random slugs at 10,000 generated works: service vs nginx (one worker) vs a bare node:http ceiling',
    async run(ctx): Promise<Omit<SectionResult, 'durationMs'>> {
      const found = findOrInstallWrk(ctx.log);
      if (!found.path) return { status: 'skipped', message: found.note, figures: [], details: {} };
      const works = options.works ?? (ctx.quick ? 2000 : 10000);
      const g = await ensureGenerated(ctx, works, options.dataDir);
      const svc = await startOn(ctx.cleanup, g.dataDir, await freePort());
      try {
        const slugs = readdirSync(path.join(g.buildDir, 'client', 'api', 'v1', 'works'));
        ctx.log(`${works} works: warming static records`);
        for (let i = 0; i < Math.min(slugs.length, 20000); i += 500)
          await Promise.all(slugs.slice(i, i + 500).map((s) => get(`${svc.base}/api/v1/works/${s}`).catch(() => null)));
        const r = await staticAtScale({
          ctx,
          wrkPath: found.path,
          workDir: ctx.cleanup.tempDir('scale-static-wrk'),
          base: svc.base,
          clientDir: path.join(g.buildDir, 'client'),
          slugs,
          seconds: ctx.quick ? 3 : 5,
          rounds: ctx.quick ? 1 : 3,
          label: `${works} works`,
        });
        const missed = r.figures.filter((f) => f.goal?.met === false).map((f) => `${f.name} (${f.ratio}x)`);
        const message = [
          ...(missed.length ? [`not met: ${missed.join('; ')}`] : []),
          ...r.notes,
          String(r.details.loadNote ?? ''),
        ]
          .filter(Boolean)
          .join('. ');
        return { status: 'ok', message, figures: r.figures, details: { works, buildDir: g.buildDir, ...r.details } };
      } finally {
        await svc.proc.stop();
      }
    },
  };
}
