/**
 * A read process (api/site/read-processes.ts): serves the build ARCHIVE_DATA_DIR/current names,
 * answers reads, sessions and sign-in, forwards everything else to the write process, and swaps
 * builds when the writer says so (IPC) or when the link moves (another machine).
 *
 * Started by the write process (`npm start` with ARCHIVE_READ_PROCESSES > 1):
 *   node scripts/read-process.ts --port N --writer-socket PATH --index I
 * or, on another machine, by `npm start` with ARCHIVE_WRITER_URL set (scripts/serve.ts).
 * Same environment as the writer; a stop (SIGTERM) drains like the writer's.
 */
import module from 'node:module';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../api/config.ts';
import { createApp } from '../api/app.ts';
import { SiteHandle } from '../api/site/site-handle.ts';
import { isCompleteBuild, servedBuildLink, servedBuildTarget } from '../api/site/builds.ts';
import { serve } from '../api/lifecycle.ts';
import { BuildFollower, type FromReader, type ToReader, type WriterLink } from '../api/site/read-processes.ts';
import { openStateBackend } from '../api/session/state-backend.ts';

/** How long a read process waits for the served-build link to name a complete build at start. */
const FIRST_BUILD_WAIT_MS = 10 * 60_000;

export async function runReadProcess(
  config: Config,
  options: { port: number; writer: WriterLink; index: number },
): Promise<void> {
  // Started by a write process: when it is gone (kill -9 included), this process goes too, from
  // the first moment on (a writer killed while this one was still starting must not leave it).
  let stopServing: ((reason: string) => Promise<number>) | null = null;
  if (process.send) {
    const leave = () => {
      if (stopServing) void stopServing('the write process stopped').then((code) => process.exit(code));
      else process.exit(0);
    };
    process.on('disconnect', leave);
    if (!process.connected) leave();
  }
  const link = servedBuildLink(config.dataDir);
  const waitUntil = Date.now() + FIRST_BUILD_WAIT_MS;
  let dir = servedBuildTarget(link);
  while (!dir || !isCompleteBuild(dir)) {
    if (Date.now() > waitUntil)
      throw new Error(`${link} names no complete build; start the write process first (it builds and links one)`);
    await new Promise((r) => setTimeout(r, 500));
    dir = servedBuildTarget(link);
  }
  // No served link of its own: the write process moves it; this process follows.
  const handle = await SiteHandle.open(dir, { budgets: config.cacheBudgets });
  const state = await openStateBackend(config.redisUrl);
  // One metrics listener per machine is the writer's (ARCHIVE_METRICS_PORT); readers answer
  // /metrics on their own port with a metrics key.
  const own: Config = { ...config, port: options.port, metricsPort: null };
  const app = await createApp(
    { config: own, handle, role: 'reader', writer: options.writer, state },
    { logger: { level: config.logLevel } },
  );
  app.addHook('onClose', async () => state.close());
  const follower = new BuildFollower(handle, link, (line) => app.log.info(line));
  follower.start();
  app.addHook('onClose', async () => follower.stop());
  const serving = await serve(app, own);
  stopServing = serving.stop;
  if (!process.connected && process.send)
    return void (await serving.stop('the write process stopped').then(process.exit));
  if (process.send) {
    process.on('message', (m: ToReader) => {
      void follower.onMessage(m).then((answer: FromReader) => process.send?.(answer));
    });
    process.send({ type: 'ready', port: serving.port, dir: handle.current.dir } satisfies FromReader);
  }
  app.log.info(
    `read process ${options.index + 1} serving ${path.basename(handle.current.dir)} on ${own.host}:${serving.port}`,
  );
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  (module as { enableCompileCache?: () => unknown }).enableCompileCache?.();
  const { values } = parseArgs({
    options: {
      port: { type: 'string' },
      'writer-socket': { type: 'string' },
      index: { type: 'string', default: '0' },
    },
  });
  const socketPath = values['writer-socket'];
  (async () => {
    const { PROJECT_ROOT } = await import('../build/command.ts');
    const config = loadConfig(process.env, PROJECT_ROOT);
    if (!socketPath || !existsSync(socketPath)) throw new Error(`no write process listens at ${socketPath}`);
    await runReadProcess(config, {
      port: Number(values.port ?? '0'),
      writer: { socketPath },
      index: Number(values.index),
    });
  })().catch((err: unknown) => {
    console.error(err instanceof ConfigError ? `configuration error: ${err.message}` : err);
    process.exit(1);
  });
}
