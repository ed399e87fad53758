/**
 * Bench section "processes": read processes (ARCHIVE_READ_PROCESSES, api/site/read-processes.ts)
 * at 10,000 generated works (quick: 2,000), through real sockets, load by wrk. Two
 * configurations of `scripts/start.ts` on the same generated data folder, measured in
 * interleaved rounds (A B A B), each started fresh:
 *   A  one process (the embedded default: ARCHIVE_READ_PROCESSES=1, no Redis);
 *   B  a write process and two read processes, with Redis (Debian's redis-server).
 * Per round and configuration:
 *   - uncached query throughput: the scale section's "distinct" catalog queries (at least 20x
 *     the answer cache's entries, drawn at random), 10 connections in all: on A to the one
 *     process, on B 5 to each read process (two wrk at once; requests/s added up);
 *   - static GET throughput alone (random record slugs, 2 connections; on B one per read
 *     process), and the same while the uncached query load runs.
 * Figures: B's query throughput against A's (target >= 1.7x), and B's static throughput under
 * the query load against B's static alone (target >= 0.5x); A's same ratio is in the details.
 * The machine's load average is recorded beside the figures (the bench machine has 2 cores
 * shared with other work: wrk and the writer take CPU from the read processes).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import path from 'node:path';
import { figure, type Figure, type Section, type SectionResult } from './results.ts';
import { TrackedProcess, freePort, round, sleep, type Cleanup, spawnService } from './util.ts';
import { findOrInstallWrk, runWrk, type WrkRequest, type WrkResult } from './wrk.ts';
import { distinctQueries, ensureGenerated, GENERATED_BASE_URL } from './scale.ts';
import { findOrInstallDebianPackage } from './util.ts';

/** Debian's redis-server on a free loopback port, no persistence. */
async function startRedis(cleanup: Cleanup, dir: string, bin: string): Promise<{ url: string; proc: TrackedProcess }> {
  const port = await freePort();
  const proc = new TrackedProcess('redis-server', bin, [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--save',
    '',
    '--appendonly',
    'no',
    '--dir',
    dir,
  ]);
  cleanup.track(proc);
  for (let i = 0; ; i++) {
    const ok = await new Promise<boolean>((resolve) => {
      import('node:net').then(({ createConnection }) => {
        const s = createConnection({ port, host: '127.0.0.1' }, () => s.write('PING\r\n'));
        s.once('data', (d) => {
          s.destroy();
          resolve(String(d).startsWith('+PONG'));
        });
        s.once('error', () => resolve(false));
      });
    });
    if (ok) break;
    if (i > 100 || !proc.running) throw new Error(`redis-server did not start: ${proc.tail()}`);
    await sleep(50);
  }
  return { url: `redis://127.0.0.1:${port}/0`, proc };
}

/** Three ports in a row (the read processes listen on PORT+1, PORT+2). */
async function portRun(): Promise<number> {
  const { createServer } = await import('node:net');
  const free = (p: number) =>
    new Promise<boolean>((resolve) => {
      const s = createServer();
      s.once('error', () => resolve(false));
      s.listen(p, '127.0.0.1', () => s.close(() => resolve(true)));
    });
  for (;;) {
    const p = await freePort();
    if (p + 2 <= 65535 && (await free(p + 1)) && (await free(p + 2))) return p;
  }
}

interface Running {
  proc: TrackedProcess;
  writer: string;
  readers: string[];
}

async function startConfig(
  cleanup: Cleanup,
  dataDir: string,
  readers: number,
  redisUrl: string | null,
): Promise<Running> {
  const port = await portRun();
  const proc = spawnService({
    cleanup,
    port,
    env: {
      PUBLIC_BASE_URL: GENERATED_BASE_URL,
      ARCHIVE_DATA_DIR: dataDir,
      ARCHIVE_READ_PROCESSES: String(readers),
      ARCHIVE_WARM_BUILDER_WARM_UP: '0',
      ARCHIVE_CONTENT_REPO: undefined,
      ARCHIVE_REDIS_URL: redisUrl || undefined,
    },
  });
  const writer = `http://127.0.0.1:${port}`;
  const readerUrls = readers > 1 ? Array.from({ length: readers }, (_, i) => `http://127.0.0.1:${port + 1 + i}`) : [];
  const started = Date.now();
  for (const url of [writer, ...readerUrls]) {
    for (;;) {
      if (!proc.running) throw new Error(`the service exited:\n${proc.tail()}`);
      if (Date.now() - started > 180_000) throw new Error(`the service did not answer:\n${proc.tail()}`);
      try {
        const r = await fetch(`${url}/api/v1`, { signal: AbortSignal.timeout(1000) });
        await r.arrayBuffer();
        if (r.status === 200) break;
      } catch {
        // not yet
      }
      await sleep(50);
    }
  }
  return { proc, writer, readers: readerUrls };
}

/** wrk over several servers at once, `connections` split between them; requests/s added up. */
async function spread(
  wrk: string,
  work: string,
  bases: string[],
  requests: WrkRequest[],
  connections: number,
  seconds: number,
): Promise<{ requestsPerSecond: number; runs: WrkResult[] }> {
  const each = Math.max(1, Math.floor(connections / bases.length));
  const runs = await Promise.all(
    bases.map((b) => runWrk(wrk, work, b, requests, { connections: each, durationSeconds: seconds, threads: 1 })),
  );
  return {
    requestsPerSecond: round(
      runs.reduce((s, r) => s + r.requestsPerSecond, 0),
      1,
    ),
    runs,
  };
}

