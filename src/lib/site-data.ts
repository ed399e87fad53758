/**
 * Everything the Astro build renders, loaded once per build from the content repository named by
 * ARCHIVE_CONTENT_DIR and linked from PUBLIC_BASE_URL. A content error stops the build with the
 * same file-and-field messages as `npm run lint:content`.
 */
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

export function site(): SiteData {
  if (cached) return cached;
  const contentDir = path.resolve(process.env.ARCHIVE_CONTENT_DIR ?? 'content');
  const baseUrl = (process.env.PUBLIC_BASE_URL ?? 'http://localhost:4321').replace(/\/+$/, '');
  // Set by scripts/build.ts --reader-sign-in: does this archive sign readers in (issue 18)?
  const readerSignIn = process.env.ARCHIVE_READER_SIGNIN === 'github';
  const { catalog, messages } = loadCatalog(contentDir);
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
