/**
 * Small helpers shared by the bench sections: temp folders that are always removed, child
 * processes that are always killed (by process group), free loopback ports, HTTP polling.
 * All traffic goes to 127.0.0.1.
 */
import { spawn, spawnSync, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, chmodSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildArgs } from '../../build/protocol.ts';

export const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A fetch retried up to 3 times when the client's connection failed (a pooled keep-alive
 * connection to a service stopped by a restart can be closed under it); never on an answer.
 * `onRetry` hears each failure that is retried.
 */
export async function retried<T>(fn: () => Promise<T>, onRetry?: (err: unknown) => void): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await fn();
    } catch (err) {
      if (attempt >= 3) throw err;
      onRetry?.(err);
      await sleep(100 * (attempt + 1));
    }
  }
}

/** Everything a run started, so it can be torn down on success, failure or Ctrl-C. */
export class Cleanup {
  private readonly dirs: string[] = [];
  private readonly procs = new Set<TrackedProcess>();

  tempDir(prefix: string): string {
    const dir = mkdtempSync(path.join(os.tmpdir(), `pdma-bench-${prefix}-`));
    // mkdtemp makes 0700 folders; nginx workers (which drop to an unprivileged user when the
    // master runs as root) must be able to read build folders beneath it.
    chmodSync(dir, 0o755);
    this.dirs.push(dir);
    return dir;
  }

  removeDir(dir: string): void {
    rmSync(dir, { recursive: true, force: true });
    const i = this.dirs.indexOf(dir);
    if (i >= 0) this.dirs.splice(i, 1);
  }

  track(p: TrackedProcess): void {
    this.procs.add(p);
    p.child.once('exit', () => this.procs.delete(p));
  }

  /** Kill every tracked process group still alive (SIGTERM, then SIGKILL) and remove temp dirs. */
  async run(): Promise<void> {
    await Promise.all([...this.procs].map((p) => p.stop()));
    for (const dir of this.dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  }

  /** Synchronous last resort for process exit: SIGKILL groups, remove dirs. */
  runSync(): void {
    for (const p of this.procs) p.killGroup('SIGKILL');
    for (const dir of this.dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  }
}

/** A child started in its own process group, with the tail of its output kept for reports. */
export class TrackedProcess {
  readonly child: ChildProcess;
  readonly label: string;
  private output = '';
  exitCode: number | null = null;
  exitSignal: NodeJS.Signals | null = null;
  readonly exited: Promise<void>;

  constructor(label: string, command: string, args: string[], options: SpawnOptions = {}) {
    this.label = label;
    this.child = spawn(command, args, { ...options, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    const keep = (chunk: Buffer) => {
      this.output = (this.output + chunk.toString('utf8')).slice(-8000);
    };
    this.child.stdout?.on('data', keep);
    this.child.stderr?.on('data', keep);
    this.exited = new Promise((resolve) => {
      this.child.once('exit', (code, signal) => {
        this.exitCode = code;
        this.exitSignal = signal;
        resolve();
      });
      this.child.once('error', (err) => {
        this.output += `\nspawn error: ${err.message}`;
        resolve();
      });
    });
  }

  get pid(): number | undefined {
    return this.child.pid;
  }

  get running(): boolean {
    return this.child.pid !== undefined && this.exitCode === null && this.exitSignal === null;
  }

  /** The last few kilobytes of stdout and stderr, interleaved. */
  tail(chars = 2000): string {
    return this.output.slice(-chars);
  }

  killGroup(signal: NodeJS.Signals): void {
    if (this.child.pid === undefined) return;
    try {
      process.kill(-this.child.pid, signal);
    } catch {
      // group already gone
    }
  }

  /** SIGTERM the group, wait up to `graceMs`, then SIGKILL it. */
  async stop(graceMs = 5000): Promise<void> {
    if (!this.running) {
      this.killGroup('SIGKILL'); // stray grandchildren, if any
      return;
    }
    this.killGroup('SIGTERM');
    const done = await Promise.race([this.exited.then(() => true), sleep(graceMs).then(() => false)]);
    this.killGroup('SIGKILL');
    if (!done) await Promise.race([this.exited, sleep(2000)]);
  }
}

/**
 * The service as `npm start` runs it: scripts/start.ts in its own process group, on loopback
 * `port`, tracked by `cleanup`. `env` is laid over the inherited environment and the defaults
 * (PORT, HOST 127.0.0.1, PUBLIC_BASE_URL the loopback address, LOG_LEVEL warn); a variable set to
 * undefined there is removed.
 */
export function spawnService(o: {
  cleanup: Cleanup;
  port: number;
  env: Record<string, string | undefined>;
  label?: string;
}): TrackedProcess {
  const env: Record<string, string | undefined> = {
    ...process.env,
    PORT: String(o.port),
    HOST: '127.0.0.1',
    PUBLIC_BASE_URL: `http://127.0.0.1:${o.port}`,
    LOG_LEVEL: 'warn',
    ...o.env,
  };
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete env[name];
  const proc = new TrackedProcess(
    o.label ?? 'service (scripts/start.ts)',
    process.execPath,
    [path.join(PROJECT_ROOT, 'scripts', 'start.ts')],
    { cwd: PROJECT_ROOT, env },
  );
  o.cleanup.track(proc);
  return proc;
}

/** The service (spawnService) on `port` or a free loopback port, once GET /api/v1 answers 200 (within `timeoutMs`). */
export async function startArchive(o: {
  cleanup: Cleanup;
  env: Record<string, string | undefined>;
  label?: string;
  port?: number;
  timeoutMs: number;
}): Promise<{ url: string; proc: TrackedProcess }> {
  const port = o.port ?? (await freePort());
  const url = `http://127.0.0.1:${port}`;
  const proc = spawnService({ cleanup: o.cleanup, port, env: o.env, ...(o.label ? { label: o.label } : {}) });
  await waitForHttp(`${url}/api/v1`, proc, o.timeoutMs);
  return { url, proc };
}

/** The arguments of `node` for scripts/build.ts (the site build, quiet) of `contentDir` into `outDir`. */
export function siteBuildCommand(contentDir: string, outDir: string, baseUrl: string): string[] {
  return [path.join(PROJECT_ROOT, 'scripts', 'build.ts'), ...buildArgs(contentDir, outDir, baseUrl)];
}

/** scripts/build.ts (the site build, quiet) of `contentDir` into `outDir`; rejects with the end of its output. */
export function runSiteBuild(contentDir: string, outDir: string, baseUrl: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, siteBuildCommand(contentDir, outDir, baseUrl), {
      cwd: PROJECT_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (d) => (output += String(d)));
    child.stderr.on('data', (d) => (output += String(d)));
    child.on('error', reject);
    child.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`build failed (${code}):\n${output.slice(-4000)}`)),
    );
  });
}

