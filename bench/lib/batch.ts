/**
 * Bench section "batch" (opt-in: `npm run bench -- --only batch`): a review batch of real
 * OpenScore songs through the archive (docs/imports.md), as `npm start` runs it on loopback.
 *
 *   1. Accept: the first N songs of the Lieder corpus (100; quick 10) are imported into two
 *      fresh archives (sample content, each its own data folder and empty render cache). In one,
 *      every item is accepted one after another (`POST /api/v1/admin/contributions/{code}/accept`,
 *      each waited for: the anchor); in the other the batch is accepted at once
 *      (`POST /api/v1/admin/batches/{id}/accept`, in the background, items side by side).
 *      Same songs, same machine, same run. Target: the batch takes at most half the time.
 *   2. Apply: the batch is applied in the second archive (one tree change: the commits main
 *      gained and their parents are recorded) and its time measured.
 *   3. At scale (`--batch-works N`, default 10,000; quick 2,000): a generated catalog of N works
 *      (`npm run generate:catalog`'s generator), built in full (the anchor), served; M songs
 *      (`--batch-songs`, default 200; quick 10) imported and accepted as a batch, then the batch
 *      applied: request to every item visible. Target <= 20 s at 10,000 works.
 * The machine's 1-minute load average is recorded at each step.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { figure, type Figure, type Section, type SectionResult } from './results.ts';
import { PROJECT_ROOT, TrackedProcess, freePort, round, startArchive, type Cleanup } from './util.ts';
import { batchAction } from './import.ts';
import { generateCatalog } from '../../scripts/generate-catalog.ts';
import { loadConfig } from '../../api/config.ts';
import { ensureContentRepo } from '../../api/site/content-repo.ts';
import { ensureBuild } from '../../api/site/builds.ts';

const KEY = 'bench-batch-admin-key-1';
const LIEDER = path.join(PROJECT_ROOT, '..', 'shared', 'corpora', 'openscore-lieder');
const BATCH = 'openscore-lieder';

interface Archive {
  url: string;
  dataDir: string;
  proc: TrackedProcess;
}

async function startBatchArchive(cleanup: Cleanup, dataDir: string, port?: number): Promise<Archive> {
  const { url, proc } = await startArchive({
    cleanup,
    ...(port === undefined ? {} : { port }),
    label: 'archive',
    env: { ARCHIVE_DATA_DIR: dataDir, ARCHIVE_ADMIN_KEYS: `bench=${KEY}`, ARCHIVE_WARM_BUILDER_WARM_UP: '0' },
    timeoutMs: 1_800_000,
  });
  return { url, dataDir, proc };
}

/** Import the first `limit` songs of the Lieder corpus into the archive's batch; their tracking codes. */
async function importSongs(a: Archive, limit: number): Promise<string[]> {
  execFileSync(
    process.execPath,
    ['scripts/import.ts', path.join(LIEDER), '--json', '--server', a.url, '--limit', String(limit)],
    { cwd: PROJECT_ROOT, env: { ...process.env, ARCHIVE_ADMIN_KEY: KEY }, maxBuffer: 64 * 1024 * 1024 },
  );
  const res = await fetch(`${a.url}/api/v1/admin/batches/${BATCH}?status=pending`, {
    headers: { authorization: `Bearer ${KEY}` },
  });
  if (!res.ok) throw new Error(`the batch ${BATCH} answered ${res.status}`);
  const body = (await res.json()) as { data: { items: Array<{ trackingCode: string }> } };
  return body.data.items.map((i) => i.trackingCode);
}

const git = (repo: string, ...args: string[]) =>
  execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' }).trim();

