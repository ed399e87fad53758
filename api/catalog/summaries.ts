/**
 * The listing items of a page, read from the build's summaries file (`index/summaries.json`,
 * every work's summary as JSON text in listing order): one positional read per run of
 * consecutive works on the page. The texts stay on disk (the operating system caches them), so
 * neither memory nor a swap grows with them.
 *
 * The reads are synchronous (`pread` on a descriptor opened once). A page is at most 100 runs of
 * a few hundred bytes each, read from the page cache in microseconds; the same reads through
 * `fs.promises` went one by one through libuv's four-thread pool, where a few concurrent
 * uncached listings queued thousands of them ahead of every other file read of the server
 * (static records among them): at 100,000 works that made uncached listings 181 ms p99 at 10
 * clients and cut static throughput beside them to 0.07x (docs/catalog.md, "Answers kept
 * per build").
 */
import { closeSync, openSync, readSync } from 'node:fs';
import type { WorkSummary } from '../../src/schemas/work.ts';
import { summaryTexts, summaryRanges, type WorksIndex } from '../../src/domain/catalog-index/works-index.ts';

export class SummaryFile {
  private readonly file: string;
  private readonly index: WorksIndex;
  private fd: number | null = null;

  constructor(file: string, index: WorksIndex) {
    this.file = file;
    this.index = index;
  }

  /** The summaries of `ids` (ascending), in that order. */
  page(ids: readonly number[]): WorkSummary[] {
    return this.pageTexts(ids).map((text) => JSON.parse(text.toString('utf8')) as WorkSummary);
  }

  /**
   * The summaries of `ids` (ascending) as their stored JSON texts (each exactly
   * `JSON.stringify(summary)`, written by the build), so a listing answer can be joined from them
   * without parsing and serializing every item again.
   */
  pageTexts(ids: readonly number[]): Buffer[] {
    if (ids.length === 0) return [];
    const fd = (this.fd ??= openSync(this.file, 'r'));
    return summaryRanges(this.index, ids).flatMap((range) => {
      const bytes = Buffer.allocUnsafe(range.end - range.start);
      let read = 0;
      while (read < bytes.length) {
        const n = readSync(fd, bytes, read, bytes.length - read, range.start + read);
        if (n === 0) throw new Error(`${this.file} is shorter than its index says`);
        read += n;
      }
      return summaryTexts(this.index, range, bytes);
    });
  }

  /** Close the file (a later read opens it again). */
  close(): void {
    const fd = this.fd;
    this.fd = null;
    if (fd !== null) {
      try {
        closeSync(fd);
      } catch {
        // already closed
      }
    }
  }
}
