/**
 * `npm start`: prepare the runtime content repository, build it if this commit and base URL have
 * no complete build yet, and serve it. Runs on embedded defaults: the sample catalog, local
 * storage under ./data, local Git review.
 */
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ConfigError, loadConfig } from '../api/config.ts';
import { createApp } from '../api/app.ts';
import { SiteHandle } from '../api/site-handle.ts';
import { ensureContentRepo } from './content-repo.ts';
import { PROJECT_ROOT, isCompleteBuild } from './build.ts';

/** Build in a child process, so Vite's memory is returned to the system when it ends. */
export function buildInChild(contentDir: string, outDir: string, baseUrl: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'scripts', 'build.ts'), '--content', contentDir, '--out', outDir, '--base-url', baseUrl, '--quiet'], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve() : reject(new Error(`build exited with code ${code}`))));
  });
}

async function main(): Promise<void> {
  const config = loadConfig(process.env, PROJECT_ROOT);
  const repo = await ensureContentRepo(config.contentRepo, config.seedContentDir);
  if (repo.created) console.log(`created the content repository at ${config.contentRepo}`);
  const key = `${repo.head.slice(0, 12)}-${createHash('sha256').update(config.publicBaseUrl).digest('hex').slice(0, 8)}`;
  const buildsDir = path.join(config.dataDir, 'builds');
  const buildDir = path.join(buildsDir, key);
  mkdirSync(buildsDir, { recursive: true });
  if (!isCompleteBuild(buildDir)) {
    console.log(`building the site for commit ${repo.head.slice(0, 12)} (${config.publicBaseUrl}) ...`);
    const started = Date.now();
    await buildInChild(config.contentRepo, buildDir, config.publicBaseUrl);
    console.log(`built in ${((Date.now() - started) / 1000).toFixed(1)} s`);
  }
  for (const old of readdirSync(buildsDir)) if (old !== key) rmSync(path.join(buildsDir, old), { recursive: true, force: true });

  const handle = await SiteHandle.open(buildDir);
  const app = await createApp({ config, handle }, { logger: { level: config.logLevel } });
  const stop = async () => {
    await app.close();
    process.exit(0);
  };
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
  await app.listen({ port: config.port, host: config.host });
  console.log(`serving ${handle.current.catalog.works.length} works at ${config.publicBaseUrl} (listening on ${config.host}:${config.port})`);
}

main().catch((err: unknown) => {
  console.error(err instanceof ConfigError ? `configuration error: ${err.message}` : err);
  process.exit(1);
});
