/**
 * A pool of worker threads whose tasks run under budgets that bound the work, not a busy machine
 * (issue 58): the engraving pool runs on it (src/lib/site/engrave-pool.ts), and any other
 * CPU-heavy work from people (audio rendering) can run on it the same way.
 *
 * Per task:
 * - **CPU time**, measured on the worker's own thread (`Worker.cpuUsage()`, read from here while
 *   the worker is busy): a task that has used more than `cpuMs` is stopped, its worker terminated
 *   and replaced, and the task refused with a `BudgetError` naming the limit and its setting. A
 *   thread that gets a fifteenth of a core on a machine at load 30 uses its CPU budget no faster.
 * - **Memory**, per worker: V8's heap through `resourceLimits` and the worker's WebAssembly memory
 *   through a cap installed in the worker before its module starts (`capWebAssemblyMemory`, from
 *   ./budget-worker.ts): growing past it fails inside the task, which is then refused for memory;
 *   the WebAssembly memory a worker reports after each task is checked as well.
 * - **Wall clock, as a backstop only**: a task still running after `backstopMs` times the load on
 *   the machine per core (at least 1; the load average, or this pool's busy workers when more) is
 *   stopped as `time`. It catches a worker that makes no progress, and scales with the queue, so a
 *   loaded machine never makes it the budget that decides.
 *
 * WebAssembly memory never shrinks, so a worker whose memory grew past `recycleBytes` is ended after
 * its task (the next task starts small). The budgets begin when the worker says the task started
 * (a new worker first loads its modules).
 */
import { availableParallelism, loadavg } from 'node:os';
import { Worker, type Transferable } from 'node:worker_threads';

export interface WorkerBudgets {
  /** CPU time per task on the worker's thread, ms. */
  cpuMs: number;
  /** Memory per worker, MiB: V8's heap plus the WebAssembly memory together. */
  memoryMb: number;
  /** The wall-clock backstop per task on an idle machine, ms; multiplied by the load per core. */
  backstopMs: number;
}

/** The settings that set each budget, named in refusals. */
export interface BudgetSettings {
  cpu: string;
  memory: string;
  backstop: string;
}

export type BudgetLimit = 'cpu' | 'memory' | 'time';

/** A task refused for going over a budget: which, its value (ms or MiB), and the setting that sets it. */
export class BudgetError extends Error {
  readonly limit: BudgetLimit;
  readonly budget: number;
  readonly setting: string;
  constructor(what: string, limit: BudgetLimit, budget: number, setting: string, elapsedMs?: number, per = 'score') {
    super(
      limit === 'cpu'
        ? `${what} used more than the CPU time budget of ${budget} ms per ${per} (${setting}) and was stopped.`
        : limit === 'memory'
          ? `${what} needed more than the memory budget of ${budget} MiB per worker (${setting}) and was stopped.`
          : `${what} made no progress for ${elapsedMs ?? budget} ms, past the wall-clock backstop of ${budget} ms per ${per} at this machine's load (${setting}), and was stopped.`,
    );
    this.limit = limit;
    this.budget = budget;
    this.setting = setting;
  }
}

/** The share of a worker's memory its V8 heap may take; the rest is the WebAssembly cap. */
export function heapShareMb(memoryMb: number): number {
  return Math.max(48, Math.floor(memoryMb / 4));
}

/** What the worker is given at start (./budget-worker.ts reads it). */
export interface BudgetWorkerData {
  wasmCapBytes: number;
}

/** What a worker sends back for a task. */
export interface BudgetReply {
  id: number;
  /** Sent when the task begins (after the worker's own start): the budgets start then. */
  started?: boolean;
  ok: boolean;
  result?: unknown;
  error?: string;
  /** The worker's WebAssembly memory now, bytes. */
  heapBytes: number;
  /** A WebAssembly memory growth was refused by the cap during the task. */
  overMemory?: boolean;
}

interface Pending {
  message: { id: number } & Record<string, unknown>;
  transfer: Transferable[];
  resolve: (value: unknown) => void;
  reject: (err: Error) => void;
}

interface Slot {
  worker: Worker;
  busy: Pending | null;
  /** When the task started (ms, performance.now) and the worker's CPU time then (µs). */
  startedAt: number | null;
  cpuAtStartUs: number;
  poll: NodeJS.Timeout | null;
  /** A new worker's start-up allowance (its modules loading): the task has not started yet. */
  startup: NodeJS.Timeout | null;
}

export interface BudgetPoolOptions {
  /** Names the work in refusals ("Engraving"). */
  what: string;
  workerUrl: URL;
  size: number;
  budgets: WorkerBudgets;
  settings: BudgetSettings;
  /** A worker whose WebAssembly memory passed this after a task is replaced. */
  recycleBytes: number;
  /** How often a running task's CPU time is read, ms (default 200). */
  pollMs?: number;
  /** How long a new worker may take to start before its first task is refused as `time` (default 60 s). */
  startupMs?: number;
}

