/**
 * Engraving benches (docs/decisions/0030-engraving-pool-and-render-cache.md), on real scores of ../shared/corpora: by default the 122 string
 * quartets and a 200-song sample spread over the lieder corpus (`--engrave-quartets N`,
 * `--engrave-songs N` take subsets: the first N quartets by size, smallest first, and N songs
 * spread over the corpus).
 *
 *   engrave         throughput: the engraving pool on 2 workers vs Verovio's toolkit called
 *                   directly in 2 plain worker threads on the same files (goal >= 0.8x), pages/s
 *                   and peak RSS; each side in its own process, run alternately.
 *   engrave-build   full build of a content repository made from those scores: cold render
 *                   cache, then warm, vs the same build with the scores kept elsewhere (url
 *                   assets, nothing to engrave); goal: warm <= 1.5x.
 *   engrave-accept  accept of the largest quartet on a running `npm start` server: /healthz p99
 *                   while the accept runs (goal <= 50 ms) vs /healthz p99 of the idle server.
 */
import { execFile } from 'node:child_process';
import http from 'node:http';
import { mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { newWorkFile, parseWorkFile } from '../../src/domain/work-file.ts';
import {
  corpusScores,
  findScore,
  LARGEST_QUARTET,
  LIEDER,
  makeCorpusContent,
  QUARTETS,
  spread,
} from '../../test/helpers/corpus-content.ts';
import { startHttpsServer } from '../../test/helpers/https-server.ts';
import { figure, type Section } from './results.ts';
import { postContribution, scoreArrangement, serviceTemplate } from '../../test/helpers/score-contribution.ts';
import { freePort, PROJECT_ROOT, round, siteBuildCommand, waitForHttp, spawnService } from './util.ts';

const run = promisify(execFile);

export interface EngraveBenchOptions {
  quartets?: number;
  songs?: number;
  /**
   * engrave-build: the render cache's folder, kept after the run (default: a temporary one). When
   * it already holds engravings the first build is not cold: it is reported as "first build" with
   * how many it found, and no cold figure is given.
   */
  cacheDir?: string;
}

/** Engraving entries in a render cache folder (a local blob store's root). */
export function cachedEngravings(cacheDir: string): number {
  try {
    return readdirSync(path.join(cacheDir, 'named', 'render-cache', 'v1', 'engraving'), {
      recursive: true,
      withFileTypes: true,
    }).filter((e) => e.isFile() && !e.name.endsWith('.tmp')).length;
  } catch {
    return 0;
  }
}

function benchFiles(o: EngraveBenchOptions): string[] {
  const quartets = corpusScores(QUARTETS)
    .map((f) => ({ f, size: statSync(f).size }))
    .sort((a, b) => a.size - b.size)
    .map((x) => x.f);
  return [...quartets.slice(0, o.quartets ?? quartets.length), ...spread(corpusScores(LIEDER), o.songs ?? 200)];
}

interface SideResult {
  mode: string;
  files: number;
  failed: number;
  /** Files not engraved, with why (over a budget, a worker's WebAssembly memory exhausted). */
  failures: { file: string; message: string }[];
  /** Workers replaced after a file because Verovio's memory passed the recycle mark. */
  recycled: number;
  pages: number;
  ms: number;
  peakRssBytes: number;
}

async function side(mode: 'pool' | 'direct', list: string): Promise<SideResult> {
  const { stdout } = await run(
    process.execPath,
    [path.join(PROJECT_ROOT, 'bench', 'lib', 'engrave-run.ts'), mode, '2', list],
    { cwd: PROJECT_ROOT, maxBuffer: 16 * 1024 * 1024 },
  ).catch((err: Error & { stderr?: string }) => {
    throw new Error(`${mode} side failed: ${err.message}\n${String(err.stderr ?? '').slice(-2000)}`);
  });
  return JSON.parse(stdout.trim().split('\n').at(-1)!) as SideResult;
}

const quantile = (xs: number[], q: number) => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(s.length * q) - 1))]!;
};
const p99 = (xs: number[]) => quantile(xs, 0.99);

