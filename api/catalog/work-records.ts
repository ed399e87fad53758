/**
 * Full work records on demand: read from the build's own static record
 * (`client/api/v1/works/<slug>/index.json`) when asked, parsed, and kept in a cache bounded by
 * bytes (least recently used first out). Nothing reads every record: resolve asks for the few
 * candidates it shows, the contribution template for one work. Concurrent requests for the same
 * record share one read.
 */
import { promises as fs } from 'node:fs';
import { SiteView } from '../../src/lib/site/layers.ts';
import type { WorkRecord } from '../../src/schemas/work.ts';
import type { WorkSlugs } from '../../src/domain/catalog-index/slug-table.ts';

/** Default cache budget: the JSON size of the records kept (their objects take a few times more). */
export const RECORD_CACHE_BYTES = 8 * 1024 * 1024;

export class WorkRecords {
  /** The build's pages and records (layered or not). */
  private readonly site: SiteView;
  private readonly index: { count: number; slugs: WorkSlugs };
  private readonly budget: number;
  /** By work id, least recently used first (Map keeps insertion order; a hit is re-inserted). */
  private readonly cache = new Map<number, { record: WorkRecord; bytes: number }>();
  private readonly reading = new Map<number, Promise<WorkRecord>>();
  private cachedBytes = 0;

  constructor(site: string | SiteView, index: { count: number; slugs: WorkSlugs }, budgetBytes = RECORD_CACHE_BYTES) {
    this.site = typeof site === 'string' ? SiteView.plain(site) : site;
    this.index = index;
    this.budget = budgetBytes;
  }

  get count(): number {
    return this.index.count;
  }

  /** JSON bytes of the records held, and their budget. */
  stats(): { bytes: number; budget: number; entries: number } {
    return { bytes: this.cachedBytes, budget: this.budget, entries: this.cache.size };
  }

  /** True when the build has a work with this slug (no read). */
  has(slug: string): boolean {
    return this.index.slugs.indexOf(slug) >= 0;
  }

  /** The first slug in slug order, or undefined for an empty catalog. */
  firstSlug(): string | undefined {
    const id = this.index.slugs.first();
    return id === undefined ? undefined : this.index.slugs.at(id);
  }

  /** Slugs in slug order (a copy of the whole list: for tests and tools, not requests). */
  slugs(): string[] {
    return Array.from(this.index.slugs.bySlug, (id) => this.index.slugs.at(id));
  }

  /** The record of work `slug`, or null when the build has none. */
  async get(slug: string): Promise<WorkRecord | null> {
    const id = this.index.slugs.indexOf(slug);
    return id < 0 ? null : this.byId(id);
  }

  /** The record of the work with listing id `id` (the catalog order resolve uses too). */
  byId(id: number): Promise<WorkRecord> {
    const hit = this.cache.get(id);
    if (hit) {
      this.cache.delete(id);
      this.cache.set(id, hit);
      return Promise.resolve(hit.record);
    }
    let pending = this.reading.get(id);
    if (!pending) {
      pending = this.read(id).finally(() => this.reading.delete(id));
      this.reading.set(id, pending);
    }
    return pending;
  }

  /** Several records at once, by id. */
  async byIds(ids: readonly number[]): Promise<Map<number, WorkRecord>> {
    const records = await Promise.all(ids.map((id) => this.byId(id)));
    return new Map(ids.map((id, k) => [id, records[k]!]));
  }

  /**
   * Every record, in slug order, read a batch at a time and not cached: for tests and tools that
   * need the whole catalog, never for a request.
   */
  async all(): Promise<WorkRecord[]> {
    const out: WorkRecord[] = [];
    const ids = Array.from(this.index.slugs.bySlug);
    for (let i = 0; i < ids.length; i += 256)
      out.push(...(await Promise.all(ids.slice(i, i + 256).map((id) => this.readFile(id).then((r) => r.record)))));
    return out;
  }

  private async readFile(id: number): Promise<{ record: WorkRecord; bytes: number }> {
    const slug = this.index.slugs.at(id);
    const file = this.site.locate(`api/v1/works/${slug}/index.json`);
    if (file === null) throw new Error(`the record of ${slug} is deleted from the build's view`);
    const text = await fs.readFile(file, 'utf8');
    const record = (JSON.parse(text) as { data: WorkRecord }).data;
    if (record.slug !== slug) throw new Error(`the record at works/${slug} names slug ${record.slug}`);
    return { record, bytes: text.length };
  }

  private async read(id: number): Promise<WorkRecord> {
    const entry = await this.readFile(id);
    if (entry.bytes <= this.budget) {
      this.cache.set(id, entry);
      this.cachedBytes += entry.bytes;
      for (const [oldId, old] of this.cache) {
        if (this.cachedBytes <= this.budget) break;
        this.cache.delete(oldId);
        this.cachedBytes -= old.bytes;
      }
    }
    return entry.record;
  }
}