export function processesSection(options: { dataDir?: string } = {}): Section {
  return {
    name: 'processes',
    description:
      'read processes at 10,000 generated works: uncached query throughput with 2 read processes vs 1 process (>= 1.7x), static GET throughput under uncached query load vs alone with 2 read processes (>= 0.5x)',
    async run(ctx): Promise<Omit<SectionResult, 'durationMs'>> {
      const found = findOrInstallWrk(ctx.log);
      if (!found.path) return { status: 'skipped', message: found.note, figures: [], details: {} };
      const redisBin = findOrInstallDebianPackage({
        pkg: 'redis-server',
        command: 'redis-server',
        candidates: ['/usr/bin/redis-server'],
        version: () => null,
        budgetMs: 180_000,
        log: ctx.log,
      });
      if (!redisBin.path) return { status: 'skipped', message: redisBin.note, figures: [], details: {} };
      const size = ctx.quick ? 2000 : 10000;
      const seconds = ctx.quick ? 3 : 6;
      const rounds = ctx.quick ? 1 : 2;
      const work = ctx.cleanup.tempDir('processes-wrk');
      const g = await ensureGenerated(ctx, size, options.dataDir);
      const redis = await startRedis(ctx.cleanup, ctx.cleanup.tempDir('processes-redis'), redisBin.path);
      const slugs = readdirSync(path.join(g.buildDir, 'client', 'api', 'v1', 'works'));
      const staticReqs: WrkRequest[] = slugs.map((s) => ({ path: `/api/v1/works/${s}` }));
      const instruments = (
        JSON.parse(readFileSync(path.join(g.dataDir, 'content', 'instruments.json'), 'utf8')) as Array<{ slug: string }>
      ).map((i) => i.slug);
      const results: Record<'one' | 'two', Array<Record<string, unknown>>> = { one: [], two: [] };
      const loads: number[] = [];
      let distinct: WrkRequest[] | null = null;
      for (let round_ = 0; round_ < rounds; round_++) {
        for (const config of ['one', 'two'] as const) {
          ctx.log(
            `${size} works, round ${round_ + 1}: ${config === 'one' ? 'one process' : 'writer + 2 read processes'}`,
          );
          const svc = await startConfig(
            ctx.cleanup,
            g.dataDir,
            config === 'one' ? 1 : 2,
            config === 'two' ? redis.url : null,
          );
          try {
            const bases = config === 'one' ? [svc.writer] : svc.readers;
            distinct ??= await distinctQueries(svc.writer, slugs, instruments);
            // Warm the static records in every process (the in-memory static cache, as a running service has).
            for (const b of bases)
              for (let i = 0; i < slugs.length; i += 500)
                await Promise.all(
                  slugs.slice(i, i + 500).map((s) =>
                    fetch(`${b}/api/v1/works/${s}`)
                      .then((r) => r.arrayBuffer())
                      .catch(() => null),
                  ),
                );
            loads.push(loadavg()[0]!);
            const queries = await spread(found.path, work, bases, distinct, 10, seconds);
            const staticAlone = await spread(found.path, work, bases, staticReqs, 2, seconds);
            const load = spread(found.path, work, bases, distinct, 10, seconds + 2);
            await sleep(1000);
            const staticLoaded = await spread(found.path, work, bases, staticReqs, 2, seconds);
            const queryLoad = await load;
            results[config].push({
              queryRps: queries.requestsPerSecond,
              staticAloneRps: staticAlone.requestsPerSecond,
              staticUnderQueriesRps: staticLoaded.requestsPerSecond,
              queriesDuringStaticRps: queryLoad.requestsPerSecond,
              queryP99Ms: Math.max(...queries.runs.map((r) => r.latencyP99Ms)),
              errors: [...queries.runs, ...staticAlone.runs, ...staticLoaded.runs].reduce(
                (s, r) => s + r.errors.status + r.errors.timeout,
                0,
              ),
            });
          } finally {
            await svc.proc.stop(15_000);
          }
        }
      }
      const best = (config: 'one' | 'two', key: string) => Math.max(...results[config].map((r) => r[key] as number));
      const figures: Figure[] = [
        figure(
          `uncached query throughput, 2 read processes (+ writer), ${size} works, 10 clients (target >= 1.7x one process)`,
          'req/s',
          best('two', 'queryRps'),
          best('one', 'queryRps'),
          'one process, same queries, same run',
          'higher',
          { ratio: 1.7, op: '>=' },
        ),
        figure(
          `static GET throughput under uncached query load, 2 read processes, ${size} works (target >= 0.5x alone)`,
          'req/s',
          best('two', 'staticUnderQueriesRps'),
          best('two', 'staticAloneRps'),
          'same static GETs, 2 read processes, no query load',
          'higher',
          { ratio: 0.5, op: '>=' },
        ),
        figure(
          `static GET throughput under uncached query load, one process, ${size} works (for comparison)`,
          'req/s',
          best('one', 'staticUnderQueriesRps'),
          best('one', 'staticAloneRps'),
          'same static GETs, one process, no query load',
          'higher',
        ),
      ];
      return {
        status: 'ok',
        figures,
        details: {
          works: size,
          rounds: results,
          distinctQueries: distinct?.length ?? 0,
          loadAverage1m: loads.map((l) => round(l, 2)),
          redis: redisBin.note,
          note: 'best of the rounds per configuration; rounds interleaved, each configuration started fresh',
        },
      };
    },
  };
}