export interface BudgetPoolStats {
  tasks: number;
  /** Workers ended because a task went over a budget. */
  overBudget: number;
  /** Workers ended after a task because their WebAssembly memory passed the recycle mark. */
  recycled: number;
  /** Largest WebAssembly memory a worker reported, bytes. */
  peakHeapBytes: number;
  /** Largest CPU time one task used, ms. */
  peakCpuMs: number;
}

/** The machine's load per core now: at least 1, the 1-minute load average, or `busy` threads when more. */
export function loadPerCore(busy: number): number {
  const cores = availableParallelism();
  return Math.max(1, loadavg()[0]! / cores, busy / cores);
}

export class BudgetPool {
  readonly options: Required<BudgetPoolOptions>;
  readonly stats: BudgetPoolStats = { tasks: 0, overBudget: 0, recycled: 0, peakHeapBytes: 0, peakCpuMs: 0 };
  private readonly slots: Slot[] = [];
  private readonly queue: Pending[] = [];
  private nextId = 1;
  private closed = false;
  private retiring = false;

  constructor(options: BudgetPoolOptions) {
    this.options = { pollMs: 200, startupMs: 60_000, ...options, size: Math.max(1, Math.floor(options.size)) };
  }

  /** Run one task (the worker's message, plus an id); resolves with the worker's result. */
  run<T>(message: Record<string, unknown>, transfer: Transferable[] = []): Promise<T> {
    if (this.closed) return Promise.reject(new Error(`the ${this.options.what.toLowerCase()} pool was closed`));
    return new Promise<T>((resolve, reject) => {
      this.queue.push({
        message: { ...message, id: this.nextId++ },
        transfer,
        resolve: resolve as (v: unknown) => void,
        reject,
      });
      this.dispatch();
    });
  }

  /** Tasks waiting for a worker. */
  get queued(): number {
    return this.queue.length;
  }

  /** Workers running a task. */
  get busy(): number {
    return this.slots.filter((s) => s.busy !== null).length;
  }

