/**
 * The listing items of a page, read from the build's summaries file (`index/summaries.json`,
 * every work's summary as JSON text in listing order): one positional read per run of
 * consecutive works on the page. The texts stay on disk (the operating system caches them), so
 * neither memory nor a swap grows with them.
 */
import { promises as fs, type promises } from 'node:fs';
import type { WorkSummary } from '../../src/schemas/work.ts';
import { summaryTexts, summaryRanges, type WorksIndex } from '../../src/domain/catalog-index/works-index.ts';

export class SummaryFile {
  private readonly file: string;
  private readonly index: WorksIndex;
  private handle: Promise<promises.FileHandle> | null = null;

  constructor(file: string, index: WorksIndex) {
    this.file = file;
    this.index = index;
  }

  /** The summaries of `ids` (ascending), in that order. */
  async page(ids: readonly number[]): Promise<WorkSummary[]> {
    return (await this.pageTexts(ids)).map((text) => JSON.parse(text.toString('utf8')) as WorkSummary);
  }

  /**
   * The summaries of `ids` (ascending) as their stored JSON texts (each exactly
   * `JSON.stringify(summary)`, written by the build), so a listing answer can be joined from them
   * without parsing and serializing every item again.
   */
  async pageTexts(ids: readonly number[]): Promise<Buffer[]> {
    if (ids.length === 0) return [];
    const handle = await (this.handle ??= fs.open(this.file, 'r'));
    const parts = await Promise.all(
      summaryRanges(this.index, ids).map(async (range) => {
        const bytes = Buffer.allocUnsafe(range.end - range.start);
        let read = 0;
        while (read < bytes.length) {
          const r = await handle.read(bytes, read, bytes.length - read, range.start + read);
          if (r.bytesRead === 0) throw new Error(`${this.file} is shorter than its index says`);
          read += r.bytesRead;
        }
        return summaryTexts(this.index, range, bytes);
      }),
    );
    return parts.flat();
  }

  /** Close the file (a later read opens it again). */
  async close(): Promise<void> {
    const handle = this.handle;
    this.handle = null;
    if (handle) await (await handle).close().catch(() => undefined);
  }
}
