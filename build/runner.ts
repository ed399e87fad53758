/**
 * The build runner: one list of named steps (build/steps/) run in order over a plan
 * (build/plan.ts), the same list with a base or without one. A step does its work on this
 * thread, or starts it beside the steps that follow (another process, a worker thread, the thread
 * pool) and names the step that must not start before it is done: the runner waits for it there,
 * and records each step's time (`<step>Ms`), the time waited before it (`<step>WaitMs`) and each
 * task's own time beside them (`background`). When a step fails, every task still running is
 * awaited before the error goes on, so nothing keeps writing into a folder the caller may remove.
 */
import { mkdirSync, rmSync } from 'node:fs';
import type { Catalog, LoadedWork } from '../src/domain/catalog.ts';
import type { RenderSummary } from '../src/lib/site/render-scores.ts';
import type { ScoreManifest } from '../src/lib/site/scores.ts';
import type { AudioSummary } from '../src/lib/site/render-audio.ts';
import type { SearchIndexSummary, ShardReuse } from '../src/lib/site/search-index.ts';
import type { IndexWorker } from '../api/catalog/build-index.ts';
import type { LayerManifest } from '../src/domain/site-layers.ts';
import type { writeWorksIndexKeys } from '../src/lib/site/works-index.ts';
import type { BrowseKeys } from '../src/lib/site/browse-pages.ts';
import type { ZipWork } from '../src/lib/site/work-zips.ts';
import type { BuildPlan } from './plan.ts';
import type { BuildInfo, RendererUsed } from './types.ts';

export interface Step {
  /** The step's phase in build.json: `<name>Ms`. */
  readonly name: string;
  run(build: BuildRun): void | Promise<void>;
}

interface Task {
  name: string;
  promise: Promise<unknown>;
  /** The step that waits for it. */
  before: string;
}

/** One build in progress: its plan, what the steps have made so far, and the tasks beside them. */
export class BuildRun {
  readonly plan: BuildPlan;
  readonly phases: Record<string, number>;
  /** Each task's own time (ms), keyed `<task>Ms`. */
  readonly background: Record<string, number> = {};
  #catalog: Catalog | null;
  /** The catalog's size, for build.json (the catalog itself may be let go first). */
  readonly counts: { works: number; profiles: number };
  /** When planning began. */
  readonly started: number;
  /** build.json, once the record step wrote it. */
  info?: BuildInfo;
  #tasks: Task[] = [];
  #done = new Map<string, { promise: Promise<void>; resolve: () => void; reject: (err: unknown) => void }>();
  #cleanups: (() => Promise<void> | void)[] = [];

  // What the steps hand on (each names the step that sets it).
  /** scores: the engraving's summary, and the score manifest the pages read (the base's entries kept for works out of scope). */
  scores?: RenderSummary;
  scoresDir = '';
  /** scores: the rendered audio's counts (none when the build renders no audio). */
  audio?: AudioSummary;
  /** scores: the manifest's file beside client/ (written by the scores step). */
  manifestFile = '';
  scoreManifest: ScoreManifest = { scores: {} };
  /** beside: the search index, when a base's is kept whole (no search record changed). */
  keepSearch = false;
  shardReuse: ShardReuse | null = null;
  searchScratch = '';
  /** With a base: the index worker, reading the base's records while the pages render. */
  indexer?: IndexWorker;
  /**
   * beside or predict: the changed works' records were handed to the index worker, made with the
   * base's score manifest (in beside) or the scores step's; null: not predicted.
   */
  predicted: 'base' | 'scores' | null = null;
  /** The server's warm-up (build/warm-up.ts): the render also works out what the next applies' runs reuse. */
  warmUp = false;
  /** astro: where the pages went (a build without a base renders straight into client/), and how. */
  renderDir = '';
  renderer?: RendererUsed;
  /** How the pages' site data was made (an incremental build; src/lib/site-data.ts, `siteDataMade`). */
  siteData?: 'patched' | 'made' | null;
  astroRuns = 0;
  warmRuns = 0;
  worksIndexKeys?: ReturnType<typeof writeWorksIndexKeys>;
  worksIndexPages = { title: 0, composer: 0 };
  /** The keys of every browse value's pages (every value of this build), and the pages 2.. rendered. */
  browseKeys?: BrowseKeys;
  browsePages = 0;
  browseKeysHashed = 0;
  /** rest: what the zips need of each work in scope (the catalog may be let go before they are made). */
  zipWorks: ZipWork[] = [];
  /** stage: the results of the tasks beside the render. */
  searchIndex?: BuildInfo['searchIndex'];
  catalogIndex?: BuildInfo['catalogIndex'];
  compressedPages?: BuildInfo['compressedPages'];
  renderedFiles = 0;
  /** The base's files the new view no longer has (a layer's `deleted`). */
  removedBase: string[] = [];
  zips?: BuildInfo['zips'];
  layer: LayerManifest | null = null;
  /** Running tasks' results, read by the steps that wait for them. */
  searching?: Promise<SearchIndexSummary | null>;
  compressing?: Promise<BuildInfo['compressedPages']>;
  indexing?: Promise<BuildInfo['catalogIndex']>;
  zipping?: Promise<BuildInfo['zips']>;

