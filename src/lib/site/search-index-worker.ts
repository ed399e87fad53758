/** The worker thread of `buildSearchIndexInWorker` (search-index.ts): writes the Pagefind index of the records it is given. */
import { parentPort, workerData } from 'node:worker_threads';
import { writeSearchIndex, type SearchRecord } from './search-index.ts';

const { clientDir, recordsJson } = workerData as { clientDir: string; recordsJson: string };
writeSearchIndex(clientDir, JSON.parse(recordsJson) as SearchRecord[]).then(
  (summary) => parentPort!.postMessage(summary),
  (err: unknown) => parentPort!.postMessage({ error: err instanceof Error ? err.message : String(err) }),
);
