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
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import type { Catalog, LoadedWork } from '../../domain/catalog.ts';
import { fold } from '../../domain/text.ts';
import { catalogNumberSearchText, workCatalogKeys } from '../../domain/catalog-numbers.ts';
import { SiteView } from './layers.ts';

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
  /**
   * With `ShardReuse.view`: the files of the shards indexed again (paths from the client folder,
   * `pagefind/...`) that the view already held with the same bytes, so they were not written. The
   * stage step keeps them where the view has them. Not part of build.json.
   */
  unwritten?: string[];
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
export function searchText(
  work: LoadedWork,
  instrumentNames: Map<string, { name: string; aliases: string[] }>,
): string {
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
    c.lyricist?.name ?? '',
    c.workNumber ?? '',
    c.catalogNumbers.map((n) => `${n.catalog} ${n.number}`).join('; '),
    // Catalog numbers also run together ("bwv1007"), as readers type them.
    [c.workNumber ?? '', ...c.catalogNumbers.map((n) => `${n.catalog} ${n.number}`)]
      .map(catalogNumberSearchText)
      .join('; '),
    `${c.genre}. ${c.period}. ${c.year}. ${c.key ?? ''}`,
    `${c.instrumentation}; ${instruments.join(', ')}`,
    c.summary,
    plainText(work.body),
    c.arrangements.map((a) => `${a.title}: ${a.style}; ${a.instrumentation}; ${a.moods.join(', ')}`).join('. '),
  ];
  // Pagefind folds common accents itself; letters such as ø, ł or ß it may not, so the folded
  // forms of the names and the title are indexed too.
  const folded = [...new Set([c.title, ...names].map(fold))].filter((f) => !parts.join(' ').toLowerCase().includes(f));
  // Readers type "Erlkoenig" for "Erlkönig": the transliterated forms are indexed too.
  const umlauts = [c.title, c.originalTitle ?? '', ...names, c.lyricist?.name ?? '']
    .filter((t) => /[äöüÄÖÜß]/.test(t))
    .map(transliterate);
  return [...parts, ...folded, ...new Set(umlauts)].filter(Boolean).join('\n');
}

const TRANSLITERATIONS: Record<string, string> = { ä: 'ae', ö: 'oe', ü: 'ue', Ä: 'Ae', Ö: 'Oe', Ü: 'Ue', ß: 'ss' };

/** "Erlkönig" -> "Erlkoenig": German umlauts and ß as written without them. */
function transliterate(text: string): string {
  return text.replace(/[äöüÄÖÜß]/g, (ch) => TRANSLITERATIONS[ch] ?? ch);
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
      meta: {
        title: c.title,
        composer: c.composer.name,
        summary: c.summary,
        ...(c.workNumber ? { catalog: c.workNumber } : {}),
      },
      filters: {
        composer: [c.composer.name],
        // The broader term (genres.json), like the browse pages, so the filter has few values.
        genre: [broaderGenre(catalog.genres, c.genre)],
        instrument: c.instruments.map((slug) => instrumentNames.get(slug)?.name ?? slug),
        // Whole catalog numbers ("op18", "op18no1"): the search page turns a catalog-number query
        // into this filter, so it finds exactly the works GET /api/v1/works finds for it.
        catalog: workCatalogKeys(c.workNumber, c.catalogNumbers),
      },
    };
  };
}

/**
 * Works per Pagefind index (ARCHIVE_SEARCH_SHARD_WORKS, default 1,000). A larger catalog is
 * indexed as several Pagefind indexes ("shards") that the search page merges in the browser
 * (Pagefind's `mergeIndex`): an incremental build re-indexes only the shards its changed works
 * fall in, so the shard's size, not the catalog's, sets what one apply costs (about 1 s of
 * Pagefind for 1,000 works); and Pagefind holds a whole index in memory while it writes it
 * (about 4 GB for 100,000 works in one), so memory follows the shard too. The price is in the
 * browser: a catalog of N works is N / 1,000 indexes to merge (docs/decisions/0042-search-index-in-shards.md;
 * docs/decisions/0043-small-search-shards-linear-hashing.md).
 */