  /** End every worker; queued and running tasks reject. */
  async close(): Promise<void> {
    this.closed = true;
    const closed = new Error(`the ${this.options.what.toLowerCase()} pool was closed`);
    for (const p of this.queue.splice(0)) p.reject(closed);
    await Promise.all(
      this.slots.splice(0).map(async (slot) => {
        this.stopTimers(slot);
        slot.busy?.reject(closed);
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

  private dispatch(): void {
    while (this.queue.length > 0) {
      let slot = this.slots.find((s) => s.busy === null);
      if (!slot && this.slots.length < this.options.size) slot = this.spawn();
      if (!slot) return;
      const pending = this.queue.shift()!;
      slot.busy = pending;
      slot.startedAt = null;
      slot.worker.ref();
      this.stats.tasks++;
      this.armStartup(slot, pending, performance.now());
      slot.worker.postMessage(pending.message, pending.transfer);
    }
  }

  /**
   * A new worker's start (its modules loading) is bounded by wall time too, scaled by the load
   * like the backstop: a worker that never says its task started is stopped.
   */
  private armStartup(slot: Slot, pending: Pending, since: number): void {
    const allowed = this.options.startupMs * loadPerCore(this.busy + this.queue.length);
    const left = since + allowed - performance.now();
    slot.startup = setTimeout(
      () => {
        if (slot.busy !== pending || slot.startedAt !== null) return;
        const now = this.options.startupMs * loadPerCore(this.busy + this.queue.length);
        if (performance.now() - since < now) this.armStartup(slot, pending, since);
        else this.overBudget(slot, 'time', Math.round(now), Math.round(performance.now() - since));
      },
      Math.max(10, left),
    );
  }

  private spawn(): Slot {
    const { memoryMb } = this.options.budgets;
    const heapMb = heapShareMb(memoryMb);
    const workerData: BudgetWorkerData = { wasmCapBytes: Math.max(0, memoryMb - heapMb) * 1024 * 1024 };
    const worker = new Worker(this.options.workerUrl, {
      resourceLimits: { maxOldGenerationSizeMb: heapMb },
      workerData,
      stdout: false,
      stderr: false,
    });
    const slot: Slot = { worker, busy: null, startedAt: null, cpuAtStartUs: 0, poll: null, startup: null };
    worker.unref();
    worker.on('message', (reply: BudgetReply) => this.onReply(slot, reply));
    worker.on('error', (err) => {
      // ERR_WORKER_OUT_OF_MEMORY: V8's heap of the worker went over resourceLimits.
      if ((err as NodeJS.ErrnoException).code === 'ERR_WORKER_OUT_OF_MEMORY') this.overBudget(slot, 'memory');
      else this.lose(slot, err);
    });
    worker.on('exit', () => this.lose(slot, new Error(`the ${this.options.what.toLowerCase()} worker stopped`)));
    this.slots.push(slot);
    return slot;
  }

  private onReply(slot: Slot, reply: BudgetReply): void {
    const pending = slot.busy;
    if (!pending || pending.message.id !== reply.id) return;
    if (reply.started) {
      this.begin(slot);
      return;
    }
    this.stopTimers(slot);
    this.stats.peakHeapBytes = Math.max(this.stats.peakHeapBytes, reply.heapBytes);
    const budgetBytes = this.options.budgets.memoryMb * 1024 * 1024;
    if (reply.overMemory || reply.heapBytes > budgetBytes) {
      this.overBudget(slot, 'memory');
      return;
    }
    void this.noteCpu(slot);
    slot.busy = null;
    if (reply.heapBytes > Math.min(budgetBytes / 4, this.options.recycleBytes) || this.retiring) {
      // WebAssembly memory only grows: end this worker so the next task starts small.
      if (!this.retiring) this.stats.recycled++;
      this.retire(slot);
    } else {
      slot.worker.unref();
    }
    if (reply.ok) pending.resolve(reply.result);
    else pending.reject(new Error(reply.error ?? `${this.options.what} failed`));
    this.dispatch();
  }

  /** The task started: its CPU time is read from here on, every pollMs, against the budgets. */
  private begin(slot: Slot): void {
    if (slot.startup) clearTimeout(slot.startup);
    slot.startup = null;
    const pending = slot.busy;
    slot.startedAt = performance.now();
    void slot.worker.cpuUsage().then(
      (u) => {
        if (slot.busy !== pending) return;
        slot.cpuAtStartUs = u.user + u.system;
        slot.poll = setInterval(() => void this.check(slot, pending), this.options.pollMs);
      },
      () => undefined,
    );
  }

  private async check(slot: Slot, pending: Pending | null): Promise<void> {
    if (slot.busy !== pending || slot.startedAt === null) return;
    let usedMs: number;
    try {
      const u = await slot.worker.cpuUsage();
      usedMs = (u.user + u.system - slot.cpuAtStartUs) / 1000;
    } catch {
      return; // the worker ended: its exit handler answers the task
    }
    if (slot.busy !== pending) return;
    this.stats.peakCpuMs = Math.max(this.stats.peakCpuMs, usedMs);
    const { cpuMs, backstopMs } = this.options.budgets;
    if (usedMs > cpuMs) {
      this.overBudget(slot, 'cpu');
      return;
    }
    const elapsed = performance.now() - slot.startedAt;
    const backstop = backstopMs * loadPerCore(this.busy + this.queue.length);
    if (elapsed > backstop) this.overBudget(slot, 'time', Math.round(backstop), Math.round(elapsed));
  }

  private async noteCpu(slot: Slot): Promise<void> {
    if (slot.startedAt === null) return;
    const at = slot.cpuAtStartUs;
    try {
      const u = await slot.worker.cpuUsage();
      this.stats.peakCpuMs = Math.max(this.stats.peakCpuMs, (u.user + u.system - at) / 1000);
    } catch {
      // retired already
    }
  }

  private overBudget(slot: Slot, limit: BudgetLimit, backstop?: number, elapsed?: number): void {
    const pending = slot.busy;
    if (!pending) return;
    this.stats.overBudget++;
    slot.busy = null;
    this.retire(slot);
    const { budgets, settings, what } = this.options;
    const budget =
      limit === 'cpu'
        ? budgets.cpuMs
        : limit === 'memory'
          ? budgets.memoryMb
          : (backstop ?? Math.round(budgets.backstopMs * loadPerCore(this.busy)));
    const setting = limit === 'cpu' ? settings.cpu : limit === 'memory' ? settings.memory : settings.backstop;
    pending.reject(this.refusal(what, limit, budget, setting, elapsed));
    this.dispatch();
  }

  /** The error a task over budget rejects with (a subclass names its own kind of work). */
  protected refusal(what: string, limit: BudgetLimit, budget: number, setting: string, elapsedMs?: number): Error {
    return new BudgetError(what, limit, budget, setting, elapsedMs);
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

  private stopTimers(slot: Slot): void {
    if (slot.poll) clearInterval(slot.poll);
    if (slot.startup) clearTimeout(slot.startup);
    slot.poll = null;
    slot.startup = null;
  }

  private retire(slot: Slot): void {
    this.stopTimers(slot);
    const i = this.slots.indexOf(slot);
    if (i >= 0) this.slots.splice(i, 1);
    slot.worker.removeAllListeners('exit');
    slot.worker.on('error', () => undefined);
    void slot.worker.terminate();
  }
}
