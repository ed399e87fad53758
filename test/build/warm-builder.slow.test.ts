/**
 * The warm build process (api/site/warm-builder.ts, scripts/build-worker.ts): builds run one after
 * another in one long-lived child, each giving exactly the folder a build in a new process gives;
 * a content error leaves the process usable; a process killed mid-build fails that build (its
 * folder removed) and the next build starts a new one; a process is replaced after its builds or
 * once a build left it at its memory budget.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildInChild } from '../../api/site/builds.ts';
import { WarmBuilder, type WarmBuildResult } from '../../api/site/warm-builder.ts';
import { differences, digests, IncrementalBuilds } from '../helpers/build-folders.ts';

const BASE_URL = 'https://warm-builder.example.test';
const builds = new IncrementalBuilds('pdma-warm-builder-', BASE_URL);
const builders: WarmBuilder[] = [];
let baseDir = '';
let baseCommit = '';

afterAll(() => {
  for (const b of builders) b.close();
  builds.dispose();
});

beforeAll(async () => {
  baseDir = await builds.buildBase();
  baseCommit = JSON.parse(readFileSync(path.join(baseDir, 'build.json'), 'utf8')).commit as string;
}, 600_000);

/**
 * Returns once the process is gone (and reaped), looked at every 100 ms: a loaded machine may take
 * longer than any fixed wait to run its exit; one that never exits fails the test at its timeout.
 */
