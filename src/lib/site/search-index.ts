/**
 * The site's search index, written by Pagefind into `<client>/pagefind/` after `astro build`.
 * One record per work page, built from the catalog rather than by parsing the HTML: the words
 * a reader searches by (titles, every composer name form, catalog numbers, genre, period,
 * instruments, summary, narrative, arrangement styles and moods) with composer, genre and
 * instrument filters. Parsing 10,000 work pages took Pagefind about six times longer than adding
 * the same works as records, and the records keep forms, tables and digests out of the index.
 * The search page uses Pagefind's JavaScript API with its own small interface, so the bundled
 * UI files are removed from the output.
 */
import { broaderGenre } from '../../domain/genres.ts';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Catalog, LoadedWork } from '../../domain/catalog.ts';
import { fold } from '../../domain/text.ts';

/** Pagefind's ready-made interfaces; the search page does not load them. */
const UNUSED_BUNDLE_FILES = [
  'pagefind-ui.js',
  'pagefind-ui.css',
  'pagefind-modular-ui.js',
  'pagefind-modular-ui.css',
  'pagefind-component-ui.js',
  'pagefind-component-ui.css',
  'pagefind-highlight.js',
];

/** Records sent to Pagefind before waiting for its answers. */
const RECORDS_IN_FLIGHT = 2000;

export interface SearchIndexSummary {
  /** Works in the index. */
  pages: number;
  durationMs: number;
}

