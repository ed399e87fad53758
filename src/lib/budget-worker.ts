/**
 * The worker's side of a budget pool (src/lib/budget-pool.ts): the cap on its WebAssembly memory.
 * Emscripten grows its heap from JavaScript (`wasmMemory.grow`), so a cap on
 * `WebAssembly.Memory.prototype.grow`, installed before the module starts, makes a growth past the
 * worker's share fail inside the task (the module's allocation fails and the task throws); the
 * reply then says `overMemory` and the pool refuses the task for memory and replaces the worker.
 */
import { workerData } from 'node:worker_threads';
import type { BudgetWorkerData } from './budget-pool.ts';

let refused = false;
let installed = false;

/** Cap every WebAssembly memory of this thread at the pool's share (workerData.wasmCapBytes). */
export function capWebAssemblyMemory(): void {
  if (installed) return;
  installed = true;
  const cap = (workerData as BudgetWorkerData | null)?.wasmCapBytes ?? 0;
  if (!(cap > 0)) return;
  const grow = WebAssembly.Memory.prototype.grow;
  WebAssembly.Memory.prototype.grow = function (this: WebAssembly.Memory, delta: number): number {
    if (this.buffer.byteLength + delta * 65536 > cap) {
      refused = true;
      throw new RangeError(`WebAssembly memory would pass the worker's budget of ${cap} bytes`);
    }
    return grow.call(this, delta);
  };
}

/** Whether a growth was refused since the last call (then the task is over its memory budget). */
export function takeMemoryRefusal(): boolean {
  const was = refused;
  refused = false;
  return was;
}