async function exited(pid: number): Promise<void> {
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

function warm(options: { maxBuilds?: number; maxRssBytes?: number } = {}): WarmBuilder {
  const b = new WarmBuilder(options);
  builders.push(b);
  return b;
}

/** Build `commit` into `name` in the warm process; what the process reported. */
async function warmBuild(
  builder: WarmBuilder,
  name: string,
  commit: string,
  extra: { incrementalFrom?: string; generatedAtUtc?: string } = {},
): Promise<{ dir: string; result: WarmBuildResult }> {
  const dir = path.join(builds.root, name);
  let result: WarmBuildResult | null = null;
  await buildInChild(builds.repo, dir, BASE_URL, { commit, ...extra, builder, onWarmBuild: (r) => (result = r) });
  expect(result).not.toBeNull();
  return { dir, result: result! };
}

describe('the warm build process', () => {
  it('runs builds one after another in one process, each the folder a new process would build', async () => {
    const builder = warm();
    const { generatedAtUtc } = JSON.parse(readFileSync(path.join(baseDir, 'build.json'), 'utf8'));
    const first = await warmBuild(builder, 'warm-full', baseCommit, { generatedAtUtc });
    expect(first.result.earlierBuilds).toBe(0);
    // The same commit and time as the base, built in a new process: the same bytes.
    expect(differences(digests(first.dir), digests(baseDir))).toEqual([]);

    const file = builds.work('beethoven-fur-elise');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^title: .*$/m, 'title: Für Elise (warm)'));
    const commit = await builds.commitAll('Retitle Für Elise');
    const second = await warmBuild(builder, 'warm-inc', commit, { incrementalFrom: baseDir });
    expect(second.result).toMatchObject({ pid: first.result.pid, earlierBuilds: 1, retired: false });
    // It says how much memory the process holds after the build (the budget's measure).
    expect(second.result.rssBytes).toBeGreaterThan(50 * 1024 * 1024);
    const info = JSON.parse(readFileSync(path.join(second.dir, 'build.json'), 'utf8'));
    expect(info.mode).toBe('incremental');
    // The full build left Astro's compiled pages loaded in the process: no Vite run for the apply.
    expect(info.incremental.renderer).toMatchObject({ kind: 'warm' });
    // And a full build of the same commit in a new process agrees with it.
    const full = path.join(builds.root, 'cold-full');
    await buildInChild(builds.repo, full, BASE_URL, { commit, generatedAtUtc });
    expect(differences(digests(second.dir), digests(full))).toEqual([]);
  }, 900_000);

  it('a content error fails that build with the lint message, and the process builds on', async () => {
    const builder = warm();
    const ok = await warmBuild(builder, 'before-error', baseCommit);
    const file = builds.work('bach-air-orchestral-suite-3');
    const text = readFileSync(file, 'utf8');
    const unknown = text.replace(/^composer: bach-johann-sebastian$/m, 'composer: bach-johann-sebastien');
    expect(unknown).not.toBe(text);
    writeFileSync(file, unknown);
    const broken = await builds.commitAll('A composer who has no record');
    const bad = path.join(builds.root, 'bad');
    await expect(buildInChild(builds.repo, bad, BASE_URL, { commit: broken, builder })).rejects.toThrow(
      /build failed \(exit 1\):[\s\S]*\/composer: names the person "bach-johann-sebastien", who has no record/,
    );
    expect(existsSync(bad)).toBe(false);
    writeFileSync(file, text);
    const fixed = await builds.commitAll('The composer again');
    const after = await warmBuild(builder, 'after-error', fixed);
    expect(after.result).toMatchObject({ pid: ok.result.pid, earlierBuilds: 2 });
  }, 900_000);

  it('a process killed mid-build fails that build and removes its folder; the next build starts a new process', async () => {
    const builder = warm();
    const first = await warmBuild(builder, 'before-kill', baseCommit);
    const killed = path.join(builds.root, 'killed');
    const building = buildInChild(builds.repo, killed, BASE_URL, { commit: baseCommit, builder });
    // Once the build has begun writing its folder.
    for (let i = 0; i < 600 && !existsSync(killed); i++) await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(killed)).toBe(true);
    process.kill(first.result.pid, 'SIGKILL');
    await expect(building).rejects.toThrow(/the build process exited with SIGKILL/);
    expect(existsSync(killed)).toBe(false);
    const next = await warmBuild(builder, 'after-kill', baseCommit);
    expect(next.result.earlierBuilds).toBe(0);
    expect(next.result.pid).not.toBe(first.result.pid);
    expect(existsSync(path.join(next.dir, 'build.json'))).toBe(true);
  }, 900_000);

  it('replaces its process after maxBuilds builds, and close() leaves none running', async () => {
    const builder = warm({ maxBuilds: 1 });
    const a = await warmBuild(builder, 'retire-a', baseCommit);
    const b = await warmBuild(builder, 'retire-b', baseCommit);
    expect(a.result.earlierBuilds).toBe(0);
    expect(b.result.earlierBuilds).toBe(0);
    expect(b.result.pid).not.toBe(a.result.pid);
    // The retired process exited by itself.
    await exited(a.result.pid);
    builder.close();
    await exited(b.result.pid);
  }, 900_000);

  it('replaces its process after a build that left it at its memory budget', async () => {
    const builder = warm({ maxRssBytes: 64 * 1024 * 1024 });
    const a = await warmBuild(builder, 'budget-a', baseCommit);
    expect(a.result.rssBytes).toBeGreaterThanOrEqual(64 * 1024 * 1024);
    expect(a.result.retired).toBe(true);
    await exited(a.result.pid);
    // Under a budget it has not reached, the same build leaves the process running.
    const roomy = warm({ maxRssBytes: 64 * 1024 * 1024 * 1024 });
    const b = await warmBuild(roomy, 'budget-b', baseCommit);
    expect(b.result.retired).toBe(false);
    expect(() => process.kill(b.result.pid, 0)).not.toThrow();
    // A first build's growth (loading Astro and the catalog) is not counted; from the second on,
    // the decision is the memory after the build plus the most a warm build added at its peak.
    expect(b.result.nextPeakBytes).toBe(b.result.rssBytes);
    const c = await warmBuild(roomy, 'budget-c', baseCommit);
    expect(c.result.earlierBuilds).toBe(1);
    expect(c.result.nextPeakBytes).toBeGreaterThan(c.result.rssBytes);
    expect(c.result.peakRssBytes).toBeGreaterThanOrEqual(c.result.rssBytes);
    roomy.close();
  }, 900_000);
});