/** Markdown to the words a reader sees: link text without URLs, no tags or emphasis marks. */
function plainText(markdown: string): string {
  return markdown
    .replace(/<[^>]*>/g, ' ')
    .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[*_`#>|~]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

/** The text Pagefind indexes for one work, most important words first. */
export function searchText(work: LoadedWork, instrumentNames: Map<string, { name: string; aliases: string[] }>): string {
  const c = work.content;
  const names = [c.composer.name, c.composer.sortName, ...c.composer.aliases];
  const instruments = c.instruments.flatMap((slug) => {
    const i = instrumentNames.get(slug);
    return i ? [i.name, ...i.aliases] : [slug];
  });
  const parts = [
    c.title,
    c.originalTitle ?? '',
    names.join('; '),
    c.workNumber ?? '',
    c.catalogNumbers.map((n) => `${n.catalog} ${n.number}`).join('; '),
    `${c.genre}. ${c.period}. ${c.year}. ${c.key ?? ''}`,
    `${c.instrumentation}; ${instruments.join(', ')}`,
    c.summary,
    plainText(work.body),
    c.arrangements.map((a) => `${a.title}: ${a.style}; ${a.instrumentation}; ${a.moods.join(', ')}`).join('. '),
  ];
  // Pagefind folds common accents itself; letters such as ø, ł or ß it may not, so the folded
  // forms of the names and the title are indexed too.
  const folded = [...new Set([c.title, ...names].map(fold))].filter((f) => !parts.join(' ').toLowerCase().includes(f));
  return [...parts, ...folded].filter(Boolean).join('\n');
}

/** One Pagefind record per work page (Pagefind's CustomRecord), in catalog order. */
export interface SearchRecord {
  url: string;
  language: string;
  content: string;
  meta: Record<string, string>;
  filters: Record<string, string[]>;
}

export function searchRecords(catalog: Catalog): SearchRecord[] {
  return catalog.works.map(searchRecordOf(catalog));
}

/** The record maker for one catalog's works (made on demand, so a full build holds one slice of them at a time). */
function searchRecordOf(catalog: Catalog): (work: Catalog['works'][number]) => SearchRecord {
  const instrumentNames = new Map(catalog.instruments.map((i) => [i.slug, { name: i.name, aliases: i.aliases }]));
  return (work) => {
    const c = work.content;
    return {
      url: `/works/${encodeURIComponent(c.slug)}/`,
      language: 'en',
      content: searchText(work, instrumentNames),
      meta: { title: c.title, composer: c.composer.name, summary: c.summary, ...(c.workNumber ? { catalog: c.workNumber } : {}) },
      filters: {
        composer: [c.composer.name],
        // The broader term (genres.json), like the browse pages, so the filter has few values.
        genre: [broaderGenre(catalog.genres, c.genre)],
        instrument: c.instruments.map((slug) => instrumentNames.get(slug)?.name ?? slug),
      },
    };
  };
}

export async function buildSearchIndex(clientDir: string, catalog: Catalog, options: { recordsInFlight?: number } = {}): Promise<SearchIndexSummary> {
  const started = Date.now();
  const record = searchRecordOf(catalog);
  const summary = await writeSearchIndex(clientDir, { count: catalog.works.length, at: (i) => record(catalog.works[i]!) }, options.recordsInFlight);
  return { ...summary, durationMs: Date.now() - started };
}

/** Pagefind's index of these records into `<clientDir>/pagefind/`. */
export async function writeSearchIndex(clientDir: string, records: SearchRecord[] | { count: number; at: (i: number) => SearchRecord }, recordsInFlight = RECORDS_IN_FLIGHT): Promise<SearchIndexSummary> {
  const count = Array.isArray(records) ? records.length : records.count;
  const at = Array.isArray(records) ? (i: number) => records[i]! : records.at;
  const started = Date.now();
  const pagefind = await import('pagefind');
  try {
    // One language: the pages are American English, and one index keeps the bundle small.
    const created = await pagefind.createIndex({ forceLanguage: 'en' });
    if (!created.index) throw new Error(`Pagefind could not start: ${created.errors.join('; ')}`);
    const index = created.index;
    // In slices, in catalog order: every record of 100,000 works in flight at once held them all
    // in this process's memory (and Pagefind's pipe) at the same time.
    const results: Array<{ errors: string[] }> = [];
    for (let i = 0; i < count; i += recordsInFlight) {
      const slice: Array<Promise<{ errors: string[] }>> = [];
      for (let k = i; k < Math.min(count, i + recordsInFlight); k++) slice.push(index.addCustomRecord(at(k)));
      results.push(...(await Promise.all(slice)));
    }
    const failed = results.flatMap((r) => r.errors);
    if (failed.length > 0) throw new Error(`Pagefind could not index the works: ${failed.slice(0, 5).join('; ')}`);
    const outputPath = path.join(path.resolve(clientDir), 'pagefind');
    const written = await index.writeFiles({ outputPath });
    if (written.errors.length > 0) throw new Error(`Pagefind could not write its index: ${written.errors.join('; ')}`);
    for (const f of UNUSED_BUNDLE_FILES) {
      const p = path.join(outputPath, f);
      if (existsSync(p)) rmSync(p);
    }
    const entry = JSON.parse(readFileSync(path.join(outputPath, 'pagefind-entry.json'), 'utf8')) as { languages: Record<string, { page_count: number }> };
    return { pages: Object.values(entry.languages).reduce((n, l) => n + l.page_count, 0), durationMs: Date.now() - started };
  } finally {
    await pagefind.close();
  }
}

/**
 * `buildSearchIndex` in a worker thread (an incremental build runs it while Astro keeps this
 * thread busy): the records are made here and handed over as one JSON string.
 */
export function buildSearchIndexInWorker(clientDir: string, catalog: Catalog): Promise<SearchIndexSummary> {
  const started = Date.now();
  const recordsJson = JSON.stringify(searchRecords(catalog));
  return new Promise((resolve, reject) => {
    const worker = new Worker(new URL('./search-index-worker.ts', import.meta.url), { workerData: { clientDir, recordsJson } });
    let settled = false;
    worker.once('message', (msg: SearchIndexSummary | { error: string }) => {
      settled = true;
      if ('error' in msg) reject(new Error(msg.error));
      else resolve({ ...msg, durationMs: Date.now() - started });
    });
    worker.once('error', (err) => {
      settled = true;
      reject(err);
    });
    worker.once('exit', (code) => {
      if (!settled) reject(new Error(`the search index worker exited with ${code}`));
    });
  });
}
