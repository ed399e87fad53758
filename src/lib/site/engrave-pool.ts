/**
 * The engraving pool: Verovio in worker threads, never on the caller's thread. The build, the
 * engrave CLI, the review checks and the desk's score preview all engrave through it.
 *
 * Budgets per score: a time budget (the worker is terminated when a task overruns it, and a fresh
 * one takes its place) and a memory budget (V8's heap of the worker through `resourceLimits`, and
 * Verovio's WebAssembly memory, which is measured after each task: over the budget, the result is
 * refused). WebAssembly memory never shrinks, so a worker whose memory grew past 256 MiB (or a
 * quarter of the budget) is ended after its task: Verovio's memory never stays at the largest score's size.
 * A score over a budget rejects with `EngraveBudgetError`, which names the limit and its setting.
 */
import { availableParallelism } from 'node:os';
import { Worker } from 'node:worker_threads';
import type { EngraveMeta, EngraveOutput, ScoreLoadResult } from './engrave.ts';
import type { AudioEnvironment, AudioOutput } from './audio-render.ts';
import type { MusicXmlScan } from '../../domain/musicxml-scan.ts';

export interface EngravePoolOptions {
  /** Worker threads (ARCHIVE_ENGRAVE_WORKERS; default: the number of cores). */
  size: number;
  /** Time budget per score, ms (ARCHIVE_ENGRAVE_TIMEOUT_MS). */
  timeoutMs: number;
  /** Memory budget per worker, MiB (ARCHIVE_ENGRAVE_MEMORY_MB). */
  memoryMb: number;
}

export const DEFAULT_ENGRAVE_TIMEOUT_MS = 300_000;
export const DEFAULT_ENGRAVE_MEMORY_MB = 2048;

