/**
 * One engraving worker thread of the pool (src/lib/site/engrave-pool.ts): its own Verovio
 * instance, one task at a time. Its WebAssembly memory is capped at the pool's share before
 * Verovio starts (src/lib/budget-worker.ts); after each task it reports the size of that memory,
 * which never shrinks, so the pool can end a worker that a large score left big, and whether the
 * cap refused a growth (the score is then over its memory budget).
 */
import { readFileSync } from 'node:fs';
import { parentPort } from 'node:worker_threads';
import type { VerovioToolkit } from 'verovio/esm';
import type { VerovioModule } from 'verovio/wasm';
import { musicXmlText } from '../../domain/score-files.ts';
import { scanMusicXml } from '../../domain/musicxml-scan.ts';
import { engraveScore, loadForCheck, makePdf, previewFirstPage } from './engrave.ts';
import type { EngraveTask, ScoreCheckOutcome } from './engrave-pool.ts';
import { capWebAssemblyMemory, takeMemoryRefusal } from '../budget-worker.ts';
import { renderAudio } from './audio-render.ts';

capWebAssemblyMemory();

let toolkit: { tk: VerovioToolkit; module: VerovioModule } | null = null;

async function verovio(): Promise<{ tk: VerovioToolkit; module: VerovioModule }> {
  if (toolkit) return toolkit;
  const { default: createVerovioModule } = await import('verovio/wasm');
  const { VerovioToolkit, enableLog, enableLogToBuffer, LOG_WARNING } = await import('verovio/esm');
  const module = await createVerovioModule();
  // Warnings go to a buffer read after each load, not to the process's output.
  enableLogToBuffer(1, module);
  enableLog(LOG_WARNING, module);
  toolkit = { tk: new VerovioToolkit(module), module };
  return toolkit;
}

function heapBytes(module: VerovioModule): number {
  return (module as unknown as { HEAPU8?: Uint8Array }).HEAPU8?.buffer.byteLength ?? 0;
}

function sourceXml(task: EngraveTask): string {
  if (task.xml !== undefined) return task.xml;
  const bytes = readFileSync(task.file!);
  return musicXmlText(bytes, task.compressed);
}

/** Answer the pool; a final answer says whether the memory cap refused a growth during the task. */
function post(message: Record<string, unknown>, transfer: ArrayBuffer[] = []): void {
  parentPort!.postMessage(message.started ? message : { ...message, overMemory: takeMemoryRefusal() }, transfer);
}

parentPort!.on('message', async (task: EngraveTask) => {
  takeMemoryRefusal();
  try {
    const { tk, module } = await verovio();
    post({ id: task.id, started: true, ok: true, heapBytes: heapBytes(module) });
    if (task.op === 'pdf') {
      const bytes = await makePdf(task.svgs!, task.meta!);
      const copy = bytes ? new Uint8Array(bytes) : null;
      post({ id: task.id, ok: true, result: copy, heapBytes: heapBytes(module) }, copy ? [copy.buffer] : []);
      return;
    }
    let xml: string;
    try {
      xml = sourceXml(task);
    } catch (err) {
      // The review's checks report an unreadable file as their result, not as an error.
      if (task.op === 'check') {
        const result: ScoreCheckOutcome = { readError: (err as Error).message, scan: null, load: null };
        post({ id: task.id, ok: true, result, heapBytes: heapBytes(module) });
      } else
        post({
          id: task.id,
          ok: false,
          error: (err as Error).message,
          heapBytes: heapBytes(module),
        });
      return;
    }
    if (task.op === 'audio') {
      const out = await renderAudio(tk, { xml, ...task.audio! });
      const files = out.files.map((f) => ({ name: f.name, bytes: new Uint8Array(f.bytes) }));
      post(
        { id: task.id, ok: true, result: { rendering: out.rendering, files }, heapBytes: heapBytes(module) },
        files.map((f) => f.bytes.buffer),
      );
    } else if (task.op === 'engrave') {
      const out = await engraveScore(tk, xml, task.meta ?? null);
      // Each file in a buffer of its own (Buffer.from may share Node's pool), moved, not copied, to the pool.
      const files = out.files.map((f) => ({ name: f.name, bytes: new Uint8Array(f.bytes) }));
      post(
        { id: task.id, ok: true, result: { rendering: out.rendering, files }, heapBytes: heapBytes(module) },
        files.map((f) => f.bytes.buffer),
      );
    } else if (task.op === 'check') {
      // The text checks first (a long score's scan takes about a second): Verovio loads only what passed them.
      const scan = scanMusicXml(xml);
      const result: ScoreCheckOutcome = { readError: null, scan, load: scan.ok ? loadForCheck(tk, xml) : null };
      post({ id: task.id, ok: true, result, heapBytes: heapBytes(module) });
    } else {
      post({
        id: task.id,
        ok: true,
        result: previewFirstPage(tk, xml),
        heapBytes: heapBytes(module),
      });
    }
  } catch (err) {
    post({
      id: task.id,
      ok: false,
      error: err instanceof Error ? err.message : String(err),
      heapBytes: toolkit ? heapBytes(toolkit.module) : 0,
    });
  }
});
