/**
 * Section "build": `scripts/build.ts` on a generated catalog (10,000 works; --quick 1,000) in a
 * child process, measuring wall time and peak RSS. Baseline in the same run: the same build of a
 * catalog ten times smaller, so the ratio of works/s shows how the build scales (1.0 = linear).
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { generateCatalog } from '../../scripts/generate-catalog.ts';
import { measureChild, type ChildMeasurement } from './measure.ts';
import { figure, type Section, type SectionContext, type SectionResult } from './results.ts';
import { PROJECT_ROOT, round } from './util.ts';

export function buildSection(): Section {
  return {
    name: 'build',
    description: 'wall time, works/s and peak RSS of scripts/build.ts on a generated catalog, vs a catalog 10x smaller',
    run: runBuild,
  };
}

interface BuildRun {
  works: number;
  generateMs: number;
  measurement: ChildMeasurement;
  worksPerSecond: number | null;
  output: { files: number; bytes: number } | null;
  /** Attempts that failed because another build shared <root>/.astro at the same time. */
  retriedAfter: string[];
}

function folderSize(dir: string): { files: number; bytes: number } {
  let files = 0;
  let bytes = 0;
  const stack = [dir];
  while (stack.length > 0) {
    const d = stack.pop()!;
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) stack.push(p);
      else if (e.isFile()) {
        files++;
        bytes += statSync(p).size;
      }
    }
  }
  return { files, bytes };
}

/** Astro writes prerender chunks to <root>/.astro, shared by every build of this checkout. */
const SHARED_DOT_ASTRO = /ERR_MODULE_NOT_FOUND[\s\S]*\.astro[\\/]\.prerender/;

async function buildOnce(ctx: SectionContext, works: number, timeoutMs: number): Promise<BuildRun> {
  const root = ctx.cleanup.tempDir(`build${works}`);
  const contentDir = path.join(root, 'content');
  const outDir = path.join(root, 'out');
  const gen = generateCatalog({ works, outDir: contentDir, seed: 1 });
  ctx.log(`generated ${works} works in ${gen.durationMs} ms; building ...`);
  const retriedAfter: string[] = [];
  let m: ChildMeasurement;
  for (;;) {
    m = await measureChild(
      `build of ${works} works`,
      process.execPath,
      [path.join(PROJECT_ROOT, 'scripts', 'build.ts'), '--content', contentDir, '--out', outDir, '--base-url', 'http://127.0.0.1:4321', '--quiet'],
      { cwd: PROJECT_ROOT, timeoutMs, cleanup: ctx.cleanup, scratchDir: root },
    );
    if (m.exitCode !== 0 && !m.timedOut && SHARED_DOT_ASTRO.test(m.outputTail) && retriedAfter.length < 2) {
      retriedAfter.push(`exit ${m.exitCode} after ${m.wallMs} ms: another build used ${PROJECT_ROOT}/.astro at the same time`);
      ctx.log('build collided with another build in .astro/.prerender; retrying');
      continue;
    }
    break;
  }
  const ok = m.exitCode === 0 && !m.timedOut;
  const output = ok ? folderSize(path.join(outDir, 'client')) : null;
  ctx.cleanup.removeDir(root);
  return {
    works,
    generateMs: gen.durationMs,
    measurement: m,
    worksPerSecond: ok ? round(works / (m.wallMs / 1000), 1) : null,
    output,
    retriedAfter,
  };
}

function firstErrorLine(tail: string): string {
  const lines = tail.split('\n').map((l) => l.trim()).filter(Boolean);
  return lines.find((l) => /error/i.test(l)) ?? lines.slice(-3).join(' | ');
}

function describe(run: BuildRun): Record<string, unknown> {
  const { outputTail, ...rest } = run.measurement;
  const ok = rest.exitCode === 0 && !rest.timedOut;
  return { ...run, measurement: ok ? rest : { ...rest, outputTail } };
}

async function runBuild(ctx: SectionContext): Promise<Omit<SectionResult, 'durationMs'>> {
  const mainWorks = ctx.quick ? 1000 : 10_000;
  const baseWorks = mainWorks / 10;
  const baseline = await buildOnce(ctx, baseWorks, 180_000);
  const main = await buildOnce(ctx, mainWorks, ctx.quick ? 180_000 : 360_000);
  const details: Record<string, unknown> = { baseline: describe(baseline), main: describe(main) };

  const failed = [baseline, main].filter((r) => r.worksPerSecond === null);
  if (failed.length > 0) {
    const why = failed
      .map((r) => {
        const state = r.measurement.timedOut ? 'timed out' : `exited ${r.measurement.exitCode}`;
        const shared = SHARED_DOT_ASTRO.test(r.measurement.outputTail) ? ' (another build shared .astro/.prerender at the same time; run the bench alone)' : '';
        return `${r.works}-work build ${state}${shared}: ${firstErrorLine(r.measurement.outputTail)}`;
      })
      .join('; ');
    return { status: 'error', message: why, figures: [], details };
  }
  // Marginal cost: what the extra works cost once fixed start-up (Astro/Vite boot) is paid.
  const marginalMs = main.measurement.wallMs - baseline.measurement.wallMs;
  details.marginalWorksPerSecond = marginalMs > 0 ? round((mainWorks - baseWorks) / (marginalMs / 1000), 1) : null;
  details.fixedOverheadEstimateMs =
    marginalMs > 0 ? Math.round(baseline.measurement.wallMs - baseWorks / ((mainWorks - baseWorks) / marginalMs)) : null;

  const label = `same build, ${baseWorks} works`;
  const figures = [
    figure(`works per second (${mainWorks} works)`, 'works/s', main.worksPerSecond, baseline.worksPerSecond, label, 'higher', { ratio: 0.8, op: '>=' }),
    figure(`wall time (${mainWorks} works)`, 's', round(main.measurement.wallMs / 1000, 1), round(baseline.measurement.wallMs / 1000, 1), label, 'lower'),
    figure(`peak RSS (${mainWorks} works)`, 'bytes', main.measurement.peakRssBytes, baseline.measurement.peakRssBytes, label, 'lower'),
  ];
  const retried = [baseline, main].filter((r) => r.retriedAfter.length > 0);
  return {
    status: 'ok',
    ...(retried.length ? { message: `retried after a collision in .astro/.prerender with another build running at the same time (figures cover the successful attempt only) (${retried.map((r) => r.works).join(', ')} works)` } : {}),
    figures,
    details,
  };
}
