/**
 * `npm run bench [-- --only static,build] [--quick] [--static-content DIR] [--wire-scores ...] [--wire-build DIR]`
 * Runs the bench sections one after another, each against a baseline measured in the same run,
 * writes bench/results/<ISO timestamp>.json and bench/results/latest.json, prints a summary.
 * Every process it starts is killed and every temp folder removed, also on failure or Ctrl-C.
 * Sections live in bench/lib/; add one by appending to SECTIONS.
 */
import path from 'node:path';
import { audioSection } from './lib/audio.ts';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { buildHugoSection, buildSection } from './lib/build.ts';
import {
  environment,
  figure,
  summary,
  writeResult,
  type BenchResult,
  type Section,
  type SectionResult,
} from './lib/results.ts';
import { intakeSection } from './lib/intake.ts';
import { librarySection } from './lib/library.ts';
import { resolveSection } from './lib/resolve.ts';
import { parseScenarios, runApplyBench, STALL_GOAL_MS, whereTimeWent } from './lib/apply.ts';
import { runPageWeightBench } from './lib/page-weight.ts';
import { scaleStaticSection, staticSection } from './lib/static.ts';
import { scaleSection } from './lib/scale.ts';
import { scoreWireSection } from './lib/score-wire.ts';
import { Cleanup, PROJECT_ROOT } from './lib/util.ts';
import { importSection } from './lib/import.ts';
import { processesSection } from './lib/processes.ts';
import { batchSection } from './lib/batch.ts';
import { importFolderSection } from './lib/import-folder.ts';
import { engraveAcceptSection, engraveBuildSection, engraveThroughputSection } from './lib/engrave.ts';

const { values } = parseArgs({
  options: {
    only: { type: 'string' },
    quick: { type: 'boolean', default: false },
    'static-content': { type: 'string' },
    'results-dir': { type: 'string' },
    'scale-sizes': { type: 'string' },
    'scale-data': { type: 'string' },
    'apply-sizes': { type: 'string' },
    'apply-scenarios': { type: 'string' },
    'apply-repeat': { type: 'string' },
    'apply-stall': { type: 'string' },
    'hugo-works': { type: 'string' },
    'resolve-works': { type: 'string' },
    'hugo-rounds': { type: 'string' },
    'import-limit': { type: 'string' },
    'batch-works': { type: 'string' },
    'batch-songs': { type: 'string' },
    'import-submit': { type: 'boolean', default: false },
    'import-cold-build': { type: 'boolean', default: false },
    'engrave-quartets': { type: 'string' },
    'engrave-songs': { type: 'string' },
    'engrave-cache': { type: 'string' },
    'wire-scores': { type: 'string' },
    'wire-build': { type: 'string' },
    help: { type: 'boolean', default: false },
  },
});

const pageWeightSection: Section = {
  name: 'page-weight',
  description:
    'HTML + CSS + JS bytes before the score loads vs budgets (home < 60 KB, work page < 100 KB, no JS where none is needed)',
  async run(ctx) {
    const r = await runPageWeightBench({ quick: ctx.quick });
    const budgets = r.budgets as Array<{ name: string; bytes: number; budget: number; pass: boolean }>;
    return {
      status: 'ok',
      ...(r.pass
        ? {}
        : {
            message: `over budget: ${budgets
              .filter((b) => !b.pass)
              .map((b) => b.name)
              .join(', ')}`,
          }),
      figures: budgets
        .slice(0, 2)
        .map((b) => figure(`${b.name} bytes`, 'bytes', b.bytes, b.budget, 'budget', 'lower', { ratio: 1, op: '<=' })),
      details: r,
    };
  },
};

