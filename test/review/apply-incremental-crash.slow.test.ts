/**
 * kill -9 during an incremental swap: a real `npm start` process applies a correction
 * with an incremental build; the moment the incremental folder is complete (build.json is written
 * last, the swap follows) the server and its children are SIGKILLed. A restart on the same data
 * folder serves that complete incremental build at once (no start-up build), with the change in
 * JSON, Markdown, HTML and search, and records the apply as visible.
 */
import { existsSync, readdirSync, readlinkSync } from 'node:fs';
import path from 'node:path';
import { applyingCorrection, applyOutcome, fetchCaller } from '../helpers/corrections.ts';
import { afterAll, describe, expect, it } from 'vitest';
import { layerBaseDir } from '../../src/lib/site/layers.ts';
import { killTree, type Started, ServiceRun, dataOf } from '../helpers/process.ts';

const serviceRun = new ServiceRun('pdma-apply-inc-crash-');
const dataDir = serviceRun.dataDir;
const KEY = 'admin-apply-inc-crash-1';
// One base URL for both starts (builds are keyed by commit and base URL; each start gets a new port).
const ENV = {
  ARCHIVE_DATA_DIR: dataDir,
  ARCHIVE_ADMIN_KEYS: KEY,
  ARCHIVE_RECONCILE_DELAY_MS: 'off',
  PUBLIC_BASE_URL: 'http://archive.crash.example.test',
};
const buildsDir = path.join(dataDir, 'builds');
let running: Started | null = null;
afterAll(() => serviceRun.dispose());

const completeIncremental = () =>
  existsSync(buildsDir)
    ? readdirSync(buildsDir).filter((n) => n.endsWith('-inc') && existsSync(path.join(buildsDir, n, 'build.json')))
    : [];

describe('SIGKILL during an incremental swap', () => {
  it('restarts on the complete incremental build, with the change visible everywhere', async () => {
    running = await serviceRun.start(ENV, 240_000);
    const url = running.url;
    const call = fetchCaller(url);
    const { code } = await applyingCorrection(call, KEY, {
      workSlug: 'bach-prelude-in-c-bwv-846',
      fieldName: 'title',
      currentValue: 'Prelude in C major (The Well-Tempered Clavier, Book I)',
      proposedValue: 'Prelude in C major (quokka edition)',
      rationale: 'Test.',
    });

    const deadline = Date.now() + 180_000;
    while (completeIncremental().length === 0) {
      if (Date.now() > deadline) throw new Error(`no complete incremental build within 180 s:\n${running.output()}`);
      await new Promise((r) => setTimeout(r, 5));
    }
    killTree(running.child.pid!);
    await running.stop('SIGKILL');
    const [incremental] = completeIncremental();
    // The folder nginx was being served from (ARCHIVE_DATA_DIR/current) when the server died.
    const linkedBefore = path.basename(readlinkSync(path.join(dataDir, 'current')));

    running = await serviceRun.start(ENV, 240_000);
    const restarted = running;
    expect(restarted.output()).not.toContain('building the site');
    // Every other folder is pruned; the one nginx was reading stays for the requests in flight,
    // and so does the base the incremental build is a layer over (src/lib/site/layers.ts); the
    // link now names the incremental build.
    const layerBase = layerBaseDir(path.join(buildsDir, incremental!));
    expect(layerBase).not.toBeNull();
    expect(readdirSync(buildsDir).sort()).toEqual(
      [...new Set([incremental!, linkedBefore, path.basename(layerBase!)])].sort(),
    );
    expect(path.basename(readlinkSync(path.join(dataDir, 'current')))).toBe(incremental);
    const work = await dataOf(await fetch(`${restarted.url}/api/v1/works/bach-prelude-in-c-bwv-846`));
    expect(work.title).toBe('Prelude in C major (quokka edition)');
    expect(await (await fetch(`${restarted.url}/api/v1/works/bach-prelude-in-c-bwv-846/index.md`)).text()).toContain(
      'quokka edition',
    );
    expect(await (await fetch(`${restarted.url}/works/bach-prelude-in-c-bwv-846/`)).text()).toContain('quokka edition');
    expect((await dataOf(await fetch(`${restarted.url}/api/v1/works?query=quokka`))).total).toBe(1);
    const item = await applyOutcome(fetchCaller(restarted.url), KEY, code, 120_000, restarted.output);
    expect(item.status).toBe('applied');
    expect(item.apply.state).toBe('visible');
  }, 600_000);
});
