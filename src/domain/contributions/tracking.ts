/**
 * Tracking records: the stored shape of a new submission (status `pending`, full body kept for
 * the reviewers) and the public view answered at its tracking URL (a summary, never the
 * submitter's contact details).
 */
import type { ContributionTracking, MusicContributionInput, StoredContribution, StoredSubmissionState } from '../../schemas/contribution.ts';
import type { CorrectionReportInput, CorrectionReportTracking, StoredCorrectionReport } from '../../schemas/correction.ts';
import { INITIAL_STATUS } from './status.ts';

export const RECEIVED_NOTE = 'Received and queued for human review. Nothing in the catalog changes until a reviewer applies it.';

export const contributionUrl = (baseUrl: string, code: string) => `${baseUrl}/api/v1/music/contributions/${code}`;
export const correctionReportUrl = (baseUrl: string, code: string) => `${baseUrl}/api/v1/correction-reports/${code}`;
export const contributionSchemaUrl = (baseUrl: string) => `${baseUrl}/api/v1/music/contributions/schema`;
const workUrl = (baseUrl: string, slug: string) => `${baseUrl}/api/v1/works/${encodeURIComponent(slug)}`;

/** The state every new submission starts in: pending, nothing changed, one history entry. */
function receivedState(trackingCode: string, receivedAtUtc: string): StoredSubmissionState {
  return {
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

export function newStoredContribution(submission: MusicContributionInput, trackingCode: string, receivedAtUtc: string, contentSha256: string): StoredContribution {
  return {
    ...receivedState(trackingCode, receivedAtUtc),
    kind: 'contribution',
    contentSha256,
    submission,
  };
}

export function newStoredCorrectionReport(report: CorrectionReportInput, trackingCode: string, receivedAtUtc: string): StoredCorrectionReport {
  return {
    ...receivedState(trackingCode, receivedAtUtc),
    kind: 'correction-report',
    report,
  };
}

/** The public tracking record; `workExists` decides whether a work link is offered. */
export function contributionView(stored: StoredContribution, baseUrl: string, workExists: (slug: string) => boolean): ContributionTracking {
  const s = stored.submission;
  const slug = s.target?.workSlug ?? null;
  return {
    trackingCode: stored.trackingCode,
    kind: 'contribution',
    status: stored.status,
    changedCanonicalData: stored.changedCanonicalData,
    receivedAtUtc: stored.receivedAtUtc,
    updatedAtUtc: stored.updatedAtUtc,
    history: stored.history,
    review: stored.review,
    apply: stored.apply ?? null,
    summary: {
      operation: s.operation,
      schemaVersion: s.schemaVersion,
      targetWorkSlug: slug,
      title: s.arrangement?.title ?? s.work?.title ?? null,
      assetCount: s.assets.length,
      submittedByKind: s.submittedBy.kind,
    },
    links: {
      self: contributionUrl(baseUrl, stored.trackingCode),
      work: slug !== null && workExists(slug) ? workUrl(baseUrl, slug) : null,
      schema: contributionSchemaUrl(baseUrl),
    },
  };
}

export function correctionReportView(stored: StoredCorrectionReport, baseUrl: string, workExists: (slug: string) => boolean): CorrectionReportTracking {
  const r = stored.report;
  const slug = r.workSlug ?? null;
  return {
    trackingCode: stored.trackingCode,
    kind: 'correction-report',
    status: stored.status,
    changedCanonicalData: stored.changedCanonicalData,
    receivedAtUtc: stored.receivedAtUtc,
    updatedAtUtc: stored.updatedAtUtc,
    history: stored.history,
    review: stored.review,
    apply: stored.apply ?? null,
    summary: { workSlug: slug, targetType: r.targetType, targetId: r.targetId ?? null, fieldName: r.fieldName },
    links: {
      self: correctionReportUrl(baseUrl, stored.trackingCode),
      work: slug !== null && workExists(slug) ? workUrl(baseUrl, slug) : null,
    },
  };
}
