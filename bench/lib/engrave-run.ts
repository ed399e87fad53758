/**
 * One side of the engraving throughput bench, in its own process so its peak RSS is its own:
 *   node bench/lib/engrave-run.ts pool|direct <workers> <list.json>
 * `pool`: the archive's engraving pool (src/lib/site/engrave-pool.ts) with <workers> threads,
 * every file engraved (wide and phone pages, MIDI; no PDF, which the anchor does not make).
 * `direct`: the anchor, <workers> plain worker threads that call Verovio's toolkit directly on
 * the same files with the same options and the same work (load, every wide page, phone layout,
 * every phone page, MIDI). Prints one JSON line: files, pages, ms, peak RSS.
 */
import { readFileSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { EngravePool, RECYCLE_BYTES } from '../../src/lib/site/engrave-pool.ts';

const [mode, workersArg, listFile] = process.argv.slice(2);
const files = JSON.parse(readFileSync(listFile!, 'utf8')) as string[];
const workers = Number(workersArg);
const started = performance.now();
let pages = 0;
let failed = 0;
let recycled = 0;
const failures: { file: string; message: string }[] = [];

if (mode === 'pool') {
  const pool = new EngravePool({ size: workers, timeoutMs: 600_000 });
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (next < files.length) {
        const file = files[next++]!;
        try {
          const out = await pool.engrave({ file, compressed: file.endsWith('.mxl') }, null);
          if (out.rendering.status === 'rendered')
            pages += out.rendering.pages.length + out.rendering.narrowPages.length;
          else {
            failed++;
            failures.push({ file, message: out.rendering.status });
          }
        } catch (err) {
          // Over the time or memory budget: the pool refused the score.
          failed++;
          failures.push({ file, message: String((err as Error).message ?? err).slice(0, 300) });
        }
      }
    }),
  );
  await pool.close();
  recycled = pool.stats.recycled;
} else {
  // A worker whose Verovio memory grew past the pool's recycle mark is replaced after its file, as
  // in the pool; a worker that dies (WebAssembly out of memory) is replaced and its file counted failed.
  let next = 0;
  await Promise.all(
    Array.from(
      { length: workers },
      () =>
        new Promise<void>((resolve) => {
          let current = '';
          const start = () => {
            const w = new Worker(new URL('./engrave-direct-worker.ts', import.meta.url));
            let ended = false;
            const take = () => {
              if (next >= files.length) {
                ended = true;
                void w.terminate().then(() => resolve());
                return;
              }
              current = files[next++]!;
              w.postMessage(current);
            };
            w.on('message', (m: { pages: number; heapBytes: number } | 'ready') => {
              if (m === 'ready') return take();
              pages += m.pages;
              if (m.heapBytes > RECYCLE_BYTES && next < files.length) {
                ended = true;
                recycled++;
                void w.terminate().then(start);
                return;
              }
              take();
            });
            w.on('error', (err) => {
              if (ended) return;
              ended = true;
              failed++;
              failures.push({ file: current, message: String(err.message ?? err).slice(0, 300) });
              void w.terminate().then(start);
            });
          };
          start();
        }),
    ),
  );
}
console.log(
  JSON.stringify({
    mode,
    workers,
    files: files.length,
    failed,
    failures,
    recycled,
    pages,
    ms: Math.round(performance.now() - started),
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
  }),
);
