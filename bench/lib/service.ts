/**
 * Starts the real service the way `npm start` does (scripts/start.ts in its own process), on a
 * free loopback port with a throw-away ARCHIVE_DATA_DIR, and waits until GET /api/v1 answers.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ensureContentRepo } from '../../api/site/content-repo.ts';
import { TrackedProcess, freePort, waitForHttp, type Cleanup, spawnService } from './util.ts';

export interface RunningService {
  proc: TrackedProcess;
  port: number;
  baseUrl: string;
  dataDir: string;
  /** The one build folder under ARCHIVE_DATA_DIR/builds. */
  buildDir: string;
  /** From spawn to the first 200 on /api/v1 (includes seeding and the first build). */
  readyAfterMs: number;
}

export interface StartServiceOptions {
  cleanup: Cleanup;
  /** Content to serve instead of the shipped ./content (seeded into a fresh git repository). */
  contentDir?: string;
  readyTimeoutMs?: number;
}

export async function startService(options: StartServiceOptions): Promise<RunningService> {
  const { cleanup } = options;
  const dataDir = cleanup.tempDir('data');
  const port = await freePort();
  const baseUrl = `http://127.0.0.1:${port}`;
  let contentRepo: string | undefined;
  if (options.contentDir) {
    contentRepo = path.join(dataDir, 'content');
    await ensureContentRepo(contentRepo, path.resolve(options.contentDir));
  }
  const started = Date.now();
  const proc = spawnService({ cleanup, port, env: { ARCHIVE_DATA_DIR: dataDir, ARCHIVE_CONTENT_REPO: contentRepo } });
  await waitForHttp(`${baseUrl}/api/v1`, proc, options.readyTimeoutMs ?? 240_000);
  const readyAfterMs = Date.now() - started;
  const builds = readdirSync(path.join(dataDir, 'builds'));
  if (builds.length !== 1)
    throw new Error(`expected one build folder under ${dataDir}/builds, found ${builds.length}: ${builds.join(', ')}`);
  return { proc, port, baseUrl, dataDir, buildDir: path.join(dataDir, 'builds', builds[0]!), readyAfterMs };
}

/** VmRSS and VmHWM of a live process, in bytes (Linux only; nulls elsewhere). */
export function memoryOf(pid: number | undefined): { rssBytes: number | null; peakRssBytes: number | null } {
  if (pid === undefined) return { rssBytes: null, peakRssBytes: null };
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kb = (field: string) => {
      const m = new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status);
      return m ? Number(m[1]) * 1024 : null;
    };
    return { rssBytes: kb('VmRSS'), peakRssBytes: kb('VmHWM') };
  } catch {
    return { rssBytes: null, peakRssBytes: null };
  }
}
