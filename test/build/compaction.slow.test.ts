/**
 * The background compaction (build/compact.ts, api/site/builds.ts): once a served layer
 * carries half of ARCHIVE_LAYER_MAX_PATHS, a child at the lowest CPU priority makes it a plain
 * folder of the same view (`-cmp`), swapped in while the layer is still served; the next apply is
 * a layer over it. An apply during a compaction stops it and is served; a compaction killed with
 * SIGKILL leaves no folder that passes for a build, and the layer keeps standing for its commit.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  compactedBuildDir,
  ensureBuild,
  isCompleteBuild,
  readBuildInfo,
  Rebuilder,
  type CompactionEvent,
} from '../../api/site/builds.ts';
import { layerBaseDir } from '../../src/lib/site/layers.ts';
import { CATALOG_SNAPSHOT } from '../../build/catalog-snapshot.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { buildInfo, differences, digests } from '../helpers/build-folders.ts';
import { commitMiniRetitle, openMiniSite, type WritableApp } from '../helpers/writable-app.ts';

const events: CompactionEvent[] = [];
let w: WritableApp;

beforeAll(async () => {
  // Every layer is due (half of 2 paths); the builds themselves keep the default bound, so they never compact inline.
  w = await openMiniSite('pdma-compaction-', 'https://compaction.example.test', {
    layerMaxPaths: 2,
    onCompaction: (e) => events.push(e),
  });
}, 300_000);
afterAll(() => w?.close());

const retitle = (title: string) => commitMiniRetitle(w.config.contentRepo, title);

async function until(what: string, test: () => boolean, ms = 120_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!test()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}; compactions: ${JSON.stringify(events)}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

const servedTitle = async () => (await w.app.inject({ url: '/api/v1/works/bach-minuet-in-g' })).json().data.title;
const endOf = (layerDir: string) => events.find((e) => e.layer === path.basename(layerDir));

describe('the background compaction', () => {
  it('compacts a served layer into a plain folder of the same view, swaps it in, and the next apply layers over it', async () => {
    const commit = await retitle('Minuet (compaction one)');
    const applied = await w.rebuilder.rebuildAndSwap();
    expect(applied.mode).toBe('incremental');
    const layer = applied.buildDir;
    expect(layerBaseDir(layer)).not.toBeNull();
    expect(w.rebuilder.compacting?.source).toBe(layer);

    await until('the compaction swapped in', () => endOf(layer)?.outcome === 'swapped');
    const compacted = compactedBuildDir(w.config, commit);
    expect(w.handle.current.dir).toBe(compacted);
    expect(existsSync(path.join(compacted, 'layer.json'))).toBe(false);
    expect(layerBaseDir(compacted)).toBeNull();
    const info = buildInfo(compacted);
    expect(info.commit).toBe(commit);
    expect(info.compaction.from).toBe(path.basename(layer));
    expect(info.incremental.layer).toEqual({ base: null, compacted: true });
    // The same view, byte for byte, and the same index, records and side files.
    expect(differences(digests(layer), digests(compacted))).toEqual([]);
    // The layer's catalog snapshot is a delta over its base; the plain folder's is whole, so it
    // does not need that base (the digests above compare the whole the delta stands for).
    expect(readFileSync(path.join(layer, CATALOG_SNAPSHOT), 'utf8')).toMatch(/^\{"format":1,"over":/);
    expect(readFileSync(path.join(compacted, CATALOG_SNAPSHOT), 'utf8')).toMatch(/^\{"format":1,"works":\[\n/);
    expect(await servedTitle()).toBe('Minuet (compaction one)');

    await retitle('Minuet (compaction two)');
    const next = await w.rebuilder.rebuildAndSwap();
    expect(next.mode).toBe('incremental');
    expect(path.basename(layerBaseDir(next.buildDir)!)).toBe(path.basename(compacted));
    expect(await servedTitle()).toBe('Minuet (compaction two)');
    await until('the next compaction swapped in', () => endOf(next.buildDir)?.outcome === 'swapped');
  }, 600_000);

  it('an apply during a compaction stops it, and its own change is served (and compacted in turn)', async () => {
    await retitle('Minuet (compaction three)');
    const first = await w.rebuilder.rebuildAndSwap();
    expect(w.rebuilder.compacting?.source).toBe(first.buildDir);
    const commit = await retitle('Minuet (compaction four)');
    const second = await w.rebuilder.rebuildAndSwap();
    expect(['cancelled', 'superseded']).toContain(endOf(first.buildDir)?.outcome);
    expect(second.commit).toBe(commit);
    expect(await servedTitle()).toBe('Minuet (compaction four)');
    await until('the compaction of the second apply', () => endOf(second.buildDir)?.outcome === 'swapped');
    expect(w.handle.current.dir).toBe(compactedBuildDir(w.config, commit));
    expect(await servedTitle()).toBe('Minuet (compaction four)');
  }, 600_000);

  it('a compaction killed with SIGKILL leaves no folder that passes for a build; the layer stands for its commit', async () => {
    const commit = await retitle('Minuet (compaction five)');
    // No background compaction this time: this one is started and killed by hand.
    w.rebuilder.close();
    const quiet = new Rebuilder(w.config, w.handle, { layerMaxPaths: 0 });
    const applied = await quiet.rebuildAndSwap();
    quiet.close();
    const layer = applied.buildDir;
    expect(layerBaseDir(layer)).not.toBeNull();
    const out = compactedBuildDir(w.config, commit);
    const child = spawn(
      process.execPath,
      [path.join(PROJECT_ROOT, 'scripts', 'build.ts'), '--compact-from', layer, '--out', out, '--quiet'],
      { stdio: 'ignore' },
    );
    await until('the compaction started writing', () => existsSync(path.join(out, 'client')), 60_000);
    child.kill('SIGKILL');
    await new Promise((r) => child.once('exit', r));
    expect(isCompleteBuild(out)).toBe(false);
    expect(await ensureBuild(w.config, commit)).toBe(layer);
    expect(readBuildInfo(layer)?.commit).toBe(commit);

    // The command line: a plain build is not a layer (exit 2, named); run to the end it makes the folder.
    const plain = spawnSync(
      process.execPath,
      [path.join(PROJECT_ROOT, 'scripts', 'build.ts'), '--compact-from', layerBaseDir(layer)!, '--out', out],
      { encoding: 'utf8' },
    );
    expect(plain.status).toBe(2);
    expect(plain.stderr).toContain('is not a layered build');
    const done = spawnSync(
      process.execPath,
      [path.join(PROJECT_ROOT, 'scripts', 'build.ts'), '--compact-from', layer, '--out', out],
      { encoding: 'utf8' },
    );
    expect(done.status, done.stderr).toBe(0);
    expect(done.stdout).toContain(`compacted ${path.basename(layer)}`);
    expect(isCompleteBuild(out)).toBe(true);
    expect(differences(digests(layer), digests(out))).toEqual([]);
    // Never newer than the layer: the newest complete build stays the newest commit's.
    expect(Math.round(buildMtime(out))).toBe(Math.round(buildMtime(layer)));
  }, 600_000);
});

function buildMtime(dir: string): number {
  return Number(spawnSync('stat', ['-c', '%Y', path.join(dir, 'build.json')], { encoding: 'utf8' }).stdout.trim());
}
