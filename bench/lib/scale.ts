/**
 * Bench section "scale": the archive at 10,000 and 100,000 works (quick: 2,000), through real
 * sockets to the real service (`scripts/start.ts`, as `npm start` runs it), load by wrk.
 *
 * Build folders come from bench/lib/generated-build.ts: generated content, records and index
 * files made by the domain code without Astro (a full Astro build of 100,000 works does not fit a
 * bench run). The content repository holds the same generated content and the folder sits at its
 * HEAD's build key, so the service serves it without building. With `--scale-data DIR` the
 * generated folders are kept in DIR and reused by later runs (generation takes minutes at 100,000).
 *
 * Per size, with the same-run anchor of each figure:
 *   - catalog query p99, 10 connections, 5 s each: a common word, a rare word, a composer filter,
 *     page 500 of the unfiltered listing. Anchor: the same service's static record GET p99 at the
 *     same concurrency (an O(1) answer through the same process). Target p99 <= 10 ms.
 *   - static GET p99 and throughput (2 connections, random slugs) while 10 connections run the
 *     common-word query, against the same static load alone. Targets p99 <= 2x, throughput >= 0.5x.
 *   - "distinct" queries and resolve bodies: at least 20x the answer cache's entries, drawn at
 *     random, so at most 5 % can be cache hits (the result records the bound).
 *   - catalog-wide resolve p99, 10 connections (role and requirements, no work named). Anchor:
 *     the same request with musicAllowed: false (parsing, validation, envelope; no search).
 *     Target p99 <= 10 ms (at 100,000).
 *   - server RSS after start, and warm restart (spawn to first 200 on /api/v1, median of 3).
 *     Anchor: the same service on a generated 26-work build. Targets <= 400 MB and <= 2 s at 100,000.
 * At 10,000 (quick: 2,000) works:
 *   - static record GET with random slugs, service vs nginx with one worker on the same folder vs
 *     a bare node:http ceiling, 10 connections, interleaved (bench/lib/static.ts staticAtScale);
 *     and the same with a matching If-None-Match per path (each server's own ETags). Targets
 *     >= 0.8x and >= 1.0x.
 * At the largest size:
 *   - swap stall: bench/lib/swap-probe.ts serves the build and swaps onto it every 2 s while wrk
 *     runs static GETs (2 connections, 12 s); the longest request, against the same probe without
 *     swaps. Target: longest request <= 100 ms.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { figure, type Figure, type Section, type SectionContext, type SectionResult } from './results.ts';
import { PROJECT_ROOT, TrackedProcess, freePort, get, retried, round, sleep } from './util.ts';
import { memoryOf } from './service.ts';
import { findOrInstallWrk, runWrk, type WrkRequest } from './wrk.ts';
import { staticAtScale } from './static.ts';
import { ensureGenerated, GENERATED_BASE_URL, startOn, type Generated } from './scale-data.ts';
import { ANSWER_CACHE_ENTRIES } from '../../api/catalog/answer-cache.ts';

export { ensureGenerated, GENERATED_BASE_URL, startOn } from './scale-data.ts';

/**
 * "Distinct" request lists hold at least this many times the service's answer-cache entries, so
 * at most 1/DISTINCT_FACTOR of the randomly drawn requests can be answered from the cache.
 */
const DISTINCT_FACTOR = 20;

/**
 * Catalog queries the service has not answered before, every one with results. The filters are
 * each slug word, each instrument, and each of the first 100 words with each instrument; the
 * total of every filter is asked once, then every (page size, page) pair inside that total is a
 * URL, the largest page sizes first (the dearer answers), until there are 4x what is needed; the
 * list is shuffled. Throws when the catalog cannot give DISTINCT_FACTOR x the cache's entries,
 * rather than reporting a cached figure as an uncached one.
 */
