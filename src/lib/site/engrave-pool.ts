/**
 * The engraving pool: Verovio in worker threads, never on the caller's thread. The build, the
 * engrave CLI, the review checks and the desk's score preview all engrave through it.
 *
 * Budgets per score bound the work, not a busy machine (src/lib/budget-pool.ts): CPU time on the
 * worker's own thread (ARCHIVE_ENGRAVE_CPU_MS), memory per worker (ARCHIVE_ENGRAVE_MEMORY_MB: V8's
 * heap through `resourceLimits` and Verovio's WebAssembly memory through a cap in the worker, and
 * measured after each task), and a wall-clock backstop (ARCHIVE_ENGRAVE_TIMEOUT_MS) that is
 * multiplied by the machine's load per core, so only a worker that makes no progress reaches it.
 * Over a budget, the worker is terminated and replaced and the score refused with
 * `EngraveBudgetError`, which names the limit and its setting. WebAssembly memory never shrinks, so
 * a worker whose memory grew past 256 MiB (or a quarter of the budget) is ended after its task.
 */
import { availableParallelism } from 'node:os';
import type { EngraveMeta, EngraveOutput, ScoreLoadResult } from './engrave.ts';
import type { AudioEnvironment, AudioOutput } from './audio-render.ts';
import type { MusicXmlScan } from '../../domain/musicxml-scan.ts';
import { BudgetError, BudgetPool, loadPerCore, type BudgetLimit, type BudgetPoolStats } from '../budget-pool.ts';

export interface EngravePoolOptions {
  /** Worker threads (ARCHIVE_ENGRAVE_WORKERS; default: the number of cores). */
  size: number;
  /** CPU time budget per score on the worker's thread, ms (ARCHIVE_ENGRAVE_CPU_MS). */
  cpuMs: number;
  /** Wall-clock backstop per score on an idle machine, ms, times the load per core (ARCHIVE_ENGRAVE_TIMEOUT_MS). */
  timeoutMs: number;
  /** Memory budget per worker, MiB (ARCHIVE_ENGRAVE_MEMORY_MB). */
  memoryMb: number;
}

/**
 * CPU time per score. The largest real quartet of the corpus (96 pages) used about 70 s of CPU for
 * its check and its whole engraving (both layouts, MIDI, PDF) together, while the engraving alone
 * took 304 s of wall time at load 15 on this project's two-core machine (past the 300 s wall-clock
 * budget this replaced). Five minutes of CPU leaves it room four times over.
 */
export const DEFAULT_ENGRAVE_CPU_MS = 300_000;
/** The backstop on an idle machine: four CPU budgets of wall time, times the load per core. */
export const DEFAULT_ENGRAVE_TIMEOUT_MS = 1_200_000;
export const DEFAULT_ENGRAVE_MEMORY_MB = 2048;

export function defaultEngravePoolOptions(): EngravePoolOptions {
  return {
    size: availableParallelism(),
    cpuMs: DEFAULT_ENGRAVE_CPU_MS,
    timeoutMs: DEFAULT_ENGRAVE_TIMEOUT_MS,
    memoryMb: DEFAULT_ENGRAVE_MEMORY_MB,
  };
}

/** What a worker is asked to do; the source is the text itself or a file (read in the worker). */
export interface EngraveTask {
  id: number;
  op: 'engrave' | 'check' | 'preview' | 'pdf' | 'audio';
  /** The wide pages of an engraving, for 'pdf'. */
  svgs?: string[];
  xml?: string;
  file?: string;
  compressed?: boolean;
  meta?: EngraveMeta;
  /** For 'audio': the renderer's environment, the score's digest, whether to make a loop, and the time budget. */
  audio?: { env: AudioEnvironment; scoreSha256: string; loop: boolean; timeoutMs: number };
}

export type EngraveSource = { xml: string } | { file: string; compressed: boolean };

/** What the review's checks learn in a worker: the file could not be read, or its text checks and (when they passed) Verovio's load. */
export type ScoreCheckOutcome =
  { readError: string; scan: null; load: null } | { readError: null; scan: MusicXmlScan; load: ScoreLoadResult | null };

export const ENGRAVE_SETTINGS = {
  cpu: 'ARCHIVE_ENGRAVE_CPU_MS',
  memory: 'ARCHIVE_ENGRAVE_MEMORY_MB',
  backstop: 'ARCHIVE_ENGRAVE_TIMEOUT_MS',
} as const;

/** A score that went over the CPU, memory or (as a backstop) wall-clock budget. */
export class EngraveBudgetError extends BudgetError {
  constructor(limit: BudgetLimit, budget: number, elapsedMs?: number) {
    super(
      'Engraving',
      limit,
      budget,
      limit === 'cpu' ? ENGRAVE_SETTINGS.cpu : limit === 'memory' ? ENGRAVE_SETTINGS.memory : ENGRAVE_SETTINGS.backstop,
      elapsedMs,
    );
  }
}

