/** The worker thread of `buildSearchIndexInWorker` (search-index.ts): writes the Pagefind index (or its shards) of the records it is given. */
import { parentPort, workerData } from 'node:worker_threads';
import { writeSearchIndex, type SearchRecord, type ShardReuse } from './search-index.ts';

const { clientDir, recordsJson, slugs, reuse } = workerData as {
  clientDir: string;
  recordsJson: string;
  slugs: string[];
  reuse?: ShardReuse;
};
const records = JSON.parse(recordsJson) as SearchRecord[];
writeSearchIndex(clientDir, { slugs, at: (i) => records[i]! }, { reuse }).then(
  (summary) => parentPort!.postMessage(summary),
  (err: unknown) => parentPort!.postMessage({ error: err instanceof Error ? err.message : String(err) }),
);
