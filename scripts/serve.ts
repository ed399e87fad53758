/**
 * What `npm start` runs (through scripts/start.ts): prepare the runtime content repository, open
 * the build of its HEAD and serve it. Runs on embedded defaults: the sample catalog, local storage
 * under ./data, local Git review.
 *
 * - No complete build of HEAD yet, but an older complete build of this base URL (the content
 *   repository moved on while the server was stopped): that build is served at once and HEAD is
 *   built meanwhile, as an apply's change is (incrementally from it when it can), then swapped
 *   in; /readyz says so. Only a first start, with no complete build at all, builds before it listens.
 * - ARCHIVE_READ_PROCESSES > 1: this process is the write process and starts the read processes
 *   (api/site/read-processes.ts, scripts/read-process.ts); nginx-upstreams.conf in the data folder
 *   names them all for the generated nginx.conf.
 * - ARCHIVE_WRITER_URL: this process is a read process of another machine's write process.
 */
import path from 'node:path';
import { ConfigError, loadConfig } from '../api/config.ts';
import { createApp } from '../api/app.ts';
import { SiteHandle } from '../api/site/site-handle.ts';
import { ensureContentRepo } from '../api/site/content-repo.ts';
import { writeContentLintCi } from '../api/site/content-lint-ci.ts';
import { PROJECT_ROOT } from '../build/command.ts';
import {
  completeBuildOf,
  ensureBuild,
  latestCompleteBuild,
  pruneBuilds,
  servedBuildLink,
  servedBuildTarget,
} from '../api/site/builds.ts';
import { prepareDataDir, serve } from '../api/lifecycle.ts';
import { ReadProcessPool, readProcessScript, writerSocketPath } from '../api/site/read-processes.ts';
import { writeNginxUpstreams } from '../api/site/nginx.ts';
import { openStateBackend } from '../api/session/state-backend.ts';
import { utcTimestamp } from '../src/schemas/envelope.ts';
import { runReadProcess } from './read-process.ts';

async function main(): Promise<void> {
  const config = loadConfig(process.env, PROJECT_ROOT);
  if (config.writerUrl) {
    // A read process of another machine's archive: serves the shared data folder's build.
    await runReadProcess(config, { port: config.port, writer: { url: config.writerUrl }, index: 0 });
    return;
  }
  await prepareDataDir(config, { info: (_o, msg) => console.log(msg) });
  // With review on GitHub, a new content repository gets the pull-request lint for its CI
  // (docs/github-review.md); otherwise `npm run content-lint:install` adds it when needed.
  const repo = await ensureContentRepo(
    config.contentRepo,
    config.seedContentDir,
    config.github ? writeContentLintCi : undefined,
  );
  if (repo.created) console.log(`created the content repository at ${config.contentRepo}`);
  const started = Date.now();
  let built = false;
  // HEAD's build when it is complete; else the newest complete build of this base URL, served
  // while HEAD builds; else (a first start) HEAD is built before anything listens.
  let buildDir = completeBuildOf(config, repo.head);
  let buildHeadLater = false;
  if (buildDir === null) {
    const last = await latestCompleteBuild(config);
    if (last !== null) {
      buildDir = last;
      buildHeadLater = true;
      console.log(
        `serving the last complete build ${path.basename(last)} while commit ${repo.head.slice(0, 12)} builds`,
      );
    }
  }
  if (buildDir === null) {
    buildDir = await ensureBuild(config, repo.head, {
      inheritOutput: true,
      worktree: 'rebuild',
      incrementalFromLatest: config.incrementalBuilds,
      onBuildStart: ({ incrementalFrom }) => {
        built = true;
        const from = incrementalFrom ? `, incrementally from ${path.basename(incrementalFrom)}` : '';
        console.log(`building the site for commit ${repo.head.slice(0, 12)} (${config.publicBaseUrl})${from} ...`);
      },
      onIncrementalFailed: (err) =>
        console.log(`the incremental build failed (${err.message.split('\n')[0]}); building in full`),
    });
  }
  if (built) console.log(`built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  // The folder nginx was serving through ARCHIVE_DATA_DIR/current until now stays for this start
  // (requests still reading it); the link moves to the new one before anything is pruned.
  const link = servedBuildLink(config.dataDir);
  const before = servedBuildTarget(link);
  const handle = await SiteHandle.open(buildDir, { servedLink: link, budgets: config.cacheBudgets });
  void pruneBuilds(config, [buildDir, ...(before ? [before] : [])]);
  const state = await openStateBackend(config.redisUrl);
  const app = await createApp({ config, handle, warmUp: true, state }, { logger: { level: config.logLevel } });
  app.addHook('onClose', async () => state.close());
  if (buildHeadLater) {
    app.archive.startup.building = repo.head;
    app.archive.startup.startedAtUtc = utcTimestamp(new Date());
  }
  let pool: ReadProcessPool | null = null;
  const socketPath = config.readProcesses > 1 ? writerSocketPath() : undefined;
  if (config.readProcesses > 1) {
    pool = new ReadProcessPool({
      count: config.readProcesses,
      ports: Array.from({ length: config.readProcesses }, (_, i) => (config.port === 0 ? 0 : config.port + 1 + i)),
      script: readProcessScript(PROJECT_ROOT),
      writerSocket: socketPath!,
      log: (line) => app.log.warn(line),
    });
    handle.setPeers(pool);
  }
  // Listens, and drains on SIGTERM/SIGINT (api/lifecycle.ts); the read processes stop with it.
  const serving = await serve(app, config, {
    socketPath,
    alongside: pool ? (ms) => pool.stop(ms + 2_000) : undefined,
  });
  const readerPorts = pool ? await pool.start() : [];
  writeNginxUpstreams(config.dataDir, {
    writer: `${config.host}:${serving.port}`,
    readers: readerPorts.map((p) => `${config.host}:${p}`),
  });
  console.log(
    `serving ${handle.current.catalog.listing.count} works at ${config.publicBaseUrl} (listening on ${config.host}:${serving.port})` +
      (readerPorts.length > 0
        ? `, read processes listening on ${readerPorts.map((p) => `${config.host}:${p}`).join(', ')}`
        : ''),
  );
  if (buildHeadLater) void app.archive.buildHead((line) => console.log(line));
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? `configuration error: ${err.message}` : err);
  process.exit(1);
});
