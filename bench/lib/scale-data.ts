/**
 * The scale benches' generated data folders and the service started on one (bench/lib/scale.ts
 * and bench/lib/static.ts both use them; their own file so that neither imports the other).
 */
import { existsSync, mkdirSync, readdirSync } from 'node:fs';
import path from 'node:path';
import type { SectionContext } from './results.ts';
import { PROJECT_ROOT, TrackedProcess, round, sleep, spawnService, type Cleanup } from './util.ts';

/** Generated builds link to this origin (the build key depends on it); the service listens on any port. */
export const GENERATED_BASE_URL = 'http://127.0.0.1:4398';

export interface Generated {
  dataDir: string;
  buildDir: string;
  works: number;
}

export async function ensureGenerated(
  ctx: SectionContext,
  works: number,
  keepDir: string | undefined,
): Promise<Generated> {
  const dataDir = keepDir ? path.join(path.resolve(keepDir), `works-${works}`) : ctx.cleanup.tempDir(`scale-${works}`);
  const builds = path.join(dataDir, 'builds');
  const existing = existsSync(builds)
    ? readdirSync(builds).filter((b) => existsSync(path.join(builds, b, 'build.json')))
    : [];
  if (existing.length === 1 && existsSync(path.join(builds, existing[0]!, 'index', 'catalog.json'))) {
    ctx.log(`${works} works: reusing the generated build in ${dataDir}`);
    return { dataDir, buildDir: path.join(builds, existing[0]!), works };
  }
  mkdirSync(dataDir, { recursive: true });
  ctx.log(`${works} works: generating content, records and index files (no Astro) ...`);
  const heapMb = Math.max(2048, Math.ceil(works / 1000) * 80);
  const proc = new TrackedProcess(
    'generated-build',
    process.execPath,
    [
      `--max-old-space-size=${heapMb}`,
      path.join(PROJECT_ROOT, 'bench', 'lib', 'generated-build.ts'),
      '--works',
      String(works),
      '--data',
      dataDir,
      '--base-url',
      GENERATED_BASE_URL,
    ],
    { cwd: PROJECT_ROOT },
  );
  ctx.cleanup.track(proc);
  await proc.exited;
  if (proc.exitCode !== 0) throw new Error(`generating ${works} works failed (exit ${proc.exitCode}):\n${proc.tail()}`);
  const line = proc
    .tail(4000)
    .trim()
    .split('\n')
    .filter((l) => l.startsWith('{'))
    .at(-1);
  const result = JSON.parse(line ?? '{}') as { buildDir: string };
  return { dataDir, buildDir: result.buildDir, works };
}

interface Service {
  proc: TrackedProcess;
  base: string;
  readyMs: number;
}

/** Start scripts/start.ts on a generated data folder; ready when GET /api/v1 answers 200 (polled every 20 ms). */
export async function startOn(cleanup: Cleanup, dataDir: string, port: number): Promise<Service> {
  const base = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const proc = spawnService({
    cleanup,
    port,
    env: { PUBLIC_BASE_URL: GENERATED_BASE_URL, ARCHIVE_DATA_DIR: dataDir, ARCHIVE_CONTENT_REPO: undefined },
  });
  for (;;) {
    if (!proc.running) throw new Error(`the service exited before answering:\n${proc.tail()}`);
    if (performance.now() - started > 120_000)
      throw new Error(`the service did not answer within 120 s:\n${proc.tail()}`);
    try {
      const r = await fetch(`${base}/api/v1`, { signal: AbortSignal.timeout(1000) });
      await r.arrayBuffer();
      if (r.status === 200) return { proc, base, readyMs: round(performance.now() - started, 0) };
    } catch {
      // not listening yet
    }
    await sleep(20);
  }
}