export function defaultEngravePoolOptions(): EngravePoolOptions {
  return {
    size: availableParallelism(),
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

/** A score that went over the time or memory budget. */
export class EngraveBudgetError extends Error {
  readonly limit: 'time' | 'memory';
  /** The budget that was exceeded: ms for time, MiB for memory. */
  readonly budget: number;
  /** The setting that sets it. */
  readonly setting: string;
  constructor(limit: 'time' | 'memory', budget: number) {
    const setting = limit === 'time' ? 'ARCHIVE_ENGRAVE_TIMEOUT_MS' : 'ARCHIVE_ENGRAVE_MEMORY_MB';
    super(
      limit === 'time'
        ? `Engraving took longer than the time budget of ${budget} ms per score (${setting}) and was stopped.`
        : `Engraving needed more than the memory budget of ${budget} MiB per score (${setting}) and was stopped.`,
    );
    this.limit = limit;
    this.budget = budget;
    this.setting = setting;
  }
}

interface Pending {
  task: EngraveTask;
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

interface Reply {
  id: number;
  /** Sent when the worker's Verovio is ready and the task begins: the time budget starts then. */
  started?: boolean;
  ok: boolean;
  result?: unknown;
  error?: string;
  heapBytes: number;
}

interface Slot {
  worker: Worker;
  busy: Pending | null;
  timer: NodeJS.Timeout | null;
}

/**
 * Verovio's WebAssembly memory after a short score is 128 MiB; a worker past this mark (or a
 * quarter of the budget, when lower) is replaced after its score.
 */
export const RECYCLE_BYTES = 256 * 1024 * 1024;

/** Time a worker may take to start Verovio before its first task's budget begins. */
const STARTUP_GRACE_MS = 30_000;

const WORKER_URL = new URL('./engrave-worker.ts', import.meta.url);

export interface EngravePoolStats {
  tasks: number;
  /** Workers ended because a score went over the time or memory budget. */
  overBudget: number;
  /** Workers ended after a task because Verovio's memory had grown past the recycle mark. */
  recycled: number;
  /** Largest WebAssembly memory a worker reported, bytes. */
  peakHeapBytes: number;
}

export class EngravePool {
  readonly options: EngravePoolOptions;
  readonly stats: EngravePoolStats = { tasks: 0, overBudget: 0, recycled: 0, peakHeapBytes: 0 };
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;
  private retiring = false;

  constructor(options: Partial<EngravePoolOptions> = {}) {
    const defaults = defaultEngravePoolOptions();
    this.options = {
      size: Math.max(1, Math.floor(options.size ?? defaults.size)),
      timeoutMs: options.timeoutMs ?? defaults.timeoutMs,
      memoryMb: options.memoryMb ?? defaults.memoryMb,
    };
  }

  /**
   * Engrave a whole score (both layouts, MIDI, and the PDF when `meta` is given). A failed
   * engraving resolves with its reason.
   */
  engrave(source: EngraveSource, meta: EngraveMeta | null): Promise<EngraveOutput> {
    return this.submit({ op: 'engrave', ...source, ...(meta ? { meta } : {}) }) as Promise<EngraveOutput>;
  }

  /** The printable PDF of engraved wide pages; null when the converter failed. */
  pdf(svgs: string[], meta: EngraveMeta): Promise<Uint8Array | null> {
    return this.submit({ op: 'pdf', svgs, meta }) as Promise<Uint8Array | null>;
  }

  /**
   * The review's checks of a score, all in the worker: reading it (a file is read and, when
   * compressed, unzipped there), its text checks (src/domain/musicxml-scan.ts) and, when they
   * pass, Verovio's load. Nothing of a long score's text is handled on the caller's thread.
   */
  check(source: EngraveSource): Promise<ScoreCheckOutcome> {
    return this.submit({ op: 'check', ...source }) as Promise<ScoreCheckOutcome>;
  }

  /** The first page as SVG (the desk's preview). */
  preview(xml: string): Promise<{ svg: string; pages: number }> {
    return this.submit({ op: 'preview', xml }) as Promise<{ svg: string; pages: number }>;
  }

  /**
   * Rendered audio of a score (src/lib/site/audio-render.ts): its MIDI from the worker's Verovio,
   * FluidSynth and ffmpeg as the worker's child processes, under the same time budget as an
   * engraving (and the worker's memory budget for everything in the worker).
   */
  audio(
    source: EngraveSource,
    params: { env: AudioEnvironment; scoreSha256: string; loop: boolean },
  ): Promise<AudioOutput> {
    return this.submit({
      op: 'audio',
      ...source,
      audio: { ...params, timeoutMs: this.options.timeoutMs },
    }) as Promise<AudioOutput>;
  }

  /** End every worker; queued tasks reject. */
  async close(): Promise<void> {
    this.closed = true;
    for (const p of this.queue.splice(0)) p.reject(new Error('the engraving pool was closed'));
    await Promise.all(
      this.slots.splice(0).map(async (slot) => {
        if (slot.timer) clearTimeout(slot.timer);
        slot.busy?.reject(new Error('the engraving pool was closed'));
        await slot.worker.terminate();
      }),
    );
  }

  /** Take no new tasks; each worker ends when its current task (and the queue) is done. */
  retireWhenIdle(): void {
    this.closed = true;
    this.retiring = true;
    for (const slot of [...this.slots]) if (!slot.busy && this.queue.length === 0) this.retire(slot);
  }

  private submit(task: Omit<EngraveTask, 'id'>): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('the engraving pool was closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ task: { ...task, id: this.nextId++ }, resolve, reject });
      this.dispatch();
    });
  }

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => s.busy === null);
      if (!slot && this.slots.length < this.options.size) slot = this.spawn();
      if (!slot) return;
      const pending = this.queue.shift()!;
      slot.busy = pending;
      slot.worker.ref();
      this.stats.tasks++;
      // A new worker first starts Verovio (about a second): the score's own budget starts when it says so.
      slot.timer = setTimeout(() => this.overBudget(slot, 'time'), this.options.timeoutMs + STARTUP_GRACE_MS);
      slot.worker.postMessage(pending.task);
    }
  }

  private spawn(): Slot {
    const worker = new Worker(WORKER_URL, {
      resourceLimits: { maxOldGenerationSizeMb: this.options.memoryMb },
      stdout: false,
      stderr: false,
    });
    const slot: Slot = { worker, busy: null, timer: null };
    worker.unref();
    worker.on('message', (reply: Reply) => this.onReply(slot, reply));
    worker.on('error', (err) => {
      // ERR_WORKER_OUT_OF_MEMORY: V8's heap of the worker went over resourceLimits.
      if ((err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY') this.overBudget(slot, 'memory');
      else this.lose(slot, err);
    });
    worker.on('exit', () => this.lose(slot, new Error('the engraving worker stopped')));
    this.slots.push(slot);
    return slot;
  }

  private onReply(slot: Slot, reply: Reply): void {
    const pending = slot.busy;
    if (!pending || pending.task.id !== reply.id) return;
    if (slot.timer) clearTimeout(slot.timer);
    if (reply.started) {
      slot.timer = setTimeout(() => this.overBudget(slot, 'time'), this.options.timeoutMs);
      return;
    }
    slot.timer = null;
    this.stats.peakHeapBytes = Math.max(this.stats.peakHeapBytes, reply.heapBytes);
    const budgetBytes = this.options.memoryMb * 1024 * 1024;
    if (reply.heapBytes > budgetBytes) {
      this.overBudget(slot, 'memory');
      return;
    }
    slot.busy = null;
    if (reply.heapBytes > Math.min(budgetBytes / 4, RECYCLE_BYTES) || this.retiring) {
      // WebAssembly memory only grows: end this worker so the next score starts small.
      if (!this.retiring) this.stats.recycled++;
      this.retire(slot);
    } else {
      slot.worker.unref();
    }
    if (reply.ok) pending.resolve(reply.result);
    else pending.reject(new Error(reply.error ?? 'engraving failed'));
    this.dispatch();
  }

  private overBudget(slot: Slot, limit: 'time' | 'memory'): void {
    const pending = slot.busy;
    if (!pending) return;
    this.stats.overBudget++;
    slot.busy = null;
    this.retire(slot);
    pending.reject(new EngraveBudgetError(limit, limit === 'time' ? this.options.timeoutMs : this.options.memoryMb));
    this.dispatch();
  }

  /** A worker that died on its own: its task fails, a new worker takes the queue. */
  private lose(slot: Slot, err: Error): void {
    if (!this.slots.includes(slot)) return;
    const pending = slot.busy;
    slot.busy = null;
    this.retire(slot);
    pending?.reject(err);
    this.dispatch();
  }

  private retire(slot: Slot): void {
    if (slot.timer) clearTimeout(slot.timer);
    slot.timer = null;
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    slot.worker.removeAllListeners('exit');
    slot.worker.on('error', () => undefined);
    void slot.worker.terminate();
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
