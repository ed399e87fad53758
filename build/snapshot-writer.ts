/**
 * The writer of an incremental build's catalog snapshot (build/catalog-snapshot.ts): a worker
 * thread that writes a file from pieces, each bytes or a range of the base's file, with
 * synchronous reads and writes of its own, so the copy goes on while the build's thread renders.
 */
import { closeSync, openSync, readSync, writeSync } from 'node:fs';
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads';

/** A piece of a snapshot file, in order: bytes, or a range [start, end) of the base's file. */
export type SnapshotPiece = Uint8Array | [number, number];

/** Bytes of the base's file copied per read. */
const CHUNK = 4 << 20;

function writePieces(file: string, baseFile: string, pieces: readonly SnapshotPiece[]): void {
  const fd = openSync(file, 'w');
  let base: number | null = null;
  try {
    const write = (bytes: Uint8Array, length: number) => {
      for (let at = 0; at < length;) at += writeSync(fd, bytes, at, length - at);
    };
    let chunk: Buffer | null = null;
    for (const piece of pieces) {
      if (!Array.isArray(piece)) {
        write(piece, piece.length);
        continue;
      }
      base ??= openSync(baseFile, 'r');
      chunk ??= Buffer.allocUnsafe(CHUNK);
      const [start, end] = piece;
      for (let at = start; at < end;) {
        const n = readSync(base, chunk, 0, Math.min(chunk.length, end - at), at);
        if (n <= 0) throw new Error(`${baseFile} ended before byte ${end}`);
        write(chunk, n);
        at += n;
      }
    }
  } finally {
    closeSync(fd);
    if (base !== null) closeSync(base);
  }
}

/** Write `file` from `pieces` in a worker thread; rejects with the thread's error. */
export function writeSnapshotPieces(file: string, baseFile: string, pieces: readonly SnapshotPiece[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL(import.meta.url), { workerData: { file, baseFile, pieces } });
    let settled = false;
    worker.once('message', (msg: { error?: string }) => {
      settled = true;
      if (msg.error !== undefined) reject(new Error(msg.error));
      else resolve();
    });
    worker.once('error', (err) => {
      settled = true;
      reject(err);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`the snapshot writer exited with ${code}`));
    });
  });
}

if (!isMainThread && parentPort && (workerData as { pieces?: unknown } | null)?.pieces) {
  const { file, baseFile, pieces } = workerData as { file: string; baseFile: string; pieces: SnapshotPiece[] };
  try {
    writePieces(file, baseFile, pieces);
    parentPort.postMessage({});
  } catch (err) {
    parentPort.postMessage({ error: (err as Error).message });
  }
}
