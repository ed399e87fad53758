/**
 * Apply-to-visible: from the admin `apply` call to the new record being served, for generated
 * catalogs of 24, 2,000 and 10,000 works (--quick: 24 and 500). Each size: generate, seed a
 * content repository, build (the baseline: the plain full build of the same catalog, measured in
 * the same run), open a server in-process with the admin routes, submit + accept a correction
 * report (one field: the title gains a new word), then, over a real loopback socket, time from the
 * apply request (`Prefer: respond-async`, answered 202 at once) until the new value is served by
 * GET /api/v1/works/{slug}, its index.md, its HTML page and GET /api/v1/works?query=<new word>.
 * The rebuild is incremental (docs/review.md, "Apply-to-visible and the incremental path"); the
 * run records the served build's mode and the incremental build's own time beside the full build.
 * Goal: <= 2 s at 10,000 works.
 *
 *   node bench/lib/apply.ts [--quick] [--sizes 10000,100000] [--keep DIR]   (or npm run bench -- --only apply)
 *
 * `--keep DIR` keeps each size's catalog, content repository and builds in DIR/apply-<works> and
 * reuses them on the next run (a development aid: the first full build is not repeated, so such a
 * run's fullBuildMs is only the check that the build exists).
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../../api/app.ts';
import { ensureBuild, readBuildInfo, Rebuilder } from '../../api/site/builds.ts';
import { readFileSync } from 'node:fs';
import { loadConfig } from '../../api/config.ts';
import { ensureContentRepo } from '../../api/site/content-repo.ts';
import { SiteHandle } from '../../api/site/site-handle.ts';
import { generateCatalog } from '../../scripts/generate-catalog.ts';

const PROJECT_ROOT = path.resolve(import.meta.dirname, '..', '..');
const KEY = 'bench-admin-key-1';

export interface ApplyRun {
  works: number;
  fullBuildMs: number;
  /** From the apply request to the new value served as JSON, Markdown, HTML and in a query. */
  applyToVisibleMs: number;
  /** The apply call's answer (202 "applying", `Prefer: respond-async`). */
  applyCallMs: number;
  /** When each surface first showed the new value, from the apply request. */
  visibleMs: { json: number; markdown: number; html: number; query: number };
  /** `apply.visibleAtUtc - apply.requestedAtUtc` as the tracking record states it. */
  trackedVisibleMs: number;
  /** How the served build was made ("incremental", or "full" with the reason the incremental path gave up). */
  mode: string;
  /** The build child's own time for the new folder (build.json durationMs). */
  newBuildMs: number;
  /** An incremental build's phases (build.json incremental.phases). */
  phases: Record<string, number> | null;
  goalMs: number;
  pass: boolean;
  /** The apply job's own phases, from its log line (api/review/service.ts). */
  applyPhases: Record<string, unknown> | null;
  /** The machine's 1-minute load average when the run ended (the machine is shared). */
  loadAverage: number;
}

/**
 * `keep`: a folder kept between runs (generated catalog, content repository, first full build),
 * so repeated runs at one size skip generating and the first full build; its `fullBuildMs` is then
 * the one measured when the folder was made (null when it was not measured in this run).
 */
