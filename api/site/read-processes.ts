/**
 * Several processes, one archive (docs/operations.md, "Several processes").
 *
 * With ARCHIVE_READ_PROCESSES = N > 1, `npm start` runs one write process and N read processes
 * over the one data folder:
 *
 *   - the write process (PORT) answers everything, and alone runs the write path: intake, review,
 *     applies, builds, reconciles. It also listens on a Unix socket only processes of this
 *     machine and user can reach, where the read processes forward what they do not answer;
 *   - each read process (PORT+1 ... PORT+N, scripts/read-process.ts) answers static files,
 *     queries, resolve, MCP, sessions and sign-in itself, and forwards every other request to the
 *     writer with the client's address (X-Forwarded-For, believed only on that socket);
 *   - the build is swapped in two steps (`ReadProcessPool` is the handle's `SwapPeers`): every
 *     reader loads the new build while the writer does, then every reader switches, then the
 *     writer; a reader also follows the served-build link (ARCHIVE_DATA_DIR/current) by itself,
 *     so one that was restarting, or runs on another machine (ARCHIVE_WRITER_URL), catches up
 *     within `LINK_POLL_MS`;
 *   - sessions and limits live in Redis (ARCHIVE_REDIS_URL), so every process sees the same.
 *
 * A reader that dies (kill -9 included) is started again by the writer; it held nothing of its
 * own (what it forwarded was answered by the writer), so nothing is lost.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { SwapPeers, SiteHandle, ServedBuild } from './site-handle.ts';
import type { SiteRebuilder, SwapResult } from './builds.ts';
import { isCompleteBuild, servedBuildTarget } from './served.ts';

export { createForwarder, writerSocketPath, type WriterLink } from './read-forwarder.ts';
import type { ReconcileStatus } from '../../src/schemas/reconcile.ts';

/** How often a read process looks where the served-build link points. */
export const LINK_POLL_MS = 250;
/** How long the writer waits for the readers to load a new build (a large catalog's indexes). */
const PREPARE_WAIT_MS = 60_000;
/** How long the writer waits for the readers to switch (one assignment each). */
const SWITCH_WAIT_MS = 2_000;

/** A read process builds nothing: the write process does, and the readers follow its swaps. */
export class ReadOnlyRebuilder implements SiteRebuilder {
  async rebuildAndSwap(): Promise<SwapResult> {
    throw new Error('a read process does not build; the write process does');
  }
  requestReconcile(): ReconcileStatus {
    return this.reconcileStatus();
  }
  reconcileStatus(): ReconcileStatus {
    return {
      state: 'idle',
      trigger: null,
      commit: null,
      requestedAtUtc: null,
      startedAtUtc: null,
      finishedAtUtc: null,
      durationMs: null,
      detail: 'this is a read process: the write process reconciles',
      cost: null,
      schedule: 'off',
      nextScheduledAtUtc: null,
    };
  }
}

/** Messages between the write process and a read process (IPC of child_process.fork). */
export type ToReader = { type: 'prepare'; id: number; dir: string } | { type: 'switch'; id: number; dir: string };
export type FromReader =
  | { type: 'ready'; port: number; dir: string }
  | { type: 'prepared'; id: number; error?: string }
  | { type: 'switched'; id: number; error?: string };

/**
 * In a read process: serve what the writer says, when it says (`onMessage`), and follow the
 * served-build link (LINK_POLL_MS) for whatever was missed. Swaps happen one at a time.
 */
export class BuildFollower {
  private readonly handle: SiteHandle;
  private readonly link: string;
  private readonly log: (line: string) => void;
  private queue: Promise<unknown> = Promise.resolve();
  private readonly loaded = new Map<string, Promise<ServedBuild>>();
  private timer: NodeJS.Timeout | null = null;
  /**
   * Where the link pointed when last looked at. Only a move of the link is followed: the writer
   * tells its readers to switch before it moves the link, so a reader already serving the new
   * build still sees the old target for a moment, which it must not go back to.
   */
  private lastTarget: string | null;

