/**
 * The worker thread of measure-audio.ts: decodes and measures one file, posts the result (or the
 * error's message) and ends.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { decodeAndMeasure } from './measure-audio-decode.ts';

const { kind, file } = workerData as { kind: 'mp3' | 'wav'; file: string };
decodeAndMeasure(kind, file).then(
  (result) => parentPort!.postMessage({ ok: true, result }),
  (err: unknown) => parentPort!.postMessage({ ok: false, message: err instanceof Error ? err.message : String(err) }),
);
