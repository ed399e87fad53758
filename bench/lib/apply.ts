/**
 * Apply-to-visible: from the admin `apply` call to the new record being served, for generated
 * catalogs of 24, 2,000 and 10,000 works (--quick: 24 and 500). Each size: generate, seed a
 * content repository, build (the baseline: the plain full build of the same catalog, measured in
 * the same run), open a server in-process with the admin routes, submit + accept a correction
 * report (one field), then time apply until GET /api/v1/works/{slug} shows the new value.
 * Goal: <= 2 s at 10,000 works (docs/review.md explains the incremental path this needs).
 *
 *   node bench/lib/apply.ts [--quick]     (or through bench/run.ts once wired)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createApp } from '../../api/app.ts';
import { ensureBuild, Rebuilder } from '../../api/site/builds.ts';
import { loadConfig } from '../../api/config.ts';
import { ensureContentRepo } from '../../api/site/content-repo.ts';
import { SiteHandle } from '../../api/site/site-handle.ts';
import { generateCatalog } from '../../scripts/generate-catalog.ts';

const PROJECT_ROOT = path.resolve(import.meta.dirname, '..', '..');
const KEY = 'bench-admin-key-1';

export interface ApplyRun {
  works: number;
  fullBuildMs: number;
  applyToVisibleMs: number;
  applyCallMs: number;
  goalMs: number;
  pass: boolean;
}

async function one(works: number): Promise<ApplyRun> {
  const root = mkdtempSync(path.join(os.tmpdir(), `pdma-apply-bench-${works}-`));
  try {
    const gen = generateCatalog({ works, outDir: path.join(root, 'seed') });
    const config = loadConfig({ ARCHIVE_DATA_DIR: path.join(root, 'data'), PUBLIC_BASE_URL: 'http://127.0.0.1:4321', ARCHIVE_ADMIN_KEYS: KEY }, PROJECT_ROOT);
    const repo = await ensureContentRepo(config.contentRepo, gen.outDir);
    const t0 = Date.now();
    const buildDir = await ensureBuild(config, repo.head);
    const fullBuildMs = Date.now() - t0;
    const handle = await SiteHandle.open(buildDir);
    const rebuilder = new Rebuilder(config, handle);
    const app = await createApp({ config, handle, rebuilder, review: {} });
    try {
      const slug = gen.slugs[Math.floor(gen.slugs.length / 2)]!;
      const proposed = `Bench revision ${Date.now()}`;
      const submitted = await app.inject({
        method: 'POST',
        url: '/api/v1/correction-reports',
        payload: { workSlug: slug, targetType: 'work', fieldName: 'summary', proposedValue: proposed, rationale: 'bench', reporterName: 'Bench', reporterKind: 'AutomatedAgent' },
      });
      const code = (submitted.json().data ?? submitted.json()).trackingCode as string;
      const headers = { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' };
      const accept = await app.inject({ method: 'POST', url: `/api/v1/admin/correction-reports/${code}/accept`, headers, payload: { reviewer: 'Bench' } });
      if (accept.statusCode !== 200) throw new Error(`accept failed: ${accept.body}`);
      const started = Date.now();
      const applied = await app.inject({ method: 'POST', url: `/api/v1/admin/correction-reports/${code}/apply`, headers, payload: { reviewer: 'Bench' } });
      const applyCallMs = Date.now() - started;
      if (applied.statusCode !== 200) throw new Error(`apply failed: ${applied.body}`);
      for (;;) {
        const rec = await app.inject({ url: `/api/v1/works/${slug}` });
        if (rec.json().data?.summary === proposed) break;
        if (Date.now() - started > 600_000) throw new Error('the new record never became visible');
        await new Promise((r) => setTimeout(r, 20));
      }
      const applyToVisibleMs = Date.now() - started;
      return { works, fullBuildMs, applyToVisibleMs, applyCallMs, goalMs: 2000, pass: applyToVisibleMs <= 2000 };
    } finally {
      await app.close();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

export async function runApplyBench(options: { quick: boolean; log?: (line: string) => void }): Promise<{ runs: ApplyRun[]; pass: boolean }> {
  const sizes = options.quick ? [24, 500] : [24, 2_000, 10_000];
  const runs: ApplyRun[] = [];
  for (const works of sizes) {
    const r = await one(works);
    options.log?.(`apply ${works} works: apply-to-visible ${r.applyToVisibleMs} ms (full build ${r.fullBuildMs} ms)`);
    runs.push(r);
  }
  return { runs, pass: runs.every((r) => r.works < 10_000 || r.pass) };
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const result = await runApplyBench({ quick: process.argv.includes('--quick'), log: (l) => console.log(l) });
  console.log(JSON.stringify(result, null, 2));
}
