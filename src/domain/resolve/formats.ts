/**
 * Formats as callers name them ("MP3", "mid", "musicxml") mapped onto the archive's asset kinds,
 * and which rights layer and review rule each kind falls under. Requested formats match
 * case-insensitively; "musicxml" is also satisfied by compressed MusicXML (`mxl`), because both
 * carry the same score and every MusicXML reader opens both; "mxl" asks for `mxl` only.
 */
import { ASSET_KINDS, type AssetKind, type CatalogReviewState } from '../../schemas/common.ts';

const KIND_SET = new Set<string>(ASSET_KINDS);

/** Other spellings callers use for a kind. */
const FORMAT_ALIASES: Record<string, AssetKind> = {
  mid: 'midi',
  'music-xml': 'musicxml',
  'music xml': 'musicxml',
  wave: 'wav',
  pdf: 'score-pdf',
};

/** Bit per asset kind, so a set of formats is one integer. */
export const KIND_BIT: Record<AssetKind, number> = Object.fromEntries(ASSET_KINDS.map((k, i) => [k, 1 << i])) as Record<
  AssetKind,
  number
>;

/** A requested format after normalization. */
export interface RequestedFormat {
  /** As the caller wrote it, trimmed. */
  asSent: string;
  /** Lower-case, alias-resolved name (the asset kind when known). */
  format: string;
  /** Asset kinds that satisfy it (empty when the archive stores no such format). */
  kinds: AssetKind[];
  /** Bits of `kinds`. */
  mask: number;
}

export function normalizeFormat(text: string): RequestedFormat {
  const asSent = text.trim();
  const lower = asSent.toLowerCase().replace(/^\./, '');
  const format = FORMAT_ALIASES[lower] ?? lower;
  const kinds: AssetKind[] =
    format === 'musicxml' ? ['musicxml', 'mxl'] : KIND_SET.has(format) ? [format as AssetKind] : [];
  return { asSent, format, kinds, mask: kinds.reduce((m, k) => m | KIND_BIT[k], 0) };
}

/** Requested formats, normalized and de-duplicated (first spelling wins), in request order. */
export function normalizeFormats(list: readonly string[]): RequestedFormat[] {
  const seen = new Set<string>();
  const out: RequestedFormat[] = [];
  for (const text of list) {
    const f = normalizeFormat(text);
    if (seen.has(f.format)) continue;
    seen.add(f.format);
    out.push(f);
  }
  return out;
}

/** Kinds a person must have listened to before they are reused (they are heard as they are). */
export const AUDIBLE_KINDS: ReadonlySet<AssetKind> = new Set<AssetKind>(['mp3', 'wav', 'video']);
/** Kinds covered by the edition (score) rights layer. */
export const EDITION_KINDS: ReadonlySet<AssetKind> = new Set<AssetKind>([
  'musicxml',
  'mxl',
  'score-pdf',
  'score-image',
]);
/** Kinds covered by the recording rights layer (MIDI is a rendering of the arrangement). */
export const RECORDING_KINDS: ReadonlySet<AssetKind> = new Set<AssetKind>(['mp3', 'wav', 'midi', 'video']);
export const MUSICXML_MASK = KIND_BIT.musicxml | KIND_BIT.mxl;
export const EDITION_MASK = [...EDITION_KINDS].reduce((m, k) => m | KIND_BIT[k], 0);
export const RECORDING_MASK = [...RECORDING_KINDS].reduce((m, k) => m | KIND_BIT[k], 0);

/**
 * Whether an asset's review state allows reuse: audible files need listening approval; other
 * files need at least a human review. `rights-review-required` never passes.
 */
export function assetReviewPasses(kind: AssetKind, state: CatalogReviewState): boolean {
  if (AUDIBLE_KINDS.has(kind)) return state === 'human-listening-approved';
  return state === 'human-listening-approved' || state === 'human-reviewed';
}

/** Order in which a usable asset is preferred when an arrangement has several of one kind. */
export const REVIEW_PREFERENCE: Record<CatalogReviewState, number> = {
  'human-listening-approved': 0,
  'human-reviewed': 1,
  'technical-pass': 2,
  'manual-review-pending': 3,
  pending: 4,
  'rights-review-required': 5,
};
