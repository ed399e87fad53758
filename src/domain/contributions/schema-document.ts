/**
 * The contribution contract served at /api/v1/music/contributions/schema: the JSON Schema
 * 2020-12 of MusicContributionInput (the very object the server validates with, nested `$id`s
 * removed so it stands alone), plus an `x-archive` block that says in words what the schema
 * cannot: operations, controlled values, safety rules, idempotency, limits and review states.
 */
import { RESPONSE_TOKEN_HEADER } from '../../schemas/answer.ts';
import {
  ASSET_KINDS,
  ASSET_REVIEW_STATES,
  COMPOSITION_STATUSES,
  CONTRIBUTOR_KINDS,
  EDITION_STATUSES,
  MUSIC_ROLES,
  RECORDING_STATUSES,
} from '../../schemas/common.ts';
import {
  CONTRIBUTION_OPERATIONS,
  CONTRIBUTION_SCHEMA_VERSION,
  MusicContributionInput,
  type ContributionOperation,
} from '../../schemas/contribution.ts';
import { CONTRIBUTION_SAFETY_RULES } from './safety.ts';
import { PLACEHOLDER_RULE } from './placeholders.ts';
import { STATUS_MEANINGS, STATUS_TRANSITIONS, SUBMISSION_STATUSES } from './status.ts';
import { PLACEHOLDER_MARKERS } from './template.ts';
import { contributionSchemaUrl } from './tracking.ts';

export const OPERATION_MEANINGS: Record<ContributionOperation, { meaning: string; include: string[] }> = {
  'new-work': {
    meaning: 'A work the catalog does not have yet.',
    include: ['work', 'rights', 'assets (at least a source score or source page)'],
  },
  'metadata-revision': {
    meaning: 'Corrected or added bibliographic facts of an existing work.',
    include: ['target.workSlug', 'work (only the fields that change)', 'rationale'],
  },
  'source-score': {
    meaning: 'A new source score (scan, PDF or MusicXML) for an existing work.',
    include: ['target.workSlug', 'assets', 'rights.editionStatus'],
  },
  'score-revision': {
    meaning: 'A revised version of an existing score file.',
    include: ['target.workSlug', 'target.assetId', 'target.baseSha256', 'assets'],
  },
  arrangement: {
    meaning: 'A new arrangement (score and/or recordings) of an existing work.',
    include: [
      'target.workSlug',
      'arrangement',
      'assets',
      'reproducibility',
      'rights.editionStatus',
      'rights.recordingStatus',
    ],
  },
  performance: {
    meaning: 'A new performance or rendering (audio or video) of an existing score or arrangement.',
    include: ['target.workSlug', 'assets', 'rights.recordingStatus', 'reproducibility'],
  },
  'rendering-profile': {
    meaning: 'A new or revised rendering profile (performance style or instrument).',
    include: ['assets (a manifest with the profile definition)', 'reproducibility', 'rationale'],
  },
};

export interface IntakeLimits {
  bodyLimitBytes: number;
  rateLimit: { limit: number; windowSeconds: number };
}

/** Plain JSON Schema: TypeBox's symbols dropped, and nested `$id`s, which would rebase references. */
function standalone(schema: unknown): Record<string, unknown> {
  return JSON.parse(JSON.stringify(schema), (key, value) => (key === '$id' ? undefined : value)) as Record<
    string,
    unknown
  >;
}

export function buildContributionSchemaDocument(baseUrl: string, limits: IntakeLimits): Record<string, unknown> {
  const api = `${baseUrl}/api/v1`;
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: contributionSchemaUrl(baseUrl),
    ...standalone(MusicContributionInput),
    'x-archive': {
      schemaVersion: CONTRIBUTION_SCHEMA_VERSION,
      submit: {
        method: 'POST',
        href: `${api}/music/contributions`,
        mediaTypes: ['application/json', 'text/json', 'application/*+json'],
        success: 202,
      },
      template: `${api}/music/contributions/template`,
      tracking: `${api}/music/contributions/{trackingCode}`,
      answer: {
        method: 'POST',
        href: `${api}/music/contributions/{trackingCode}/answers`,
        header: RESPONSE_TOKEN_HEADER,
        rule:
          `When a reviewer asks for information (status "needs-information", the history note says what), answer with { message, submission? } and the 202's responseToken in the ${RESPONSE_TOKEN_HEADER} header (never a URL). ` +
          'The message is public like the reviewer\'s note; a revised submission is validated exactly like a new one, keeps the idempotencyKey and replaces the proposed change. The item goes back to "pending".',
      },
      operations: CONTRIBUTION_OPERATIONS.map((operation) => ({ operation, ...OPERATION_MEANINGS[operation] })),
      controlledValues: {
        operation: [...CONTRIBUTION_OPERATIONS],
        'submittedBy.kind': [...CONTRIBUTOR_KINDS],
        'channel.intendedRole': [...MUSIC_ROLES],
        'rights.compositionStatus': [...COMPOSITION_STATUSES],
        'rights.editionStatus': [...EDITION_STATUSES],
        'rights.recordingStatus': [...RECORDING_STATUSES],
        'assets[].kind': [...ASSET_KINDS],
        'assets[].reviewState': [...ASSET_REVIEW_STATES],
      },
      safetyRules: CONTRIBUTION_SAFETY_RULES.map((r) => ({ ...r })),
      rightsLayers:
        'Composition, edition/file and recording rights are declared independently; a public-domain composition does not make an edition or a recording free. rights.evidenceUrls needs at least one dated HTTPS page.',
      reviewBoundaries: [
        'technical-pass is not human listening approval.',
        'Only an accountable human (submittedBy.kind "Human") may assert listening approval.',
        'Nothing is applied automatically: a contribution becomes a reusable asset only when its status is "applied" and the asset appears in the canonical work record.',
      ],
      idempotency:
        'Retrying with the same idempotencyKey and identical content returns the original tracking code (202, no second record). The same key with changed content is refused (422 idempotency-conflict): use a new key. Keys are kept as long as the submission exists; they never expire.',
      limits: {
        bodyBytes: limits.bodyLimitBytes,
        rateLimit: `${limits.rateLimit.limit} submissions per ${limits.rateLimit.windowSeconds} s per client address; over it: 429 with Retry-After.`,
      },
      statuses: SUBMISSION_STATUSES.map((status) => ({
        status,
        meaning: STATUS_MEANINGS[status],
        next: [...STATUS_TRANSITIONS[status]],
      })),
      placeholders: PLACEHOLDER_MARKERS,
      placeholderRule: { ...PLACEHOLDER_RULE },
    },
  };
}
