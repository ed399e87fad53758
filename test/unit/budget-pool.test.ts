/**
 * The budget pool (src/lib/budget-pool.ts): a task is bounded by the CPU time its own thread uses,
 * not by how long a busy machine takes to give it that time; the wall clock is only a backstop,
 * scaled by the load; the WebAssembly memory of a worker is capped inside it.
 */
import { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { BudgetError, BudgetPool, loadPerCore, type WorkerBudgets } from '../../src/lib/budget-pool.ts';

const WORKER = new URL('../fixtures/workers/budget-task.ts', import.meta.url);
const SETTINGS = { cpu: 'TEST_CPU_MS', memory: 'TEST_MEMORY_MB', backstop: 'TEST_BACKSTOP_MS' };
const pools: BudgetPool[] = [];
function pool(budgets: Partial<WorkerBudgets>, size = 1): BudgetPool {
  const p = new BudgetPool({
    what: 'Testing',
    workerUrl: WORKER,
    size,
    budgets: { cpuMs: 60_000, memoryMb: 256, backstopMs: 600_000, ...budgets },
    settings: SETTINGS,
    recycleBytes: 1 << 30,
    pollMs: 50,
  });
  pools.push(p);
  return p;
}
afterEach(async () => {
  await Promise.all(pools.splice(0).map((p) => p.close()));
});

async function refusal(p: Promise<unknown>): Promise<BudgetError> {
  const err = await p.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(BudgetError);
  return err as BudgetError;
}

describe('a budget pool', () => {
  it('stops a task that used more CPU than its budget, naming the limit and its setting; the next task gets a fresh worker', async () => {
    const p = pool({ cpuMs: 300 });
    const err = await refusal(p.run({ op: 'spin', ms: 60_000 }));
    expect(err.limit).toBe('cpu');
    expect(err.message).toBe(
      'Testing used more than the CPU time budget of 300 ms per score (TEST_CPU_MS) and was stopped.',
    );
    expect(p.stats.overBudget).toBe(1);
    expect(await p.run({ op: 'ok' })).toBe('ok');
  });

  it('lets a task that waits (no CPU) run far past its CPU budget: wall time is not the budget', async () => {
    const p = pool({ cpuMs: 200 });
    expect(await p.run({ op: 'sleep', ms: 1_000 })).toBe('sleep');
    expect(p.stats.overBudget).toBe(0);
  });

  it('gives a task its whole CPU budget while the machine is busy: threads burning CPU beside it do not spend it', async () => {
    // Burners: as many spinning threads as it takes to make this task wait for a core.
    const burners = Array.from(
      { length: 3 },
      () => new Worker('const t = Date.now(); while (Date.now() - t < 20000);', { eval: true }),
    );
    try {
      const p = pool({ cpuMs: 2_000 });
      // 600 ms of spinning by the wall clock uses at most 600 ms of CPU, whatever the load.
      expect(await p.run({ op: 'spin', ms: 600 })).toBe('spin');
      expect(p.stats.peakCpuMs).toBeLessThanOrEqual(2_000);
    } finally {
      await Promise.all(burners.map((b) => b.terminate()));
    }
  });

  it('stops a task that makes no progress at the wall-clock backstop times the load per core, saying so', async () => {
    const p = pool({ cpuMs: 60_000, backstopMs: 300 });
    const err = await refusal(p.run({ op: 'sleep', ms: 60_000 }));
    expect(err.limit).toBe('time');
    expect(err.setting).toBe('TEST_BACKSTOP_MS');
    // The backstop it names was scaled by the load per core when it fired (at least 1).
    expect(err.budget).toBeGreaterThanOrEqual(300);
    expect(err.message).toMatch(
      /^Testing made no progress for \d+ ms, past the wall-clock backstop of \d+ ms per score at this machine's load \(TEST_BACKSTOP_MS\), and was stopped\.$/,
    );
    expect(loadPerCore(0)).toBeGreaterThanOrEqual(1);
  });

  it("caps a worker's WebAssembly memory at its share of the memory budget: growing past it is refused as memory", async () => {
    // 256 MiB per worker: the V8 heap takes a quarter, the WebAssembly memory the other 192 MiB.
    const p = pool({ memoryMb: 256 });
    expect(await p.run({ op: 'wasm', mib: 150 })).toBe('wasm');
    const err = await refusal(p.run({ op: 'wasm', mib: 250 }));
    expect(err.limit).toBe('memory');
    expect(err.message).toBe(
      'Testing needed more than the memory budget of 256 MiB per worker (TEST_MEMORY_MB) and was stopped.',
    );
    expect(await p.run({ op: 'wasm', mib: 150 })).toBe('wasm');
  });
});
