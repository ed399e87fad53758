/**
 * The archive's Prometheus metrics (prom-client), one registry per app so tests and several apps
 * in one process never share counters. What is measured and where:
 *
 *   archive_http_requests_total{method,route,status}          every answer, Fastify's and the fast path's
 *   archive_http_request_duration_seconds{method,route,status} latency histogram of the same
 *   archive_http_requests_in_flight                           requests being answered now
 *   archive_rate_limited_total{route}                         429 answers
 *   archive_upload_bytes_total                                library upload bytes stored
 *   archive_build_duration_seconds{outcome}                   rebuild-and-swap (publish, apply)
 *   archive_apply_duration_seconds{kind,outcome}              review apply, merge to swap
 *   archive_rebuild_queue_size                                rebuilds running or waiting
 *   archive_review_queue_size{kind,status}                    open review items (pending, needs-information, accepted)
 *   archive_cache_bytes{cache}, archive_cache_budget_bytes{cache} the served build's caches and their byte budgets
 *   archive_memory_bound_bytes{part}                          the memory plan: each part's bound, their total, the limit (api/site/memory-plan.ts)
 *   archive_process_tree_rss_bytes                            resident memory of the server and every process under it
 *   process_*, nodejs_*                                       prom-client's default process metrics
 *
 * `route` is the route pattern (`/api/v1/works/:slug`), `static` for the catch-all that serves the
 * build's files (and answers 404/405 for unknown paths), `fast-static` for the in-memory fast path,
 * `unmatched` for methods no route takes; never a raw path, so the label set stays bounded. Methods outside the HTTP set become `OTHER`.
 *
 * The review queue is counted from the review service's in-memory queue index (no record is
 * read), at most once every 30 s (cached between scrapes).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from 'prom-client';
import type { MemoryPlan } from '../site/memory-plan.ts';
import { processTreeRssBytes } from './process-tree.ts';

const METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);
const REVIEW_QUEUE_TTL_MS = 30_000;

/** One in-memory cache of the served build: its size now and its budget, bytes. */
export interface CacheSize {
  cache: string;
  bytes: number;
  budget: number;
}

export type ReviewQueueCounter = () => Promise<Array<{ kind: string; status: string; count: number }>>;

export class ArchiveMetrics {
  readonly registry = new Registry();
  readonly requests: Counter<'method' | 'route' | 'status'>;
  readonly duration: Histogram<'method' | 'route' | 'status'>;
  readonly inFlight: Gauge;
  readonly rateLimited: Counter<'route'>;
  readonly uploadBytes: Counter;
  readonly buildDuration: Histogram<'outcome'>;
  readonly applyDuration: Histogram<'kind' | 'outcome'>;
  readonly rebuildQueue: Gauge;
  readonly reviewQueue: Gauge<'kind' | 'status'>;
  readonly cacheBytes: Gauge<'cache'>;
  readonly cacheBudget: Gauge<'cache'>;
  readonly reconciles: Counter<'trigger' | 'outcome'>;
  readonly reconcileLastDuration: Gauge;
  readonly reconcileLastScores: Gauge<'source'>;
  private cacheSizes: () => CacheSize[] = () => [];
  private memoryPlan: () => MemoryPlan | null = () => null;
  private reviewQueueCounter: ReviewQueueCounter | null = null;
  private reviewQueueCache: { at: number; rows: Awaited<ReturnType<ReviewQueueCounter>> } | null = null;
  private defaultsStarted = false;

