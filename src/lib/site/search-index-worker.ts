/**
 * The search worker thread of `buildSearchIndexInWorker` (search-index.ts): kept by its process
 * between builds; each job writes the Pagefind index (or its shards) of the records it is given
 * and answers with its summary or its error.
 *
 * While a job runs, only Pagefind's own process keeps this thread alive: the parent's port is let
 * go. Pagefind's library does not notice its process ending (a panic in it would leave the job
 * waiting for ever), so this thread then runs out of work and exits, and the parent fails the job
 * and starts another thread for the next. Idle between jobs, the port holds the thread, and
 * Pagefind's process waits for the next job (`keepPagefind`: each index is deleted after its
 * files are taken; a failed one ends the process).
 */
import { parentPort } from 'node:worker_threads';
import {
  PREPARE_PAGEFIND,
  preparePagefind,
  writeSearchIndex,
  type SearchRecord,
  type SearchWorkerAnswer,
  type SearchWorkerJob,
} from './search-index.ts';

const port = parentPort!;
port.on('message', (job: SearchWorkerJob | typeof PREPARE_PAGEFIND) => {
  if (job === PREPARE_PAGEFIND) {
    void preparePagefind();
    return;
  }
  const answer = (msg: SearchWorkerAnswer) => {
    port.ref();
    port.postMessage(msg);
  };
  let records: SearchRecord[];
  try {
    records = JSON.parse(job.recordsJson) as SearchRecord[];
  } catch (err) {
    answer({ id: job.id, error: (err as Error).message });
    return;
  }
  port.unref();
  writeSearchIndex(
    job.clientDir,
    { slugs: job.slugs, at: (i) => records[i]! },
    {
      shardWorks: job.shardWorks,
      reuse: job.reuse,
      // Kept between jobs: started once per thread, not once per apply.
      keepPagefind: true,
    },
  ).then(
    (summary) => answer({ id: job.id, ...summary }),
    (err: unknown) => answer({ id: job.id, error: err instanceof Error ? err.message : String(err) }),
  );
});