  constructor(plan: BuildPlan, catalog: Catalog) {
    this.plan = plan;
    this.#catalog = catalog;
    this.started = plan.startedAt;
    this.counts = { works: catalog.works.length, profiles: catalog.profiles.length };
    this.phases = { ...plan.phases };
  }

  /** The catalog of the plan; a build without a base lets it go before its index step reads every record back. */
  get catalog(): Catalog {
    if (!this.#catalog) throw new Error('the catalog was let go');
    return this.#catalog;
  }

  /** The works in scope, in catalog order (with a base, found once: a walk of every work). */
  get works(): LoadedWork[] {
    if (!this.plan.base) return this.catalog.works;
    if (this.#scopeWorks === null) {
      const scope = new Set(this.plan.scope);
      this.#scopeWorks = this.catalog.works.filter((w) => scope.has(w.content.slug));
    }
    return this.#scopeWorks;
  }
  #scopeWorks: LoadedWork[] | null = null;

  /** Let the catalog go (only one copy of it in memory while a full build's index reads every record). */
  releaseCatalog(): void {
    this.#catalog = null;
  }

  /** Start a task beside the steps that follow; the step `before` does not start until it settled. */
  beside<T>(name: string, promise: Promise<T>, before: string): Promise<T> {
    const started = Date.now();
    const timed = promise.finally(() => {
      this.background[`${name}Ms`] = Date.now() - started;
    });
    timed.catch(() => undefined); // surfaced where it is awaited
    this.#tasks.push({ name, promise: timed, before });
    return timed;
  }

  /** Settles once the step `name` is done (a task that must start after a later step); rejects if the build fails first. */
  after(name: string): Promise<void> {
    return this.#doneOf(name).promise;
  }

  /** Run when the build ends, done or failed (a worker to close). */
  onEnd(cleanup: () => Promise<void> | void): void {
    this.#cleanups.push(cleanup);
  }

  #doneOf(name: string) {
    let done = this.#done.get(name);
    if (!done) {
      let resolve!: () => void;
      let reject!: (err: unknown) => void;
      const promise = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      promise.catch(() => undefined); // surfaced through the task that waits for it
      this.#done.set(name, (done = { promise, resolve, reject }));
    }
    return done;
  }

  /** Whether any task waits to be joined before the step `name`. */
  hasTasksBefore(name: string): boolean {
    return this.#tasks.some((t) => t.before === name);
  }

  /** Wait for the tasks joined before the step `name`; the first one that failed (in start order) is thrown. */
  async join(name: string): Promise<void> {
    const due = this.#tasks.filter((t) => t.before === name);
    const settled = await Promise.allSettled(due.map((t) => t.promise));
    const failed = settled.find((s) => s.status === 'rejected');
    if (failed) throw (failed as PromiseRejectedResult).reason;
  }

  markDone(name: string): void {
    this.#doneOf(name).resolve();
  }

  /** Every task settled, and the cleanups run (after a failure, or at the end). */
  async settle(failure?: unknown): Promise<void> {
    // A task waiting for a step that will not run now gives up.
    if (failure !== undefined) for (const done of this.#done.values()) done.reject(failure);
    await Promise.allSettled(this.#tasks.map((t) => t.promise));
    for (const cleanup of this.#cleanups.splice(0)) await cleanup();
  }
}

/** Logs a step with the process's memory, so a large build can be followed (unless quiet). */
function logStep(name: string, ms: number, waitedMs: number | undefined): void {
  const m = process.memoryUsage();
  const mb = (n: number) => Math.round(n / 1048576);
  console.log(
    `[build] ${name} ${(ms / 1000).toFixed(1)} s${waitedMs ? ` (after ${(waitedMs / 1000).toFixed(1)} s waiting for the tasks beside)` : ''}; rss ${mb(m.rss)} MB, heap ${mb(m.heapUsed)}/${mb(m.heapTotal)} MB, external ${mb(m.external)} MB, peak rss ${mb(process.resourceUsage().maxRSS * 1024)} MB`,
  );
}

/**
 * Run the steps over the build, in order, into a fresh `plan.outDir`. A step that a failed task
 * would have waited for is never started: the failure is thrown once every task has settled.
 */
export async function runSteps(build: BuildRun, steps: readonly Step[]): Promise<void> {
  const quiet = build.plan.options.quiet;
  rmSync(build.plan.outDir, { recursive: true, force: true });
  mkdirSync(build.plan.outDir, { recursive: true });
  try {
    for (const step of steps) {
      let waited: number | undefined;
      if (build.hasTasksBefore(step.name)) {
        const t = Date.now();
        await build.join(step.name);
        waited = build.phases[`${step.name}WaitMs`] = Date.now() - t;
      }
      const t0 = Date.now();
      await step.run(build);
      const ms = (build.phases[`${step.name}Ms`] = Date.now() - t0);
      build.markDone(step.name);
      if (!quiet) logStep(step.name, ms, waited);
    }
  } catch (err) {
    await build.settle(err);
    throw err;
  }
  await build.settle();
}