/**
 * Verovio's WebAssembly memory after a short score is 128 MiB; a worker past this mark (or a
 * quarter of the budget, when lower) is replaced after its score.
 */
export const RECYCLE_BYTES = 256 * 1024 * 1024;

const WORKER_URL = new URL('./engrave-worker.ts', import.meta.url);

export type EngravePoolStats = BudgetPoolStats;

class EngraveBudgetPool extends BudgetPool {
  protected override refusal(_what: string, limit: BudgetLimit, budget: number, _setting: string, elapsedMs?: number) {
    return new EngraveBudgetError(limit, budget, elapsedMs);
  }
}

export class EngravePool {
  readonly options: EngravePoolOptions;
  private readonly pool: EngraveBudgetPool;

  constructor(options: Partial<EngravePoolOptions> = {}) {
    const defaults = defaultEngravePoolOptions();
    this.options = {
      size: Math.max(1, Math.floor(options.size ?? defaults.size)),
      cpuMs: options.cpuMs ?? defaults.cpuMs,
      timeoutMs: options.timeoutMs ?? defaults.timeoutMs,
      memoryMb: options.memoryMb ?? defaults.memoryMb,
    };
    this.pool = new EngraveBudgetPool({
      what: 'Engraving',
      workerUrl: WORKER_URL,
      size: this.options.size,
      budgets: { cpuMs: this.options.cpuMs, memoryMb: this.options.memoryMb, backstopMs: this.options.timeoutMs },
      settings: ENGRAVE_SETTINGS,
      recycleBytes: RECYCLE_BYTES,
    });
  }

  get stats(): EngravePoolStats {
    return this.pool.stats;
  }

  /**
   * Engrave a whole score (both layouts, MIDI, and the PDF when `meta` is given). A failed
   * engraving resolves with its reason.
   */
  engrave(source: EngraveSource, meta: EngraveMeta | null): Promise<EngraveOutput> {
    return this.pool.run<EngraveOutput>({ op: 'engrave', ...source, ...(meta ? { meta } : {}) });
  }

  /** The printable PDF of engraved wide pages; null when the converter failed. */
  pdf(svgs: string[], meta: EngraveMeta): Promise<Uint8Array | null> {
    return this.pool.run<Uint8Array | null>({ op: 'pdf', svgs, meta });
  }

  /**
   * The review's checks of a score, all in the worker: reading it (a file is read and, when
   * compressed, unzipped there), its text checks (src/domain/musicxml-scan.ts) and, when they
   * pass, Verovio's load. Nothing of a long score's text is handled on the caller's thread.
   */
  check(source: EngraveSource): Promise<ScoreCheckOutcome> {
    return this.pool.run<ScoreCheckOutcome>({ op: 'check', ...source });
  }

  /** The first page as SVG (the desk's preview). */
  preview(xml: string): Promise<{ svg: string; pages: number }> {
    return this.pool.run<{ svg: string; pages: number }>({ op: 'preview', xml });
  }

  /**
   * Rendered audio of a score (src/lib/site/audio-render.ts): its MIDI from the worker's Verovio,
   * FluidSynth and ffmpeg as the worker's child processes, under the same budgets as an
   * engraving (the worker's CPU time and memory; the children under the load-scaled backstop).
   */
  audio(
    source: EngraveSource,
    params: { env: AudioEnvironment; scoreSha256: string; loop: boolean },
  ): Promise<AudioOutput> {
    // FluidSynth's and ffmpeg's time is not the worker thread's CPU time: the children get the
    // wall-clock backstop, scaled by the load like the pool's own.
    return this.pool.run<AudioOutput>({
      op: 'audio',
      ...source,
      audio: { ...params, timeoutMs: Math.round(this.options.timeoutMs * loadPerCore(0)) },
    });
  }

  /** End every worker; queued tasks reject. */
  close(): Promise<void> {
    return this.pool.close();
  }

  /** Take no new tasks; each worker ends when its current task (and the queue) is done. */
  retireWhenIdle(): void {
    this.pool.retireWhenIdle();
  }
}

let shared: EngravePool | null = null;
let sharedOptions: Partial<EngravePoolOptions> = {};

/**
 * The server's pool (review checks, desk preview), made on first use with the options the app
 * was configured with (`configureSharedEngravePool`, from api/config.ts's settings).
 */
export function sharedEngravePool(): EngravePool {
  shared ??= new EngravePool(sharedOptions);
  return shared;
}

/** Set the shared pool's options; a pool already running with other options is replaced. */
export function configureSharedEngravePool(options: Partial<EngravePoolOptions>): void {
  const same = JSON.stringify(options) === JSON.stringify(sharedOptions);
  sharedOptions = { ...options };
  if (shared && !same) {
    const old = shared;
    shared = null;
    old.retireWhenIdle();
  }
}
