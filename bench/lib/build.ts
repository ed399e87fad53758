/**
 * Section "build": `scripts/build.ts` on a generated catalog (10,000 works; --quick 1,000) in a
 * child process, measuring wall time and peak RSS. Baseline in the same run: the same build of a
 * catalog ten times smaller, so the ratio of works/s shows how the build scales (1.0 = linear).
 */
import os from 'node:os';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { generateCatalog } from '../../scripts/generate-catalog.ts';
import { measureChild, type ChildMeasurement } from './measure.ts';
import { findOrInstallHugo, hugoArgs, writeHugoSite } from './hugo.ts';
import { figure, type Section, type SectionContext, type SectionResult } from './results.ts';
import { PROJECT_ROOT, round, siteBuildCommand } from './util.ts';

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
      siteBuildCommand(contentDir, outDir, 'http://127.0.0.1:4321'),
      { cwd: PROJECT_ROOT, timeoutMs, cleanup: ctx.cleanup, scratchDir: root },
    );
    if (m.exitCode !== 0 && !m.timedOut && SHARED_DOT_ASTRO.test(m.outputTail) && retriedAfter.length < 2) {
      retriedAfter.push(
        `exit ${m.exitCode} after ${m.wallMs} ms: another build used ${PROJECT_ROOT}/.astro at the same time`,
      );
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
  const lines = tail
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
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
        const shared = SHARED_DOT_ASTRO.test(r.measurement.outputTail)
          ? ' (another build shared .astro/.prerender at the same time; run the bench alone)'
          : '';
        return `${r.works}-work build ${state}${shared}: ${firstErrorLine(r.measurement.outputTail)}`;
      })
      .join('; ');
    return { status: 'error', message: why, figures: [], details };
  }
  // Marginal cost: what the extra works cost once fixed start-up (Astro/Vite boot) is paid.
  const marginalMs = main.measurement.wallMs - baseline.measurement.wallMs;
  details.marginalWorksPerSecond = marginalMs > 0 ? round((mainWorks - baseWorks) / (marginalMs / 1000), 1) : null;
  details.fixedOverheadEstimateMs =
    marginalMs > 0
      ? Math.round(baseline.measurement.wallMs - baseWorks / ((mainWorks - baseWorks) / marginalMs))
      : null;

  const label = `same build, ${baseWorks} works`;
  const figures = [
    figure(
      `works per second (${mainWorks} works)`,
      'works/s',
      main.worksPerSecond,
      baseline.worksPerSecond,
      label,
      'higher',
      { ratio: 0.8, op: '>=' },
    ),
    figure(
      `wall time (${mainWorks} works)`,
      's',
      round(main.measurement.wallMs / 1000, 1),
      round(baseline.measurement.wallMs / 1000, 1),
      label,
      'lower',
    ),
    figure(
      `peak RSS (${mainWorks} works)`,
      'bytes',
      main.measurement.peakRssBytes,
      baseline.measurement.peakRssBytes,
      label,
      'lower',
    ),
  ];
  const retried = [baseline, main].filter((r) => r.retriedAfter.length > 0);
  return {
    status: 'ok',
    ...(retried.length
      ? {
          message: `retried after a collision in .astro/.prerender with another build running at the same time (figures cover the successful attempt only) (${retried.map((r) => r.works).join(', ')} works)`,
        }
      : {}),
    figures,
    details,
  };
}

/**
 * Section "build-hugo": the full build against its speed bar, Hugo (Debian's `hugo`), building the
 * same generated catalog into the same three outputs per work (HTML page, JSON record, Markdown
 * record; bench/lib/hugo.ts says what Hugo does and does not do). Interleaved rounds (Hugo then the
 * build, then the build then Hugo ...), medians. Goal: the full build <= 2x Hugo.
 */
export function buildHugoSection(options: { works?: number; rounds?: number } = {}): Section {
  return {
    name: 'build-hugo',
    description:
      'full build (scripts/build.ts) of 10,000 generated works vs Hugo building the same HTML + JSON + Markdown per work, interleaved (goal <= 2x)',
    run: (ctx) => runBuildHugo(ctx, options),
  };
}

interface HugoRoundRun {
  tool: 'hugo' | 'build';
  round: number;
  measurement: Omit<ChildMeasurement, 'outputTail'> & { outputTail?: string };
  output: { files: number; bytes: number } | null;
  /** The project's build only: its phases from build.json (ms). */
  phases?: Record<string, number>;
  /** The machine's 1-minute load average when the run started and ended (other work on the machine). */
  loadAverage?: { start: number; end: number };
}