export const DEFAULT_SHARD_WORKS = 1_000;

export function shardWorksFrom(value: string | number | undefined): number {
  if (value === undefined || value === '') return DEFAULT_SHARD_WORKS;
  const n = typeof value === 'number' ? value : Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`ARCHIVE_SEARCH_SHARD_WORKS must be a whole number of works >= 1 (got "${value}")`);
  return n;
}

/** How many Pagefind indexes a catalog of `works` works gets. */
export function shardCount(works: number, shardWorks: number): number {
  return Math.max(1, Math.ceil(works / shardWorks));
}

/**
 * How works are spread over shards, named in shards.json: an incremental build links a base's
 * shards only when the base spread its works the same way (a base without it used `hash mod n`).
 */
export const SHARD_SCHEME = 'fnv1a-linear';

/**
 * The shard a work's record goes to among `shards`: linear hashing of a stable hash of its slug
 * (FNV-1a). With 2^L <= shards < 2^(L+1), a work goes to `h mod 2^(L+1)` when `h mod 2^L` is below
 * `shards - 2^L` (the shards already split), else to `h mod 2^L`. Going from n to n + 1 shards
 * moves works out of exactly one shard (n - 2^L) into the new one (n): a catalog that grows past a
 * multiple of the shard size re-indexes two shards, not all of them; a new or removed work
 * changes one shard.
 */
