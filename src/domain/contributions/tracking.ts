/**
 * Tracking records: the stored shape of a new submission (status `pending`, full body kept for
 * the reviewers) and the public view answered at its tracking URL (a summary, never the
 * submitter's contact details).
 */
import type {
  ContributionTracking,
  MusicContributionInput,
  StoredContribution,
  StoredSubmissionState,
} from '../../schemas/contribution.ts';
import type {
  CorrectionReportInput,
  CorrectionReportTracking,
  StoredCorrectionReport,
} from '../../schemas/correction.ts';
import { INITIAL_STATUS } from './status.ts';

export const RECEIVED_NOTE =
  'Received and queued for human review. Nothing in the catalog changes until a reviewer applies it.';

export const contributionUrl = (baseUrl: string, code: string) => `${baseUrl}/api/v1/music/contributions/${code}`;
export const correctionReportUrl = (baseUrl: string, code: string) => `${baseUrl}/api/v1/correction-reports/${code}`;
export const contributionSchemaUrl = (baseUrl: string) => `${baseUrl}/api/v1/music/contributions/schema`;
const workUrl = (baseUrl: string, slug: string) => `${baseUrl}/api/v1/works/${encodeURIComponent(slug)}`;

/** The state every new submission starts in: pending, nothing changed, one history entry. */
function receivedState(
  trackingCode: string,
  receivedAtUtc: string,
  responseTokenSha256: string | null,
): StoredSubmissionState {
  return {
    ...(responseTokenSha256 ? { responseTokenSha256 } : {}),
    recordVersion: 1,
    trackingCode,
    status: INITIAL_STATUS,
    changedCanonicalData: false,
    receivedAtUtc,
    updatedAtUtc: receivedAtUtc,
    history: [{ status: INITIAL_STATUS, atUtc: receivedAtUtc, note: RECEIVED_NOTE }],
    review: null,
  };
}

/** `responseTokenSha256`: the digest of the submission's response token (docs/contributions.md, "Answering"). */
export function newStoredContribution(
  submission: MusicContributionInput,
  trackingCode: string,
  receivedAtUtc: string,
  contentSha256: string,
  responseTokenSha256: string | null = null,
): StoredContribution {
  return {
    ...receivedState(trackingCode, receivedAtUtc, responseTokenSha256),
    kind: 'contribution',
    contentSha256,
    submission,
  };
}

export function newStoredCorrectionReport(
  report: CorrectionReportInput,
  trackingCode: string,
  receivedAtUtc: string,
  responseTokenSha256: string | null = null,
): StoredCorrectionReport {
  return {
    ...receivedState(trackingCode, receivedAtUtc, responseTokenSha256),
    kind: 'correction-report',
    report,
  };
}

type DeclaredStateCheck = ContributionTracking['recheck'][number];

const ARCHIVE_CHECKS =
  "At accept the archive fetches the file, verifies its SHA-256 and runs its own technical checks; the file lands technical-pass only if those pass (the archive's automated check, not human review), otherwise pending.";
const REVIEWER_ONLY = (what: string) =>
  `Taken as a claim only: the file lands pending (or technical-pass by the archive's own checks) until an editor, acting with a labeled admin key, asserts ${what} in review.`;

/**
 * Every review state and quality claim the submitter declared, with what the archive does with
 * it (a claim is never taken as checked): the 202 answer says which declarations it will re-check
 * itself and which only a named reviewer can confirm. Files whose rights are not cleared land rights-review-required.
 */
export function declaredStateChecks(s: MusicContributionInput): DeclaredStateCheck[] {
  const out: DeclaredStateCheck[] = [];
  for (const [i, a] of s.assets.entries()) {
    const pointer = `/assets/${i}/reviewState`;
    switch (a.reviewState) {
      case 'technical-pass':
        out.push({
          pointer,
          declared: a.reviewState,
          howChecked: a.downloadUrl
            ? ARCHIVE_CHECKS
            : 'Not re-checked: the asset has no downloadUrl, so the archive cannot fetch it; it lands pending.',
        });
        break;
      case 'human-reviewed':
      case 'human-listening-approved':
        out.push({ pointer, declared: a.reviewState, howChecked: REVIEWER_ONLY(a.reviewState) });
        break;
      default:
        out.push({
          pointer,
          declared: a.reviewState,
          howChecked: a.downloadUrl
            ? `Nothing to confirm; the archive still runs its technical checks at accept. ${ARCHIVE_CHECKS}`
            : 'Lands pending; without a downloadUrl the archive cannot fetch or check the file.',
        });
    }
  }
  if (s.quality.technicalValidationPassed !== undefined) {
    out.push({
      pointer: '/quality/technicalValidationPassed',
      declared: String(s.quality.technicalValidationPassed),
      howChecked:
        'Re-run by the archive at accept on every fetched file; its own result is what counts (shown to reviewers as the verification of each file).',
    });
  }
  if (s.quality.humanListeningApproved !== undefined) {
    out.push({
      pointer: '/quality/humanListeningApproved',
      declared: String(s.quality.humanListeningApproved),
      howChecked: REVIEWER_ONLY('human-listening-approved'),
    });
  }
  out.push({
    pointer: '/rights/compositionStatus',
    declared: s.rights.compositionStatus,
    howChecked:
      'Checked by the editors against the evidence URLs; files whose rights are not cleared land rights-review-required with access admin-only.',
  });
  return out;
}

/** The head both tracking records share: the code, what it tracks, and the submission's state (never its token's digest). */
function publicState<K extends string>(stored: StoredSubmissionState, kind: K) {
  return {
    trackingCode: stored.trackingCode,
    kind,
    status: stored.status,
    changedCanonicalData: stored.changedCanonicalData,
    receivedAtUtc: stored.receivedAtUtc,
    updatedAtUtc: stored.updatedAtUtc,
    history: stored.history,
    review: stored.review,
    apply: stored.apply ?? null,
  };
}

/** The work link of a tracking record: null when the submission names no work or the work does not exist. */
const workLink = (baseUrl: string, slug: string | null, workExists: (slug: string) => boolean) =>
  slug !== null && workExists(slug) ? workUrl(baseUrl, slug) : null;

/** The public tracking record; `workExists` decides whether a work link is offered. */
export function contributionView(
  stored: StoredContribution,
  baseUrl: string,
  workExists: (slug: string) => boolean,
): ContributionTracking {
  const s = stored.submission;
  const slug = s.target?.workSlug ?? null;
  return {
    ...publicState(stored, 'contribution'),
    summary: {
      operation: s.operation,
      schemaVersion: s.schemaVersion,
      targetWorkSlug: slug,
      title: s.arrangement?.title ?? s.work?.title ?? null,
      assetCount: s.assets.length,
      submittedByKind: s.submittedBy.kind,
    },
    recheck: declaredStateChecks(s),
    links: {
      self: contributionUrl(baseUrl, stored.trackingCode),
      work: workLink(baseUrl, slug, workExists),
      schema: contributionSchemaUrl(baseUrl),
    },
  };
}

export function correctionReportView(
  stored: StoredCorrectionReport,
  baseUrl: string,
  workExists: (slug: string) => boolean,
): CorrectionReportTracking {
  const { workSlug = null, targetType, targetId = null, fieldName } = stored.report;
  return {
    ...publicState(stored, 'correction-report'),
    summary: { workSlug, targetType, targetId, fieldName },
    links: {
      self: correctionReportUrl(baseUrl, stored.trackingCode),
      work: workLink(baseUrl, workSlug, workExists),
    },
  };
}
