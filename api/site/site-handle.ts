/**
 * The build the server is serving right now. `swap` replaces static files and the loaded
 * indexes in one assignment, so no request ever sees a mix of an old and a new build.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { StaticSite } from './static-site.ts';
import { SiteView } from '../../src/lib/site/layers.ts';
import { loadCatalogIndex, type CatalogIndex } from '../catalog/catalog-index.ts';
import type { PublishedBlob } from '../../src/domain/records.ts';
import { DEFAULT_CACHE_BUDGETS, type CacheBudgets } from './cache-budgets.ts';
import { pointServedBuild } from './served.ts';

export interface ServedBuild {
  /** The build folder (holds client/, build.json, nginx.conf). */
  dir: string;
  /** Its pages and records as readers see them (layered or not; src/lib/site/layers.ts). */
  view: SiteView;
  site: StaticSite;
  catalog: CatalogIndex;
  /** When the build was generated; dynamic answers derived from it carry this time. */
  generatedAtUtc: string;
  /** Blobs that public assets of this build link to, by SHA-256. */
  publishedBlobs: Map<string, PublishedBlob>;
}

/**
 * Other processes that serve the same builds (the read processes, api/site/read-processes.ts):
 * told to load a build while this process loads it, and to switch just before this one does, so
 * every process serves the new build within moments of the others and none ever a mix. Neither
 * call rejects: a read process that does not answer is left behind (it follows the served-build
 * link by itself) rather than holding the swap back.
 */
export interface SwapPeers {
  prepare(buildDir: string): Promise<void>;
  switch(buildDir: string): Promise<void>;
}

/** How long a build that was swapped out keeps its open files for requests still using it. */
const RETIRE_AFTER_MS = 60_000;

export class SiteHandle {
  private served: ServedBuild;
  private readonly listeners: Array<(build: ServedBuild) => void> = [];
  private readonly servedLink: string | null;
  private peers: SwapPeers | null = null;
  /** The caches' byte budgets, the same for every build this handle serves. */
  readonly budgets: CacheBudgets;

  private constructor(build: ServedBuild, servedLink: string | null, budgets: CacheBudgets) {
    this.served = build;
    this.servedLink = servedLink;
    this.budgets = budgets;
  }

  /**
   * Open a complete build folder. With `servedLink` (ARCHIVE_DATA_DIR/current, which nginx.conf
   * roots at), the link is pointed at the served folder now and at every swap, so a front nginx
   * serves what this process serves. `budgets`: the caches' byte budgets (config.cacheBudgets).
   */
  static async open(
    buildDir: string,
    options: { servedLink?: string; budgets?: CacheBudgets } = {},
  ): Promise<SiteHandle> {
    const budgets = options.budgets ?? DEFAULT_CACHE_BUDGETS;
    const build = await SiteHandle.prepare(buildDir, budgets);
    if (options.servedLink) pointServedBuild(options.servedLink, buildDir);
    return new SiteHandle(build, options.servedLink ?? null, budgets);
  }

  private static async prepare(buildDir: string, budgets: CacheBudgets): Promise<ServedBuild> {
    const view = SiteView.open(buildDir);
    const info = JSON.parse(await readFile(path.join(buildDir, 'build.json'), 'utf8')) as { generatedAtUtc: string };
    const blobs = JSON.parse(
      await readFile(path.join(buildDir, 'published-blobs.json'), 'utf8').catch(() => '{}'),
    ) as Record<string, PublishedBlob>;
    return {
      dir: buildDir,
      view,
      site: new StaticSite(view, { memoryBudget: budgets.staticBytes, factBudget: budgets.staticFactBytes }),
      catalog: await loadCatalogIndex(buildDir, budgets),
      generatedAtUtc: info.generatedAtUtc,
      publishedBlobs: new Map(Object.entries(blobs)),
    };
  }

  get current(): ServedBuild {
    return this.served;
  }

  /** Swap the read processes along with this one (the write process, `npm start` with ARCHIVE_READ_PROCESSES > 1). */
  setPeers(peers: SwapPeers | null): void {
    this.peers = peers;
  }

  /**
   * Load a complete build folder, then switch to it in one step. With peers (read processes), they
   * load it at the same time and switch first; this process switches once they have.
   */
  async swap(buildDir: string): Promise<void> {
    const [next] = await Promise.all([SiteHandle.prepare(buildDir, this.budgets), this.peers?.prepare(buildDir)]);
    await this.peers?.switch(buildDir);
    this.commit(next);
  }

  /** Load a complete build folder without serving it yet (a read process told to prepare). */
  load(buildDir: string): Promise<ServedBuild> {
    return SiteHandle.prepare(buildDir, this.budgets);
  }

  /** Serve a loaded build from now on, in one assignment. */
  commit(next: ServedBuild): void {
    const buildDir = next.dir;
    // The link first: should it fail, neither this process nor nginx switched, and the rebuild says why.
    if (this.servedLink) pointServedBuild(this.servedLink, buildDir);
    const previous = this.served.catalog.listing;
    this.served = next;
    // Requests that started on the previous build may still read its summaries for a moment. Only
    // the summaries file is held for that: the old build's caches go as soon as those requests end.
    setTimeout(() => void previous.close(), RETIRE_AFTER_MS).unref();
    for (const listener of this.listeners) listener(next);
  }

  onSwap(listener: (build: ServedBuild) => void): void {
    this.listeners.push(listener);
  }
}

/** The served build's caches, their sizes and budgets in bytes (for /metrics). */
export function cacheSizes(build: ServedBuild): Array<{ cache: string; bytes: number; budget: number }> {
  const s = build.site.stats();
  const records = build.catalog.records.stats();
  const listing = build.catalog.listingAnswers.stats();
  const resolve = build.catalog.resolveAnswers.stats();
  return [
    { cache: 'static_bytes', bytes: s.bodyBytes, budget: s.bodyBudget },
    { cache: 'static_facts', bytes: s.factBytes, budget: s.factBudget },
    { cache: 'records', bytes: records.bytes, budget: records.budget },
    { cache: 'listing_answers', bytes: listing.bytes, budget: listing.budget },
    { cache: 'resolve_answers', bytes: resolve.bytes, budget: resolve.budget },
  ];
}
