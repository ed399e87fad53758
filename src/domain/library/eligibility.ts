/**
 * When may a curator publish a library package (spec Part 3: "package has a public-domain
 * arrangement, attached rights evidence and a technical pass")? The spec names the conditions but
 * not what they mean for a track; this module decides (docs/library.md, "Publication"):
 *
 * - public-domain arrangement: the track's rightsStatus is "public-domain", the canonical work it
 *   arranges has a public-domain composition, and any edition or recording layer the evidence
 *   declares is one that allows reuse (never "licensed" or "unknown");
 * - attached rights evidence: rightsEvidence is an object naming `workSlug` (an existing work)
 *   and at least one HTTPS `evidenceUrls` entry;
 * - technical pass: reviewStatus "technical-pass" or quality.technicalValidationPassed === true.
 *   No other review state implies it (human review is not a technical check);
 * - and, because rights-review-required is not permission to publish, that state always refuses.
 *
 * The arrangement also needs what a work record requires of one: a publishable audio or score
 * file, a duration, and a channel role among intendedUses.
 */
import { compositionCleared, EDITION_RULE, RECORDING_RULE } from '../rights-cleared.ts';
import {
  EDITION_STATUSES,
  MUSIC_ROLES,
  RECORDING_STATUSES,
  type AssetKind,
  type MusicRole,
} from '../../schemas/common.ts';
import type { MusicLibraryTrackInput } from '../../schemas/library.ts';
import type { WorkContent } from '../../schemas/work.ts';

/** Rights status a track needs for publication. */
export const PUBLISHABLE_RIGHTS_STATUS = 'public-domain';

/**
 * Edition and recording layers that allow publication: the layers cleared by the one rule
 * (src/domain/rights-cleared.ts), without `licensed` (a public-domain arrangement is what
 * publication asks for, so a third party's license is never enough here) and without `unknown`.
 * The archive's own layers (original contribution or recording) are published under its CC0.
 */
export const REUSABLE_EDITION_STATUSES = (Object.keys(EDITION_RULE) as (typeof EDITION_STATUSES)[number][]).filter(
  (s) => EDITION_RULE[s] !== 'not-cleared' && s !== 'licensed',
);
export const REUSABLE_RECORDING_STATUSES = (
  Object.keys(RECORDING_RULE) as (typeof RECORDING_STATUSES)[number][]
).filter((s) => RECORDING_RULE[s] !== 'not-cleared' && s !== 'licensed');

export type EditionStatus = (typeof EDITION_STATUSES)[number];
export type RecordingStatus = (typeof RECORDING_STATUSES)[number];

/** Conditions a refusal names, one `reasons[]` entry per failed check. */
export const PUBLICATION_CONDITIONS = {
  'public-domain-arrangement':
    'The arrangement is in the public domain: track rightsStatus "public-domain", a public-domain composition, reusable edition and recording layers.',
  'rights-evidence':
    'rightsEvidence is an object naming workSlug (an existing canonical work) and at least one HTTPS evidenceUrls entry.',
  'technical-pass': 'reviewStatus is "technical-pass" or quality.technicalValidationPassed is true.',
  'rights-review': 'reviewStatus is not "rights-review-required" (that state is not permission to publish).',
  'publishable-file':
    'At least one file is publishable audio or notation (mp3, wav, midi, musicxml, mxl, score-pdf, score-image, or a master with an MP3 or WAV media type).',
  'arrangement-fields': 'durationSeconds is between 1 and 14400 and intendedUses names a channel role.',
  'content-check': 'The work file with the new arrangement passes the content checks (schema and cross-file rules).',
} as const;
export type PublicationCondition = keyof typeof PUBLICATION_CONDITIONS;

export interface RefusalReason {
  condition: PublicationCondition;
  detail: string;
}

const PUBLISHABLE_KINDS = [
  'mp3',
  'wav',
  'midi',
  'musicxml',
  'mxl',
  'score-pdf',
  'score-image',
] as const satisfies readonly AssetKind[];
const AUDIO_TYPES: Record<string, AssetKind> = {
  'audio/mpeg': 'mp3',
  'audio/mp3': 'mp3',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/wave': 'wav',
  'audio/vnd.wave': 'wav',
};

/**
 * The catalog asset kind a library file is published as, or null when it stays private
 * (manifests, production cards, QA results, candidate takes, instrument assets ...).
 */
