/**
 * Step "zips": "Download all", one zip of each work's public files (src/lib/site/work-zips.ts),
 * for the works in scope; they read the records and score files the stage step put in place.
 * Many works: in two worker threads beside the steps that follow, joined before the record step
 * (with a base, before the finish step: a layer lists its files); a few (an apply's): on this
 * thread, where a worker's start would cost more than the zips.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { writeWorkZips, writeWorkZipsInWorkers, workZipPath } from '../../src/lib/site/work-zips.ts';
import type { Step } from '../runner.ts';

/** Fewer works than this are zipped on the build's thread. */
const ZIP_WORKERS_FROM = 64;

export const zips: Step = {
  name: 'zips',
  run(build) {
    const { plan } = build;
    // A linked zip is never written in place (the base's copy keeps serving).
    if (plan.base) for (const slug of plan.scope) rmSync(path.join(plan.clientDir, workZipPath(slug)), { force: true });
    if (build.zipWorks.length < ZIP_WORKERS_FROM) {
      build.zips = writeWorkZips(build.zipWorks, plan.clientDir, plan.generatedAtUtc);
      return;
    }
    build.zipping = build.beside(
      'zips',
      writeWorkZipsInWorkers(build.zipWorks, plan.clientDir, plan.generatedAtUtc),
      plan.base ? 'finish' : 'record',
    );
  },
};
