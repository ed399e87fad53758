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
import { EngravePool } from '../../src/lib/site/engrave-pool.ts';

const [mode, workersArg, listFile] = process.argv.slice(2);
const files = JSON.parse(readFileSync(listFile!, 'utf8')) as string[];
const workers = Number(workersArg);
const started = performance.now();
let pages = 0;
let failed = 0;

if (mode === 'pool') {
  const pool = new EngravePool({ size: workers, timeoutMs: 600_000 });
  let next = 0;
  await Promise.all(
    Array.from({ length: workers }, async () => {
      while (next < files.length) {
        const file = files[next++]!;
        const out = await pool.engrave({ file, compressed: file.endsWith('.mxl') }, null);
        if (out.rendering.status === 'rendered') pages += out.rendering.pages.length + out.rendering.narrowPages.length;
        else failed++;
      }
    }),
  );
  await pool.close();
} else {
  let next = 0;
  await Promise.all(
    Array.from(
      { length: workers },
      () =>
        new Promise<void>((resolve, reject) => {
          const w = new Worker(new URL('./engrave-direct-worker.ts', import.meta.url));
          const take = () => {
            if (next >= files.length) {
              void w.terminate().then(() => resolve());
              return;
            }
            w.postMessage(files[next++]);
          };
          w.on('message', (m: number | 'ready') => {
            if (m !== 'ready') pages += m;
            take();
          });
          w.on('error', reject);
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
    pages,
    ms: Math.round(performance.now() - started),
    peakRssBytes: process.resourceUsage().maxRSS * 1024,
  }),
);
