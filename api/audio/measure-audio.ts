/**
 * Measure an MP3 or WAV file (docs/audio.md) off the request thread: each measurement runs in a
 * worker thread (measure-audio-worker.ts -> measure-audio-decode.ts), so decoding a long file
 * (about 3.8 s of CPU per minute of audio) never stalls the requests the server is answering.
 * Measurements are serialised: one worker and one WASM decoder at a time, so a burst of accepts
 * cannot multiply memory; the worker's heap is capped, and a worker that dies or runs too long
 * fails its measurement with a clear error instead of taking the server with it.
 */
import { Worker } from 'node:worker_threads';
import type { AudioMeasurement } from '../../src/domain/audio/measure.ts';

/** A measurement that takes longer than this fails (a 2-hour file takes about 8 minutes). */
export const MEASURE_TIMEOUT_MS = 15 * 60 * 1000;
/** Heap cap of a measuring worker, MiB (the decoder streams; a file is read whole once). */
export const WORKER_HEAP_MB = 512;

const WORKER_URL = new URL('./measure-audio-worker.ts', import.meta.url);

let queue: Promise<unknown> = Promise.resolve();

export function measureAudioFile(kind: 'mp3' | 'wav', file: string): Promise<AudioMeasurement> {
  const run = queue.then(() => inWorker(kind, file));
  queue = run.catch(() => undefined);
  return run;
}

function inWorker(kind: 'mp3' | 'wav', file: string): Promise<AudioMeasurement> {
  return new Promise<AudioMeasurement>((resolve, reject) => {
    const worker = new Worker(WORKER_URL, {
      workerData: { kind, file },
      resourceLimits: { maxOldGenerationSizeMb: WORKER_HEAP_MB },
    });
    let settled = false;
    const finish = (fn: () => void) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      fn();
      void worker.terminate();
    };
    const timer = setTimeout(
      () =>
        finish(() => reject(new Error(`measuring the audio took longer than ${MEASURE_TIMEOUT_MS / 60000} minutes`))),
      MEASURE_TIMEOUT_MS,
    );
    timer.unref();
    worker.once('message', (m: { ok: true; result: AudioMeasurement } | { ok: false; message: string }) =>
      finish(() => (m.ok ? resolve(m.result) : reject(new Error(m.message)))),
    );
    worker.once('error', (err) => finish(() => reject(new Error(`the audio measurement failed: ${err.message}`))));
    worker.once('exit', (code) =>
      finish(() => reject(new Error(`the audio measurement stopped before answering (exit ${code})`))),
    );
  });
}
