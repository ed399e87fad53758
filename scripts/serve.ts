/**
 * What `npm start` runs (through scripts/start.ts): prepare the runtime content repository, build
 * it if this commit and base URL have no complete build yet, and serve it. Runs on embedded
 * defaults: the sample catalog, local storage under ./data, local Git review.
 */
import path from 'node:path';
import { ConfigError, loadConfig } from '../api/config.ts';
import { createApp } from '../api/app.ts';
import { SiteHandle } from '../api/site/site-handle.ts';
import { ensureContentRepo } from '../api/site/content-repo.ts';
import { writeContentLintCi } from '../api/site/content-lint-ci.ts';
import { PROJECT_ROOT } from './build.ts';
import { ensureBuild, pruneBuilds, servedBuildLink, servedBuildTarget } from '../api/site/builds.ts';
import { prepareDataDir, serve } from '../api/lifecycle.ts';

async function main(): Promise<void> {
  const config = loadConfig(process.env, PROJECT_ROOT);
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
  // Incrementally from the newest complete build of this base URL when there is one (the content
  // repository moved on while the server was stopped); the server reconciles it in full later.
  const buildDir = await ensureBuild(config, repo.head, {
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
  if (built) console.log(`built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  // The folder nginx was serving through ARCHIVE_DATA_DIR/current until now stays for this start
  // (requests still reading it); the link moves to the new one before anything is pruned.
  const link = servedBuildLink(config.dataDir);
  const before = servedBuildTarget(link);
  const handle = await SiteHandle.open(buildDir, { servedLink: link, budgets: config.cacheBudgets });
  pruneBuilds(config, [buildDir, ...(before ? [before] : [])]);
  const app = await createApp({ config, handle, warmUp: true }, { logger: { level: config.logLevel } });
  // Listens, and drains on SIGTERM/SIGINT (api/lifecycle.ts).
  await serve(app, config);
  console.log(
    `serving ${handle.current.catalog.listing.count} works at ${config.publicBaseUrl} (listening on ${config.host}:${config.port})`,
  );
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? `configuration error: ${err.message}` : err);
  process.exit(1);
});
