/**
 * Everything the Astro build renders, loaded once per build from the content repository named by
 * ARCHIVE_CONTENT_DIR and linked from PUBLIC_BASE_URL. A content error stops the build with the
 * same file-and-field messages as `npm run lint:content`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import {
  formatLintMessage,
  loadCatalog,
  type Catalog,
  type LoadedProfile,
  type LoadedWork,
} from '../domain/catalog.ts';
import {
  buildInstrumentRecords,
  buildProfileRecord,
  inSlugOrder,
  instrumentWorkCounts,
  patchInstrumentWorkCounts,
  patchProfileUsage,
  profileUsage,
  type ProfileUsage,
  buildWorkRecord,
  lifeDates,
  urls,
  workInstruments,
  workSummary,
  type Urls,
} from '../domain/records.ts';
import type { WorkContent, WorkRecord, WorkSummary } from '../schemas/work.ts';
import type { InstrumentRecord, ProfileRecord } from '../schemas/profile.ts';
import { envelope } from '../schemas/envelope.ts';
import { dropSharedScoreManifest, scoreManifest, type ScoreManifest } from './site/scores.ts';
import { patchSorted, sortKept } from './site/kept-order.ts';
import { renderedAudioRecord } from './site/audio-record.ts';
import type { RenderedAudio } from '../schemas/audio.ts';

/** Source scores of a work that the build engraved to a PDF (from the score manifest). */
function pdfAssetIds(work: LoadedWork, scores: ScoreManifest): Set<number> {
  const ids = new Set<number>();
  for (const a of work.content.sourceAssets) {
    const s = scores.scores[`${work.content.slug}/${a.id}`];
    if (s?.status === 'rendered' && s.pdf) ids.add(a.id);
  }
  return ids;
}

/** Rendered audio of a work's scores (source and arrangement), as records publish it. */
function renderedAudioOf(work: LoadedWork, scores: ScoreManifest, baseUrl: string): Map<number, RenderedAudio> {
  const out = new Map<number, RenderedAudio>();
  const slug = work.content.slug;
  const assets = [...work.content.sourceAssets, ...(work.content.arrangements ?? []).flatMap((a) => a.assets)];
  for (const a of assets) {
    const audio = scores.scores[`${slug}/${a.id}`]?.audio;
    if (audio) out.set(a.id, renderedAudioRecord(audio, baseUrl, slug, a.id, a.listening ?? null));
  }
  return out;
}

/** The base URL the pages build links from (PUBLIC_BASE_URL without its trailing slashes). */
export function siteBaseUrl(raw: string): string {
  return raw.replace(/\/+$/, '');
}

/**
 * A work's record as its pages hold it, from the build's catalog and score manifest: the pages'
 * own records come from here, and an incremental build predicts its changed works' records with
 * it for the index merge that runs beside the render (api/catalog/build-index.ts).
 */
export function workRecordFor(
  loaded: LoadedWork,
  catalog: Catalog,
  options: { baseUrl: string; readerSignIn: boolean; scores: ScoreManifest },
): WorkRecord {
  return buildWorkRecord(loaded, catalog, siteBaseUrl(options.baseUrl), {
    pdfAssetIds: pdfAssetIds(loaded, options.scores),
    readerSignIn: options.readerSignIn,
    renderedAudio: renderedAudioOf(loaded, options.scores, siteBaseUrl(options.baseUrl)),
  });
}

/**
 * What the catalog-wide pages and listings read of a work (facets, composer, browse and profile
 * pages, search filters, llms.txt): made from the checked content alone, no Markdown, and equal
 * to the same fields of the work's record (`buildWorkRecord`).
 */
export interface WorkEntry {
  slug: string;
  title: string;
  workNumber: WorkContent['workNumber'];
  summary: string;
  composer: WorkContent['composer'];
  /** As the work summary writes them ("1685–1750"). */
  composerLifeDates: string;
  period: string;
  genre: string;
  instruments: WorkRecord['instruments'];
  /** Every role its arrangements are made for or also suit, in content order (may repeat). */
  roles: Array<WorkContent['arrangements'][number]['intendedRole']>;
  /** The work page (`record.links.html`, absolute). */
  html: string;
}

/**
 * One work of the site. `record` and `summary` are built on first use: a scoped build (an
 * incremental one, or one batch of a large full build) renders only its works' pages, and
 * building every work's record (its Markdown narrative above all) would cost O(catalog) for
 * pages that read only `entry`.
 */