/** A TCP port that was free on 127.0.0.1 a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      const port = typeof addr === 'object' && addr ? addr.port : 0;
      srv.close(() => resolve(port));
    });
  });
}

export interface Fetched {
  status: number;
  body: Buffer;
  headers: Record<string, string>;
}

export async function get(url: string, timeoutMs = 5000): Promise<Fetched> {
  if (!url.startsWith('http://127.0.0.1:')) throw new Error(`refusing non-loopback URL ${url}`);
  const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'manual' });
  const body = Buffer.from(await res.arrayBuffer());
  return { status: res.status, body, headers: Object.fromEntries(res.headers.entries()) };
}

/**
 * Poll `url` until it answers 200, the process dies, or `timeoutMs` passes.
 * Returns the time waited in ms; throws with the process output on failure.
 */
export async function waitForHttp(url: string, proc: TrackedProcess, timeoutMs: number): Promise<number> {
  const started = Date.now();
  let last = '';
  while (Date.now() - started < timeoutMs) {
    if (!proc.running) {
      throw new Error(
        `${proc.label} exited (code ${proc.exitCode}, signal ${proc.exitSignal}) before ${url} answered:\n${proc.tail()}`,
      );
    }
    try {
      const r = await get(url, 2000);
      if (r.status === 200) return Date.now() - started;
      last = `HTTP ${r.status}`;
    } catch (err) {
      last = (err as Error).message;
    }
    await sleep(250);
  }
  throw new Error(
    `${proc.label} did not answer 200 at ${url} within ${Math.round(timeoutMs / 1000)} s (last: ${last}):\n${proc.tail()}`,
  );
}

export const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

export function ratio(value: number | null | undefined, baseline: number | null | undefined): number | null {
  if (value == null || baseline == null || baseline === 0 || !Number.isFinite(value) || !Number.isFinite(baseline))
    return null;
  return round(value / baseline, 3);
}

/** A program a bench measures against (nginx, hugo): where it is, its version, how it was found or why it is missing. */
export interface AnchorBinary {
  path: string | null;
  version: string | null;
  note: string;
}

/**
 * Find a Debian package's program (the candidate paths, then `command -v`); if absent and running
 * as root, `apt-get install -y <pkg>` within `budgetMs` (with `apt-get update` first when the
 * install fails: package lists may be missing or stale in a fresh container).
 */
export function findOrInstallDebianPackage(o: {
  pkg: string;
  command: string;
  candidates: string[];
  version: (bin: string) => string | null;
  budgetMs: number;
  log: (m: string) => void;
}): AnchorBinary {
  const lookup = (): string | null => {
    for (const candidate of o.candidates) if (existsSync(candidate)) return candidate;
    const r = spawnSync('sh', ['-c', `command -v ${o.command}`], { encoding: 'utf8' });
    const found = r.stdout.trim();
    return r.status === 0 && found ? found : null;
  };
  let bin = lookup();
  if (bin) return { path: bin, version: o.version(bin), note: `found at ${bin}` };
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) {
    return {
      path: null,
      version: null,
      note: `${o.command} is not installed and the bench is not running as root, so it did not try apt-get install ${o.pkg}`,
    };
  }
  if (!existsSync('/usr/bin/apt-get'))
    return { path: null, version: null, note: `${o.command} is not installed and apt-get is not available` };
  o.log(`${o.command} not found; running apt-get install -y ${o.pkg} (up to ${Math.round(o.budgetMs / 1000)} s) ...`);
  const deadline = Date.now() + o.budgetMs;
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  const install = () =>
    spawnSync('apt-get', ['install', '-y', '--no-install-recommends', o.pkg], {
      env,
      encoding: 'utf8',
      timeout: Math.max(1000, deadline - Date.now()),
    });
  let r = install();
  if (r.status !== 0 && Date.now() < deadline - 10_000) {
    spawnSync('apt-get', ['update'], { env, encoding: 'utf8', timeout: Math.max(1000, deadline - Date.now() - 5000) });
    if (Date.now() < deadline) r = install();
  }
  bin = lookup();
  if (bin) return { path: bin, version: o.version(bin), note: `installed with apt-get (${bin})` };
  const why = r.error
    ? r.error.message
    : `apt-get exited ${r.status}: ${(r.stderr || r.stdout || '').trim().split('\n').slice(-3).join(' | ')}`;
  return {
    path: null,
    version: null,
    note: `${o.command} is not installed and apt-get install failed or timed out (${why})`,
  };
}