  constructor(handle: SiteHandle, link: string, log: (line: string) => void = () => undefined) {
    this.handle = handle;
    this.link = link;
    this.log = log;
    this.lastTarget = servedBuildTarget(link);
  }

  /** Start following the link. */
  start(): void {
    const tick = () => {
      this.timer = setTimeout(() => {
        void this.checkLink().finally(tick);
      }, LINK_POLL_MS);
      this.timer.unref();
    };
    tick();
  }

  stop(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.queue.then(fn);
    this.queue = run.catch(() => undefined);
    return run;
  }

  private load(dir: string): Promise<ServedBuild> {
    let p = this.loaded.get(dir);
    if (!p) {
      p = this.handle.load(dir);
      this.loaded.set(dir, p);
      p.catch(() => this.loaded.delete(dir));
    }
    return p;
  }

  private async checkLink(): Promise<void> {
    const target = servedBuildTarget(this.link);
    if (!target || target === this.lastTarget) return;
    if (!isCompleteBuild(target)) return;
    this.lastTarget = target;
    if (target === this.handle.current.dir || this.loaded.has(target)) return;
    await this.serial(async () => {
      if (this.handle.current.dir === target) return;
      try {
        const next = await this.load(target);
        this.handle.commit(next);
        this.log(`following the served-build link to ${path.basename(target)}`);
      } catch (err) {
        this.log(`could not serve ${target}: ${(err as Error).message}`);
      } finally {
        this.loaded.delete(target);
      }
    });
  }

  /** A message of the write process; returns the answer to send. */
  async onMessage(message: ToReader): Promise<FromReader> {
    if (message.type === 'prepare') {
      try {
        await this.load(message.dir);
        return { type: 'prepared', id: message.id };
      } catch (err) {
        return { type: 'prepared', id: message.id, error: (err as Error).message };
      }
    }
    return this.serial(async () => {
      try {
        if (this.handle.current.dir !== message.dir) this.handle.commit(await this.load(message.dir));
        return { type: 'switched' as const, id: message.id };
      } catch (err) {
        return { type: 'switched' as const, id: message.id, error: (err as Error).message };
      } finally {
        this.loaded.delete(message.dir);
      }
    });
  }
}

interface Reader {
  index: number;
  /** The port it listens on (asked for, or given by the system when PORT is 0). */
  port: number;
  child: ChildProcess | null;
  ready: boolean;
  restarts: number;
}

export interface ReadProcessPoolOptions {
  count: number;
  /** Ports to listen on, one per reader (0: any free port). */
  ports: number[];
  /** The read process's script (scripts/read-process.ts). */
  script: string;
  writerSocket: string;
  log: (line: string) => void;
}

/**
 * In the write process: the read processes, started, restarted when they die, swapped with this
 * process's build (`SwapPeers`), and stopped with it.
 */
export class ReadProcessPool implements SwapPeers {
  private readonly options: ReadProcessPoolOptions;
  private readonly readers: Reader[];
  private stopping = false;
  private nextId = 1;
  private readonly waiting = new Map<number, { pending: Set<Reader>; done: () => void }>();

  constructor(options: ReadProcessPoolOptions) {
    this.options = options;
    this.readers = Array.from({ length: options.count }, (_, index) => ({
      index,
      port: options.ports[index] ?? 0,
      child: null,
      ready: false,
      restarts: 0,
    }));
  }

  /** Start every reader and wait until each listens; resolves with their ports. */
  async start(): Promise<number[]> {
    await Promise.all(this.readers.map((r) => this.spawn(r)));
    return this.ports();
  }

  ports(): number[] {
    return this.readers.map((r) => r.port);
  }

  /** Process ids of the readers running now (tests kill one). */
  pids(): number[] {
    return this.readers.map((r) => r.child?.pid ?? 0).filter((p) => p > 0);
  }

