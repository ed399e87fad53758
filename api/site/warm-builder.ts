/**
 * A warm build process for the rebuilds an apply waits for (ARCHIVE_WARM_BUILDER, default on):
 * one long-lived child (`scripts/build-worker.ts`) runs the builds one after another, so each
 * apply finds Node, the build scripts and Astro's modules loaded instead of paying for a new
 * process that loads them (docs/review.md, "Apply-to-visible and the incremental path").
 *
 * - The child is started at the first build and replaced after `maxBuilds` builds or once the
 *   next build could take its memory past `maxRssBytes` (its memory now plus the most a build has
 *   added in it; ARCHIVE_WARM_BUILDER_MAX_RSS_MB, default a quarter of the memory, at least
 *   1.5 GiB, or its share of ARCHIVE_MEMORY_LIMIT_MB: `defaultWarmBuilderMaxRssBytes`; it says so
 *   in its answer and exits), or when it died: a build
 *   it was running fails like a build child that died, and the next build starts a new one.
 * - A cancelled build (its AbortSignal) stops the child: the build fails with "build cancelled";
 *   the next build starts a new child.
 * - While no build runs the child does not keep the server's process alive; `close()` stops it
 *   once the build it runs (if any) is done.
 * The reconcile's full builds (lowest CPU priority) and builds whose output goes to the terminal
 * keep a process of their own (api/site/child-builds.ts, `buildInChild`).
 */