export interface SiteWork {
  loaded: LoadedWork;
  entry: WorkEntry;
  readonly record: WorkRecord;
  readonly summary: WorkSummary;
}

/** How one site data makes its works' records (the build's catalog, base URL, scores and sign-in). */
interface RecordSource {
  make: (loaded: LoadedWork) => WorkRecord;
}

/**
 * A work of the site whose record comes from the site data it belongs to now: the builds of the
 * warm build process patch their site data from the last one (`siteDelta`), so an unchanged
 * work's object serves build after build, and its record is made again for each build (from
 * `source.current`) on first use, never carried over from the build before.
 */
class LazySiteWork implements SiteWork {
  readonly loaded: LoadedWork;
  readonly entry: WorkEntry;
  readonly source: { current: RecordSource };
  /** The last patch that found this work in the catalog (`patchWorks`). */
  seen = 0;
  #madeBy: RecordSource | undefined;
  #record: WorkRecord | undefined;
  #summary: WorkSummary | undefined;
  constructor(loaded: LoadedWork, entry: WorkEntry, source: { current: RecordSource }) {
    this.loaded = loaded;
    this.entry = entry;
    this.source = source;
  }
  get record(): WorkRecord {
    const by = this.source.current;
    if (this.#madeBy !== by || this.#record === undefined) {
      this.#record = by.make(this.loaded);
      this.#summary = undefined;
      this.#madeBy = by;
    }
    return this.#record;
  }
  get summary(): WorkSummary {
    const record = this.record;
    return (this.#summary ??= workSummary(record));
  }
}
export interface SiteProfile {
  loaded: LoadedProfile;
  record: ProfileRecord;
}
export interface SiteData {
  baseUrl: string;
  /** The archive offers reader sign-in (GitHub), so pages link signed-in files and the sign-in. */
  readerSignIn: boolean;
  urls: Urls;
  generatedAtUtc: string;
  catalog: Catalog;
  works: SiteWork[];
  /** The same works by slug (pages look their work up by the slug in their props). */
  workBySlug: Map<string, SiteWork>;
  profiles: SiteProfile[];
  instruments: InstrumentRecord[];
}

let cached: SiteData | undefined;

/** Where the build script leaves the catalog it loaded for the Astro run in the same process. */
export const SHARED_CATALOG = Symbol.for('pdma.build.catalog');

/**
 * Called by the build script before `astro build`: the pages use this catalog instead of loading
 * it again. With `patch` (an incremental build), the site data is made from the last build's that
 * shared with `patch` in this process, and kept for the next one (`site()`, `siteDelta`);
 * without it (a full build), none is kept: at 100,000 works the catalog must be let go after the
 * pages are rendered.
 */
export function shareCatalog(contentDir: string, catalog: Catalog, options: { patch?: boolean } = {}): void {
  (globalThis as { [SHARED_CATALOG]?: SharedCatalog })[SHARED_CATALOG] = {
    contentDir: path.resolve(contentDir),
    catalog,
    patch: options.patch === true,
  };
}

type SharedCatalog = { contentDir: string; catalog: Catalog; patch: boolean };

/**
 * An incremental build (build/plan.ts, a plan with a base) renders only the pages a change touches:
 * ARCHIVE_BUILD_SCOPE names a JSON file `{ works, facets, profiles, profileRecords?, listings? }`
 * (work slugs, browse keys "facet/value", profile slugs: of the pages, and of the JSON records when
 * they differ). Parameterized routes keep their paths in scope only; the catalog-wide pages
 * (home, browse, composers, instruments, profiles, search, llms) are always rendered. `listings` says which composer, browse and profile pages are in scope: "of-works"
 * (the default) the named ones and every listing that shows a work in scope; "named" only the
 * named ones; "all" every one. A full build of a large catalog renders in batches this way
 * (build/astro.ts): batches of works with `listings: "named"`, then one run with
 * `listings: "all"` and no works. Without the variable every path is in scope (a full build in
 * one run).
 */
export interface BuildScope {
  works: Set<string>;
  facets: Set<string>;
  profiles: Set<string>;
  /** Profiles whose JSON records are rendered (the scope file's `profileRecords`; absent: `profiles`). */
  profileRecords: Set<string>;
  listings: 'of-works' | 'named' | 'all';
  /**
   * The base build's works-index page keys (src/lib/site/works-index.ts): pages 2.. of an order
   * whose key is unchanged are not rendered. Absent: every page.
   */
  worksIndexBase?: Partial<Record<'title' | 'composer', string[]>>;
  /**
   * The base build's browse page keys per value (src/lib/site/browse-pages.ts): pages 2.. of a
   * value whose key is unchanged are not rendered. Absent (or a value absent): every page.
   */
  browseBase?: Record<string, string[]>;
  /**
   * The warm-up's run (build/warm-up.ts): the page keys of every browse value are worked
   * out, also of the values it does not render, and kept in the process for the next builds' runs
   * (src/lib/site/browse-pages.ts), so an apply hashes only the pages its change reaches.
   */
  warmUp?: boolean;
}

/** The base keys a build hands its Astro run in memory, not through the scope file. */
export type ScopeBases = Pick<BuildScope, 'worksIndexBase' | 'browseBase'>;
const SCOPE_BASES = Symbol.for('pdma.build.scopeBases');
const basesShelf = globalThis as { [SCOPE_BASES]?: ScopeBases };

/**
 * Hand the next Astro run of this process its scope's base keys (the render step: build/
 * steps/render.ts), which its scope file names as `"bases": "shared"`: about 0.6 MB of keys at
 * 100,000 works were written into the file and parsed back by every apply. Dropped after the run.
 */
export function shareScopeBases(bases: ScopeBases): void {
  basesShelf[SCOPE_BASES] = bases;
}

export function dropScopeBases(): void {
  delete basesShelf[SCOPE_BASES];
}

// Keyed by the file: the batches of one build may run the same page modules again (Node keeps a
// module loaded from the same path), each with its own scope file.
let scopeCache: { file: string | undefined; scope: BuildScope | null } | undefined;

export function buildScope(): BuildScope | null {
  const file = process.env.ARCHIVE_BUILD_SCOPE;
  if (scopeCache && scopeCache.file === file) return scopeCache.scope;
  if (!file) {
    scopeCache = { file, scope: null };
    return null;
  }
  const raw = JSON.parse(readFileSync(file, 'utf8')) as {
    works: string[];
    facets: string[];
    profiles: string[];
    profileRecords?: string[];
    listings?: BuildScope['listings'];
    worksIndexBase?: BuildScope['worksIndexBase'];
    browseBase?: BuildScope['browseBase'];
    bases?: 'shared';
    warmUp?: boolean;
  };
  const shared = raw.bases === 'shared' ? basesShelf[SCOPE_BASES] : undefined;
  if (raw.bases === 'shared' && shared === undefined)
    throw new Error(`the build scope ${file} names base keys shared in memory, and this process has none`);
  const worksIndexBase = raw.worksIndexBase ?? shared?.worksIndexBase;
  const browseBase = raw.browseBase ?? shared?.browseBase;
  scopeCache = {
    file,
    scope: {
      works: new Set(raw.works),
      facets: new Set(raw.facets),
      profiles: new Set(raw.profiles),
      profileRecords: new Set(raw.profileRecords ?? raw.profiles),
      listings: raw.listings ?? 'of-works',
      ...(worksIndexBase ? { worksIndexBase } : {}),
      ...(browseBase ? { browseBase } : {}),
      ...(raw.warmUp === true ? { warmUp: true } : {}),
    },
  };
  return scopeCache.scope;
}

/** Whether a profile's page is built in this run. */
export function profileInScope(slug: string): boolean {
  const scope = buildScope();
  return scope === null || scope.listings === 'all' || scope.profiles.has(slug);
}

/** Whether a profile's JSON records (the record and its definition) are built in this run. */
export function profileRecordInScope(slug: string): boolean {
  const scope = buildScope();
  return scope === null || scope.listings === 'all' || scope.profileRecords.has(slug);
}

/**
 * Where the site data lives between the Astro runs of one batched build in the same process
 * (each run imports its own copy of this module): one set of records, not one per run. The
 * build script drops it when the runs are done (`dropSharedSiteData`), so the records do not
 * stay in memory while later steps read the written records back.
 */
export const SHARED_SITE_DATA = Symbol.for('pdma.build.siteData');

type SharedSiteData = { key: string; data: SiteData };
/** Each loaded work's entry, kept while the base URL and instruments stay (`site()`). */
const WORK_ENTRIES = Symbol.for('pdma.build.workEntries');
const shelf = globalThis as {
  [SHARED_SITE_DATA]?: SharedSiteData;
  [SHARED_CATALOG]?: SharedCatalog;
  [WORK_ENTRIES]?: { key: string; entries: WeakMap<LoadedWork, WorkEntry> };
  [LAST_SITE]?: LastSite;
};

/**
 * The last site data an incremental build made in this process (`shareCatalog` with `patch`),
 * for the next one to be made from: an apply changes a few works, and making the site's works,
 * their orders and the facets afresh walked every work (about 0.7 s per apply at 100,000 works,
 * several seconds on a loaded machine). Kept while the content folder, base URL, instruments
 * and genre vocabulary stay (`key`), and only by the module copy that made it (`kind`: each
 * Astro compile of the pages has its own copy of this module, and its own class of works).
 */
const LAST_SITE = Symbol.for('pdma.build.lastSite');
interface LastSite {
  key: string;
  kind: unknown;
  data: SiteData;
  /** The site's work of each loaded work of `data`. */
  byLoaded: Map<LoadedWork, LazySiteWork>;
  /** Where `data`'s works take their records from. */
  source: { current: RecordSource };
  /** How `data` was made from the site data before it, when it was patched. */
  delta: SiteDelta | null;
  /** `data`'s profile usage and works per instrument (its profiles' and instruments' records). */
  usage: ProfileUsage;
  instrumentCounts: Map<string, number>;
}

/** How a build's site data differs from the last (`siteDelta`). */
export interface SiteDelta {
  /** The last build's site data; its works, orders and facets are not read after this build's are made. */
  from: SiteData;
  /** Works of `from` that are not in this build's: removed, or changed (then a new work in `added`). */
  removed: SiteWork[];
  /** This build's works that `from` had not: new, or changed. */
  added: SiteWork[];
}

/**
 * The delta this build's site data was made from, or null when it was made afresh. The facets
 * and the orders (src/lib/site/facets.ts, works-index.ts) patch theirs from `from`'s with it.
 */
export function siteDelta(data: SiteData): SiteDelta | null {
  const last = shelf[LAST_SITE];
  return last !== undefined && last.data === data ? last.delta : null;
}

/**
 * How the site data of a build of `catalog` was made, when the last incremental build made it:
 * "patched" from the build's before it, or "made" afresh; null for any other catalog.
 */
export function siteDataMade(catalog: Catalog): 'patched' | 'made' | null {
  const last = shelf[LAST_SITE];
  if (last === undefined || last.data.catalog !== catalog) return null;
  return last.delta === null ? 'made' : 'patched';
}

/** Let go of the last incremental build's site data (a full build, which starts from none). */
export function forgetSiteModel(): void {
  delete shelf[LAST_SITE];
}

/** At most this many works added or removed for a patch (beyond, making afresh is about as cheap). */
function patchLimit(works: number): number {
  return 64 + Math.floor(works / 100);
}

const bySlug = (a: SiteWork, b: SiteWork) => a.entry.slug.localeCompare(b.entry.slug);

let patches = 0;

/**
 * This catalog's works as the last site data's, patched: the works whose loaded object the last
 * had keep their site work; the others are new. Null when too many changed to patch.
 */
function patchWorks(
  last: LastSite,
  catalog: Catalog,
  newWork: (loaded: LoadedWork) => LazySiteWork,
): { works: SiteWork[]; delta: SiteDelta } | null {
  const mark = ++patches;
  const limit = patchLimit(catalog.works.length);
  const fresh: LoadedWork[] = [];
  for (const loaded of catalog.works) {
    const known = last.byLoaded.get(loaded);
    if (known !== undefined && known.seen !== mark) known.seen = mark;
    else if (fresh.push(loaded) > limit) return null;
  }
  const removed = (last.data.works as LazySiteWork[]).filter((w) => w.seen !== mark);
  if (removed.length > limit) return null;
  const added = fresh.map(newWork);
  const works = patchSorted(last.data.works, removed, added, bySlug);
  return works === null ? null : { works, delta: { from: last.data, removed, added } };
}

/** Forget the catalog, site data and score manifest a build shared with its Astro runs. */
export function dropSharedSiteData(): void {
  delete shelf[SHARED_SITE_DATA];
  delete shelf[SHARED_CATALOG];
  dropSharedScoreManifest();
}

// A run's hold on shared site data is weak: once the build drops it, the module copies of
// earlier runs (which stay loaded) do not keep the records alive.
let sharedRef: WeakRef<SiteData> | undefined;

export function site(): SiteData {
  if (cached) return cached;
  const held = sharedRef?.deref();
  if (held && shelf[SHARED_SITE_DATA]?.data === held) return held;
  const contentDir = path.resolve(process.env.ARCHIVE_CONTENT_DIR ?? 'content');
  const baseUrl = siteBaseUrl(process.env.PUBLIC_BASE_URL ?? 'http://localhost:4321');
  // Set by scripts/build.ts --reader-sign-in: does this archive sign readers in?
  const readerSignIn = process.env.ARCHIVE_READER_SIGNIN === 'github';
  const key = JSON.stringify([
    contentDir,
    baseUrl,
    readerSignIn,
    process.env.ARCHIVE_GENERATED_AT ?? null,
    process.env.ARCHIVE_SCORES_MANIFEST ?? null,
  ]);
  const kept = shelf[SHARED_SITE_DATA];
  if (kept && kept.key === key && shelf[SHARED_CATALOG]?.catalog === kept.data.catalog) {
    sharedRef = new WeakRef(kept.data);
    return kept.data;
  }
  // The build script loads and checks the catalog before it runs Astro in the same process; it
  // hands it over here (build/astro.ts, `shareCatalog`) so a build parses every work once.
  const shared = shelf[SHARED_CATALOG];
  const fromShared = shared !== undefined && shared.contentDir === contentDir;
  const { catalog, messages } = fromShared ? { catalog: shared.catalog, messages: [] } : loadCatalog(contentDir);
  if (messages.length > 0) {
    throw new Error(
      `content repository ${contentDir} has ${messages.length} problem(s):\n${messages.map(formatLintMessage).join('\n')}`,
    );
  }
  const u = urls(baseUrl);
  const instrumentBySlug = new Map(catalog.instruments.map((i) => [i.slug, i]));
  const source = {
    make: (loaded: LoadedWork) => workRecordFor(loaded, catalog, { baseUrl, readerSignIn, scores: scoreManifest() }),
  };
  // A work's entry depends on its content, the base URL and the instruments only: the builds of
  // one process (the warm renderer, build/warm-render.ts) share the loaded works they did
  // not change (build/catalog-snapshot.ts), so each keeps its entry from the build before.
  const entryKey = JSON.stringify([baseUrl, catalog.instruments]);
  let entryCache = shelf[WORK_ENTRIES];
  if (!entryCache || entryCache.key !== entryKey)
    shelf[WORK_ENTRIES] = entryCache = { key: entryKey, entries: new WeakMap() };
  const entries = entryCache.entries;
  const entryOf = (loaded: LoadedWork): WorkEntry => {
    const known = entries.get(loaded);
    if (known) return known;
    const c = loaded.content;
    const entry: WorkEntry = {
      slug: c.slug,
      title: c.title,
      workNumber: c.workNumber,
      summary: c.summary,
      composer: c.composer,
      composerLifeDates: lifeDates(c.composer.born, c.composer.died),
      period: c.period,
      genre: c.genre,
      instruments: workInstruments(c.instruments, instrumentBySlug),
      roles: c.arrangements.flatMap((a) => [a.intendedRole, ...a.alsoSuits]),
      html: u.workHtml(c.slug),
    };
    entries.set(loaded, entry);
    return entry;
  };
  // An incremental build's site data is the last one's, patched (`LastSite`); the facets are
  // grouped by the genre vocabulary too, so it is part of what must stay for a patch.
  const patchable = fromShared && shared.patch;
  const modelKey = JSON.stringify([contentDir, baseUrl, catalog.instruments, catalog.genres]);
  const last = patchable ? shelf[LAST_SITE] : undefined;
  const reusable = last !== undefined && last.key === modelKey && last.kind === LazySiteWork ? last : undefined;
  const holder = reusable?.source ?? { current: source };
  holder.current = source;
  const newWork = (loaded: LoadedWork) => new LazySiteWork(loaded, entryOf(loaded), holder);
  const patched = reusable ? patchWorks(reusable, catalog, newWork) : null;
  let works: SiteWork[];
  let workBySlug: Map<string, SiteWork>;
  if (reusable && patched) {
    works = patched.works;
    // The last build's maps are brought up to date below: should anything fail before this
    // build's data is kept, the next build must not patch from them.
    forgetSiteModel();
    // The last build's map, brought up to date: it is not read after this build's data is made.
    workBySlug = reusable.data.workBySlug;
    for (const w of patched.delta.removed) workBySlug.delete(w.entry.slug);
    for (const w of patched.delta.added) workBySlug.set(w.entry.slug, w);
  } else {
    works = sortKept('slug', catalog.works.map(newWork), (w) => w.entry, bySlug);
    workBySlug = new Map(works.map((w) => [w.entry.slug, w]));
  }
  // The profiles' usage and the works per instrument, patched too when the works were (the
  // usage lists works in catalog order: patched only for a catalog in slug order, as loaded).
  const removedLoaded = patched?.delta.removed.map((w) => w.loaded) ?? [];
  const addedLoaded = patched?.delta.added.map((w) => w.loaded) ?? [];
  const usage =
    (reusable && patched && inSlugOrder(catalog.works)
      ? patchProfileUsage(reusable.usage, removedLoaded, addedLoaded)
      : null) ?? profileUsage(catalog);
  const instrumentCounts =
    reusable && patched
      ? patchInstrumentWorkCounts(reusable.instrumentCounts, removedLoaded, addedLoaded)
      : instrumentWorkCounts(catalog.works);
  const data: SiteData = {
    baseUrl,
    readerSignIn,
    urls: u,
    generatedAtUtc: process.env.ARCHIVE_GENERATED_AT ?? new Date().toISOString(),
    catalog,
    works,
    workBySlug,
    profiles: catalog.profiles.map((loaded) => ({
      loaded,
      record: buildProfileRecord(loaded, catalog, baseUrl, usage),
    })),
    instruments: buildInstrumentRecords(catalog, baseUrl, instrumentCounts),
  };
  if (patchable) {
    let byLoaded: Map<LoadedWork, LazySiteWork>;
    if (reusable && patched) {
      byLoaded = reusable.byLoaded;
      for (const w of patched.delta.removed) byLoaded.delete(w.loaded);
      for (const w of patched.delta.added) byLoaded.set(w.loaded, w as LazySiteWork);
    } else byLoaded = new Map((works as LazySiteWork[]).map((w) => [w.loaded, w]));
    shelf[LAST_SITE] = {
      key: modelKey,
      kind: LazySiteWork,
      data,
      byLoaded,
      source: holder,
      delta: patched?.delta ?? null,
      usage,
      instrumentCounts,
    };
  } else if (fromShared) forgetSiteModel();
  // Kept for the next Astro run of the same build when the build script shared its catalog.
  if (shared && shared.catalog === catalog) {
    shelf[SHARED_SITE_DATA] = { key, data };
    sharedRef = new WeakRef(data);
  } else {
    cached = data;
  }
  return data;
}

/**
 * A work by slug, for a page whose props carry only the slug. Props stay small on purpose: Astro
 * keeps every run's static paths with their props, and the runs of a batched build must not keep
 * the records alive after they are done.
 */
export function siteWork(slug: string): SiteWork {
  const work = site().workBySlug.get(slug);
  if (!work) throw new Error(`no work "${slug}" in the site data`);
  return work;
}

// The works in scope, once per run (keyed by the run's site data and scope).
const scopedWorks = new WeakMap<SiteData, { scope: BuildScope | null; works: SiteWork[] }>();

/**
 * The works whose own pages this run builds, in site order (slug): every work without a scope. A
 * scope names its works, so they are looked up by slug rather than every work tested against it.
 */
export function worksInScope(): SiteWork[] {
  const data = site();
  const scope = buildScope();
  const kept = scopedWorks.get(data);
  if (kept && kept.scope === scope) return kept.works;
  const works =
    scope === null
      ? data.works
      : [...scope.works]
          .map((slug) => data.workBySlug.get(slug))
          .filter((work): work is SiteWork => work !== undefined)
          .sort((a, b) => a.entry.slug.localeCompare(b.entry.slug));
  scopedWorks.set(data, { scope, works });
  return works;
}

/** The static paths of a work-scoped route: every work in this run's scope, props `{ slug }`. */
export function workPaths(): Array<{ params: { slug: string }; props: { slug: string } }> {
  return worksInScope().map((work) => ({ params: { slug: work.entry.slug }, props: { slug: work.entry.slug } }));
}

/** The envelope of a static record: generated at the build's time. */
export function recordEnvelope<T>(data: T): { apiVersion: string; generatedAtUtc: string; data: T } {
  return envelope(data, site().generatedAtUtc);
}

export function json(value: unknown): Response {
  return new Response(JSON.stringify(value), { headers: { 'Content-Type': 'application/json' } });
}
