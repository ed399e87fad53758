/** Start `npm start`'s entry point as a real process on a free loopback port. */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import { createServer } from 'node:net';
import path from 'node:path';
import { PROJECT_ROOT } from './app.ts';

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === 'object' && addr ? resolve(addr.port) : reject(new Error('no port'))));
    });
  });
}

export interface Started {
  child: ChildProcess;
  port: number;
  url: string;
  output: () => string;
  stop: (signal?: NodeJS.Signals) => Promise<number | null>;
}

export async function startService(env: Record<string, string>, timeoutMs = 120_000): Promise<Started> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  let output = '';
  const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'scripts', 'start.ts')], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, PORT: String(port), HOST: '127.0.0.1', PUBLIC_BASE_URL: url, LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (output += String(d)));
  child.stderr!.on('data', (d) => (output += String(d)));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`the service exited early (${child.exitCode}):\n${output}`);
    try {
      const res = await fetch(`${url}/api/v1`);
      if (res.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the service did not answer within ${timeoutMs} ms:\n${output}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    child,
    port,
    url,
    output: () => output,
    stop: async (signal = 'SIGTERM') => {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** The processes a process started (the server's build runs in a child of it). */
function childrenOf(pid: number): number[] {
  try {
    return execFileSync('ps', ['-o', 'pid=', '--ppid', String(pid)], { encoding: 'utf8' })
      .split('\n')
      .map((l) => Number(l.trim()))
      .filter((n) => n > 0);
  } catch {
    return [];
  }
}

/** SIGKILL a process and every process under it, children first (a crash mid-build, as a power cut would leave it). */
export function killTree(pid: number): void {
  for (const child of childrenOf(pid)) killTree(child);
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

export interface ScriptRun {
  status: number | null;
  /** stdout and stderr as they came, interleaved. */
  out: string;
}

/**
 * Run one of the project's scripts (`scripts/<script>`) in a child process, asynchronously, so
 * that servers living in the test's own process (an in-process app, the S3 test server) keep
 * answering while it runs.
 */
export function runScript(script: string, args: string[], env: Record<string, string> = {}): Promise<ScriptRun> {
  const child = spawn(process.execPath, [path.join('scripts', script), ...args], {
    cwd: PROJECT_ROOT,
    env: { ...process.env, ...env },
  });
  let out = '';
  child.stdout.on('data', (d) => (out += String(d)));
  child.stderr.on('data', (d) => (out += String(d)));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, out }));
  });
}

/**
 * A data folder for the `npm start` processes of one test file, and the process last started on
 * it: `dispose()` (in `afterAll`) kills that process and removes the folder.
 */
export class ServiceRun {
  readonly dataDir: string;
  private running: Started | null = null;

  constructor(prefix: string) {
    this.dataDir = mkdtempSync(path.join(os.tmpdir(), prefix));
  }

  /** Start a service on this data folder (`env` may name another ARCHIVE_DATA_DIR inside it). */
  async start(env: Record<string, string> = {}, timeoutMs?: number): Promise<Started> {
    this.running = await startService({ ARCHIVE_DATA_DIR: this.dataDir, ...env }, timeoutMs);
    return this.running;
  }

  async dispose(): Promise<void> {
    await this.running?.stop('SIGKILL');
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}

/** The `data` member of an archive answer (or the whole body when it has none). */
export async function dataOf(res: Response): Promise<Record<string, any>> {
  const body = (await res.json()) as { data?: Record<string, any> } & Record<string, any>;
  return (body.data ?? body) as Record<string, any>;
}