export async function distinctQueries(base: string, slugs: string[], instruments: string[]): Promise<WrkRequest[]> {
  const words = [...new Set(slugs.flatMap((sl) => sl.split('-')).filter((w) => /^[a-z]{3,}$/.test(w)))].slice(0, 400);
  const filters = [
    ...words.map((w) => `query=${w}`),
    ...instruments.map((i) => `instrument=${i}`),
    ...words.slice(0, 100).flatMap((w) => instruments.map((i) => `query=${w}&instrument=${i}`)),
  ];
  const want = DISTINCT_FACTOR * ANSWER_CACHE_ENTRIES;
  const totals: Array<[string, number]> = [];
  for (const f of filters) {
    const r = await get(`${base}/api/v1/works?${f}&pageSize=1`);
    if (r.status !== 200) throw new Error(`/api/v1/works?${f} answered ${r.status}`);
    const total = (JSON.parse(r.body.toString()) as { data: { total: number } }).data.total;
    if (total > 0) totals.push([f, total]);
  }
  const urls = new Set<string>();
  for (let size = 100; size >= 1 && urls.size < 4 * want; size--)
    for (const [f, total] of totals)
      for (let p = 1; (p - 1) * size < total; p++) urls.add(`/api/v1/works?${f}&pageSize=${size}&page=${p}`);
  if (urls.size < want)
    throw new Error(
      `only ${urls.size} distinct catalog queries with results (need ${want}, ${DISTINCT_FACTOR} x the answer cache's ${ANSWER_CACHE_ENTRIES} entries)`,
    );
  const list = [...urls].map((u) => ({ path: u }));
  for (let i = list.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    [list[i], list[j]] = [list[j]!, list[i]!];
  }
  return list;
}