import { fork, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { BuildAnswer, BuildRequest } from '../../build/protocol.ts';
import type { WarmUpResult } from '../../build/warm-up.ts';

const WORKER = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../scripts/build-worker.ts');

/** Builds one process runs before it is replaced. */
export const WARM_BUILDER_MAX_BUILDS = 50;
import { defaultWarmBuilderMaxRssBytes } from '../config-table.ts';

export { defaultWarmBuilderMaxRssBytes, WARM_BUILDER_MIN_RSS_BYTES } from '../config-table.ts';

export interface WarmBuildResult {
  /** The process that ran it. */
  pid: number;
  /** Builds that process had run before this one (0: a new process). */
  earlierBuilds: number;
  /** That process's resident memory after the build. */
  rssBytes: number;
  /** The most resident memory that process has had, bytes. */
  peakRssBytes: number;
  /** What the next build may take it to (its memory now plus the most a warm build added), bytes. */
  nextPeakBytes: number;
  /** That process reached its budget (builds or memory) and exits: the next build starts a new one. */
  retired: boolean;
  /** A warm-up's figures (a `--warm-up` run). */
  warmUp?: WarmUpResult;
}

export class WarmBuilder {
  private child: ChildProcess | null = null;
  /** Builds the current child has answered. */
  private builds = 0;
  private queue: Promise<unknown> = Promise.resolve();
  private nextId = 1;
  private closed = false;
  /** A build is running in the child. */
  private running = false;
  private readonly maxBuilds: number;
  private readonly maxRssBytes: number;

  constructor(options: { maxBuilds?: number; maxRssBytes?: number } = {}) {
    this.maxBuilds = options.maxBuilds ?? WARM_BUILDER_MAX_BUILDS;
    this.maxRssBytes = options.maxRssBytes ?? defaultWarmBuilderMaxRssBytes();
  }

  /** The current child's process id, if one is running (tests). */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /**
   * Run `scripts/build.ts` with `args` in the warm process, with `env` added to its environment
   * for this build; one build at a time (later calls wait their turn). Rejects with the build's
   * error, as the build CLI would print it.
   */
  run(args: string[], env: Record<string, string>, signal?: AbortSignal): Promise<WarmBuildResult> {
    const turn = this.queue.then(() => this.runNow(args, env, signal));
    this.queue = turn.catch(() => undefined);
    return turn;
  }

  /**
   * Stop the child once it is idle: a build it runs now finishes first (a stopping server's
   * apply still lands), and a build asked for after this runs in a child stopped right after it.
   */
  close(): void {
    this.closed = true;
    if (!this.running) {
      this.child?.kill('SIGTERM');
      this.child = null;
    }
  }

  /**
   * End the child now if it is idle (a build running now finishes first, and the next build starts
   * a new one): a reconcile's full build runs in a process of its own, and the two should not hold
   * their memory at once (docs/operations.md, "Memory").
   */
  release(): void {
    if (this.running || !this.child) return;
    this.child.kill('SIGTERM');
    this.child = null;
  }

  /**
   * Start the child now, if none runs, rather than at the first build: a server does so while it
   * starts (`Rebuilder.prepare`, before it listens). Starting a child copies this process's page
   * tables, which held the server's thread about 130 ms at 100,000 works (the apply bench's stall
   * probe); before it listens no request waits for that.
   */
  prestart(): void {
    if (!this.closed && !this.child) this.child = this.start();
  }

  private start(): ChildProcess {
    // No inherited execArgv: the child is a plain `node scripts/build-worker.ts`, as the build
    // child of buildInChild is a plain `node scripts/build.ts`.
    const child = fork(WORKER, [], { execArgv: [], stdio: ['ignore', 'pipe', 'pipe', 'ipc'] });
    this.builds = 0;
    child.on('exit', () => {
      if (this.child === child) this.child = null;
    });
    this.idle(child);
    return child;
  }

  /** While idle the child (and its pipes) must not keep this process alive. */
  private idle(child: ChildProcess): void {
    child.unref();
    child.channel?.unref();
    (child.stdout as unknown as { unref?: () => void } | null)?.unref?.();
    (child.stderr as unknown as { unref?: () => void } | null)?.unref?.();
  }

  private busy(child: ChildProcess): void {
    child.ref();
    child.channel?.ref();
    (child.stdout as unknown as { ref?: () => void } | null)?.ref?.();
    (child.stderr as unknown as { ref?: () => void } | null)?.ref?.();
  }

  private runNow(args: string[], env: Record<string, string>, signal?: AbortSignal): Promise<WarmBuildResult> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(new Error('build cancelled'));
      const child = this.child ?? (this.child = this.start());
      const earlierBuilds = this.builds;
      const id = this.nextId++;
      // The last of what the build printed, for the error (the build runs --quiet: warnings, crashes).
      let output = '';
      const collect = (d: Buffer) => {
        output = (output + d.toString('utf8')).slice(-4000);
      };
      child.stdout?.on('data', collect);
      child.stderr?.on('data', collect);
      let settled = false;
      let rssBytes = 0;
      let peakRssBytes = 0;
      let nextPeakBytes = 0;
      let retired = false;
      let warmUp: WarmUpResult | undefined;
      const finish = (err: Error | null) => {
        if (settled) return;
        settled = true;
        child.stdout?.off('data', collect);
        child.stderr?.off('data', collect);
        child.off('message', onMessage);
        child.off('exit', onExit);
        signal?.removeEventListener('abort', onAbort);
        this.running = false;
        if (this.child === child) {
          if (this.closed) {
            child.kill('SIGTERM');
            this.child = null;
          } else this.idle(child);
        }
        if (err) reject(err);
        else
          resolve({
            pid: child.pid ?? 0,
            earlierBuilds,
            rssBytes,
            peakRssBytes,
            nextPeakBytes,
            retired,
            ...(warmUp ? { warmUp } : {}),
          });
      };
      const onMessage = (answer: BuildAnswer) => {
        if (answer.id !== id) return;
        this.builds = answer.builds;
        rssBytes = answer.rssBytes;
        peakRssBytes = answer.peakRssBytes;
        nextPeakBytes = answer.nextPeakBytes;
        retired = answer.retire;
        warmUp = answer.warmUp;
        // A retiring child exits by itself after this answer: the next build starts a new one.
        if (answer.retire && this.child === child) this.child = null;
        if (answer.ok) finish(null);
        else
          finish(
            new Error(
              `build failed (exit ${answer.exitCode ?? 1}): ${`${output.trim()}\n${answer.message ?? ''}`.trim().slice(-4000)}`,
            ),
          );
      };
      const onExit = (code: number | null, sig: NodeJS.Signals | null) => {
        if (this.child === child) this.child = null;
        finish(
          signal?.aborted
            ? new Error('build cancelled')
            : new Error(
                `build failed (the build process exited with ${code ?? sig}): ${output.trim().slice(-4000)}`.trim(),
              ),
        );
      };
      const onAbort = () => {
        if (this.child === child) this.child = null;
        child.kill('SIGTERM');
      };
      child.on('message', onMessage);
      child.on('exit', onExit);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.busy(child);
      this.running = true;
      const request: BuildRequest = { id, args, env, maxBuilds: this.maxBuilds, maxRssBytes: this.maxRssBytes };
      child.send(request, (err) => {
        if (err) {
          if (this.child === child) this.child = null;
          child.kill('SIGKILL');
          finish(new Error(`build failed: could not reach the build process (${err.message})`));
        }
      });
    });
  }
}
