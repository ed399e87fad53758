/**
 * Everything the Astro build renders, loaded once per build from the content repository named by
 * ARCHIVE_CONTENT_DIR and linked from PUBLIC_BASE_URL. A content error stops the build with the
 * same file-and-field messages as `npm run lint:content`.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { formatLintMessage, loadCatalog, type Catalog, type LoadedProfile, type LoadedWork } from '../domain/catalog.ts';
import { buildInstrumentRecords, buildProfileRecord, buildWorkRecord, urls, workSummary, type Urls } from '../domain/records.ts';
import type { WorkRecord, WorkSummary } from '../schemas/work.ts';
import type { InstrumentRecord, ProfileRecord } from '../schemas/profile.ts';
import { envelope } from '../schemas/envelope.ts';
import { scoreFor } from './site/scores.ts';

/** Source scores of a work that the build engraved to a PDF (from the score manifest). */
function pdfAssetIds(work: LoadedWork): Set<number> {
  const ids = new Set<number>();
  for (const a of work.content.sourceAssets) {
    const s = scoreFor(work.content.slug, a.id);
    if (s.status === 'rendered' && s.pdf) ids.add(a.id);
  }
  return ids;
}

export interface SiteWork {
  loaded: LoadedWork;
  record: WorkRecord;
  summary: WorkSummary;
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
  profiles: SiteProfile[];
  instruments: InstrumentRecord[];
}

let cached: SiteData | undefined;

/** Where the build script leaves the catalog it loaded for the Astro run in the same process. */
export const SHARED_CATALOG = Symbol.for('pdma.build.catalog');

/** Called by the build script before `astro build`: the pages use this catalog instead of loading it again. */
export function shareCatalog(contentDir: string, catalog: Catalog): void {
  (globalThis as { [SHARED_CATALOG]?: { contentDir: string; catalog: Catalog } })[SHARED_CATALOG] = { contentDir: path.resolve(contentDir), catalog };
}

/**
 * An incremental build (scripts/build-incremental.ts) renders only the pages a change touches:
 * ARCHIVE_BUILD_SCOPE names a JSON file `{ works, facets, profiles }` (work slugs, browse keys
 * "facet/value", profile slugs). Parameterized routes keep their paths in scope only; the
 * catalog-wide pages (home, browse, composers, instruments, profiles, search, llms) are always
 * rendered. Without the variable every path is in scope (a full build).
 */
export interface BuildScope {
  works: Set<string>;
  facets: Set<string>;
  profiles: Set<string>;
}

let scopeCache: { scope: BuildScope | null } | undefined;

export function buildScope(): BuildScope | null {
  if (scopeCache) return scopeCache.scope;
  const file = process.env.ARCHIVE_BUILD_SCOPE;
  if (!file) {
    scopeCache = { scope: null };
    return null;
  }
  const raw = JSON.parse(readFileSync(file, 'utf8')) as { works: string[]; facets: string[]; profiles: string[] };
  scopeCache = { scope: { works: new Set(raw.works), facets: new Set(raw.facets), profiles: new Set(raw.profiles) } };
  return scopeCache.scope;
}

/** Whether a work's own pages (HTML, records, score pages, files) are built in this run. */
export function workInScope(slug: string): boolean {
  const scope = buildScope();
  return scope === null || scope.works.has(slug);
}

/** Whether a page listing these works (a composer, a browse value with this key) is built in this run. */
export function listingInScope(works: SiteWork[], facetKey?: string): boolean {
  const scope = buildScope();
  if (scope === null) return true;
  if (facetKey !== undefined && scope.facets.has(facetKey)) return true;
  return works.some((w) => scope.works.has(w.record.slug));
}

/** Whether a profile's pages are built in this run. */
export function profileInScope(slug: string): boolean {
  const scope = buildScope();
  return scope === null || scope.profiles.has(slug);
}

export function site(): SiteData {
  if (cached) return cached;
  const contentDir = path.resolve(process.env.ARCHIVE_CONTENT_DIR ?? 'content');
  const baseUrl = (process.env.PUBLIC_BASE_URL ?? 'http://localhost:4321').replace(/\/+$/, '');
  // Set by scripts/build.ts --reader-sign-in: does this archive sign readers in (issue 18)?
  const readerSignIn = process.env.ARCHIVE_READER_SIGNIN === 'github';
  // The build script loads and checks the catalog before it runs Astro in the same process; it
  // hands it over here (scripts/build.ts, `shareCatalog`) so a build parses every work once.
  const shared = (globalThis as { [SHARED_CATALOG]?: { contentDir: string; catalog: Catalog } })[SHARED_CATALOG];
  const { catalog, messages } = shared && shared.contentDir === contentDir ? { catalog: shared.catalog, messages: [] } : loadCatalog(contentDir);
  if (messages.length > 0) {
    throw new Error(`content repository ${contentDir} has ${messages.length} problem(s):\n${messages.map(formatLintMessage).join('\n')}`);
  }
  const works = catalog.works
    .map((loaded) => {
      const record = buildWorkRecord(loaded, catalog, baseUrl, { pdfAssetIds: pdfAssetIds(loaded), readerSignIn });
      return { loaded, record, summary: workSummary(record) };
    })
    .sort((a, b) => a.record.slug.localeCompare(b.record.slug));
  cached = {
    baseUrl,
    readerSignIn,
    urls: urls(baseUrl),
    generatedAtUtc: process.env.ARCHIVE_GENERATED_AT ?? new Date().toISOString(),
    catalog,
    works,
    profiles: catalog.profiles.map((loaded) => ({ loaded, record: buildProfileRecord(loaded, catalog, baseUrl) })),
    instruments: buildInstrumentRecords(catalog, baseUrl),
  };
  return cached;
}

/** The envelope of a static record: generated at the build's time. */
export function recordEnvelope<T>(data: T): { apiVersion: string; generatedAtUtc: string; data: T } {
  return envelope(data, site().generatedAtUtc);
}

export function json(value: unknown): Response {
  return new Response(JSON.stringify(value), { headers: { 'Content-Type': 'application/json' } });
}
