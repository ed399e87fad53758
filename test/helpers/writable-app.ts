/**
 * The write-path app: a fresh data folder with its own content repository (git, seeded from
 * `content/` or a fixture folder), the app over a served build, and a rebuilder (the real one by
 * default; a test passes its own, e.g. the gated fake of gated-rebuilder.ts, built over the real
 * one). `listen: true` also opens a loopback socket for CLIs and fetch.
 *
 *   const w = await openWritableApp({ env: { ARCHIVE_ADMIN_KEYS: KEY }, seed: 'test/fixtures/mini' });
 *   ... w.app.inject(...) ...
 *   await w.close();
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { inject } from 'vitest';
import { createApp, type AppInput } from '../../api/app.ts';
import { loadConfig, type Config } from '../../api/config.ts';
import { ensureBuild, Rebuilder, type RebuilderOptions, type SiteRebuilder } from '../../api/site/builds.ts';
import { ensureContentRepo, git } from '../../api/site/content-repo.ts';
import { SiteHandle } from '../../api/site/site-handle.ts';
import { listenOnLoopback, PROJECT_ROOT } from './app.ts';
import { GatedRebuilder } from './gated-rebuilder.ts';
import { MINI_WORK } from './fixture-copies.ts';

export interface WritableAppOptions<R extends SiteRebuilder> {
  /** Settings over the defaults (a fresh ARCHIVE_DATA_DIR, the served build's PUBLIC_BASE_URL). */
  env?: Record<string, string>;
  /** The content repository's first commit, relative to the project (default `content`). */
  seed?: string;
  /** The build served at start (default: the run's sample build). */
  buildDir?: string;
  /**
   * Serve a build of the seeded repository's head instead (made on open, as the server's
   * start-up does); its base URL is `env.PUBLIC_BASE_URL`.
   */
  buildSeed?: boolean;
  /** The real rebuilder's options (its reconcile and compaction settings, their event hooks). */
  rebuilderOptions?: RebuilderOptions;
  /** The rebuilder, made from the real one (default: the real one). */
  rebuilder?: (real: Rebuilder, config: Config, handle: SiteHandle) => R;
  review?: AppInput['review'];
  /** Also listen on a loopback port (`url`). */
  listen?: boolean;
  /** Temp-folder name prefix. */
  prefix?: string;
}

export interface WritableApp<R extends SiteRebuilder = Rebuilder> {
  app: FastifyInstance;
  /** The data folder (removed by `close`). */
  root: string;
  config: Config;
  handle: SiteHandle;
  rebuilder: R;
  /** `http://127.0.0.1:<port>` with `listen: true`, else null. */
  url: string | null;
  close(): Promise<void>;
}

export async function openWritableApp<R extends SiteRebuilder = Rebuilder>(
  options: WritableAppOptions<R> = {},
): Promise<WritableApp<R>> {
  const root = mkdtempSync(path.join(os.tmpdir(), options.prefix ?? 'pdma-writable-'));
  const servedBuild = options.buildSeed ? null : (options.buildDir ?? inject('sampleBuildDir'));
  const baseUrl = servedBuild
    ? (JSON.parse(readFileSync(path.join(servedBuild, 'build.json'), 'utf8')).baseUrl as string)
    : 'https://writable.example.test';
  const config = loadConfig({ ARCHIVE_DATA_DIR: root, PUBLIC_BASE_URL: baseUrl, ...options.env }, PROJECT_ROOT);
  const repo = await ensureContentRepo(config.contentRepo, path.join(PROJECT_ROOT, options.seed ?? 'content'));
  const handle = await SiteHandle.open(servedBuild ?? (await ensureBuild(config, repo.head)));
  const real = new Rebuilder(config, handle, options.rebuilderOptions);
  const rebuilder = options.rebuilder ? options.rebuilder(real, config, handle) : (real as unknown as R);
  const app = await createApp({ config, handle, rebuilder, review: options.review ?? {} });
  let url: string | null = null;
  if (options.listen) {
    url = await listenOnLoopback(app);
  }
  return {
    app,
    root,
    config,
    handle,
    rebuilder,
    url,
    close: async () => {
      await app.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}

/**
 * The write path over the mini fixture whose served build is a full build of its seeded head
 * (under `baseUrl`), with the real rebuilder made with `rebuilderOptions`.
 */
export function openMiniSite(
  prefix: string,
  baseUrl: string,
  rebuilderOptions: RebuilderOptions = {},
  env: Record<string, string> = {},
): Promise<WritableApp> {
  return openWritableApp({
    prefix,
    env: { PUBLIC_BASE_URL: baseUrl, ...env },
    seed: 'test/fixtures/mini',
    buildSeed: true,
    rebuilderOptions,
  });
}

/** Retitle the mini fixture's work in the content repository `repo` and commit it: the new head. */
export async function commitMiniRetitle(repo: string, title: string): Promise<string> {
  const file = path.join(repo, MINI_WORK);
  writeFileSync(file, readFileSync(file, 'utf8').replace(/^title: .*$/m, `title: ${title}`));
  await git(repo, ['commit', '--quiet', '-am', `Retitle: ${title}`]);
  return git(repo, ['rev-parse', 'HEAD']);
}

/**
 * Write-path apps over the mini fixture with a gated rebuilder, one per test: `open()` in the
 * test, `closeAll()` in `afterEach` (it opens the gate first, so no build is left waiting).
 */
export function gatedWritableApps(
  prefix: string,
  adminKey: string,
  options: { work?: string; listen?: boolean } = {},
): { open(): Promise<WritableApp<GatedRebuilder>>; closeAll(): Promise<void> } {
  let current: WritableApp<GatedRebuilder> | null = null;
  return {
    async open() {
      current = await openWritableApp({
        prefix,
        env: { PUBLIC_BASE_URL: 'http://127.0.0.1:4321', ARCHIVE_ADMIN_KEYS: adminKey },
        seed: 'test/fixtures/mini',
        rebuilder: (real, config) =>
          new GatedRebuilder(real, options.work ? { contentRepo: config.contentRepo, work: options.work } : {}),
        listen: options.listen ?? false,
      });
      return current;
    },
    async closeAll() {
      current?.rebuilder.open();
      await current?.close();
      current = null;
    },
  };
}
