/**
 * Finished answers of one build's catalog listing (`GET /api/v1/works`), by their parameters:
 * the body bytes and their strong ETag. A build never changes, so an answer holds for the
 * build's life; the cache lives on the build's CatalogIndex and is dropped with it at a swap.
 * Bounded by entries and bytes, least recently used out, so a crawl through every page cannot
 * grow it. A hit costs a map lookup; a miss costs what the query costs (bitsets, one read of
 * the page's summaries) plus joining the body.
 */
export interface CachedAnswer {
  body: Buffer;
  etag: string;
}

export const ANSWER_CACHE_ENTRIES = 2048;
export const ANSWER_CACHE_BYTES = 16 * 1024 * 1024;

export class AnswerCache {
  private readonly entries = new Map<string, CachedAnswer>();
  private bytes = 0;

  private readonly maxEntries: number;
  private readonly maxBytes: number;

  constructor(maxEntries = ANSWER_CACHE_ENTRIES, maxBytes = ANSWER_CACHE_BYTES) {
    this.maxEntries = maxEntries;
    this.maxBytes = maxBytes;
  }

  get(key: string): CachedAnswer | undefined {
    const hit = this.entries.get(key);
    if (hit) {
      this.entries.delete(key);
      this.entries.set(key, hit);
    }
    return hit;
  }

  set(key: string, answer: CachedAnswer): void {
    if (answer.body.length > this.maxBytes / 8) return;
    const old = this.entries.get(key);
    if (old) {
      this.bytes -= old.body.length;
      this.entries.delete(key);
    }
    this.entries.set(key, answer);
    this.bytes += answer.body.length;
    for (const [k, v] of this.entries) {
      if (this.entries.size <= this.maxEntries && this.bytes <= this.maxBytes) break;
      this.entries.delete(k);
      this.bytes -= v.body.length;
    }
  }

  get size(): number {
    return this.entries.size;
  }

  /** Bytes of the bodies held, and their budget. */
  stats(): { bytes: number; budget: number; entries: number } {
    return { bytes: this.bytes, budget: this.maxBytes, entries: this.entries.size };
  }
}