export function shardOf(slug: string, shards: number): number {
  if (shards <= 1) return 0;
  let h = 0x811c9dc5;
  for (let i = 0; i < slug.length; i++) {
    h ^= slug.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  let level = 1;
  while (level * 2 <= shards) level *= 2;
  const low = h % level;
  return low < shards - level ? h % (level * 2) : low;
}

/** Where shard `k` lives under `<client>/pagefind/`: shard 0 is the primary index itself. */
export function shardFolder(k: number): string {
  return k === 0 ? '' : `shard-${k}`;
}

/**
 * The file that names the other shards for the search page (`{ "scheme": "fnv1a-linear", "shards":
 * ["shard-1/", ...] }`, root-relative to the primary index; the page reads `shards` alone).
 */
export const SHARDS_FILE = 'shards.json';

export async function buildSearchIndex(
  clientDir: string,
  catalog: Catalog,
  options: { recordsInFlight?: number; shardWorks?: number; reuse?: ShardReuse } = {},
): Promise<SearchIndexSummary> {
  const started = Date.now();
  const record = searchRecordOf(catalog);
  const summary = await writeSearchIndex(
    clientDir,
    { slugs: catalog.works.map((w) => w.content.slug), at: (i) => record(catalog.works[i]!) },
    options,
  );
  return { ...summary, durationMs: Date.now() - started };
}

/**
 * Shards an incremental build may take from its base instead of indexing them again: `dir` is the
 * base's `client/pagefind/`; every shard of the `shards` not named in `dirty` holds exactly the
 * records it held there (same works, same records: Pagefind writes the same bytes for the same
 * records), so its folder is linked. Computed for this many shards (`searchShardReuse`).
 */
export interface ShardReuse {
  dir: string;
  shards: number;
  dirty: number[];
  /**
   * False: the clean shards are not linked into the output at all (a layered build keeps them
   * where its base has them; src/lib/site/layers.ts), so the output holds only the dirty shards
   * and shards.json. Default true.
   */
  link?: boolean;
  /**
   * A layered build's base folder: a file of a shard indexed again that this view already holds
   * with the same bytes is not written (most of a shard's fragments, when one record of its
   * thousand changed; Pagefind names fragments and chunks by their content). Its path is listed in
   * the summary's `unwritten`.
   */
  view?: string;
}

/** The records of a catalog's works, in catalog order: their slugs, and the record of the i-th on demand. */
export interface RecordSource {
  slugs: string[];
  at: (i: number) => SearchRecord;
}

/**
 * Pagefind's index of these records into `<clientDir>/pagefind/`: one index, or one per shard
 * (shard 0 at the root, shard k in `shard-k/`, named in `shards.json`, which every build writes,
 * with an empty list for one index), written one after the
 * other so only one shard's index is in Pagefind's memory at a time.
 */
export async function writeSearchIndex(
  clientDir: string,
  source: RecordSource,
  options: {
    recordsInFlight?: number;
    shardWorks?: number;
    reuse?: ShardReuse;
    /**
     * Leave Pagefind's process running for the next call (the search worker of the warm build
     * process): starting it from a 2-3 GB process is a fork of that process. Default: ended.
     */
    keepPagefind?: boolean;
  } = {},
): Promise<SearchIndexSummary> {
  try {
    return await writeShards(clientDir, source, options);
  } finally {
    if (!options.keepPagefind && pagefindLoaded) await (await pagefindLoaded).close();
  }
}

async function writeShards(
  clientDir: string,
  source: RecordSource,
  options: { recordsInFlight?: number; shardWorks?: number; reuse?: ShardReuse },
): Promise<SearchIndexSummary> {
  const started = Date.now();
  const shards = shardCount(
    source.slugs.length,
    options.shardWorks ?? shardWorksFrom(process.env.ARCHIVE_SEARCH_SHARD_WORKS),
  );
  const members: number[][] = Array.from({ length: shards }, () => []);
  for (let i = 0; i < source.slugs.length; i++) members[shardOf(source.slugs[i]!, shards)]!.push(i);
  const outputPath = path.join(path.resolve(clientDir), 'pagefind');
  const reuse =
    options.reuse && options.reuse.shards === shards && existsSync(path.join(options.reuse.dir, SHARDS_FILE))
      ? new Set(Array.from({ length: shards }, (_, k) => k).filter((k) => !options.reuse!.dirty.includes(k)))
      : new Set<number>();
  let pages = 0;
  const view = options.reuse?.view ? SiteView.open(options.reuse.view) : null;
  const unwritten: string[] = [];
  // Shard 0 last: its folder is the primary index, which holds the others' folders.
  for (let k = shards - 1; k >= 0; k--) {
    const dir = path.join(outputPath, shardFolder(k));
    if (reuse.has(k)) {
      if (options.reuse!.link !== false) linkShard(path.join(options.reuse!.dir, shardFolder(k)), dir);
      pages += members[k]!.length;
      continue;
    }
    const prefix = k === 0 ? 'pagefind/' : `pagefind/${shardFolder(k)}/`;
    const written = await writeOneIndex(
      dir,
      members[k]!.length,
      (n) => source.at(members[k]![n]!),
      options.recordsInFlight ?? RECORDS_IN_FLIGHT,
      view ? (rel, bytes) => sameFile(view.locate(prefix + rel), bytes) : undefined,
    );
    pages += written.pages;
    for (const rel of written.unwritten) unwritten.push(prefix + rel);
  }
  mkdirSync(outputPath, { recursive: true });
  writeFileSync(
    path.join(outputPath, SHARDS_FILE),
    `${JSON.stringify({ scheme: SHARD_SCHEME, shards: Array.from({ length: shards - 1 }, (_, k) => `${shardFolder(k + 1)}/`) })}\n`,
  );
  return { pages, durationMs: Date.now() - started, ...(view ? { unwritten } : {}) };
}

/** Whether `file` (null: none) holds exactly `bytes`. */
function sameFile(file: string | null, bytes: Uint8Array): boolean {
  if (file === null) return false;
  const st = statSync(file, { throwIfNoEntry: false });
  return st !== undefined && st.isFile() && st.size === bytes.byteLength && readFileSync(file).equals(bytes);
}

/** A hard-linked copy of one shard's files (not the other shards' folders inside shard 0). */
function linkShard(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (entry.isDirectory() && /^shard-\d+$/.test(entry.name)) continue;
    if (entry.name === SHARDS_FILE) continue;
    const src = path.join(from, entry.name);
    const dst = path.join(to, entry.name);
    if (entry.isDirectory()) linkTree(src, dst);
    else linkSync(src, dst);
  }
}

function linkTree(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    if (entry.isDirectory()) linkTree(path.join(from, entry.name), path.join(to, entry.name));
    else linkSync(path.join(from, entry.name), path.join(to, entry.name));
  }
}

