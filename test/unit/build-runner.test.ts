/**
 * The build runner (build/runner.ts): steps in order, tasks beside them joined before the
 * step that names them, each step's and task's time recorded, and a failure that waits for every
 * running task (and gives up the tasks waiting for a step that will not run) before it goes on.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import type { Catalog } from '../../src/domain/catalog.ts';
import type { BuildPlan } from '../../build/plan.ts';
import { BuildRun, runSteps, type Step } from '../../build/runner.ts';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function newRun(): BuildRun {
  const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-runner-'));
  dirs.push(root);
  const outDir = path.join(root, 'out');
  const plan = {
    options: { contentDir: root, outDir, baseUrl: 'https://runner.example.test', quiet: true },
    contentDir: root,
    outDir,
    clientDir: path.join(outDir, 'client'),
    commit: null,
    generatedAtUtc: '2026-11-28T00:00:00Z',
    siteCode: 'code',
    batchWorks: 10,
    scope: [],
    base: null,
    startedAt: Date.now(),
    phases: { loadMs: 1 },
  } satisfies BuildPlan;
  return new BuildRun(plan, { works: [], profiles: [] } as unknown as Catalog);
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

describe('the build runner', () => {
  it('runs the steps in order and joins each task before the step it names', async () => {
    const run = newRun();
    const seen: string[] = [];
    const steps: Step[] = [
      {
        name: 'a',
        run(b) {
          seen.push('a');
          b.beside(
            'slow',
            sleep(40).then(() => seen.push('slow done')),
            'c',
          );
        },
      },
      { name: 'b', run: () => void seen.push('b') },
      { name: 'c', run: () => void seen.push('c') },
    ];
    await runSteps(run, steps);
    expect(seen).toEqual(['a', 'b', 'slow done', 'c']);
    expect(Object.keys(run.phases)).toEqual(['loadMs', 'aMs', 'bMs', 'cWaitMs', 'cMs']);
    expect(run.background.slowMs).toBeGreaterThanOrEqual(30);
    expect(existsSync(run.plan.outDir)).toBe(true);
  });

  it('a task can wait for a later step; a failed task stops the build before the step that waits for it', async () => {
    const run = newRun();
    const seen: string[] = [];
    const steps: Step[] = [
      {
        name: 'a',
        run(b) {
          b.beside(
            'after-b',
            b.after('b').then(() => {
              seen.push('after b');
              throw new Error('task failed');
            }),
            'd',
          );
        },
      },
      { name: 'b', run: () => void seen.push('b') },
      { name: 'c', run: () => void seen.push('c') },
      { name: 'd', run: () => void seen.push('d') },
    ];
    await expect(runSteps(run, steps)).rejects.toThrow('task failed');
    expect([...seen].sort()).toEqual(['after b', 'b', 'c']);
    expect(seen.indexOf('after b')).toBeGreaterThan(seen.indexOf('b'));
  });

  it('a failed step waits for the running tasks and gives up those waiting for a later step', async () => {
    const run = newRun();
    let slowDone = false;
    let waitingRan = false;
    let cleaned = false;
    const steps: Step[] = [
      {
        name: 'a',
        run(b) {
          b.beside(
            'slow',
            sleep(40).then(() => (slowDone = true)),
            'z',
          );
          b.beside(
            'waiting',
            b.after('z').then(() => (waitingRan = true)),
            'z',
          );
          b.onEnd(() => {
            cleaned = true;
          });
        },
      },
      {
        name: 'b',
        run() {
          throw new Error('step failed');
        },
      },
      { name: 'z', run: () => undefined },
    ];
    await expect(runSteps(run, steps)).rejects.toThrow('step failed');
    expect(slowDone).toBe(true);
    expect(waitingRan).toBe(false);
    expect(cleaned).toBe(true);
  });

  it('lets a full build\u2019s catalog go', () => {
    const run = newRun();
    expect(run.catalog.works).toEqual([]);
    run.releaseCatalog();
    expect(() => run.catalog).toThrow('the catalog was let go');
    expect(run.counts).toEqual({ works: 0, profiles: 0 });
  });
});
