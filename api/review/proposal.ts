/**
 * A review's proposal built on the current main of the content repository: the pure builder
 * (src/domain/review/proposal-input.ts) over a reader of main's work files, stored-file digests,
 * the served build's composers and the verified contributor files. The caller holds the
 * content-repository lock, so main does not move while the proposal is built.
 */
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { settleCheckout } from '../site/content-repo.ts';
import type { AppContext } from '../context.ts';
import { ProposalLintError } from '../forge/forge-local.ts';
import { ProposalError } from '../../src/domain/review/proposal.ts';
import { buildProposal } from '../../src/domain/review/proposal-input.ts';
import type { ProposalInput } from '../forge/types.ts';
import type { StoredContribution } from '../../src/schemas/contribution.ts';
import type { StoredCorrectionReport } from '../../src/schemas/correction.ts';
import type { ReviewRecord } from '../../src/schemas/review.ts';

/** Verified contributor files up to this size are read before a proposal is built (profile definitions). */
const VERIFIED_BYTES_PREFETCH_MAX = 8 * 1024 * 1024;

const sha256Of = (bytes: Buffer | string) => createHash('sha256').update(bytes).digest('hex');

export async function buildProposalOnMain(
  ctx: AppContext,
  record: StoredContribution | StoredCorrectionReport,
  state: ReviewRecord,
): Promise<{ input: ProposalInput; author: string }> {
  const repo = ctx.config.contentRepo;
  const inRepo = (rel: string) => path.join(repo, rel);
  // The files are read from the main checkout: it must hold main, not still follow the merge of
  // an apply before this one in the same batch (api/site/content-repo.ts, deferCheckout).
  await settleCheckout(repo);
  // The reader is synchronous and the blob store may be remote: read the small verified files
  // (a rendering profile's definition is one) before building.
  const small = new Map<string, Buffer>();
  for (const v of state.verification ?? []) {
    if (
      v.status === 'verified' &&
      v.sha256 &&
      (v.byteLength ?? Infinity) <= VERIFIED_BYTES_PREFETCH_MAX &&
      !small.has(v.sha256)
    )
      small.set(v.sha256, await ctx.blobs.readBytes(v.sha256));
  }
  return buildProposal(record, state, {
    workFile: (slug) =>
      existsSync(inRepo(`works/${slug}/index.md`)) ? readFileSync(inRepo(`works/${slug}/index.md`), 'utf8') : null,
    storedFileSha256: (slug, file) => {
      const abs = inRepo(path.join('works', slug, file));
      return existsSync(abs) ? sha256Of(readFileSync(abs)) : null;
    },
    // The served build's index of main (its distinct composers), not a reload of every work file.
    composers: () => ctx.handle.current.catalog.composers,
    sharedFile: (name) => (existsSync(inRepo(name)) ? readFileSync(inRepo(name), 'utf8') : null),
    verifiedBytes: (sha256) => {
      const bytes = small.get(sha256);
      if (!bytes) throw new Error(`the verified file ${sha256} is not among the files read for this proposal`);
      return bytes;
    },
  });
}

/** Why a proposal could not be opened, as blocker lines for the reviewers. */
export function reasonsOf(err: unknown): string[] {
  if (err instanceof ProposalError) return err.reasons;
  if (err instanceof ProposalLintError)
    return [`The proposal does not pass the content lint: ${err.messages.slice(0, 20).join('; ')}`];
  return [`The proposal could not be opened: ${(err as Error).message}`];
}
