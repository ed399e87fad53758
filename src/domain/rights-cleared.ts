/**
 * When each rights layer counts as cleared for reuse: the one statement of the rule. Resolve
 * (its index columns and explanations), the reuse summaries on every record and page, review
 * proposals (the state a contributed file lands in) and library eligibility all ask here.
 *
 * - Composition: cleared when permission is documented, or when it is public domain in every
 *   territory the archive answers for (US, EU, CA). `not-applicable` is NOT cleared: every work
 *   in the archive has a composition, so "not applicable" states nothing about its rights, and
 *   a file whose composition is unsettled must not become public. (A review proposal used to
 *   count it as cleared while resolve did not; this is the settled rule.) `unknown` is not cleared.
 * - Edition and recording: `public-domain` is cleared; the archive's own or a licensed layer
 *   (`original-contribution`, `original-generated-recording`, `original-human-recording`,
 *   `licensed`) is cleared when the license is named; `not-applicable` (no edition or no
 *   recording is involved) does not block reuse; `unknown` is not cleared.
 */
import type { COMPOSITION_STATUSES, EDITION_STATUSES, RECORDING_STATUSES } from '../schemas/common.ts';

export type CompositionStatus = (typeof COMPOSITION_STATUSES)[number];
export type EditionStatus = (typeof EDITION_STATUSES)[number];
export type RecordingStatus = (typeof RECORDING_STATUSES)[number];

/** What a layer's status means for reuse. */
export type LayerRule = 'cleared' | 'cleared-with-license' | 'not-applicable' | 'not-cleared';

export const COMPOSITION_RULE: Record<CompositionStatus, 'cleared' | 'cleared-in-every-territory' | 'not-cleared'> = {
  'permission-documented': 'cleared',
  'public-domain': 'cleared-in-every-territory',
  'not-applicable': 'not-cleared',
  unknown: 'not-cleared',
};

export const EDITION_RULE: Record<EditionStatus, LayerRule> = {
  'public-domain': 'cleared',
  'original-contribution': 'cleared-with-license',
  licensed: 'cleared-with-license',
  'not-applicable': 'not-applicable',
  unknown: 'not-cleared',
};

export const RECORDING_RULE: Record<RecordingStatus, LayerRule> = {
  'public-domain': 'cleared',
  'original-generated-recording': 'cleared-with-license',
  'original-human-recording': 'cleared-with-license',
  licensed: 'cleared-with-license',
  'not-applicable': 'not-applicable',
  unknown: 'not-cleared',
};

/** The composition statuses that can be cleared at all (before territories are looked at). */
export const CLEARABLE_COMPOSITION_STATUSES = (Object.keys(COMPOSITION_RULE) as CompositionStatus[]).filter(
  (s) => COMPOSITION_RULE[s] !== 'not-cleared',
);

/** Whether the composition layer is cleared; `territories` are the per-territory statuses (US, EU, CA). */
export function compositionCleared(status: string, territories: readonly string[]): boolean {
  const rule = COMPOSITION_RULE[status as CompositionStatus];
  if (rule === 'cleared') return true;
  if (rule === 'cleared-in-every-territory') return territories.every((t) => t === 'public-domain');
  return false;
}

/** An edition or recording layer: cleared, not applicable (does not block), or not cleared. */
export function layerState(
  rule: Record<string, LayerRule>,
  status: string,
  license: string | null,
): 'cleared' | 'not-applicable' | 'not-cleared' {
  const r = rule[status];
  if (r === 'cleared') return 'cleared';
  if (r === 'cleared-with-license') return license !== null && license.trim() !== '' ? 'cleared' : 'not-cleared';
  if (r === 'not-applicable') return 'not-applicable';
  return 'not-cleared';
}

export const editionState = (status: string, license: string | null) => layerState(EDITION_RULE, status, license);
export const recordingState = (status: string, license: string | null) => layerState(RECORDING_RULE, status, license);

/** Statuses of a layer that never block reuse, whatever the license (public domain, not applicable). */
export function statusesNeverBlocking<S extends string>(rule: Record<S, LayerRule>): S[] {
  return (Object.keys(rule) as S[]).filter((s) => rule[s] === 'cleared' || rule[s] === 'not-applicable');
}
