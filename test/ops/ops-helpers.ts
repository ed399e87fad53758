/** An app on a real loopback socket through api/lifecycle.ts `serve`, with its own data folder. */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { inject } from 'vitest';
import { createApp } from '../../api/app.ts';
import { loadConfig, type Config } from '../../api/config.ts';
import { serve, type Serving } from '../../api/lifecycle.ts';
import { ensureContentRepo } from '../../api/site/content-repo.ts';
import { SiteHandle } from '../../api/site/site-handle.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';

export interface Served {
  app: FastifyInstance;
  config: Config;
  dataDir: string;
  url: string;
  serving: Serving;
  /** Log lines (JSON), when `log` was asked for. */
  logs: string[];
  close(): Promise<void>;
}

export async function openServed(
  env: Record<string, string> = {},
  options: { contentRepo?: boolean; log?: boolean } = {},
): Promise<Served> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pdma-ops-'));
  if (options.contentRepo) await ensureContentRepo(path.join(dataDir, 'content'), path.join(PROJECT_ROOT, 'content'));
  const config = loadConfig(
    { PUBLIC_BASE_URL: inject('testBaseUrl'), ARCHIVE_DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', ...env },
    PROJECT_ROOT,
  );
  const handle = await SiteHandle.open(inject('sampleBuildDir'));
  const logs: string[] = [];
  const app = await createApp(
    { config, handle },
    { logger: options.log ? { level: 'info', stream: { write: (line: string) => void logs.push(line) } } : false },
  );
  const serving = await serve(app, config, { signals: false, exit: () => undefined });
  return {
    app,
    config,
    dataDir,
    url: `http://127.0.0.1:${serving.port}`,
    serving,
    logs,
    close: async () => {
      await serving.stop('test over');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