export function engraveThroughputSection(o: EngraveBenchOptions): Section {
  return {
    name: 'engrave',
    description:
      'engraving throughput (pages/s) of the engraving pool on 2 workers vs Verovio called directly in 2 plain worker threads, same files (122 quartets + 200 songs by default); goal >= 0.8x',
    async run(ctx) {
      const dir = ctx.cleanup.tempDir('engrave');
      const files = benchFiles(o);
      const list = path.join(dir, 'files.json');
      writeFileSync(list, JSON.stringify(files));
      ctx.log(`${files.length} files`);
      // Alternate the sides (anchor first) so a change in the machine's load hits both.
      const direct = await side('direct', list);
      ctx.log(
        `direct: ${direct.pages} pages in ${direct.ms} ms (${direct.failed} failed, ${direct.recycled} recycled)`,
      );
      const pool = await side('pool', list);
      ctx.log(`pool: ${pool.pages} pages in ${pool.ms} ms (${pool.failed} failed, ${pool.recycled} recycled)`);
      const pps = (r: SideResult) => round((r.pages / r.ms) * 1000, 3);
      return {
        status: 'ok',
        figures: [
          figure(
            'engraving pool, pages/s',
            'pages/s',
            pps(pool),
            pps(direct),
            'Verovio toolkit called directly in 2 plain worker threads, same files',
            'higher',
            { ratio: 0.8, op: '>=' },
          ),
          figure(
            'engraving pool, peak RSS',
            'bytes',
            pool.peakRssBytes,
            direct.peakRssBytes,
            'peak RSS of the direct anchor process',
            'lower',
          ),
        ],
        details: { files: files.map((f) => path.relative(path.join(PROJECT_ROOT, '..'), f)), pool, direct },
      };
    },
  };
}

/** The same works with each score kept elsewhere (a `url` asset): nothing to engrave. */
function withoutScores(content: string, slugs: string[]): void {
  for (const slug of slugs) {
    const file = path.join(content, 'works', slug, 'index.md');
    const { data, body } = parseWorkFile(readFileSync(file, 'utf8'));
    const front = data as Record<string, any>;
    const asset = front.sourceAssets[0];
    delete asset.file;
    asset.url = 'https://musescore.com/openscore';
    writeFileSync(file, newWorkFile(front, body));
    rmSync(path.join(content, 'works', slug, 'score.mxl'));
  }
}

async function timedBuild(content: string, out: string, cache: string | null): Promise<{ ms: number; info: any }> {
  const t0 = Date.now();
  await run(
    process.execPath,
    [
      ...siteBuildCommand(content, out, 'http://127.0.0.1:4321'),
      '--render-cache',
      cache ?? 'none',
      '--engrave-workers',
      '2',
    ],
    { cwd: PROJECT_ROOT, maxBuffer: 64 * 1024 * 1024 },
  );
  const ms = Date.now() - t0;
  const info = JSON.parse(readFileSync(path.join(out, 'build.json'), 'utf8'));
  rmSync(out, { recursive: true, force: true });
  return { ms, info };
}