async function one(works: number, keep?: string): Promise<ApplyRun> {
  const root = keep ? path.join(keep, `apply-${works}`) : mkdtempSync(path.join(os.tmpdir(), `pdma-apply-bench-${works}-`));
  if (keep) mkdirSync(root, { recursive: true });
  try {
    const seed = path.join(root, 'seed');
    const reuse = keep !== undefined && existsSync(path.join(root, 'data', 'content', '.git'));
    const gen = reuse ? { outDir: seed, slugs: readdirSync(path.join(root, 'data', 'content', 'works')).sort() } : generateCatalog({ works, outDir: seed });
    const config = loadConfig({ ARCHIVE_DATA_DIR: path.join(root, 'data'), PUBLIC_BASE_URL: 'http://127.0.0.1:4321', ARCHIVE_ADMIN_KEYS: KEY }, PROJECT_ROOT);
    const repo = await ensureContentRepo(config.contentRepo, gen.outDir);
    const t0 = Date.now();
    const buildDir = await ensureBuild(config, repo.head);
    const fullBuildMs = Date.now() - t0;
    const handle = await SiteHandle.open(buildDir);
    const rebuilder = new Rebuilder(config, handle);
    let applyPhases: Record<string, unknown> | null = null;
    const logger = {
      level: 'info',
      stream: {
        write(line: string) {
          const parsed = JSON.parse(line) as { apply?: { phases?: Record<string, unknown>; totalMs?: number } };
          if (parsed.apply) applyPhases = { totalMs: parsed.apply.totalMs, ...parsed.apply.phases };
        },
      },
    };
    const app = await createApp({ config, handle, rebuilder, review: {} }, { logger });
    // A real socket: every request below goes through the loopback HTTP server.
    await app.listen({ port: 0, host: '127.0.0.1' });
    const server = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    const call = async (url: string, init: RequestInit = {}) => {
      const res = await fetch(`${server}${url}`, init);
      return { status: res.status, body: await res.text() };
    };
    const data = (body: string) => {
      const parsed = JSON.parse(body) as { data?: any };
      return parsed.data ?? parsed;
    };
    try {
      const slug = gen.slugs[reuse ? Math.floor(Math.random() * gen.slugs.length) : Math.floor(gen.slugs.length / 2)]!;
      const word = `zq${Date.now().toString(36)}`;
      const currentTitle = data((await call(`/api/v1/works/${slug}`)).body).title as string;
      const proposed = `${currentTitle} ${word}`;
      const submitted = await call('/api/v1/correction-reports', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ workSlug: slug, targetType: 'work', fieldName: 'title', currentValue: currentTitle, proposedValue: proposed, rationale: 'bench', reporterName: 'Bench', reporterKind: 'AutomatedAgent' }),
      });
      if (submitted.status !== 202) throw new Error(`report failed: ${submitted.body}`);
      const code = data(submitted.body).trackingCode as string;
      const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
      const accept = await call(`/api/v1/admin/correction-reports/${code}/accept`, { method: 'POST', headers, body: JSON.stringify({ reviewer: 'Bench' }) });
      if (accept.status !== 200) throw new Error(`accept failed: ${accept.body}`);
      const started = Date.now();
      const applied = await call(`/api/v1/admin/correction-reports/${code}/apply`, { method: 'POST', headers: { ...headers, prefer: 'respond-async' }, body: JSON.stringify({ reviewer: 'Bench' }) });
      const applyCallMs = Date.now() - started;
      if (applied.status !== 202) throw new Error(`apply failed: ${applied.status} ${applied.body}`);
      const seen: Partial<ApplyRun['visibleMs']> = {};
      const checks: Record<keyof ApplyRun['visibleMs'], () => Promise<boolean>> = {
        json: async () => data((await call(`/api/v1/works/${slug}`)).body).title === proposed,
        markdown: async () => (await call(`/api/v1/works/${slug}/index.md`)).body.includes(proposed),
        html: async () => (await call(`/works/${slug}/`)).body.includes(word),
        query: async () => (data((await call(`/api/v1/works?query=${word}`)).body) as { items?: Array<{ slug: string }> }).items?.some((w) => w.slug === slug) ?? false,
      };
      while (Object.keys(seen).length < 4) {
        for (const [name, check] of Object.entries(checks) as Array<[keyof ApplyRun['visibleMs'], () => Promise<boolean>]>) {
          // A reused keep-alive connection the server closed meanwhile (ECONNRESET) is retried, not fatal.
          if (seen[name] === undefined && (await check().catch(() => false))) seen[name] = Date.now() - started;
        }
        if (Date.now() - started > 900_000) throw new Error(`the new value never became visible everywhere: ${JSON.stringify(seen)}`);
        await new Promise((r) => setTimeout(r, 20));
      }
      const applyToVisibleMs = Math.max(...Object.values(seen));
      let tracked = data((await call(`/api/v1/admin/correction-reports/${code}`, { headers })).body);
      while (tracked.apply?.state === 'applying') {
        await new Promise((r) => setTimeout(r, 20));
        tracked = data((await call(`/api/v1/admin/correction-reports/${code}`, { headers })).body);
      }
      if (tracked.apply?.state !== 'visible') throw new Error(`apply ended ${JSON.stringify(tracked.apply)}`);
      const trackedVisibleMs = Date.parse(tracked.apply.visibleAtUtc) - Date.parse(tracked.apply.requestedAtUtc);
      const info = readBuildInfo(handle.current.dir);
      const mode = info?.mode === 'full' && info.fallbackReason ? `full (${info.fallbackReason})` : (info?.mode ?? 'unknown');
      const built = JSON.parse(readFileSync(path.join(handle.current.dir, 'build.json'), 'utf8')) as { durationMs: number; incremental?: { phases: Record<string, number> } };
      const newBuildMs = built.durationMs;
      const phases = built.incremental?.phases ?? null;
      return { works, fullBuildMs, applyToVisibleMs, applyCallMs, visibleMs: seen as ApplyRun['visibleMs'], trackedVisibleMs, mode, newBuildMs, phases, goalMs: 2000, pass: applyToVisibleMs <= 2000, applyPhases, loadAverage: os.loadavg()[0]! };
    } finally {
      await app.close();
    }
  } finally {
    if (!keep) rmSync(root, { recursive: true, force: true });
  }
}

export async function runApplyBench(options: { quick: boolean; sizes?: number[]; keep?: string; log?: (line: string) => void }): Promise<{ runs: ApplyRun[]; pass: boolean }> {
  const sizes = options.sizes ?? (options.quick ? [24, 500] : [24, 2_000, 10_000]);
  const runs: ApplyRun[] = [];
  for (const works of sizes) {
    const r = await one(works, options.keep);
    options.log?.(`apply ${works} works: answered in ${r.applyCallMs} ms, visible everywhere after ${r.applyToVisibleMs} ms (json ${r.visibleMs.json}, md ${r.visibleMs.markdown}, html ${r.visibleMs.html}, query ${r.visibleMs.query}; ${r.mode} build ${r.newBuildMs} ms ${JSON.stringify(r.phases)}; full build ${r.fullBuildMs} ms; load ${r.loadAverage.toFixed(2)}; apply job ${JSON.stringify(r.applyPhases)})`);
    runs.push(r);
  }
  return { runs, pass: runs.every((r) => r.works < 10_000 || r.pass) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf('--sizes');
  const sizes = at > 0 ? process.argv[at + 1]!.split(',').map(Number) : undefined;
  const keepAt = process.argv.indexOf('--keep');
  const keep = keepAt > 0 ? path.resolve(process.argv[keepAt + 1]!) : undefined;
  const result = await runApplyBench({ quick: process.argv.includes('--quick'), sizes, keep, log: (l) => console.log(l) });
  console.log(JSON.stringify(result, null, 2));
}
