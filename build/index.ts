/**
 * The build: a plan (build/plan.ts) carried out by one list of steps (build/steps/,
 * one file each) through the runner (build/runner.ts). A full build is a plan without a
 * base; an incremental build, a plan on an earlier complete build, renders only what its change
 * touches and writes the same bytes a full build of the same commit (with the base's
 * generatedAtUtc) would (test/build/incremental-identity.slow.test.ts). docs/decisions/0050-one-build-pipeline.md
 * has the steps and the reasons for their order.
 */
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { FullBuildNeeded, planBuild } from './plan.ts';
import { BuildRun, runSteps, type Step } from './runner.ts';
import { beside } from './steps/beside.ts';
import { finish } from './steps/finish.ts';
import { predict } from './steps/predict.ts';
import { indexFiles } from './steps/index-files.ts';
import { record } from './steps/record.ts';
import { render } from './steps/render.ts';
import { rest } from './steps/rest.ts';
import { scores } from './steps/scores.ts';
import { search } from './steps/search.ts';
import { stage } from './steps/stage.ts';
import { zips } from './steps/zips.ts';
import type { BuildInfo, BuildOptions } from './types.ts';

/** The steps, in order, for every build. */
export const STEPS: readonly Step[] = [
  beside,
  scores,
  predict,
  render,
  search,
  indexFiles,
  rest,
  stage,
  zips,
  finish,
  record,
];

/** Build `options.outDir` from `baseDir` when given (throws FullBuildNeeded when it cannot be), else in full. */
export async function build(options: BuildOptions, baseDir?: string | null): Promise<BuildInfo> {
  const { plan, catalog } = await planBuild(options, baseDir);
  const run = new BuildRun(plan, catalog);
  await runSteps(run, STEPS);
  return run.info!;
}

/** A full build: a plan without a base. */
export function buildSite(options: BuildOptions): Promise<BuildInfo> {
  return build(options, null);
}

/** An incremental build from `baseDir`, or FullBuildNeeded. */
export function buildIncremental(options: BuildOptions, baseDir: string): Promise<BuildInfo> {
  return build(options, baseDir);
}

/** Incremental when it can be, else a full build that says why in build.json. */
export async function buildIncrementalOrFull(options: BuildOptions, baseDir: string): Promise<BuildInfo> {
  try {
    return await build(options, baseDir);
  } catch (err) {
    if (!(err instanceof FullBuildNeeded)) throw err;
    const info = await build(options, null);
    info.fallbackReason = err.message;
    writeFileSync(path.join(path.resolve(options.outDir), 'build.json'), `${JSON.stringify(info, null, 2)}\n`);
    return info;
  }
}
