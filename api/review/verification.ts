/**
 * Verification of a contribution's files at accept: each file with a download URL is fetched
 * under the SSRF guard into the blob store, its declared digest compared, and the technical checks
 * run on it (sequentially; files are few). What fails is recorded, never thrown: a refused file or
 * a failed check becomes a blocker that stops apply, not accept.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { AppContext } from '../context.ts';
import { fetchContributorFile } from './fetch.ts';
import { runTechnicalChecks } from './checks.ts';
import { FetchRefusedError, type FetchOptions, type TechnicalCheckResult } from './types.ts';
import type { ReviewServiceOverrides } from './core.ts';
import { parseFrontMatter, splitWorkFile } from '../../src/domain/work-file.ts';
import type { StoredContribution } from '../../src/schemas/contribution.ts';
import type { VerificationEntry } from '../../src/schemas/review.ts';

/** Fetch, verify and check every contributor file (sequentially; files are few). */
export async function verifyContribution(
  ctx: AppContext,
  overrides: ReviewServiceOverrides,
  record: StoredContribution,
  progress: (phase: 'fetching' | 'checking', file: number) => void = () => undefined,
): Promise<VerificationEntry[]> {
  let file = 0;
  const fetchFile = overrides.fetchFile ?? fetchContributorFile;
  const runChecks = overrides.runChecks ?? runTechnicalChecks;
  const options: FetchOptions = { ...ctx.config.fetch, ...overrides.fetchOptions };
  const out: VerificationEntry[] = [];
  for (const [index, asset] of record.submission.assets.entries()) {
    const base = { index, url: asset.downloadUrl ?? null, declaredSha256: asset.sha256?.toLowerCase() ?? null };
    if (!asset.downloadUrl) {
      out.push({
        ...base,
        status: 'not-fetched',
        sha256: null,
        byteLength: null,
        mediaType: null,
        reason: 'no downloadUrl; the asset links its source page',
        checks: null,
      });
      continue;
    }
    file++;
    progress('fetching', file);
    try {
      const fetched = await fetchFile(asset.downloadUrl, ctx.blobs, {
        ...options,
        expectedSha256: asset.sha256 ?? null,
      });
      progress('checking', file);
      let checks: TechnicalCheckResult;
      try {
        checks = await ctx.blobs.withLocalFile(fetched.sha256, (local) => runChecks(asset.kind, local));
      } catch (err) {
        checks = {
          kind: asset.kind,
          passed: false,
          summary: `The technical checks failed to run: ${(err as Error).message}`,
          measurements: {},
        };
      }
      out.push({
        ...base,
        status: 'verified',
        sha256: fetched.sha256,
        byteLength: fetched.byteLength,
        mediaType: fetched.mediaType,
        reason: null,
        checks,
      });
    } catch (err) {
      const reason = err instanceof FetchRefusedError ? `${err.reason}: ${err.message}` : (err as Error).message;
      out.push({ ...base, status: 'refused', sha256: null, byteLength: null, mediaType: null, reason, checks: null });
    }
  }
  return out;
}

/** For a performance: the declared duration of the arrangement it performs, from main (null otherwise). */
export function performedSeconds(contentRepo: string, record: StoredContribution): number | null {
  const s = record.submission;
  const slug = s.target?.workSlug;
  if (s.operation !== 'performance' || !slug || s.target?.assetId == null) return null;
  const file = path.join(contentRepo, 'works', slug, 'index.md');
  if (!existsSync(file)) return null;
  try {
    const work = parseFrontMatter(splitWorkFile(readFileSync(file, 'utf8')).frontMatter) as {
      arrangements?: { id?: unknown; durationSeconds?: unknown }[];
    };
    const arr = work.arrangements?.find((a) => a.id === s.target!.assetId);
    return typeof arr?.durationSeconds === 'number' ? arr.durationSeconds : null;
  } catch {
    return null;
  }
}

/** What in the verification stops an apply: refused files and failed checks, one line each. */
export function verificationBlockers(entries: VerificationEntry[]): string[] {
  const out: string[] = [];
  for (const e of entries) {
    if (e.status === 'refused') out.push(`Asset ${e.index} (${e.url}) was not verified: ${e.reason}.`);
    else if (e.status === 'verified' && e.checks && !e.checks.passed)
      out.push(`Asset ${e.index} failed its technical checks: ${e.checks.summary}`);
  }
  return out;
}
