/**
 * Human-readable labels for machine review states. Labels never overstate: a technical pass is
 * not a listening approval, and `rights-review-required` is not a permission to publish.
 */
import type { AccessLevel, CatalogReviewState } from '../schemas/common.ts';

export const REVIEW_STATE_LABELS: Record<CatalogReviewState, string> = {
  pending: 'Pending review',
  'technical-pass': 'Technical pass (not listening-approved)',
  'manual-review-pending': 'Manual review pending',
  'human-reviewed': 'Human reviewed (not listening-approved)',
  'human-listening-approved': 'Human listening approved',
  'rights-review-required': 'Rights review required (not cleared for reuse)',
};

export const REVIEW_STATE_MEANINGS: Record<CatalogReviewState, string> = {
  pending: 'Nobody has reviewed it yet.',
  'technical-pass':
    'Automated checks passed (file loads, digest and format verified). No person has listened to it; this is not listening approval.',
  'manual-review-pending': 'Waiting for a person to review it.',
  'human-reviewed': 'A named person reviewed the file and its metadata, but did not assert listening approval.',
  'human-listening-approved': 'An accountable, named person listened to it and approved it for reuse.',
  'rights-review-required':
    'Its rights must be reviewed before anyone may publish it. It is not permission to publish.',
};

export const ACCESS_MEANINGS: Record<AccessLevel, string> = {
  public: 'Anyone may download it without a key.',
  // The record's accessNote says whether this archive offers reader sign-in (src/domain/access.ts).
  'signed-in': 'Requires a signed-in reader; never a public download.',
  'admin-only': 'Temporarily available to administrators only (for example while under review).',
};

export function reviewStatusLabel(state: CatalogReviewState): string {
  return REVIEW_STATE_LABELS[state];
}