export function publishableKind(file: { kind: string; contentType: string }): AssetKind | null {
  const kind = file.kind.trim().toLowerCase();
  if ((PUBLISHABLE_KINDS as readonly string[]).includes(kind)) return kind as AssetKind;
  if (kind === 'master') return AUDIO_TYPES[file.contentType.split(';')[0]!.trim().toLowerCase()] ?? null;
  return null;
}

export function isAudioKind(kind: AssetKind): boolean {
  return kind === 'mp3' || kind === 'wav';
}

/** The publication fields read from a track's free-form rightsEvidence. */
export interface RightsEvidence {
  workSlug: string;
  evidenceUrls: string[];
  editionStatus: EditionStatus | null;
  recordingStatus: RecordingStatus | null;
  instrumentation: string | null;
  checkedAtUtc: string | null;
  notes: string | null;
}

function isHttpsUrl(value: unknown): value is string {
  if (typeof value !== 'string' || value.length > 1000) return false;
  try {
    const u = new URL(value);
    return u.protocol === 'https:' && u.hostname.length > 0;
  } catch {
    return false;
  }
}

const text = (v: unknown, max: number): string | null =>
  typeof v === 'string' && v.trim() !== '' ? v.trim().slice(0, max) : null;

export interface EvidenceReading {
  /** The whole reading, present only when it has no problem. */
  evidence: RightsEvidence | null;
  /** The named work, even when other parts have problems (so the work can still be checked). */
  workSlug: string | null;
  reasons: RefusalReason[];
}

/** Read rightsEvidence; every problem becomes a reason naming its condition. */
export function readRightsEvidence(value: unknown): EvidenceReading {
  const reasons: RefusalReason[] = [];
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    reasons.push({
      condition: 'rights-evidence',
      detail: `rightsEvidence is ${value === null ? 'null' : Array.isArray(value) ? 'an array' : `a ${typeof value}`}; attach an object naming workSlug and at least one HTTPS evidenceUrls entry.`,
    });
    return { evidence: null, workSlug: null, reasons };
  }
  const o = value as Record<string, unknown>;
  const workSlug = typeof o.workSlug === 'string' && o.workSlug.trim() !== '' ? o.workSlug.trim() : null;
  if (!workSlug)
    reasons.push({
      condition: 'rights-evidence',
      detail: 'rightsEvidence.workSlug is missing: name the canonical work this track arranges.',
    });
  const urls = Array.isArray(o.evidenceUrls) ? o.evidenceUrls : [];
  const https = urls.filter(isHttpsUrl);
  if (https.length === 0) {
    reasons.push({
      condition: 'rights-evidence',
      detail:
        'rightsEvidence.evidenceUrls has no HTTPS URL: attach at least one dated HTTPS page that supports the rights statement.',
    });
  } else if (https.length !== urls.length) {
    reasons.push({
      condition: 'rights-evidence',
      detail: 'rightsEvidence.evidenceUrls has entries that are not HTTPS URLs; every entry must be one.',
    });
  }
  const edition = o.editionStatus ?? null;
  if (edition !== null && !(REUSABLE_EDITION_STATUSES as readonly unknown[]).includes(edition)) {
    reasons.push({
      condition: 'public-domain-arrangement',
      detail: `rightsEvidence.editionStatus is ${JSON.stringify(edition)}; publication needs one of ${REUSABLE_EDITION_STATUSES.join(', ')}.`,
    });
  }
  const recording = o.recordingStatus ?? null;
  if (recording !== null && !(REUSABLE_RECORDING_STATUSES as readonly unknown[]).includes(recording)) {
    reasons.push({
      condition: 'public-domain-arrangement',
      detail: `rightsEvidence.recordingStatus is ${JSON.stringify(recording)}; publication needs one of ${REUSABLE_RECORDING_STATUSES.join(', ')}.`,
    });
  }
  const checkedAtUtc =
    typeof o.checkedAtUtc === 'string' && /^\d{4}-\d{2}-\d{2}T[^Z]*Z$/.test(o.checkedAtUtc) ? o.checkedAtUtc : null;
  if (reasons.length > 0 || !workSlug) return { evidence: null, workSlug, reasons };
  return {
    workSlug,
    evidence: {
      workSlug,
      evidenceUrls: https,
      editionStatus: edition as EditionStatus | null,
      recordingStatus: recording as RecordingStatus | null,
      instrumentation: text(o.instrumentation, 220),
      checkedAtUtc,
      notes: text(o.notes, 1000),
    },
    reasons,
  };
}

