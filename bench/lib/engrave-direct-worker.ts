/**
 * The anchor of the engraving throughput bench: a plain worker thread calling Verovio's toolkit
 * directly (no pool, no budgets, no checks of the SVG, nothing sent back but a page count) with
 * the build's options, doing the same Verovio work per file as the pool (bench/lib/engrave-run.ts).
 * Sends back the page count and Verovio's WebAssembly memory, so the parent replaces a worker
 * whose memory grew past the pool's recycle mark, as the pool does (a plain worker kept for the
 * whole corpus runs out of WebAssembly memory part way: seen on the 122 quartets and 200 songs).
 */
import { readFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import { musicXmlFromMxl } from '../../src/domain/mxl.ts';
import { NARROW_OPTIONS, VEROVIO_OPTIONS } from '../../src/lib/site/engrave.ts';

const { default: createVerovioModule } = await import('verovio/wasm');
const { VerovioToolkit, enableLog, enableLogToBuffer, LOG_WARNING } = await import('verovio/esm');
const module = await createVerovioModule();
enableLogToBuffer(1, module);
enableLog(LOG_WARNING, module);
const tk = new VerovioToolkit(module);
const wide = VEROVIO_OPTIONS;
const narrow = NARROW_OPTIONS;

parentPort!.on('message', (file: string) => {
  const bytes = readFileSync(file);
  const xml = file.endsWith('.mxl') ? musicXmlFromMxl(bytes) : bytes.toString('utf8');
  tk.setOptions(wide);
  tk.loadData(xml);
  let pages = 0;
  const n = tk.getPageCount();
  for (let i = 1; i <= n; i++) {
    tk.renderToSVG(i);
    pages++;
  }
  tk.renderToMIDI();
  tk.setOptions(narrow);
  tk.redoLayout();
  const m = tk.getPageCount();
  for (let i = 1; i <= m; i++) {
    tk.renderToSVG(i);
    pages++;
  }
  const heapBytes = (module as unknown as { HEAPU8?: Uint8Array }).HEAPU8?.buffer.byteLength ?? 0;
  parentPort!.postMessage({ pages, heapBytes });
});
parentPort!.postMessage('ready');