  constructor(inFlight: () => number) {
    const registers = [this.registry];
    this.requests = new Counter({
      name: 'archive_http_requests_total',
      help: 'HTTP answers by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'],
      registers,
    });
    this.duration = new Histogram({
      name: 'archive_http_request_duration_seconds',
      help: 'Time to answer, by method, route pattern and status.',
      labelNames: ['method', 'route', 'status'],
      buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers,
    });
    this.inFlight = new Gauge({
      name: 'archive_http_requests_in_flight',
      help: 'Requests being answered now.',
      registers,
      collect() {
        this.set(inFlight());
      },
    });
    this.rateLimited = new Counter({
      name: 'archive_rate_limited_total',
      help: 'Requests refused with 429 by a rate limit, by route pattern.',
      labelNames: ['route'],
      registers,
    });
    this.uploadBytes = new Counter({
      name: 'archive_upload_bytes_total',
      help: 'Bytes of library uploads stored (successful upload requests).',
      registers,
    });
    this.buildDuration = new Histogram({
      name: 'archive_build_duration_seconds',
      help: 'Rebuild-and-swap of the served site (after a publication or an applied review), by outcome.',
      labelNames: ['outcome'],
      buckets: [0.5, 1, 2, 5, 10, 20, 40, 60, 120, 300, 600],
      registers,
    });
    this.applyDuration = new Histogram({
      name: 'archive_apply_duration_seconds',
      help: 'Review apply (rewrite, merge, store files, rebuild and swap), by kind and outcome.',
      labelNames: ['kind', 'outcome'],
      buckets: [0.5, 1, 2, 5, 10, 20, 40, 60, 120, 300, 600],
      registers,
    });
    this.rebuildQueue = new Gauge({
      name: 'archive_rebuild_queue_size',
      help: 'Rebuilds running or waiting their turn.',
      registers,
    });
    const metrics = this;
    this.reviewQueue = new Gauge({
      name: 'archive_review_queue_size',
      help: 'Open review items (pending, needs-information, accepted) by kind and status; counted at most every 30 s.',
      labelNames: ['kind', 'status'],
      registers,
      async collect() {
        const rows = await metrics.reviewQueueRows();
        this.reset();
        for (const r of rows) this.set({ kind: r.kind, status: r.status }, r.count);
      },
    });
    this.cacheBytes = new Gauge({
      name: 'archive_cache_bytes',
      help: 'Bytes held by each in-memory cache of the served build (static file bytes and facts, records, answers).',
      labelNames: ['cache'],
      registers,
      collect() {
        for (const c of metrics.cacheSizes()) this.set({ cache: c.cache }, c.bytes);
      },
    });
    this.reconciles = new Counter({
      name: 'archive_reconciles_total',
      help: 'Reconciles (a full build replacing a served incremental build) that ended, by trigger and outcome (swapped, superseded, failed, cancelled).',
      labelNames: ['trigger', 'outcome'],
      registers,
    });
    this.reconcileLastDuration = new Gauge({
      name: 'archive_reconcile_last_duration_seconds',
      help: 'Duration of the last reconcile that ran its full build (checkout, build, swap); 0 until one has.',
      registers,
    });
    this.reconcileLastScores = new Gauge({
      name: 'archive_reconcile_last_scores',
      help: "Scores of the last reconcile's full build, by source: engraved, or taken from the render cache.",
      labelNames: ['source'],
      registers,
    });
    new Gauge({
      name: 'archive_memory_bound_bytes',
      help: 'The memory plan (docs/operations.md, "Memory"): each part\'s bound (server, readers, engraving, audio, warm-builder, children), their total, and ARCHIVE_MEMORY_LIMIT_MB (limit) when set.',
      labelNames: ['part'],
      registers,
      collect() {
        const plan = metrics.memoryPlan();
        if (!plan) return;
        const MiB = 1024 * 1024;
        this.set({ part: 'server' }, plan.parts.server * MiB);
        this.set({ part: 'readers' }, plan.parts.readers * MiB);
        this.set({ part: 'engraving' }, plan.parts.engraving * MiB);
        this.set({ part: 'audio' }, plan.parts.audio * MiB);
        this.set({ part: 'warm-builder' }, plan.parts.warmBuilder * MiB);
        this.set({ part: 'children' }, plan.parts.children * MiB);
        this.set({ part: 'total' }, plan.totalMiB * MiB);
        if (plan.limitMiB !== null) this.set({ part: 'limit' }, plan.limitMiB * MiB);
      },
    });
    new Gauge({
      name: 'archive_process_tree_rss_bytes',
      help: 'Resident memory of the server process and every process under it (the warm build process, git, Pagefind), bytes (Linux /proc).',
      registers,
      collect() {
        this.set(processTreeRssBytes());
      },
    });
    this.cacheBudget = new Gauge({
      name: 'archive_cache_budget_bytes',
      help: 'The byte budget of each in-memory cache of the served build (ARCHIVE_*_CACHE_MB, ARCHIVE_STATIC_FACTS_MB).',
      labelNames: ['cache'],
      registers,
      collect() {
        for (const c of metrics.cacheSizes()) this.set({ cache: c.cache }, c.budget);
      },
    });
  }

  /** Where the memory plan comes from (createApp sets it once the server has started). */
  measureMemoryWith(plan: () => MemoryPlan | null): void {
    this.memoryPlan = plan;
  }

  /** A reconcile ended (the rebuilder's onReconcile). */
  observeReconcile(event: {
    trigger: string;
    outcome: string;
    durationMs?: number;
    cost?: { scoresEngraved: number; scoresFromCache: number } | null;
  }): void {
    this.reconciles.inc({ trigger: event.trigger, outcome: event.outcome });
    // Only a reconcile that built something has a duration worth reporting as "the last one".
    if (event.outcome === 'swapped' || event.outcome === 'superseded' || event.outcome === 'failed') {
      if (event.durationMs !== undefined) this.reconcileLastDuration.set(event.durationMs / 1000);
    }
    if (event.cost) {
      this.reconcileLastScores.set({ source: 'engraved' }, event.cost.scoresEngraved);
      this.reconcileLastScores.set({ source: 'render-cache' }, event.cost.scoresFromCache);
    }
  }

  /** Where the caches' sizes come from (the served build; set once by createApp). */
  measureCachesWith(sizes: () => CacheSize[]): void {
    this.cacheSizes = sizes;
  }

  /** Where the review queue's counts come from (the review service; set once by createApp). */
  countReviewQueueWith(counter: ReviewQueueCounter): void {
    this.reviewQueueCounter = counter;
  }

  private async reviewQueueRows(): Promise<Awaited<ReturnType<ReviewQueueCounter>>> {
    if (!this.reviewQueueCounter) return [];
    if (this.reviewQueueCache && Date.now() - this.reviewQueueCache.at < REVIEW_QUEUE_TTL_MS)
      return this.reviewQueueCache.rows;
    const rows = await this.reviewQueueCounter();
    this.reviewQueueCache = { at: Date.now(), rows };
    return rows;
  }

  /** Count one answer. */
  observeRequest(method: string | undefined, route: string, status: number, seconds: number): void {
    const labels = { method: method && METHODS.has(method) ? method : 'OTHER', route, status: String(status) };
    this.requests.inc(labels);
    this.duration.observe(labels, seconds);
    if (status === 429) this.rateLimited.inc({ route });
  }

  /** The exposition text (prom-client's default process metrics start with the first scrape). */
  async text(): Promise<{ contentType: string; body: string }> {
    if (!this.defaultsStarted) {
      this.defaultsStarted = true;
      collectDefaultMetrics({ register: this.registry });
    }
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/** Time an async step into a histogram with an `outcome` of ok or failed. */
export async function timed<T>(
  observe: (outcome: 'ok' | 'failed', seconds: number) => void,
  run: () => Promise<T>,
): Promise<T> {
  const started = process.hrtime.bigint();
  const seconds = () => Number(process.hrtime.bigint() - started) / 1e9;
  try {
    const value = await run();
    observe('ok', seconds());
    return value;
  } catch (err) {
    observe('failed', seconds());
    throw err;
  }
}
