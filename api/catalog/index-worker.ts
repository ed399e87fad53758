/**
 * The worker thread of incremental builds' index files (startIndexWorker in build-index.ts), kept
 * by its process between builds. Each job: on `start`, reads the base build's index files and
 * the base's versions of the changed works at once, and merges the index over the changed
 * works' records once the build sends them (`predict`, beside the render); then waits for its
 * `finish` (the new folder's path, and the folder of the pages Astro rendered when the build has
 * not staged them yet), writes the index files and answers with the result or the error. A
 * `cancel` ends a job that will not be finished (its build failed).
 */
import { parentPort } from 'node:worker_threads';
import { runIndexWorker, type IndexWorkerAnswer, type IndexWorkerMessage, type Prediction } from './build-index.ts';

type Finish = { buildDir: string; renderedDir?: string };
type Job = {
  /** Settles the job's prediction: the build's, or null when none will come (finish or cancel first). */
  predict: (prediction: Prediction | null) => void;
  finish?: Finish;
  cancelled?: boolean;
  waiting?: { resolve: (f: Finish) => void; reject: (e: Error) => void };
};
const port = parentPort!;
/** Per open job: its finish message once it came (or its cancel), or the waiter for it. */
const jobs = new Map<number, Job>();
const cancelled = () => new Error('the build ended before its index step');

port.on('message', (msg: IndexWorkerMessage) => {
  if (msg.type === 'start') {
    let predict!: (prediction: Prediction | null) => void;
    const predicted = new Promise<Prediction | null>((resolve) => (predict = resolve));
    const job: Job = { predict };
    jobs.set(msg.id, job);
    const next = () =>
      new Promise<Finish>((resolve, reject) => {
        if (job.cancelled) reject(cancelled());
        else if (job.finish) resolve(job.finish);
        else job.waiting = { resolve, reject };
      });
    runIndexWorker(msg.baseBuildDir, msg.changedSlugs, next, predicted, msg.layerOver)
      .then(
        (result) => port.postMessage({ id: msg.id, ...result } satisfies IndexWorkerAnswer),
        (err: unknown) =>
          port.postMessage({
            id: msg.id,
            error: err instanceof Error ? err.message : String(err),
          } satisfies IndexWorkerAnswer),
      )
      .finally(() => jobs.delete(msg.id));
    return;
  }
  const job = jobs.get(msg.id);
  if (!job) return;
  if (msg.type === 'predict') job.predict({ records: msg.records, buildDir: msg.buildDir });
  else if (msg.type === 'finish') {
    // A build that sent no prediction sends none later: the merge is made now.
    job.predict(null);
    job.finish = { buildDir: msg.buildDir, ...(msg.renderedDir ? { renderedDir: msg.renderedDir } : {}) };
    job.waiting?.resolve(job.finish);
  } else {
    job.predict(null);
    job.cancelled = true;
    job.waiting?.reject(cancelled());
  }
});