export function engraveBuildSection(o: EngraveBenchOptions): Section {
  return {
    name: 'engrave-build',
    description:
      'full build of a content repository made from the bench scores: cold render cache, then warm, vs the same build without the scores; goal warm <= 1.5x',
    async run(ctx) {
      const dir = ctx.cleanup.tempDir('engrave-build');
      const files = benchFiles(o);
      const content = path.join(dir, 'content');
      const bare = path.join(dir, 'content-without-scores');
      const slugs = makeCorpusContent(content, files, { sampleWorks: false });
      makeCorpusContent(bare, files, { sampleWorks: false });
      withoutScores(bare, slugs);
      const cache = o.cacheDir ? path.resolve(o.cacheDir) : path.join(dir, 'cache');
      mkdirSync(cache, { recursive: true });
      const given = cachedEngravings(cache);
      if (given > 0) ctx.log(`the given render cache ${cache} holds ${given} engravings: the first build is not cold`);
      const anchor1 = await timedBuild(bare, path.join(dir, 'out'), null);
      ctx.log(`without scores: ${anchor1.ms} ms`);
      const cold = await timedBuild(content, path.join(dir, 'out'), cache);
      ctx.log(`${given > 0 ? 'first build' : 'cold cache'}: ${cold.ms} ms (${JSON.stringify(cold.info.scores)})`);
      const warm = await timedBuild(content, path.join(dir, 'out'), cache);
      ctx.log(`warm cache: ${warm.ms} ms (${JSON.stringify(warm.info.scores)})`);
      const anchor2 = await timedBuild(bare, path.join(dir, 'out'), null);
      ctx.log(`without scores again: ${anchor2.ms} ms`);
      const anchor = Math.round((anchor1.ms + anchor2.ms) / 2);
      return {
        status: 'ok',
        figures: [
          figure('full build, warm render cache', 'ms', warm.ms, anchor, 'the same build without the scores', 'lower', {
            ratio: 1.5,
            op: '<=',
          }),
          ...(given > 0
            ? []
            : [
                figure(
                  'full build, cold render cache',
                  'ms',
                  cold.ms,
                  anchor,
                  'the same build without the scores',
                  'lower',
                ),
              ]),
        ],
        details: {
          works: slugs.length,
          givenCache: given > 0 ? { dir: cache, engravings: given, firstBuildMs: cold.ms } : null,
          coldScores: cold.info.scores,
          warmScores: warm.info.scores,
          withoutScoresMs: [anchor1.ms, anchor2.ms],
          coldPhases: cold.info.phases,
          warmPhases: warm.info.phases,
        },
      };
    },
  };
}