const median = (xs: number[]): number | null => {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};

/** Average bytes of one work's HTML, JSON and Markdown outputs over the first few works. */
function outputBytesPerWork(
  files: { html: (slug: string) => string; json: (slug: string) => string; md: (slug: string) => string },
  slugs: string[],
): Record<string, number> {
  const sample = slugs.slice(0, 50);
  const avg = (f: (slug: string) => string) =>
    Math.round(sample.reduce((n, s) => n + statSync(f(s)).size, 0) / sample.length);
  return { html: avg(files.html), json: avg(files.json), markdown: avg(files.md) };
}

async function runBuildHugo(
  ctx: SectionContext,
  options: { works?: number; rounds?: number },
): Promise<Omit<SectionResult, 'durationMs'>> {
  const works = options.works ?? (ctx.quick ? 1000 : 10_000);
  const rounds = options.rounds ?? (ctx.quick ? 1 : 2);
  const hugo = findOrInstallHugo(ctx.log);
  const root = ctx.cleanup.tempDir(`build-hugo${works}`);
  const contentDir = path.join(root, 'content');
  const gen = generateCatalog({ works, outDir: contentDir, seed: 1 });
  const baseUrl = 'http://127.0.0.1:4321';
  const site = writeHugoSite(contentDir, path.join(root, 'hugo-site'), baseUrl);
  ctx.log(
    `generated ${works} works (${gen.durationMs} ms) and the Hugo site (${site.durationMs} ms); ${hugo.path ? `hugo ${hugo.version}` : hugo.note}`,
  );
  const hugoOut = path.join(root, 'hugo-out');
  const buildOut = path.join(root, 'build-out');
  const runs: HugoRoundRun[] = [];
  const outputBytes: Record<string, Record<string, number>> = {};
  const timeoutMs = Math.max(600_000, works * 60);
  for (let round = 0; round < rounds; round++) {
    const order: Array<'hugo' | 'build'> = round % 2 === 0 ? ['hugo', 'build'] : ['build', 'hugo'];
    for (const tool of order) {
      if (tool === 'hugo' && !hugo.path) continue;
      ctx.log(`round ${round + 1} of ${rounds}: ${tool} ...`);
      const loadAtStart = os.loadavg()[0]!;
      const m =
        tool === 'hugo'
          ? await measureChild('hugo', hugo.path!, hugoArgs(site.siteDir, hugoOut, path.join(root, 'hugo-cache')), {
              cwd: root,
              timeoutMs,
              cleanup: ctx.cleanup,
              scratchDir: root,
            })
          : await measureChild(
              `build of ${works} works`,
              process.execPath,
              siteBuildCommand(contentDir, buildOut, baseUrl),
              { cwd: PROJECT_ROOT, timeoutMs, cleanup: ctx.cleanup, scratchDir: root },
            );
      const ok = m.exitCode === 0 && !m.timedOut;
      const { outputTail, ...rest } = m;
      const run: HugoRoundRun = {
        tool,
        round,
        measurement: ok ? rest : m,
        output: null,
        loadAverage: { start: Math.round(loadAtStart * 100) / 100, end: Math.round(os.loadavg()[0]! * 100) / 100 },
      };
      if (ok) {
        const outDir = tool === 'hugo' ? hugoOut : path.join(buildOut, 'client');
        run.output = folderSize(outDir);
        if (round === 0) {
          outputBytes[tool] =
            tool === 'hugo'
              ? outputBytesPerWork(
                  {
                    html: (s) => path.join(hugoOut, 'works', s, 'index.html'),
                    json: (s) => path.join(hugoOut, 'works', s, 'index.json'),
                    md: (s) => path.join(hugoOut, 'works', s, 'index.md'),
                  },
                  gen.slugs,
                )
              : outputBytesPerWork(
                  {
                    html: (s) => path.join(outDir, 'works', s, 'index.html'),
                    json: (s) => path.join(outDir, 'api', 'v1', 'works', s, 'index.json'),
                    md: (s) => path.join(outDir, 'api', 'v1', 'works', s, 'index.md'),
                  },
                  gen.slugs,
                );
        }
        if (tool === 'build')
          run.phases = (
            JSON.parse(readFileSync(path.join(buildOut, 'build.json'), 'utf8')) as { phases?: Record<string, number> }
          ).phases;
      }
      runs.push(run);
      ctx.cleanup.removeDir(tool === 'hugo' ? hugoOut : buildOut);
      if (!ok) {
        ctx.cleanup.removeDir(root);
        return {
          status: 'error',
          message: `${tool} ${m.timedOut ? 'timed out' : `exited ${m.exitCode}`}: ${firstErrorLine(outputTail)}`,
          figures: [],
          details: { works, hugo, runs },
        };
      }
    }
  }
  ctx.cleanup.removeDir(root);
  const of = (tool: 'hugo' | 'build', f: (r: HugoRoundRun) => number | null | undefined) =>
    median(
      runs
        .filter((r) => r.tool === tool)
        .map(f)
        .filter((x): x is number => typeof x === 'number'),
    );
  const buildMs = of('build', (r) => r.measurement.wallMs);
  const hugoMs = of('hugo', (r) => r.measurement.wallMs);
  // The like-for-like part of the build: load and check the catalog, then Astro (pages, records, listings).
  const likeForLikeMs = of('build', (r) => (r.phases ? (r.phases.loadMs ?? 0) + (r.phases.astroMs ?? 0) : null));
  const phaseMedians: Record<string, number | null> = {};
  for (const name of Object.keys(runs.find((r) => r.phases)?.phases ?? {}))
    phaseMedians[name] = of('build', (r) => r.phases?.[name]);
  const label = hugo.path ? `Hugo ${hugo.version}, same catalog, HTML + JSON + Markdown per work` : 'Hugo (missing)';
  const secs = (ms: number | null) => (ms === null ? null : round(ms / 1000, 1));
  const figures = [
    figure(`full build wall time (${works} works)`, 's', secs(buildMs), secs(hugoMs), label, 'lower', {
      ratio: 2,
      op: '<=',
    }),
    figure(
      `like-for-like part of the build: load + Astro (${works} works)`,
      's',
      secs(likeForLikeMs),
      secs(hugoMs),
      label,
      'lower',
    ),
    // Less stretched by other work on a shared machine than wall time (Pagefind's process, reaped by a worker thread that is gone by then, may be left out).
    figure(
      `CPU time, user + system (${works} works)`,
      's',
      secs(of('build', (r) => r.measurement.cpuMs)),
      secs(of('hugo', (r) => r.measurement.cpuMs)),
      label,
      'lower',
    ),
    figure(
      `peak RSS of the process tree (${works} works)`,
      'bytes',
      of('build', (r) => r.measurement.polledPeakTreeRssBytes),
      of('hugo', (r) => r.measurement.polledPeakTreeRssBytes),
      label,
      'lower',
    ),
  ];
  return {
    status: hugo.path ? 'ok' : 'skipped',
    ...(hugo.path ? {} : { message: `no Hugo anchor: ${hugo.note}` }),
    figures,
    details: {
      works,
      rounds,
      generateMs: gen.durationMs,
      hugo,
      hugoSiteWriteMs: site.durationMs,
      buildPhaseMediansMs: phaseMedians,
      outputBytesPerWork: outputBytes,
      comparability: {
        both: 'per work an HTML page, a JSON record and a Markdown record from the same generated works files; list pages of the works by period, genre and instrument; a home page',
        onlyTheBuild: [
          'content lint: every work checked against the schema and the shared vocabularies (phases.loadMs)',
          'derived record fields (reuse summary, review-state labels, access wording, links), composer pages, discovery documents (OpenAPI, llms.txt, API index), profile and instrument records',
          'score engraving with Verovio (phases.scoresMs; generated works have no scores)',
          'the Pagefind search index (its own process, fed from a worker thread while Astro renders: inside phases.astroMs; its own time in build.json searchIndex.durationMs)',
          "a zip of every work's public files with SHA-256 list (two worker threads beside the index files; build.json background.zipsMs is their own time)",
          "the server's index files (background.indexMs; phases.recordWaitMs is what is left to wait for of them and the zips), nginx.conf, published-blobs.json",
        ],
        onlyHugo: ['its own taxonomy term pages (period, genre, instrument) stand in for the browse pages'],
        paths:
          'Hugo writes the JSON and Markdown beside the page (/works/<slug>/index.json, index.md); the build under /api/v1/works/<slug>/',
        likeForLike:
          "the build's load + Astro phases (phases.loadMs + phases.astroMs; astroMs has Pagefind running beside it on the other core) against Hugo's whole run",
      },
      runs,
    },
  };
}