export interface PublishableFile {
  id: string;
  kind: string;
  contentType: string;
  fileName: string;
  byteLength: number;
  sha256: string;
}

export interface PublicationPlan {
  evidence: RightsEvidence;
  work: WorkContent;
  files: Array<PublishableFile & { assetKind: AssetKind }>;
  durationSeconds: number;
  roles: MusicRole[];
}

export interface EligibilityResult {
  eligible: boolean;
  reasons: RefusalReason[];
  /** What to publish; present exactly when eligible. */
  plan: PublicationPlan | null;
}

/** Check every condition (all at once, so a refusal lists everything to fix). */
export function checkEligibility(input: {
  track: MusicLibraryTrackInput;
  files: PublishableFile[];
  findWork: (slug: string) => WorkContent | null;
}): EligibilityResult {
  const { track } = input;
  const reasons: RefusalReason[] = [];

  if (track.reviewStatus === 'rights-review-required') {
    reasons.push({
      condition: 'rights-review',
      detail:
        'reviewStatus is "rights-review-required": the rights must be reviewed first; that state is not permission to publish.',
    });
  }
  if (track.rightsStatus !== PUBLISHABLE_RIGHTS_STATUS) {
    reasons.push({
      condition: 'public-domain-arrangement',
      detail: `rightsStatus is "${track.rightsStatus}"; publication needs "${PUBLISHABLE_RIGHTS_STATUS}".`,
    });
  }
  const reading = readRightsEvidence(track.rightsEvidence);
  reasons.push(...reading.reasons);
  let work: WorkContent | null = null;
  const slug = reading.workSlug;
  if (slug) {
    work = input.findWork(slug);
    if (!work)
      reasons.push({
        condition: 'rights-evidence',
        detail: `rightsEvidence.workSlug "${slug}" is not a canonical work of this archive.`,
      });
    else if (work.rights.composition.status !== 'public-domain') {
      reasons.push({
        condition: 'public-domain-arrangement',
        detail: `The composition of "${slug}" is "${work.rights.composition.status}", not public-domain.`,
      });
    } else if (
      !compositionCleared(
        work.rights.composition.status,
        Object.values(work.rights.territories).map((t) => t.status),
      )
    ) {
      // The same rule resolve applies: public domain in every territory, or not cleared.
      reasons.push({
        condition: 'public-domain-arrangement',
        detail: `The composition of "${slug}" is public domain, but not in every territory (${Object.entries(
          work.rights.territories,
        )
          .map(([k, t]) => `${k}: ${t.status}`)
          .join(', ')}).`,
      });
    }
  }
  const quality =
    track.quality !== null && typeof track.quality === 'object' && !Array.isArray(track.quality)
      ? (track.quality as Record<string, unknown>)
      : {};
  if (track.reviewStatus !== 'technical-pass' && quality.technicalValidationPassed !== true) {
    reasons.push({
      condition: 'technical-pass',
      detail: `reviewStatus is "${track.reviewStatus}" and quality.technicalValidationPassed is not true; publication needs a technical pass (no other review state implies one).`,
    });
  }
  const files = input.files.flatMap((f) => {
    const assetKind = publishableKind(f);
    return assetKind ? [{ ...f, assetKind }] : [];
  });
  if (files.length === 0) {
    reasons.push({
      condition: 'publishable-file',
      detail:
        'No file is publishable audio or notation (mp3, wav, midi, musicxml, mxl, score-pdf, score-image, or a master with an MP3/WAV media type).',
    });
  }
  const seconds = track.durationSeconds === null ? null : Math.round(track.durationSeconds);
  if (seconds === null || seconds < 1 || seconds > 14400) {
    reasons.push({
      condition: 'arrangement-fields',
      detail: `durationSeconds is ${track.durationSeconds ?? 'null'}; an arrangement needs 1 to 14400 seconds.`,
    });
  }
  const roles = (track.intendedUses ?? []).filter((u): u is MusicRole =>
    (MUSIC_ROLES as readonly string[]).includes(u),
  );
  if (roles.length === 0) {
    reasons.push({
      condition: 'arrangement-fields',
      detail: `intendedUses names no channel role; add one of ${MUSIC_ROLES.join(', ')}.`,
    });
  }
  if (reasons.length > 0 || !reading.evidence || !work || seconds === null)
    return { eligible: false, reasons, plan: null };
  return {
    eligible: true,
    reasons: [],
    plan: { evidence: reading.evidence, work, files, durationSeconds: seconds, roles: [...new Set(roles)] },
  };
}
