/**
 * The works listing as the dynamic routes ask for it (GET /api/v1/works, the search page): a page
 * of the works matching a filter, as their summaries' stored JSON texts, with the exact total.
 * A plain build answers from its own works.idx and summaries file; a layered build holding a
 * listing overlay (api/catalog/index-layers.ts) from its plain base's two files with the overlay
 * laid over them (`searchLayered`): the base's matches less the overlay's tombstones, the
 * overlay's matching works merged in at their places. Both answer what a full build of the same
 * catalog answers (test/build/listing-overlay.slow.test.ts).
 */
import type { WorksFilter } from '../../src/domain/works-query.ts';
import { searchWorks, type WorksIndex } from '../../src/domain/catalog-index/works-index.ts';
import { searchLayered, type LayeredWorks } from '../../src/domain/catalog-index/works-overlay.ts';
import type { SummaryFile } from './summaries.ts';

export interface ListingPage {
  /** The page's works' summaries, each exactly `JSON.stringify(workSummary(record))`, in listing order. */
  texts: Buffer[];
  total: number;
  totalPages: number;
}

export interface WorksListing {
  /** Works in the catalog. */
  readonly count: number;
  /** Page `page` (from 1) of `pageSize` works matching `filter`. */
  page(filter: WorksFilter, page: number, pageSize: number): ListingPage;
  /** Close the summaries file (a later page opens it again). */
  close(): void;
}

/** A build's own listing files. */
export class PlainListing implements WorksListing {
  private readonly works: WorksIndex;
  private readonly summaries: SummaryFile;

  constructor(works: WorksIndex, summaries: SummaryFile) {
    this.works = works;
    this.summaries = summaries;
  }

  get count(): number {
    return this.works.count;
  }

  page(filter: WorksFilter, page: number, pageSize: number): ListingPage {
    const slice = searchWorks(this.works, filter, page, pageSize);
    return { texts: this.summaries.pageTexts(slice.ids), total: slice.total, totalPages: slice.totalPages };
  }

  close(): void {
    this.summaries.close();
  }
}

/** A layer's overlay over its plain base's listing files (`summaries` is the base's file). */
export class OverlaidListing implements WorksListing {
  private readonly view: LayeredWorks;
  private readonly summaries: SummaryFile;

  constructor(view: LayeredWorks, summaries: SummaryFile) {
    this.view = view;
    this.summaries = summaries;
  }

  get count(): number {
    return this.view.count;
  }

  page(filter: WorksFilter, page: number, pageSize: number): ListingPage {
    const slice = searchLayered(this.view, filter, page, pageSize);
    // The base's works of the page come in listing order, so ascending: one read per run.
    const baseIds: number[] = [];
    for (const item of slice.items) if ('base' in item) baseIds.push(item.base);
    const baseTexts = this.summaries.pageTexts(baseIds);
    let next = 0;
    const texts = slice.items.map((item) =>
      'base' in item ? baseTexts[next++]! : this.view.summaryTexts[item.overlay]!,
    );
    return { texts, total: slice.total, totalPages: slice.totalPages };
  }

  close(): void {
    this.summaries.close();
  }
}