  private spawn(reader: Reader): Promise<void> {
    return new Promise((resolve, reject) => {
      const child = fork(
        this.options.script,
        ['--port', String(reader.port), '--writer-socket', this.options.writerSocket, '--index', String(reader.index)],
        { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] },
      );
      reader.child = child;
      reader.ready = false;
      let started = false;
      child.on('message', (m: FromReader) => {
        if (m.type === 'ready') {
          reader.port = m.port;
          reader.ready = true;
          if (!started) {
            started = true;
            resolve();
          }
          return;
        }
        const wait = this.waiting.get(m.id);
        if (!wait) return;
        if (m.error) this.options.log(`read process ${reader.index + 1}: ${m.type} failed: ${m.error}`);
        wait.pending.delete(reader);
        if (wait.pending.size === 0) wait.done();
      });
      child.on('exit', (code, signal) => {
        reader.ready = false;
        reader.child = null;
        for (const wait of this.waiting.values()) {
          wait.pending.delete(reader);
          if (wait.pending.size === 0) wait.done();
        }
        if (!started) {
          started = true;
          reject(
            new Error(`read process ${reader.index + 1} stopped before it listened (${signal ?? `exit ${code}`})`),
          );
          return;
        }
        if (this.stopping) return;
        reader.restarts++;
        const delay = Math.min(5_000, 250 * reader.restarts);
        this.options.log(
          `read process ${reader.index + 1} (port ${reader.port}) stopped (${signal ?? `exit ${code}`}); starting it again in ${delay} ms`,
        );
        setTimeout(() => {
          if (!this.stopping)
            this.spawn(reader).catch((err: Error) =>
              this.options.log(`read process ${reader.index + 1}: ${err.message}`),
            );
        }, delay).unref();
      });
    });
  }

  /** Send a message to every ready reader and wait for each answer (bounded). */
  private broadcast(type: ToReader['type'], dir: string, waitMs: number): Promise<void> {
    const id = this.nextId++;
    const pending = new Set(this.readers.filter((r) => r.ready && r.child?.connected));
    if (pending.size === 0) return Promise.resolve();
    return new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting.delete(id);
        this.options.log(
          `${pending.size} read process(es) did not ${type} ${path.basename(dir)} within ${waitMs} ms; they follow the served-build link`,
        );
        resolve();
      }, waitMs);
      timer.unref();
      this.waiting.set(id, {
        pending,
        done: () => {
          clearTimeout(timer);
          this.waiting.delete(id);
          resolve();
        },
      });
      for (const r of pending) {
        try {
          r.child!.send({ type, id, dir } satisfies ToReader);
        } catch {
          pending.delete(r);
        }
      }
      if (pending.size === 0) this.waiting.get(id)?.done();
    });
  }

  prepare(dir: string): Promise<void> {
    return this.broadcast('prepare', dir, PREPARE_WAIT_MS);
  }

  switch(dir: string): Promise<void> {
    return this.broadcast('switch', dir, SWITCH_WAIT_MS);
  }

  /** Stop every reader (SIGTERM: each drains like the writer), then SIGKILL what is left after `waitMs`. */
  async stop(waitMs: number): Promise<void> {
    this.stopping = true;
    const exits = this.readers
      .filter((r) => r.child !== null)
      .map(
        (r) =>
          new Promise<void>((resolve) => {
            const child = r.child!;
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const timer = setTimeout(() => child.kill('SIGKILL'), waitMs);
            child.once('exit', () => {
              clearTimeout(timer);
              resolve();
            });
            child.kill('SIGTERM');
          }),
      );
    await Promise.all(exits);
  }
}

/** The read process's script, beside the server's own (scripts/read-process.ts). */
export function readProcessScript(projectRoot: string): string {
  const script = path.join(projectRoot, 'scripts', 'read-process.ts');
  if (!existsSync(script)) throw new Error(`${script} is missing`);
  return script;
}
