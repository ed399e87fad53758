/**
 * Correction reports (spec Part 2: CorrectionReportInput) and their public tracking record. A
 * report proposes a change to one field of a record; nothing changes until a person applies it.
 */
import { Type, type Static } from '@sinclair/typebox';
import { AbsoluteUrl, CONTRIBUTOR_KINDS, Nullable, StringEnum } from './common.ts';
import {
  ApplyProgress,
  CORRECTION_CODE_PATTERN,
  ReviewLink,
  StatusChange,
  SUBMISSION_STATUSES,
  type StoredSubmissionState,
  type SubmissionStatus,
} from './contribution.ts';
import { model, strict } from './options.ts';

const OptionalNullableString = (maxLength: number, description: string) =>
  Type.Optional(Nullable(Type.String({ maxLength }), { description }));

export const CorrectionReportInput = Type.Object(
  {
    workSlug: OptionalNullableString(160, 'Slug of the work the report is about.'),
    targetType: Type.String({
      maxLength: 32,
      description:
        'What is wrong: "work", "source-asset", "arrangement", "comment", "video", "profile" or another record part.',
    }),
    targetId: Type.Optional(
      Nullable(Type.Integer({ format: 'int32' }), {
        description: 'Id of the asset, arrangement, comment or video within the work (int32).',
      }),
    ),
    fieldName: Type.String({ maxLength: 80, description: 'The one field the report is about, e.g. "composer.died".' }),
    currentValue: OptionalNullableString(2000, 'The value as shown now.'),
    proposedValue: Type.String({ maxLength: 4000, description: 'The value it should have.' }),
    rationale: Type.String({ maxLength: 2000, description: 'Why, in plain words.' }),
    evidenceUrl: Type.Optional(
      Nullable(Type.String({ format: 'uri', maxLength: 1000 }), {
        description: 'An http(s) page that supports the change (never a data: URL).',
      }),
    ),
    reporterName: Type.String({ maxLength: 100, description: 'Who reports it.' }),
    reporterKind: StringEnum(CONTRIBUTOR_KINDS, { maxLength: 32, description: 'Human, AiAssisted or AutomatedAgent.' }),
  },
  model(
    'CorrectionReportInput',
    'A proposed change to one field of a record, with rationale and evidence. The catalog is never edited by submitting it.',
  ),
);
export type CorrectionReportInput = Static<typeof CorrectionReportInput>;

export const CorrectionReportTracking = Type.Object(
  {
    trackingCode: Type.String({
      pattern: CORRECTION_CODE_PATTERN,
      description: 'Public tracking code, e.g. "R-7KQM-T4XH-R2PZ-9WNB".',
    }),
    kind: Type.Literal('correction-report', { description: 'What this code tracks.' }),
    status: StringEnum(SUBMISSION_STATUSES, {
      description: 'Current status: pending, accepted, applied, declined or needs-information.',
    }),
    changedCanonicalData: Type.Boolean({
      description: 'True once the correction changed canonical data (status "applied"); false before.',
    }),
    receivedAtUtc: Type.String({
      format: 'date-time',
      pattern: 'Z$',
      description: 'When the archive received the report (UTC).',
    }),
    updatedAtUtc: Type.String({
      format: 'date-time',
      pattern: 'Z$',
      description: 'When the status last changed (UTC).',
    }),
    history: Type.Array(StatusChange, { description: 'Every status change, oldest first, with public notes.' }),
    review: Nullable(ReviewLink, { description: 'The review (pull request or branch); null until a review opens.' }),
    apply: Nullable(ApplyProgress, {
      description: 'The latest apply and when it became visible (or that it failed); null until a reviewer applies it.',
    }),
    summary: Type.Object(
      {
        workSlug: Nullable(Type.String(), { description: 'Slug of the work, when given.' }),
        targetType: Type.String({ description: 'What the report is about.' }),
        targetId: Nullable(Type.Integer(), { description: 'Id within the work, when given.' }),
        fieldName: Type.String({ description: 'The field the report proposes to change.' }),
      },
      { ...strict, description: "What the report is about (the reporter's name is never shown)." },
    ),
    links: Type.Object(
      {
        self: AbsoluteUrl('This tracking record.'),
        work: Nullable(AbsoluteUrl('The canonical work record.'), {
          description: 'The canonical work record, when the work exists.',
        }),
      },
      { ...strict, description: 'Absolute links.' },
    ),
  },
  model('CorrectionReportTracking', 'Public tracking record of a correction report.'),
);
export type CorrectionReportTracking = Static<typeof CorrectionReportTracking>;

/** What is kept on disk for a report: the tracking state plus the full report. */
export interface StoredCorrectionReport extends StoredSubmissionState {
  kind: 'correction-report';
  report: CorrectionReportInput;
}
