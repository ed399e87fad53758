/**
 * Inputs of the pure contribution builders (src/domain/review/proposal.ts) for unit tests: the
 * sample's Gymnopédie work file as the target, and a proposal input around a submission.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { ContributionProposalInput } from '../../src/domain/review/proposal.ts';
import { parseFrontMatter, splitWorkFile } from '../../src/domain/work-file.ts';
import type { MusicContributionInput } from '../../src/schemas/contribution.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';

export const GYMNOPEDIE_TEXT = readFileSync(
  path.join(PROJECT_ROOT, 'content', 'works', 'satie-gymnopedie-1', 'index.md'),
  'utf8',
);
/** A fresh parse of the Gymnopédie work file (each call its own copy). */
export const gymnopedie = () => parseFrontMatter(splitWorkFile(GYMNOPEDIE_TEXT).frontMatter);

/** The builders' input for `submission`, aimed at the Gymnopédie, with nothing verified yet. */
export const proposalInput = (
  submission: MusicContributionInput,
  over: Partial<ContributionProposalInput> = {},
): ContributionProposalInput => ({
  trackingCode: 'C-2222-3333-4444-5555',
  submission,
  work: gymnopedie(),
  workFileSha256: 'f'.repeat(64),
  assetSha256: () => null,
  verified: submission.assets.map(() => null),
  assertions: null,
  knownComposers: [],
  ...over,
});