export function engraveAcceptSection(): Section {
  return {
    name: 'engrave-accept',
    description:
      'accept of the largest real quartet on a running server: /healthz p99 while the accept runs (Verovio in the pool) vs the idle server; goal <= 50 ms',
    async run(ctx) {
      const dir = ctx.cleanup.tempDir('engrave-accept');
      const score = readFileSync(findScore(QUARTETS, LARGEST_QUARTET));
      const files = await startHttpsServer({
        '/quartet.mxl': { body: score, contentType: 'application/vnd.recordare.musicxml' },
      });
      try {
        writeFileSync(path.join(dir, 'ca.pem'), files.ca);
        const port = await freePort();
        const url = `http://127.0.0.1:${port}`;
        const key = 'bench-admin-key';
        const proc = spawnService({
          cleanup: ctx.cleanup,
          port,
          label: 'server',
          env: {
            ARCHIVE_DATA_DIR: path.join(dir, 'data'),
            ARCHIVE_ADMIN_KEYS: key,
            // The allow-list names host and port.
            ARCHIVE_FETCH_ALLOW_HOSTS: `localhost:${files.port}`,
            NODE_EXTRA_CA_CERTS: path.join(dir, 'ca.pem'),
            // A busy machine loads a 96-page quartet for minutes: keep the request open.
            ARCHIVE_REQUEST_TIMEOUT_MS: '3600000',
            // The accept answers nothing until the checks are done; the idle-socket timeout (60 s) would cut it.
            ARCHIVE_IDLE_TIMEOUT_MS: '3600000',
          },
        });
        await waitForHttp(`${url}/healthz`, proc, 600_000);
        // When each sample started (ms after the probe began): where in the accept the slow ones fell.
        const startedAt = new Map<number[], number[]>();
        const probe = async (until: () => boolean, minMs: number) => {
          const lat: number[] = [];
          const at: number[] = [];
          startedAt.set(lat, at);
          const t0 = Date.now();
          while (until() || Date.now() - t0 < minMs) {
            const s = performance.now();
            at.push(Date.now() - t0);
            const res = await fetch(`${url}/healthz`);
            await res.arrayBuffer();
            lat.push(performance.now() - s);
            await new Promise((r) => setTimeout(r, 20));
          }
          return lat;
        };
        const idle = await probe(() => false, 5000);
        const code = await contribute(url, files.url, score);
        let running = true;
        const during = probe(() => running, 0);
        during.catch(() => undefined);
        const t0 = Date.now();
        let res: Response;
        let body: Record<string, any>;
        let lat: number[];
        try {
          // node:http, not fetch: fetch gives up waiting for headers after 300 s.
          const answer = await postJson(`${url}/api/v1/admin/contributions/${code}/accept`, key, {
            reviewer: 'Bench Editor',
          });
          res = { status: answer.status } as Response;
          body = answer.body;
          running = false;
          lat = await during;
        } catch (err) {
          running = false;
          throw new Error(`accept failed: ${(err as Error).message}; server output:\n${proc.tail(3000)}`);
        }
        const acceptMs = Date.now() - t0;
        const verification = body.data?.review?.verification?.[0];
        const checks = verification?.checks;
        await proc.stop();
        // Only an accept that fetched the quartet and ran its checks measured anything.
        const measured = res.status === 200 && verification?.status === 'verified' && checks?.passed === true;
        return {
          status: measured ? 'ok' : 'error',
          ...(measured
            ? {}
            : { message: `the quartet was not checked: ${JSON.stringify(verification ?? body).slice(0, 400)}` }),
          figures: [
            figure(
              '/healthz p99 during accept',
              'ms',
              round(p99(lat)!, 1),
              round(p99(idle)!, 1),
              'idle server',
              'lower',
            ),
            {
              ...figure('/healthz p99 during accept vs 50 ms', 'ms', round(p99(lat)!, 1), 50, '50 ms goal', 'lower', {
                ratio: 1,
                op: '<=',
              }),
            },
          ],
          details: {
            acceptMs,
            acceptStatus: res.status,
            check: checks?.summary ?? null,
            verification: verification?.status ?? null,
            samplesDuring: lat.length,
            p50DuringMs: round(quantile(lat, 0.5)!, 1),
            p99DuringMs: round(p99(lat)!, 1),
            maxDuringMs: round(Math.max(...lat), 1),
            samplesIdle: idle.length,
            p50IdleMs: round(quantile(idle, 0.5)!, 1),
            maxIdleMs: round(Math.max(...idle), 1),
            slowestDuring: lat
              .map((ms, i) => ({ ms: round(ms, 1), atMs: startedAt.get(lat)?.[i] ?? null }))
              .sort((a, b) => b.ms - a.ms)
              .slice(0, 8),
            loadAverage: os.loadavg().map((x) => round(x, 2)),
          },
        };
      } finally {
        await files.close();
      }
    },
  };
}

function postJson(url: string, key: string, payload: unknown): Promise<{ status: number; body: Record<string, any> }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      url,
      { method: 'POST', headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' } },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += String(c)));
        res.on('end', () => {
          try {
            resolve({ status: res.statusCode ?? 0, body: JSON.parse(text) as Record<string, any> });
          } catch (err) {
            reject(err as Error);
          }
        });
      },
    );
    req.on('error', reject);
    req.end(JSON.stringify(payload));
  });
}

async function contribute(url: string, fileBase: string, score: Buffer): Promise<string> {
  const t = scoreArrangement(await serviceTemplate(url), {
    idempotencyKey: `bench-engrave-accept-${Date.now()}`,
    submitter: 'Bench',
    kind: 'mxl',
    title: 'A whole string quartet (OpenScore, CC0)',
    downloadUrl: `${fileBase}/quartet.mxl`,
    bytes: score,
    arrangementTitle: 'The quartet, whole',
    changeSummary: 'A whole quartet as a score.',
    rationale: 'Bench.',
  });
  const { status, body } = await postContribution(url, t);
  if (status !== 202) throw new Error(`contribution refused: ${JSON.stringify(body).slice(0, 400)}`);
  return (body.data ?? body).trackingCode as string;
}
