/**
 * The worker thread of an incremental build's index files (startIndexWorker in build-index.ts):
 * reads the base build's unchanged records at once, then waits for the new folder's path (and
 * the folder of the pages Astro rendered, when the build has not staged them yet).
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runIndexWorker } from './build-index.ts';

const { baseBuildDir, changedSlugs } = workerData as { baseBuildDir: string; changedSlugs: string[] };
const port = parentPort!;
const next = () =>
  new Promise<{ buildDir: string; renderedDir?: string }>((resolve) =>
    port.once('message', (msg: { buildDir: string; renderedDir?: string }) => resolve(msg)),
  );
runIndexWorker(baseBuildDir, changedSlugs, next).then(
  (result) => port.postMessage(result),
  (err: unknown) => port.postMessage({ error: err instanceof Error ? err.message : String(err) }),
);