export interface ScaleOptions {
  sizes?: number[];
  /** Keep generated data here and reuse it across runs. */
  dataDir?: string;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const mb = (bytes: number | null) => (bytes === null ? null : round(bytes / 1024 / 1024, 1));

/** Start, settle, RSS; then three warm restarts (median time to ready) and RSS after the last. */
async function startAndRestart(ctx: SectionContext, g: Generated) {
  const port = await freePort();
  let svc = await startOn(ctx.cleanup, g.dataDir, port);
  const firstReadyMs = svc.readyMs;
  await sleep(2000);
  const rssAfterFirstStart = mb(memoryOf(svc.proc.pid).rssBytes);
  const restarts: number[] = [];
  for (let k = 0; k < 3; k++) {
    await svc.proc.stop();
    svc = await startOn(ctx.cleanup, g.dataDir, port);
    restarts.push(svc.readyMs);
  }
  await sleep(2000);
  const rssAfterStart = mb(memoryOf(svc.proc.pid).rssBytes);
  return {
    svc,
    firstReadyMs,
    restartsMs: restarts,
    warmRestartMs: median(restarts),
    rssAfterFirstStartMiB: rssAfterFirstStart,
    rssAfterStartMiB: rssAfterStart,
  };
}

async function slugsOf(g: Generated): Promise<string[]> {
  return readdirSync(path.join(g.buildDir, 'client', 'api', 'v1', 'works'));
}

/** Connection failures seen by the bench's own client (pooled sockets closed under it), retried. */
export const clientRetries = { count: 0, last: '' };

/** A fetch retried (util.ts, `retried`) when the client's connection failed, each retry counted in `clientRetries`. */
const retrying = <T>(fn: () => Promise<T>): Promise<T> =>
  retried(fn, (err) => {
    clientRetries.count++;
    clientRetries.last = String((err as { cause?: { message?: string } }).cause?.message ?? (err as Error).message);
  });

/** Check every distinct request answers `status` before measuring it. */
async function check(base: string, requests: WrkRequest[], status: number, sample = 20): Promise<void> {
  for (const r of requests.slice(0, sample)) {
    // A pooled keep-alive connection to a service stopped by a restart can be closed under the
    // first request ("other side closed"): that is the client's pool, not an answer, so retry once.
    const once = () => fetch(`${base}${r.path}`, { method: r.method ?? 'GET', headers: r.headers ?? {}, body: r.body });
    const res = await retrying(once);
    await res.arrayBuffer();
    if (res.status !== status)
      throw new Error(`${r.method ?? 'GET'} ${r.path} answered ${res.status}, expected ${status}`);
  }
}

const RESOLVE_BODY = (musicAllowed: boolean) =>
  JSON.stringify({
    channel: { channelKey: 'bench', intendedRole: 'music-bed', musicAllowed },
    requirements: { requiredFormats: ['mp3'], style: 'calm', mood: 'warm' },
  });

export function scaleSection(options: ScaleOptions = {}): Section {
  return {
    name: 'scale',
    description:
      'catalog at 10,000 and 100,000 generated works: query and resolve p99, static under query load, RSS, warm restart, static vs nginx (1 worker), swap stall',
    async run(ctx): Promise<Omit<SectionResult, 'durationMs'>> {
      const found = findOrInstallWrk(ctx.log);
      if (!found.path) return { status: 'skipped', message: found.note, figures: [], details: {} };
      const wrk = { path: found.path, note: found.note };
      const sizes = options.sizes ?? (ctx.quick ? [2000] : [10000, 100000]);
      const seconds = ctx.quick ? 3 : 5;
      const work = ctx.cleanup.tempDir('scale-wrk');
      const figures: Figure[] = [];
      const details: Record<string, unknown> = {
        wrk: wrk.note,
        generatedBaseUrl: GENERATED_BASE_URL,
        buildFolders: 'generated by bench/lib/generated-build.ts (domain code, no Astro)',
      };
      const notes: string[] = [];

      // Anchor for RSS and restart: the same service on 26 generated works.
      const small = await ensureGenerated(ctx, 26, options.dataDir);
      const smallRun = await startAndRestart(ctx, small);
      await smallRun.svc.proc.stop();
      details.anchor26 = { ...smallRun, svc: undefined };

      for (const size of sizes) {
        const g = await ensureGenerated(ctx, size, options.dataDir);
        ctx.log(`${size} works: start, RSS, warm restarts`);
        const run = await startAndRestart(ctx, g);
        const base = run.svc.base;
        const d: Record<string, unknown> = { buildDir: g.buildDir, ...run, svc: undefined };
        details[`works${size}`] = d;
        figures.push(
          figure(
            `RSS after start, ${size} works (target <= 400 MiB at 100,000)`,
            'MiB',
            run.rssAfterStartMiB,
            smallRun.rssAfterStartMiB,
            'same service, 26 works',
            'lower',
            size >= 100000 && smallRun.rssAfterStartMiB
              ? { ratio: round(400 / smallRun.rssAfterStartMiB, 3), op: '<=' }
              : undefined,
          ),
          figure(
            `warm restart, ${size} works (target <= 2 s at 100,000)`,
            'ms',
            run.warmRestartMs,
            smallRun.warmRestartMs,
            'same service, 26 works',
            'lower',
            size >= 100000 ? { ratio: round(2000 / smallRun.warmRestartMs, 3), op: '<=' } : undefined,
          ),
        );

        const slugs = await slugsOf(g);
        ctx.log(`${size} works: checking and warming static records`);
        const staticReqs: WrkRequest[] = slugs.map((s) => ({ path: `/api/v1/works/${s}` }));
        await check(base, staticReqs, 200);
        // Warm the caches the way a running service would be: every record once.
        for (let i = 0; i < Math.min(slugs.length, 20000); i += 500)
          await Promise.all(slugs.slice(i, i + 500).map((s) => get(`${base}/api/v1/works/${s}`).catch(() => null)));

        ctx.log(`${size} works: catalog queries`);
        // A rare word: one work's catalog number (numbers match whole words only in few works).
        const one = JSON.parse(
          (await get(`${base}/api/v1/works/${slugs[Math.floor(slugs.length / 3)]}`)).body.toString(),
        ) as { data: { workNumber: string | null } };
        const rare = one.data.workNumber ?? 'zzzz';
        const queries: Array<[string, string]> = [
          ['common word', '/api/v1/works?query=minuet'],
          ['rare word', `/api/v1/works?query=${encodeURIComponent(rare)}`],
          ['composer filter', `/api/v1/works?composer=${encodeURIComponent('Synthetic Composer 0042')}`],
          ['page 500', '/api/v1/works?page=500'],
        ];
        const totals: Record<string, number> = {};
        for (const [label, url] of queries) {
          const r = await get(`${base}${url}`);
          if (r.status !== 200) throw new Error(`${url} answered ${r.status}`);
          totals[label] = (JSON.parse(r.body.toString()) as { data: { total: number } }).data.total;
        }
        d.queryTotals = totals;
        const staticAt10 = await runWrk(wrk.path, work, base, staticReqs, {
          connections: 10,
          durationSeconds: seconds,
        });
        d.staticAt10Connections = staticAt10;
        for (const [label, url] of queries) {
          const r = await runWrk(wrk.path, work, base, [{ path: url }], { connections: 10, durationSeconds: seconds });
          d[`query ${label}`] = r;
          figures.push(
            figure(
              `catalog query p99, ${label}, ${size} works, 10 clients (target <= 10 ms)`,
              'ms',
              r.latencyP99Ms,
              staticAt10.latencyP99Ms,
              'same service, static record GET p99, 10 clients',
              'lower',
              { ratio: round(10 / staticAt10.latencyP99Ms, 3), op: '<=' },
            ),
          );
          if (r.errors.status + r.errors.timeout > 0)
            notes.push(`${label} at ${size}: ${r.errors.status} error answers, ${r.errors.timeout} timeouts`);
        }

        // The service keeps each build's answers (api/catalog/answer-cache.ts), so the figures
        // above, one URL each, measure a warm answer. These measure queries it has not answered:
        // wrk draws each request at random from the list, so with N distinct URLs and an LRU of C
        // entries at most about C/N of the requests can hit. The list is built to hold at least
        // DISTINCT_FACTOR x C URLs, every one a page that has results (page sizes and pages within
        // each word's total), and the run refuses to measure a shorter list.
        const instrumentSlugs = (
          JSON.parse(readFileSync(path.join(g.dataDir, 'content', 'instruments.json'), 'utf8')) as Array<{
            slug: string;
          }>
        ).map((i) => i.slug);
        const distinct = await distinctQueries(base, slugs, instrumentSlugs);
        const distinctRun = await runWrk(wrk.path, work, base, distinct, { connections: 10, durationSeconds: seconds });
        d.queryDistinct = {
          ...distinctRun,
          urls: distinct.length,
          answerCacheEntries: ANSWER_CACHE_ENTRIES,
          hitRateAtMost: round(ANSWER_CACHE_ENTRIES / distinct.length, 4),
        };
        figures.push(
          figure(
            `catalog query p99, distinct words and pages (answers not cached), ${size} works, 10 clients (target <= 10 ms)`,
            'ms',
            distinctRun.latencyP99Ms,
            staticAt10.latencyP99Ms,
            'same service, static record GET p99, 10 clients',
            'lower',
            { ratio: round(10 / staticAt10.latencyP99Ms, 3), op: '<=' },
          ),
        );

        ctx.log(`${size} works: static GETs alone and under query load`);
        // Static GETs alone, then while 10 connections query.
        const staticAlone = await runWrk(wrk.path, work, base, staticReqs, {
          connections: 2,
          durationSeconds: seconds,
        });
        const load = runWrk(wrk.path, work, base, [{ path: queries[0]![1] }], {
          connections: 10,
          durationSeconds: seconds + 2,
        });
        await sleep(1000);
        const staticLoaded = await runWrk(wrk.path, work, base, staticReqs, {
          connections: 2,
          durationSeconds: seconds,
        });
        const loadResult = await load;
        d.staticAlone = staticAlone;
        d.staticUnderQueryLoad = staticLoaded;
        d.queryLoadDuringStatic = loadResult;
        figures.push(
          figure(
            `static GET p99 under query load, ${size} works`,
            'ms',
            staticLoaded.latencyP99Ms,
            staticAlone.latencyP99Ms,
            'same static GETs, no query load',
            'lower',
            { ratio: 2, op: '<=' },
          ),
        );
        // p99 alone can pass while the static GETs are starved: wrk's connections are closed
        // loops, so a server that answers fewer requests can still answer each quickly. The
        // throughput ratio shows that case.
        figures.push(
          figure(
            `static GET throughput under query load, ${size} works`,
            'req/s',
            staticLoaded.requestsPerSecond,
            staticAlone.requestsPerSecond,
            'same static GETs, no query load',
            'higher',
            { ratio: 0.5, op: '>=' },
          ),
        );

        ctx.log(`${size} works: catalog-wide resolve`);
        // Catalog-wide resolve.
        const resolveReq: WrkRequest[] = [
          {
            path: '/api/v1/music/resolve',
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: RESOLVE_BODY(true),
          },
        ];
        const noMusicReq: WrkRequest[] = [
          {
            path: '/api/v1/music/resolve',
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: RESOLVE_BODY(false),
          },
        ];
        await check(base, resolveReq, 200);
        await check(base, noMusicReq, 200);
        // How the catalog-wide search went (arrangements judged, whether its bounds cut anything).
        d.resolveSearch = (
          (await (
            await retrying(() =>
              fetch(`${base}/api/v1/music/resolve`, {
                method: 'POST',
                headers: { 'Content-Type': 'application/json' },
                body: RESOLVE_BODY(true),
              }),
            )
          ).json()) as { data: { search: unknown } }
        ).data.search;
        const noMusic = await runWrk(wrk.path, work, base, noMusicReq, { connections: 10, durationSeconds: seconds });
        const resolve = await runWrk(wrk.path, work, base, resolveReq, { connections: 10, durationSeconds: seconds });
        d.resolveCatalogWide = resolve;
        d.resolveNoMusic = noMusic;
        figures.push(
          figure(
            `catalog-wide resolve p99, ${size} works, 10 clients (target <= 10 ms)`,
            'ms',
            resolve.latencyP99Ms,
            noMusic.latencyP99Ms,
            'same request with musicAllowed: false',
            'lower',
            { ratio: round(10 / noMusic.latencyP99Ms, 3), op: '<=' },
          ),
        );
        // The same, every request a body the service has not answered (a different channel key
        // and mood each time: more bodies than the answer cache holds).
        const distinctResolve: WrkRequest[] = Array.from(
          { length: DISTINCT_FACTOR * ANSWER_CACHE_ENTRIES },
          (_, k) => ({
            path: '/api/v1/music/resolve',
            method: 'POST',
            headers: { 'Content-Type': 'application/json' },
            body: JSON.stringify({
              channel: { channelKey: `bench-${k}`, intendedRole: 'music-bed', musicAllowed: true },
              requirements: {
                requiredFormats: ['mp3'],
                style: 'calm',
                mood: ['warm', 'bright', 'dark', 'gentle', 'solemn'][k % 5],
              },
            }),
          }),
        );
        const resolveDistinct = await runWrk(wrk.path, work, base, distinctResolve, {
          connections: 10,
          durationSeconds: seconds,
        });
        d.resolveDistinct = {
          ...resolveDistinct,
          bodies: distinctResolve.length,
          hitRateAtMost: round(ANSWER_CACHE_ENTRIES / distinctResolve.length, 4),
        };
        figures.push(
          figure(
            `catalog-wide resolve p99, distinct bodies (answers not cached), ${size} works, 10 clients (target <= 10 ms)`,
            'ms',
            resolveDistinct.latencyP99Ms,
            noMusic.latencyP99Ms,
            'same request with musicAllowed: false',
            'lower',
            { ratio: round(10 / noMusic.latencyP99Ms, 3), op: '<=' },
          ),
        );
        d.rssAfterLoadMiB = mb(memoryOf(run.svc.proc.pid).rssBytes);

        // Static files against nginx (one worker) and a bare node:http ceiling at 10,000 works
        // (the quick run's size otherwise), interleaved: bench/lib/static.ts.
        if (size === (ctx.quick ? sizes[0] : 10000)) {
          const r = await staticAtScale({
            ctx,
            wrkPath: wrk.path,
            workDir: work,
            base,
            clientDir: path.join(g.buildDir, 'client'),
            slugs,
            seconds,
            label: `${size} works`,
          });
          d.staticVsNginx = r.details;
          figures.push(...r.figures);
          notes.push(...r.notes);
        }
        await run.svc.proc.stop();

        if (size === sizes.at(-1)) {
          ctx.log(`${size} works: swap stall`);
          const stall = async (swap: boolean) => {
            const port = await freePort();
            const probe = new TrackedProcess(
              'swap probe',
              process.execPath,
              [
                path.join(PROJECT_ROOT, 'bench', 'lib', 'swap-probe.ts'),
                '--build',
                g.buildDir,
                '--port',
                String(port),
                '--base-url',
                GENERATED_BASE_URL,
                '--data',
                g.dataDir,
                ...(swap ? [] : ['--no-swap']),
              ],
              { cwd: PROJECT_ROOT },
            );
            ctx.cleanup.track(probe);
            const pbase = `http://127.0.0.1:${port}`;
            for (let k = 0; k < 600 && (await get(`${pbase}/api/v1`).catch(() => null))?.status !== 200; k++)
              await sleep(50);
            const r = await runWrk(wrk.path, work, pbase, staticReqs.slice(0, 2000), {
              connections: 2,
              durationSeconds: ctx.quick ? 6 : 12,
            });
            const swaps = probe
              .tail(8000)
              .split('\n')
              .filter((l) => l.startsWith('{"swapMs"'))
              .map((l) => (JSON.parse(l) as { swapMs: number }).swapMs);
            await probe.stop();
            return { wrk: r, swaps };
          };
          const without = await stall(false);
          const withSwaps = await stall(true);
          d.swapStall = { without, withSwaps };
          figures.push(
            figure(
              `longest request during swaps, ${size} works (target <= 100 ms)`,
              'ms',
              withSwaps.wrk.latencyMaxMs,
              without.wrk.latencyMaxMs,
              'same probe, no swaps',
              'lower',
              { ratio: round(100 / without.wrk.latencyMaxMs, 3), op: '<=' },
            ),
          );
          if (withSwaps.swaps.length === 0) notes.push('the swap probe reported no swap');
        }
      }
      const missed = figures.filter((f) => f.goal?.met === false).map((f) => f.name);
      details.clientConnectionRetries = { ...clientRetries };
      return {
        status: 'ok',
        ...(missed.length || notes.length
          ? { message: [...(missed.length ? [`not met: ${missed.join('; ')}`] : []), ...notes].join('. ') }
          : {}),
        figures,
        details,
      };
    },
  };
}