const applySection: Section = {
  name: 'apply',
  description:
    'apply-to-visible time (apply call -> change served, incremental build) of a one-field correction and of a contributed new work with a MusicXML score, for 24, 2,000 and 10,000 works vs the full build of the same catalog; at the largest size, the longest request while applies and a background compaction run vs the idle server',
  async run(ctx) {
    const r = await runApplyBench({
      quick: ctx.quick,
      sizes: values['apply-sizes']?.split(',').map(Number),
      scenarios: parseScenarios(values['apply-scenarios']),
      repeat: values['apply-repeat'] !== undefined ? Number(values['apply-repeat']) : undefined,
      stall: values['apply-stall'] !== 'off',
      log: ctx.log,
    });
    const stall = r.stall && !('skipped' in r.stall) ? r.stall : null;
    const stallMissed = stall !== null && stall.longestMs > STALL_GOAL_MS;
    const missed = [
      ...(r.pass ? [] : ['correction <= 2 s at 10,000 works']),
      ...(r.newWorkPass ? [] : ['new work with a score <= 5 s at 10,000 works']),
      ...(stallMissed ? [`longest request during applies and a compaction <= ${STALL_GOAL_MS} ms`] : []),
    ];
    const notes = r.stall && 'skipped' in r.stall ? [`stall probe skipped: ${r.stall.skipped}`] : [];
    return {
      status: 'ok',
      ...(missed.length === 0 && notes.length === 0
        ? {}
        : {
            message: [
              ...notes,
              ...(missed.length === 0
                ? []
                : [
                    `apply goal(s) not met: ${missed.join('; ')}; the last runs: ${[r.runs.at(-1), r.newWorkRuns.at(-1)]
                      .filter((run) => run !== undefined)
                      .map((run) => whereTimeWent(run!))
                      .join('; ')} (docs/review.md)`,
                  ]),
            ].join('. '),
          }),
      figures: [
        ...[
          ...r.runs.map((run) => ({ run, what: '' })),
          ...r.newWorkRuns.map((run) => ({ run, what: 'new work with a score, ' })),
        ].map(({ run, what }) =>
          figure(
            `apply-to-visible, ${what}${run.works} works, apply #${run.sequence} on the server`,
            'ms',
            run.applyToVisibleMs,
            run.fullBuildMs,
            'full build of the same catalog',
            'lower',
            { ratio: run.goalMs / run.fullBuildMs, op: '<=' },
          ),
        ),
        ...r.warmUps.map((w) =>
          figure(
            `warm-up of the build process at the server's start, ${w.works} works (${w.outcome}; an apply that comes meanwhile waits for it)`,
            'ms',
            w.durationMs,
            [...r.runs, ...r.newWorkRuns].find((run) => run.works === w.works)?.fullBuildMs ?? null,
            'full build of the same catalog',
            'lower',
          ),
        ),
        ...(stall
          ? [
              figure(
                `longest request during applies and a compaction, ${r.stall!.works} works (target <= ${STALL_GOAL_MS} ms)`,
                'ms',
                stall.longestMs,
                stall.idleLongestMs,
                'same reads, idle server',
                'lower',
                { ratio: STALL_GOAL_MS / stall.idleLongestMs, op: '<=' },
              ),
            ]
          : []),
      ],
      details: r,
    };
  },
};

/** Subsets of the engraving benches' scores; without them, all 122 quartets and 200 songs. */
const engraveOptions = {
  quartets: values['engrave-quartets'] !== undefined ? Number(values['engrave-quartets']) : undefined,
  songs: values['engrave-songs'] !== undefined ? Number(values['engrave-songs']) : undefined,
  // engrave-build: a render cache kept between runs (a filled one skips the hour of cold engraving).
  cacheDir: values['engrave-cache'],
};