// Imported once: a later shard awaits a settled promise, not the module loader (the search
// worker must not run out of work between two shards; search-index-worker.ts).
let pagefindLoaded: Promise<typeof import('pagefind')> | undefined;
const pagefindModule = () => (pagefindLoaded ??= import('pagefind'));

/**
 * One Pagefind index of `count` records into `outputPath`; a file `same` says the reader already
 * has is not written (listed in `unwritten`, relative to `outputPath`).
 */
async function writeOneIndex(
  outputPath: string,
  count: number,
  at: (i: number) => SearchRecord,
  recordsInFlight: number,
  same?: (rel: string, bytes: Uint8Array) => boolean,
): Promise<{ pages: number; unwritten: string[] }> {
  // Pagefind's process panics on a folder it cannot make; this says which and why.
  mkdirSync(outputPath, { recursive: true });
  const pagefind = await pagefindModule();
  let index: Awaited<ReturnType<typeof pagefind.createIndex>>['index'];
  try {
    // One language: the pages are American English, and one index keeps the bundle small.
    const created = await pagefind.createIndex({ forceLanguage: 'en' });
    if (!created.index) throw new Error(`Pagefind could not start: ${created.errors.join('; ')}`);
    index = created.index;
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
    // The files in memory, then written here: the same bytes writeFiles writes, less those the
    // reader has (at most a few files of a shard change with one record; each file made costs).
    const got = await index.getFiles();
    if (got.errors.length > 0) throw new Error(`Pagefind could not write its index: ${got.errors.join('; ')}`);
    type Entry = { languages: Record<string, { page_count: number }> };
    let entry: Entry | null = null as Entry | null;
    const unwritten: string[] = [];
    const made = new Set<string>();
    for (const file of got.files) {
      const rel = file.path;
      if (UNUSED_BUNDLE_FILES.includes(rel)) continue;
      if (rel.startsWith('/') || rel.split('/').some((part) => part === '..' || part === ''))
        throw new Error(`Pagefind named a file outside its folder: ${rel}`);
      if (rel === 'pagefind-entry.json') entry = JSON.parse(Buffer.from(file.content).toString('utf8')) as Entry;
      if (same?.(rel, file.content)) {
        unwritten.push(rel);
        continue;
      }
      const target = path.join(outputPath, rel);
      const folder = path.dirname(target);
      if (!made.has(folder)) {
        mkdirSync(folder, { recursive: true });
        made.add(folder);
      }
      writeFileSync(target, file.content);
    }
    if (entry === null) throw new Error('Pagefind wrote no pagefind-entry.json');
    return { pages: Object.values(entry.languages).reduce((n, l) => n + l.page_count, 0), unwritten };
  } catch (err) {
    // A process that failed once is not trusted with the next index: the next starts another.
    index = undefined;
    await pagefind.close();
    throw err;
  } finally {
    // The index goes (the next shard starts with an empty one); the process stays for it, and
    // `writeSearchIndex` ends it after its last shard unless its caller keeps it (`keepPagefind`).
    // (After a failure there is none to delete: deleting would start a process.)
    await index?.deleteIndex().catch(() => undefined);
  }
}

/** One job of the search worker (search-index-worker.ts). */
export interface SearchWorkerJob {
  id: number;
  clientDir: string;
  recordsJson: string;
  slugs: string[];
  /** Works per shard, as this thread read it (the worker's copy of the environment is its start's). */
  shardWorks: number;
  reuse?: ShardReuse;
}

export type SearchWorkerAnswer = { id: number } & (SearchIndexSummary | { error: string });

interface SearchWorkerState {
  worker: Worker;
  pending: Map<number, { resolve: (s: SearchIndexSummary) => void; reject: (e: Error) => void }>;
}
/**
 * The search worker of this process: started by the first job and kept for the next, so an
 * apply in the warm build process does not start a thread and load its modules again (about
 * 0.4 s of the search's 1-1.4 s at 10,000 works). Referenced only while a job runs, so it never
 * keeps a process alive; dropped when it fails or exits (the next job starts another).
 */