export function batchSection(options: { works?: number; songs?: number } = {}): Section {
  return {
    name: 'batch',
    optIn: true,
    description:
      'review batches of real OpenScore songs: batch accept (items side by side) vs one after another (<= 0.5x), batch apply as one change, and a batch apply at 10,000 works (<= 20 s)',
    async run(ctx): Promise<Omit<SectionResult, 'durationMs'>> {
      const songs = ctx.quick ? 10 : 100;
      const figures: Figure[] = [];
      const details: Record<string, unknown> = { songs };
      const loads: Record<string, number> = {};
      const load = (step: string) => (loads[step] = round(loadavg()[0]!, 2));

      // 1. Accept: one after another in one archive, as a batch in another (both start cold).
      ctx.log(`accept: starting two archives and importing ${songs} songs into each`);
      const one = await startBatchArchive(ctx.cleanup, ctx.cleanup.tempDir('batch-one'));
      const both = await startBatchArchive(ctx.cleanup, ctx.cleanup.tempDir('batch-all'));
      const codesOne = await importSongs(one, songs);
      const codesAll = await importSongs(both, songs);
      details.imported = { oneByOne: codesOne.length, batch: codesAll.length };
      load('accept one by one');
      let t = Date.now();
      let refused = 0;
      for (const code of codesOne) {
        const r = await fetch(`${one.url}/api/v1/admin/contributions/${code}/accept`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
          body: JSON.stringify({ reviewer: 'Bench', approveTerms: true }),
        });
        await r.arrayBuffer();
        if (r.status !== 200) refused++;
      }
      const oneByOneMs = Date.now() - t;
      ctx.log(`accept one after another: ${oneByOneMs} ms (${refused} refused)`);
      await one.proc.stop();
      load('accept batch');
      t = Date.now();
      const accepted = await batchAction(both.url, KEY, BATCH, 'accept', { approveTerms: true }, ctx.log);
      const batchMs = Date.now() - t;
      details.accept = {
        oneByOneMs,
        oneByOneRefused: refused,
        batchMs,
        batchActedOn: accepted.action.actedOn,
        batchFailed: accepted.action.failed,
      };
      figures.push(
        figure(
          `batch accept of ${songs} real songs (items side by side; target <= 0.5x one after another)`,
          'ms',
          batchMs,
          oneByOneMs,
          'the same songs accepted one after another, same run',
          'lower',
          { ratio: 0.5, op: '<=' },
        ),
      );

      // 2. Apply the accepted batch: one change on main.
      const repo = path.join(both.dataDir, 'content');
      const before = git(repo, 'rev-parse', 'main');
      load('apply batch');
      t = Date.now();
      const applied = await batchAction(both.url, KEY, BATCH, 'apply', {}, ctx.log);
      const applyMs = Date.now() - t;
      const landed = git(repo, 'rev-list', '--first-parent', `${before}..main`).split('\n').filter(Boolean);
      details.apply = {
        ms: applyMs,
        actedOn: applied.action.actedOn,
        failed: applied.action.failed,
        commitsOnMain: landed.length,
        parentsOfTheCommit: landed[0]
          ? git(repo, 'rev-list', '--parents', '-n', '1', landed[0]).split(' ').length - 1
          : null,
      };
      await both.proc.stop();

      // 3. A batch apply at scale.
      const works = options.works ?? (ctx.quick ? 2000 : 10000);
      const scaleSongs = options.songs ?? (ctx.quick ? 10 : 200);
      const root = mkdtempSync(path.join(tmpdir(), `pdma-batch-bench-${works}-`));
      try {
        ctx.log(`${works} works: generating the catalog and building it in full`);
        const gen = generateCatalog({ works, outDir: path.join(root, 'seed') });
        // The build is keyed by the base URL, and the tracking links the bench follows use it: the
        // archive's own address, chosen now.
        const port = await freePort();
        const base = `http://127.0.0.1:${port}`;
        const config = loadConfig(
          { ARCHIVE_DATA_DIR: path.join(root, 'data'), PUBLIC_BASE_URL: base, ARCHIVE_ADMIN_KEYS: KEY },
          PROJECT_ROOT,
        );
        const repoScale = await ensureContentRepo(config.contentRepo, gen.outDir);
        t = Date.now();
        const buildDir = await ensureBuild(config, repoScale.head, { acceptIncremental: false, worktree: 'rebuild' });
        const fullBuildMs =
          (JSON.parse(readFileSync(path.join(buildDir, 'build.json'), 'utf8')) as { durationMs?: number }).durationMs ??
          Date.now() - t;
        const big = await startBatchArchive(ctx.cleanup, path.join(root, 'data'), port);
        try {
          const codes = await importSongs(big, scaleSongs);
          ctx.log(`${works} works: accepting ${codes.length} songs as a batch`);
          t = Date.now();
          const acc = await batchAction(big.url, KEY, BATCH, 'accept', { approveTerms: true }, ctx.log);
          const scaleAcceptMs = Date.now() - t;
          load(`apply at ${works}`);
          const mainBefore = git(config.contentRepo, 'rev-parse', 'main');
          t = Date.now();
          const app = await batchAction(big.url, KEY, BATCH, 'apply', {}, ctx.log);
          const scaleApplyMs = Date.now() - t;
          const landedScale = git(config.contentRepo, 'rev-list', '--first-parent', `${mainBefore}..main`)
            .split('\n')
            .filter(Boolean);
          details.scale = {
            works,
            songs: codes.length,
            fullBuildMs,
            acceptMs: scaleAcceptMs,
            acceptActedOn: acc.action.actedOn,
            acceptFailed: acc.action.failed,
            applyMs: scaleApplyMs,
            applyActedOn: app.action.actedOn,
            applyFailed: app.action.failed,
            commitsOnMain: landedScale.length,
          };
          figures.push(
            figure(
              `batch apply of ${codes.length} songs at ${works} works, request to every item visible (target <= 20 s)`,
              'ms',
              scaleApplyMs,
              fullBuildMs,
              `full build of the ${works}-work catalog, same run`,
              'lower',
              { ratio: round(20_000 / fullBuildMs, 4), op: '<=' },
            ),
          );
        } catch (err) {
          throw new Error(`${(err as Error).message}; the archive at ${works} works said:\n${big.proc.tail(4000)}`);
        } finally {
          await big.proc.stop();
        }
      } finally {
        rmSync(root, { recursive: true, force: true });
      }
      details.loadAverage1m = loads;
      return { status: 'ok', figures, details };
    },
  };
}
