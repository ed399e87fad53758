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

/**
 * Start the service on a free loopback port and wait until it says it listens there and answers.
 * The port is free when chosen but may be taken before the service binds it (another test's
 * server on an ephemeral port): readiness waits for the service's own "listening on" line, so an
 * answer from someone else's server on that port never counts, and a lost race starts again on
 * another port.
 */
export async function startService(env: Record<string, string>, timeoutMs = 120_000): Promise<Started> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startServiceOnce(env, timeoutMs);
    } catch (err) {
      if (attempt < 3 && err instanceof PortTaken) continue;
      throw err;
    }
  }
}

class PortTaken extends Error {}

/**
 * `npm start`'s entry point (scripts/start.ts) on loopback `port`, its output collected; `env` is
 * laid over the defaults (PUBLIC_BASE_URL the loopback address, LOG_LEVEL warn, no warm-up).
 */
export function spawnStart(port: number, env: Record<string, string>): { child: ChildProcess; output: () => string } {
  let output = '';
  const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'scripts', 'start.ts')], {
    cwd: PROJECT_ROOT,
    // The warm-up at start (ARCHIVE_WARM_BUILDER_WARM_UP) runs a scoped build in every server
    // started; off unless a test asks for it (test/review/warm-up.slow.test.ts).
    env: {
      ...process.env,
      PORT: String(port),
      HOST: '127.0.0.1',
      PUBLIC_BASE_URL: `http://127.0.0.1:${port}`,
      LOG_LEVEL: 'warn',
      ARCHIVE_WARM_BUILDER_WARM_UP: '0',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d) => (output += String(d)));
  child.stderr!.on('data', (d) => (output += String(d)));
  return { child, output: () => output };
}

async function startServiceOnce(env: Record<string, string>, timeoutMs: number): Promise<Started> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const { child, output } = spawnStart(port, env);
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) {
      if (output().includes('EADDRINUSE')) throw new PortTaken(`port ${port} was taken before the service bound it`);
      throw new Error(`the service exited early (${child.exitCode}):\n${output()}`);
    }
    if (output().includes(`(listening on 127.0.0.1:${port})`)) {
      try {
        const res = await fetch(`${url}/api/v1`);
        if (res.ok) break;
      } catch {
        // not answering yet
      }
    }
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`the service did not answer within ${timeoutMs} ms:\n${output()}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    child,
    port,
    url,
    output,
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
  stdout: string;
  stderr: string;
}

export interface ScriptOptions {
  /** Run with `env` alone instead of this process's environment plus `env`. */
  replaceEnv?: boolean;
  /** Called once the process started, with a way to SIGKILL it (a crash mid-run). */
  onStart?: (kill: () => void) => void;
}

/**
 * Run one of the project's scripts (`scripts/<script>`) in a child process, asynchronously, so
 * that servers living in the test's own process (an in-process app, the S3 test server) keep
 * answering while it runs.
 */
export function runScript(
  script: string,
  args: string[],
  env: Record<string, string> = {},
  options: ScriptOptions = {},
): Promise<ScriptRun> {
  const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'scripts', script), ...args], {
    cwd: PROJECT_ROOT,
    env: options.replaceEnv ? env : { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d) => {
    out += String(d);
    stdout += String(d);
  });
  child.stderr.on('data', (d) => {
    out += String(d);
    stderr += String(d);
  });
  options.onStart?.(() => child.kill('SIGKILL'));
  return new Promise((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (status) => resolve({ status, out, stdout, stderr }));
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