let searchWorker: SearchWorkerState | null = null;
let searchJobs = 0;
/** Jobs run one at a time, in order: each holds one shard's index in Pagefind's memory. */
let searchQueue: Promise<unknown> = Promise.resolve();

function searchWorkerFor(): SearchWorkerState {
  if (searchWorker) return searchWorker;
  const worker = new Worker(new URL('./search-index-worker.ts', import.meta.url));
  const state: SearchWorkerState = { worker, pending: new Map() };
  const fail = (err: Error) => {
    if (searchWorker === state) searchWorker = null;
    for (const job of state.pending.values()) job.reject(err);
    state.pending.clear();
  };
  worker.on('message', (msg: SearchWorkerAnswer) => {
    const job = state.pending.get(msg.id);
    if (!job) return;
    state.pending.delete(msg.id);
    if (state.pending.size === 0) worker.unref();
    if ('error' in msg) job.reject(new Error(msg.error));
    else
      job.resolve({
        pages: msg.pages,
        durationMs: msg.durationMs,
        ...(msg.unwritten ? { unwritten: msg.unwritten } : {}),
      });
  });
  worker.on('error', (err) => fail(err));
  worker.on('exit', (code) => fail(new Error(`the search index worker exited with ${code}`)));
  worker.unref();
  searchWorker = state;
  return state;
}

/**
 * Start the search worker now (the warm-up at a server's start: build/warm-up.ts), and
 * Pagefind's process in it, both idle until a job.
 */
export function prepareSearchWorker(): void {
  searchWorkerFor().worker.postMessage(PREPARE_PAGEFIND);
}

/** The message that has the search worker start Pagefind's process ahead of its first job. */
export const PREPARE_PAGEFIND = 'prepare-pagefind';

/**
 * Pagefind's process started and left waiting (`keepPagefind`): an index made and deleted. A
 * failure ends the process (the first job starts another) and is not reported: the job that
 * needs Pagefind reports its own.
 */
export async function preparePagefind(): Promise<void> {
  const pagefind = await pagefindModule();
  try {
    const created = await pagefind.createIndex({ forceLanguage: 'en' });
    if (!created.index) throw new Error(created.errors.join('; '));
    await created.index.deleteIndex();
  } catch {
    await pagefind.close();
  }
}

/** The search worker's thread id, or null while none runs (for tests: one thread serves every job). */
export function searchWorkerThread(): number | null {
  return searchWorker?.worker.threadId ?? null;
}

/**
 * `buildSearchIndex` in the search worker thread (an incremental build runs it while Astro keeps
 * this thread busy): the records are made here and handed over as one JSON string.
 */
export function buildSearchIndexInWorker(
  clientDir: string,
  catalog: Catalog,
  options: { reuse?: ShardReuse } = {},
): Promise<SearchIndexSummary> {
  const started = Date.now();
  const slugs = catalog.works.map((w) => w.content.slug);
  // Only the records of the shards indexed again cross to the worker (the others are linked).
  const shardWorks = shardWorksFrom(process.env.ARCHIVE_SEARCH_SHARD_WORKS);
  const shards = shardCount(slugs.length, shardWorks);
  const dirty = options.reuse && options.reuse.shards === shards ? new Set(options.reuse.dirty) : null;
  const record = searchRecordOf(catalog);
  const recordsJson = JSON.stringify(
    catalog.works.map((w) => (dirty === null || dirty.has(shardOf(w.content.slug, shards)) ? record(w) : null)),
  );
  const job: SearchWorkerJob = { id: ++searchJobs, clientDir, recordsJson, slugs, shardWorks, reuse: options.reuse };
  const run = searchQueue.then(
    () =>
      new Promise<SearchIndexSummary>((resolve, reject) => {
        const state = searchWorkerFor();
        state.pending.set(job.id, { resolve, reject });
        state.worker.ref();
        state.worker.postMessage(job);
      }),
  );
  searchQueue = run.catch(() => undefined);
  return run.then((summary) => ({ ...summary, durationMs: Date.now() - started }));
}
