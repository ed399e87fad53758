/**
 * The rebuilder's incremental path and the background reconcile: an apply's rebuild is
 * incremental; a failing incremental step keeps the old site serving; a rebuild that arrives while
 * a reconcile runs stops it, serves its own change at once, and the next reconcile replaces the
 * incremental folder with a full build of the same commit. Rebuild requests that queue behind a
 * running one share one build.
 */
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { layerBaseDir } from '../../src/lib/site/layers.ts';
import type { FastifyInstance } from 'fastify';
import { createApp } from '../../api/app.ts';
import { buildKey, ensureBuild, readBuildInfo, Rebuilder } from '../../api/site/builds.ts';
import { git } from '../../api/site/content-repo.ts';
import { SiteHandle } from '../../api/site/site-handle.ts';
import { MINI_WORK } from '../helpers/fixture-copies.ts';
import { commitMiniRetitle, openMiniSite, type WritableApp } from '../helpers/writable-app.ts';

const events: Array<{ commit: string; outcome: string; error?: string }> = [];
let w: WritableApp;
/** The app serving now: the last test restarts it. */
let app: FastifyInstance;
let workFile: string;

beforeAll(async () => {
  w = await openMiniSite('pdma-reconcile-', 'https://reconcile.example.test', {
    reconcileDelayMs: 0,
    onReconcile: (e) => events.push(e),
  });
  app = w.app;
  workFile = path.join(w.config.contentRepo, MINI_WORK);
}, 300_000);
afterAll(async () => {
  await app?.close();
  await w?.close();
});

const retitle = (title: string) => commitMiniRetitle(w.config.contentRepo, title);

async function until(what: string, test: () => boolean, ms = 240_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!test()) {
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}; reconcile events: ${JSON.stringify(events)}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

const served = async () => {
  const json = await app.inject({ url: '/api/v1/works/bach-minuet-in-g' });
  const html = await app.inject({ url: '/works/bach-minuet-in-g/' });
  const query = await app.inject({ url: '/api/v1/works?query=minuet' });
  return {
    title: json.json().data.title as string,
    html: html.body,
    listed: query.json().data.items[0]?.title as string,
  };
};

describe('incremental rebuilds and the background reconcile', () => {
  it('keeps the old site when an incremental step fails', async () => {
    const before = w.handle.current.dir;
    writeFileSync(workFile, readFileSync(workFile, 'utf8').replace('durationSeconds: 90', 'durationSeconds: 91'));
    await git(w.config.contentRepo, ['commit', '--quiet', '-am', 'Break a duration']);
    await expect(w.rebuilder.rebuildAndSwap()).rejects.toThrow(/durationSeconds: disagrees with duration/);
    expect(w.handle.current.dir).toBe(before);
    expect((await served()).title).toBe('Minuet in G major');
    expect(readdirSync(path.join(w.root, 'builds')).filter((n) => n.endsWith('-inc'))).toEqual([]);
    await git(w.config.contentRepo, ['reset', '--quiet', '--hard', 'HEAD~1']);
    expect(w.rebuilder.reconciling).toBeNull();
  }, 300_000);

  it('a rebuild during a running reconcile stops it, serves its change, and is reconciled in turn', async () => {
    const first = await retitle('Minuet in G (first revision)');
    const r1 = await w.rebuilder.rebuildAndSwap();
    expect(r1.mode).toBe('incremental');
    expect(path.basename(r1.buildDir)).toBe(`${buildKey(first, w.config.publicBaseUrl)}-inc`);
    expect((await served()).title).toBe('Minuet in G (first revision)');
    await until('the first reconcile to run', () => w.rebuilder.reconciling?.running === true);

    const second = await retitle('Minuet in G (second revision)');
    const r2 = await w.rebuilder.rebuildAndSwap();
    expect(r2.mode).toBe('incremental');
    const now = await served();
    expect(now.title).toBe('Minuet in G (second revision)');
    expect(now.listed).toBe('Minuet in G (second revision)');
    expect(now.html).toContain('Minuet in G (second revision)');
    await until('the first reconcile to stop', () => events.some((e) => e.commit === first));
    expect(events.find((e) => e.commit === first)?.outcome).toBe('cancelled');

    await until('the second reconcile to swap', () => events.some((e) => e.commit === second));
    expect(events.find((e) => e.commit === second)).toMatchObject({ outcome: 'swapped' });
    expect(path.basename(w.handle.current.dir)).toBe(buildKey(second, w.config.publicBaseUrl));
    expect(readBuildInfo(w.handle.current.dir)).toMatchObject({ mode: 'full', commit: second });
    // Its status says what asked for it and what the full build cost.
    const status = w.rebuilder.reconcileStatus();
    expect(status).toMatchObject({ state: 'completed', trigger: 'after-apply', commit: second });
    expect(status.cost?.works).toBeGreaterThan(0);
    const after = await served();
    expect(after.title).toBe('Minuet in G (second revision)');
    expect(after.html).toContain('Minuet in G (second revision)');
    // No folder of the stopped reconcile is left behind; the incremental folder swapped out is
    // kept a while, with the base it is a layer over (src/lib/site/layers.ts).
    const swappedOut = path.join(w.root, 'builds', `${buildKey(second, w.config.publicBaseUrl)}-inc`);
    const layerBase = layerBaseDir(swappedOut);
    expect(layerBase).not.toBeNull();
    expect(readdirSync(path.join(w.root, 'builds')).sort()).toEqual(
      [buildKey(second, w.config.publicBaseUrl), path.basename(swappedOut), path.basename(layerBase!)].sort(),
    );
  }, 600_000);

  it('rebuild requests queued behind a running one share one build of the newest commit', async () => {
    await retitle('Minuet in G (third revision)');
    const first = w.rebuilder.rebuildAndSwap();
    await new Promise((r) => setTimeout(r, 0)); // the first has started
    const fourth = await retitle('Minuet in G (fourth revision)');
    const second = w.rebuilder.rebuildAndSwap();
    const third = w.rebuilder.rebuildAndSwap();
    const [r1, r2, r3] = await Promise.all([first, second, third]);
    // One shared run: the same result object (the metrics wrapper makes each call's promise its own).
    expect(r3).toBe(r2);
    expect(r2).not.toBe(r1);
    expect(r2.commit).toBe(fourth);
    expect((await served()).title).toBe('Minuet in G (fourth revision)');
  }, 600_000);

  it('a server started on an incremental folder reconciles it', async () => {
    await app.close(); // stops this rebuilder's pending reconcile
    const fifth = await retitle('Minuet in G (fifth revision)');
    const quiet = new Rebuilder(w.config, w.handle);
    const result = await quiet.rebuildAndSwap();
    expect(result.mode).toBe('incremental');
    // A new server process on the same data folder: ensureBuild serves the incremental folder.
    const dir = await ensureBuild(w.config, fifth);
    expect(dir).toBe(result.buildDir);
    const restartedHandle = await SiteHandle.open(dir);
    const seen: Array<{ commit: string; outcome: string }> = [];
    const restarted = new Rebuilder(w.config, restartedHandle, {
      reconcileDelayMs: 0,
      onReconcile: (e) => seen.push(e),
    });
    app = await createApp({ config: w.config, handle: restartedHandle, rebuilder: restarted });
    await until('the reconcile of the served folder', () => seen.length > 0);
    expect(seen[0]).toMatchObject({ commit: fifth, outcome: 'swapped', trigger: 'start' });
    expect(readBuildInfo(restartedHandle.current.dir)).toMatchObject({ mode: 'full', commit: fifth });
  }, 600_000);
});