const SECTIONS: Section[] = [
  staticSection({ contentDir: values['static-content'] }),
  buildSection(),
  buildHugoSection({
    works: values['hugo-works'] ? Number(values['hugo-works']) : undefined,
    rounds: values['hugo-rounds'] ? Number(values['hugo-rounds']) : undefined,
  }),
  resolveSection({ works: values['resolve-works'] ? Number(values['resolve-works']) : undefined }),
  intakeSection(),
  librarySection(),
  applySection,
  pageWeightSection,
  scaleSection({ sizes: values['scale-sizes']?.split(',').map(Number), dataDir: values['scale-data'] }),
  scaleStaticSection({ dataDir: values['scale-data'] }),
  processesSection({ dataDir: values['scale-data'] }),
  batchSection({
    works: values['batch-works'] ? Number(values['batch-works']) : undefined,
    songs: values['batch-songs'] ? Number(values['batch-songs']) : undefined,
  }),
  importSection({
    limit: values['import-limit'] ? Number(values['import-limit']) : undefined,
    submit: values['import-submit'],
    cacheDir: values['engrave-cache'],
    coldBuild: values['import-cold-build'],
  }),
  importFolderSection(),
  engraveThroughputSection(engraveOptions),
  engraveBuildSection(engraveOptions),
  engraveAcceptSection(),
  scoreWireSection({ scores: values['wire-scores'], buildDir: values['wire-build'] }),
  audioSection(),
];

if (values.help) {
  console.log(
    'usage: npm run bench -- [--only static,build] [--quick] [--static-content DIR] [--results-dir DIR] [--scale-sizes 10000,100000] [--scale-data DIR] [--apply-sizes 2000,10000] [--apply-scenarios correction,new-work] [--apply-repeat 3] [--apply-stall off] [--hugo-works 10000] [--hugo-rounds 2] [--resolve-works 10000] [--engrave-quartets 122] [--engrave-songs 200] [--engrave-cache DIR] [--import-limit N] [--import-submit] [--import-cold-build] [--wire-scores quartets|lieder|all|a.mxl,b.mxl] [--wire-build DIR]\n',
  );
  for (const s of SECTIONS) console.log(`  ${s.name.padEnd(8)} ${s.description}`);
  process.exit(0);
}

const only = values.only
  ? values.only
      .split(',')
      .map((s) => s.trim())
      .filter(Boolean)
  : SECTIONS.filter((s) => !s.optIn).map((s) => s.name);
const unknown = only.filter((n) => !SECTIONS.some((s) => s.name === n));
if (unknown.length > 0) {
  console.error(`unknown section(s): ${unknown.join(', ')}; known: ${SECTIONS.map((s) => s.name).join(', ')}`);
  process.exit(2);
}

const cleanup = new Cleanup();
process.on('exit', () => cleanup.runSync());
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    console.error(`\n${signal}: stopping child processes and removing temp folders`);
    cleanup.runSync();
    process.exit(130);
  });
}

const startedAt = new Date();
const result: BenchResult = {
  schemaVersion: 1,
  startedAtUtc: startedAt.toISOString(),
  finishedAtUtc: '',
  durationMs: 0,
  options: { quick: values.quick, only },
  environment: environment(PROJECT_ROOT),
  sections: {},
};

for (const section of SECTIONS.filter((s) => only.includes(s.name))) {
  const t0 = Date.now();
  const log = (m: string) => console.log(`[${section.name} +${((Date.now() - t0) / 1000).toFixed(0)}s] ${m}`);
  log(section.description);
  let r: SectionResult;
  try {
    r = { ...(await section.run({ quick: values.quick, cleanup, log })), durationMs: Date.now() - t0 };
  } catch (err) {
    const cause = (err as { cause?: unknown }).cause;
    r = {
      status: 'error',
      message: `${(err as Error).stack ?? String(err)}${cause ? `\ncaused by: ${cause instanceof Error ? (cause.stack ?? cause.message) : String(cause)}` : ''}`,
      figures: [],
      details: {},
      durationMs: Date.now() - t0,
    };
  }
  result.sections[section.name] = r;
  log(`${r.status}${r.message ? `: ${r.message.split('\n')[0]}` : ''}`);
}

await cleanup.run();
const finished = new Date();
result.finishedAtUtc = finished.toISOString();
result.durationMs = finished.getTime() - startedAt.getTime();
const dir = values['results-dir']
  ? path.resolve(values['results-dir'])
  : path.join(path.dirname(fileURLToPath(import.meta.url)), 'results');
const file = writeResult(dir, result);
console.log(`\n${summary(result)}\n\nwrote ${path.relative(process.cwd(), file)} and latest.json`);
process.exitCode = Object.values(result.sections).some((s) => s.status === 'error') ? 1 : 0;
