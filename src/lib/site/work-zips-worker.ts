/** The worker thread of `writeWorkZipsInWorkers` (work-zips.ts): writes the zips of the works it is given. */
import { parentPort, workerData } from 'node:worker_threads';
import { writeWorkZips, type ZipWork } from './work-zips.ts';

const { works, clientDir, generatedAtUtc } = workerData as {
  works: ZipWork[];
  clientDir: string;
  generatedAtUtc: string;
};
try {
  parentPort!.postMessage(writeWorkZips(works, clientDir, generatedAtUtc));
} catch (err) {
  parentPort!.postMessage({ error: err instanceof Error ? err.message : String(err) });
}
