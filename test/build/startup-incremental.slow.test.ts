/**
 * The start-up build uses the apply's machinery: a real `npm start` process on
 * a data folder whose content repository moved past its last build (a commit made while the
 * server was stopped) serves that build at once, builds the new HEAD incrementally from it (build.json
 * `mode: "incremental"`), serves the new content everywhere, and then reconciles it with a
 * background full build of the same commit, as after an incremental swap.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../api/config.ts';
import { buildKey, ensureBuild, isCompleteBuild, readBuildInfo } from '../../api/site/builds.ts';
import { ensureContentRepo, git } from '../../api/site/content-repo.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { type Started, ServiceRun, dataOf } from '../helpers/process.ts';

const serviceRun = new ServiceRun('pdma-startup-inc-');
const dataDir = serviceRun.dataDir;
const BASE = 'http://archive.startup-inc.example.test';
const ENV = { ARCHIVE_DATA_DIR: dataDir, PUBLIC_BASE_URL: BASE, ARCHIVE_RECONCILE_DELAY_MS: '0', LOG_LEVEL: 'info' };
const buildsDir = path.join(dataDir, 'builds');
const WORK = 'works/bach-minuet-in-g/index.md';
let running: Started | null = null;
afterAll(() => serviceRun.dispose());

describe('start-up after the content repository moved on', () => {
  it('builds HEAD incrementally from the last build, serves it, and reconciles it in full', async () => {
    const config = loadConfig(ENV, PROJECT_ROOT);
    const repo = config.contentRepo;
    const first = (await ensureContentRepo(repo, path.join(PROJECT_ROOT, 'test', 'fixtures', 'mini'))).head;
    const base = await ensureBuild(config, first);
    expect(readBuildInfo(base)).toMatchObject({ commit: first, mode: 'full' });

    // A correction committed while the server is stopped.
    const file = path.join(repo, WORK);
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace('title: Minuet in G major\n', 'title: Minuet in G major (wombat edition)\n'),
    );
    await git(repo, ['commit', '--quiet', '-am', 'Retitle the minuet']);
    const head = await git(repo, ['rev-parse', 'HEAD']);
    expect(head).not.toBe(first);

    running = await serviceRun.start(ENV, 300_000);
    const key = buildKey(head, BASE);
    // The start serves the last complete build at once, then builds HEAD as an apply's change is.
    expect(running.output()).toContain(
      `serving the last complete build ${path.basename(base)} while commit ${head.slice(0, 12)} builds`,
    );
    const built = `built ${head.slice(0, 12)} in `;
    const waitUntil = Date.now() + 400_000;
    while (!running.output().includes(built)) {
      if (running.output().includes("the build of the content repository's HEAD failed") || Date.now() > waitUntil)
        throw new Error(`HEAD was not built:\n${running.output()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    expect(running.output()).toMatch(
      new RegExp(`built ${head.slice(0, 12)} in [0-9.]+ s \\(incremental\\); serving it`),
    );
    const incremental = path.join(buildsDir, `${key}-inc`);
    expect(isCompleteBuild(incremental)).toBe(true);
    expect(readBuildInfo(incremental)).toMatchObject({ commit: head, mode: 'incremental', fallbackReason: null });

    const url = running.url;
    expect((await dataOf(await fetch(`${url}/api/v1/works/bach-minuet-in-g`))).title).toBe(
      'Minuet in G major (wombat edition)',
    );
    expect(await (await fetch(`${url}/api/v1/works/bach-minuet-in-g/index.md`)).text()).toContain('wombat edition');
    expect(await (await fetch(`${url}/works/bach-minuet-in-g/`)).text()).toContain('wombat edition');
    expect((await dataOf(await fetch(`${url}/api/v1/works?query=wombat`))).total).toBe(1);

    // The server reconciles the incremental folder with a full build of the same commit.
    const deadline = Date.now() + 400_000;
    while (!running.output().includes(`background reconcile of ${head.slice(0, 12)}: swapped`)) {
      if (running.output().includes(`background reconcile of ${head.slice(0, 12)}: failed`) || Date.now() > deadline)
        throw new Error(`no reconcile:\n${running.output()}`);
      await new Promise((r) => setTimeout(r, 200));
    }
    const full = path.join(buildsDir, key);
    expect(readBuildInfo(full)).toMatchObject({ commit: head, mode: 'full' });
    expect((await dataOf(await fetch(`${url}/api/v1/works/bach-minuet-in-g`))).title).toBe(
      'Minuet in G major (wombat edition)',
    );
    expect(existsSync(buildsDir) && readdirSync(buildsDir).includes(key)).toBe(true);
  }, 900_000);
});
