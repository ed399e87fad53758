/**
 * The build the server is serving right now. `swap` replaces static files and the loaded
 * indexes in one assignment, so no request ever sees a mix of an old and a new build.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { StaticSite } from './static-site.ts';
import { loadCatalogIndex, type CatalogIndex } from '../catalog/catalog-index.ts';
import type { PublishedBlob } from '../../src/domain/records.ts';
import { pointServedBuild } from './builds.ts';

export interface ServedBuild {
  /** The build folder (holds client/, build.json, nginx.conf). */
  dir: string;
  site: StaticSite;
  catalog: CatalogIndex;
  /** When the build was generated; dynamic answers derived from it carry this time. */
  generatedAtUtc: string;
  /** Blobs that public assets of this build link to, by SHA-256. */
  publishedBlobs: Map<string, PublishedBlob>;
}

/** How long a build that was swapped out keeps its open files for requests still using it. */
const RETIRE_AFTER_MS = 60_000;

export class SiteHandle {
  private served: ServedBuild;
  private readonly listeners: Array<(build: ServedBuild) => void> = [];
  private readonly servedLink: string | null;

  private constructor(build: ServedBuild, servedLink: string | null) {
    this.served = build;
    this.servedLink = servedLink;
  }

  /**
   * Open a complete build folder. With `servedLink` (ARCHIVE_DATA_DIR/current, which nginx.conf
   * roots at), the link is pointed at the served folder now and at every swap, so a front nginx
   * serves what this process serves.
   */
  static async open(buildDir: string, options: { servedLink?: string } = {}): Promise<SiteHandle> {
    const build = await SiteHandle.prepare(buildDir);
    if (options.servedLink) pointServedBuild(options.servedLink, buildDir);
    return new SiteHandle(build, options.servedLink ?? null);
  }

  private static async prepare(buildDir: string): Promise<ServedBuild> {
    const client = path.join(buildDir, 'client');
    const info = JSON.parse(await readFile(path.join(buildDir, 'build.json'), 'utf8')) as { generatedAtUtc: string };
    const blobs = JSON.parse(
      await readFile(path.join(buildDir, 'published-blobs.json'), 'utf8').catch(() => '{}'),
    ) as Record<string, PublishedBlob>;
    return {
      dir: buildDir,
      site: new StaticSite(client),
      catalog: await loadCatalogIndex(buildDir),
      generatedAtUtc: info.generatedAtUtc,
      publishedBlobs: new Map(Object.entries(blobs)),
    };
  }

  get current(): ServedBuild {
    return this.served;
  }

  /** Load a complete build folder, then switch to it in one step. */
  async swap(buildDir: string): Promise<void> {
    const next = await SiteHandle.prepare(buildDir);
    // The link first: should it fail, neither this process nor nginx switched, and the rebuild says why.
    if (this.servedLink) pointServedBuild(this.servedLink, buildDir);
    const previous = this.served;
    this.served = next;
    // Requests that started on the previous build may still read its summaries for a moment.
    setTimeout(() => void previous.catalog.summaries.close(), RETIRE_AFTER_MS).unref();
    for (const listener of this.listeners) listener(next);
  }

  onSwap(listener: (build: ServedBuild) => void): void {
    this.listeners.push(listener);
  }
}
