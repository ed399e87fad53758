/**
 * Checks one arrangement against a channel and its requirements. `judge` decides everything
 * (readiness, fit, score, the ranking key) from the catalog's integer columns, without
 * allocating, for the catalog-wide scan and for the answer alike; `explain` only puts those
 * verdicts into words for the candidates shown. So the ranking and the explanation can never
 * disagree (and explain checks that they do not).
 */
import { ASSET_KINDS, type AssetKind, type MusicRole } from '../../schemas/common.ts';
import type { ArrangementRecord, AssetRecord } from '../../schemas/work.ts';
import type { MusicResolveInput, ResolveReason } from '../../schemas/resolve.ts';
import { ACCESS_MEANINGS, REVIEW_STATE_LABELS, REVIEW_STATE_MEANINGS } from '../review-states.ts';
import {
  FLAG_COMPOSITION_PASSES,
  FLAG_LOOPABLE,
  FLAG_PROFILES_APPROVED,
  FLAG_REVIEW_PASSES,
  FLAG_STATIC_READY,
  FLAG_TRIMMABLE,
  LAYER_NOT_APPLICABLE,
  LAYER_PASS,
  ROLE_BIT,
  arrangementAt,
  compositionCheck,
  inMemoryRecords,
  isUsable,
  usableAssets,
  type RecordSource,
  type ResolveCatalog,
  type WordField,
} from './catalog.ts';
import {
  EDITION_MASK,
  KIND_BIT,
  MUSICXML_MASK,
  RECORDING_MASK,
  normalizeFormats,
  type RequestedFormat,
} from './formats.ts';
import {
  bitCount,
  compileMeaningQuery,
  consideredWords,
  matchedWordsMask,
  withoutQualifiers,
  type WordQuery,
} from './text-match.ts';
import { words } from '../text.ts';
import {
  LIKE_CAP,
  LIKE_FULL,
  LIKE_PASS,
  LIKE_WEIGHT,
  compileLike,
  likeClause,
  likeCloseness,
  likeShared,
  type LikeQuery,
} from './like.ts';
import type { Meaning } from '../vocabulary/meaning.ts';
import {
  MAX_LOOP_REPEATS,
  effectiveDurationSeconds,
  fitTolerance,
  loopRepeats,
  measuredDuration,
} from '../audio/arrangement.ts';

/** The request, normalized once and compiled against one catalog's vocabulary. */
export interface ResolveRequest {
  role: MusicRole;
  roleBit: number;
  narration: boolean;
  formats: RequestedFormat[];
  requireMusicXml: boolean;
  requireApprovedProfile: boolean;
  targetSeconds: number | null;
  /** The role's loop repeat limit (MAX_LOOP_REPEATS): a loop needing more is no fit. */
  maxRepeats: number;
  style: WordQuery | null;
  instrumentation: WordQuery | null;
  mood: WordQuery | null;
  /** "Something like X" / "in the style of X" (like.ts), when a requirement field names a work found in the catalog. */
  like: LikeQuery | null;
  /**
   * A layered catalog's (catalog-layer.ts): the same words compiled against its overlay's
   * vocabulary, for the overlay's arrangements; null otherwise. The words, so the masks' bits,
   * are the same: only their ids differ.
   */
  over: TextQueries | null;
  /** Tables that turn the judge's integer counts into points (see `tables`). */
  t: ScoreTables;
}

/** The text requirements of a request, compiled against one vocabulary. */
export type TextQueries = Pick<ResolveRequest, 'style' | 'instrumentation' | 'mood'>;

/**
 * Everything in the score that depends only on the request, computed once: the possible points,
 * the score for each number of points earned, the points for each count of formats present and
 * of words matched. The judge then adds small integers and looks the score up.
 */
export interface ScoreTables {
  possible: number;
  scoreOf: Uint8Array;
  formatMasks: Int32Array;
  formatPoints: Uint8Array;
  styleWords: number;
  stylePoints: Uint8Array;
  instrumentationWords: number;
  instrumentationPoints: Uint8Array;
  moodWords: number;
  moodPoints: Uint8Array;
}

function pointsTable(weight: number, of: number): Uint8Array {
  return Uint8Array.from({ length: of + 1 }, (_, m) => (of === 0 ? 0 : Math.round((weight * m) / of)));
}

function tables(r: Omit<ResolveRequest, 't' | 'over'>): ScoreTables {
  let possible = WEIGHT.role + WEIGHT.formats + WEIGHT.rights + WEIGHT.review;
  if (r.narration) possible += WEIGHT.narration;
  if (r.requireMusicXml) possible += WEIGHT.musicXml;
  if (r.requireApprovedProfile) possible += WEIGHT.profile;
  if (r.targetSeconds !== null) possible += WEIGHT.duration;
  for (const text of [r.style, r.instrumentation, r.mood]) if (text) possible += WEIGHT.text;
  if (r.like) possible += LIKE_WEIGHT;
  const words = (q: WordQuery | null) => (q ? consideredWords(q) : 0);
  return {
    possible,
    scoreOf: Uint8Array.from({ length: possible + 1 }, (_, earned) => Math.round((100 * earned) / possible)),
    formatMasks: Int32Array.from(r.formats.map((f) => f.mask)),
    formatPoints: pointsTable(WEIGHT.formats, r.formats.length),
    styleWords: words(r.style),
    stylePoints: pointsTable(WEIGHT.text, words(r.style)),
    instrumentationWords: words(r.instrumentation),
    instrumentationPoints: pointsTable(WEIGHT.text, words(r.instrumentation)),
    moodWords: words(r.mood),
    moodPoints: pointsTable(WEIGHT.text, words(r.mood)),
  };
}

function textQuery(catalog: ResolveCatalog, text: string | null | undefined): WordQuery | null {
  if (text === null || text === undefined) return null;
  const q = compileMeaningQuery(catalog.vocab, catalog.meaning, text);
  return q.words.length > 0 ? q : null;
}

export function compileRequest(catalog: ResolveCatalog, input: MusicResolveInput): ResolveRequest {
  const r = { ...input.requirements };
  const over = catalog.layer?.over;
  // "Something like X": the first field that names a work found in the catalog; its clause is no words to match.
  let like: LikeQuery | null = null;
  for (const field of ['style', 'mood', 'instrumentation'] as const) {
    const text = r[field];
    const clause = typeof text === 'string' ? likeClause(text) : null;
    if (!clause || like) continue;
    like = compileLike(catalog, clause.target, field);
    if (like) r[field] = clause.rest;
  }
  const request = {
    role: input.channel.intendedRole,
    roleBit: ROLE_BIT[input.channel.intendedRole],
    narration: input.channel.narrationPresent === true,
    formats: normalizeFormats(r.requiredFormats),
    requireMusicXml: r.requireMusicXml === true,
    requireApprovedProfile: r.requireApprovedRenderingProfile === true,
    targetSeconds: r.targetDurationSeconds ?? null,
    maxRepeats: MAX_LOOP_REPEATS[input.channel.intendedRole],
    style: textQuery(catalog, r.style),
    instrumentation: textQuery(catalog, r.instrumentation),
    mood: textQuery(catalog, r.mood),
    like,
  };
  return {
    ...request,
    over: over
      ? {
          style: textQuery(over, r.style),
          instrumentation: textQuery(over, r.instrumentation),
          mood: textQuery(over, r.mood),
        }
      : null,
    t: tables(request),
  };
}

/** What the prepare analysis needs to know about a failed check, beyond its words. */
export interface EvaluationFacts {
  failed: Set<ResolveReason['requirement']>;
  /** Requested formats with no usable asset. */
  missingFormats: RequestedFormat[];
  /** No formats were requested and the arrangement has no usable file at all. */
  noUsableFile: boolean;
  nonApprovedProfiles: Array<{ slug: string; status: string }>;
  /** Used assets that fail the asset review rule or the asset rights rule. */
  assetsFailingReview: AssetRecord[];
  assetsFailingRights: AssetRecord[];
}

export interface Evaluation {
  ready: boolean;
  roleFit: boolean;
  /** Style, instrumentation, mood and duration all fit (when requested): the right music, whatever else is missing. */
  musicFit: boolean;
  /** 0 to 100, the ranking key in one number (`rankScore`): never higher below a lower one. */
  score: number;
  /** 0 to 100, fit points only (a part of the ranking key). */
  fitScore: number;
  /** The grade of the word matches (the last part of the ranking key, before the tie-breaks). */
  grade: number;
  reasons: ResolveReason[];
  facts: EvaluationFacts;
}

/** Points per aspect; the score is earned / possible over the aspects that apply. */
const WEIGHT = {
  role: 30,
  narration: 10,
  formats: 20,
  musicXml: 10,
  profile: 10,
  duration: 10,
  text: 10,
  rights: 10,
  review: 10,
} as const;

/** Within this many seconds of the target (or 10% of it, if more) a duration fits as is. */
export function durationTolerance(target: number): number {
  return fitTolerance(target);
}

function assetWords(asset: AssetRecord): string {
  return `asset ${asset.id} (${asset.access}, ${REVIEW_STATE_LABELS[asset.reviewState]})`;
}

/** Why no usable asset supplies `f`: the kinds that exist but are not public, or nothing. */
function formatGap(a: ArrangementRecord, f: RequestedFormat): string {
  if (f.kinds.length === 0) return `"${f.asSent}" is not a format the archive stores`;
  const present = a.assets.filter((x) => (f.kinds as readonly string[]).includes(x.kind));
  if (present.length === 0) return `${f.format}: no such file`;
  return `${f.format}: ${present
    .map((x) =>
      x.access === 'public'
        ? `asset ${x.id} is public but has no download link`
        : `asset ${x.id} is ${x.access}, not public (${ACCESS_MEANINGS[x.access]})`,
    )
    .join('; ')}, so it cannot be reused`;
}

function roleDetail(a: ArrangementRecord, q: ResolveRequest, exact: boolean, fit: boolean): string {
  const also = a.alsoSuits.length > 0 ? ` (also suits: ${a.alsoSuits.join(', ')})` : '';
  let text = exact
    ? `Made for ${q.role}${also}.`
    : fit
      ? `Made for ${a.intendedRole}; the record says it also suits ${q.role}.`
      : `Made for ${a.intendedRole}${also}, not for ${q.role}.`;
  if (q.narration) {
    const bedLike = a.intendedRole === 'music-bed' || a.intendedRole === 'music-ambient';
    const lead = a.intendedRole === 'music-lead' || a.intendedRole === 'music-sleep-lead';
    text += bedLike
      ? ' Narration is present: bed and ambient material is preferred.'
      : lead
        ? ' Narration is present: lead material competes with the voice, so it ranks below beds and ambient material.'
        : ' Narration is present: beds and ambient material rank above it.';
  }
  return text;
}

function layerDetail(
  layer: 'Edition' | 'Recording',
  status: string,
  note: string,
  license: string | null,
  notApplicable: boolean,
  used: boolean,
  passed: boolean,
): string {
  const base = `${layer}: ${status} (${note})`;
  if (passed)
    return notApplicable
      ? `${base}; no ${layer === 'Edition' ? 'score' : 'recording'} file would be used.`
      : `${base}${license ? `; license ${license}` : ''}.`;
  if (notApplicable && used)
    return `${base}, but a ${layer === 'Edition' ? 'score' : 'recording'} file would be used; its rights are not declared.`;
  if (status === 'unknown') return `${base}: unknown rights are never cleared for reuse.`;
  return `${base}, but no license is recorded for the arrangement.`;
}

/**
 * The score a candidate shows: the ranking key (ready, role fit, music fit, fit points) in one
 * number from 0 to 100, so a candidate never shows a higher score than one above it. Each band
 * holds one step of the key, and the fit points place a candidate within its band:
 * ready 60-100; the right music for the role, not ready 30-59; the role only 10-29; neither 0-9.
 */
export const SCORE_BANDS = {
  ready: [60, 100],
  roleAndMusic: [30, 59],
  role: [10, 29],
  none: [0, 9],
} as const;

export function rankScore(k: { ready: boolean; roleFit: boolean; musicFit: boolean; score: number }): number {
  const [lo, hi] = k.ready
    ? SCORE_BANDS.ready
    : k.roleFit && k.musicFit
      ? SCORE_BANDS.roleAndMusic
      : k.roleFit
        ? SCORE_BANDS.role
        : SCORE_BANDS.none;
  return lo + Math.floor(((hi - lo) * k.score) / 100);
}

/**
 * Ranking key of a judgment: ready, role fit, music fit, score, then the grade of the word matches
 * (vocabulary/meaning.ts GRADE, summed over the matched words; capped), most significant first.
 */
export const GRADE_BITS = 9;
export const GRADE_CAP = (1 << GRADE_BITS) - 1;
export const KEY_READY = 1 << (9 + GRADE_BITS);
export const KEY_ROLE_FIT = 1 << (8 + GRADE_BITS);
export const KEY_MUSIC_FIT = 1 << (7 + GRADE_BITS);
/** Above every key. */
export const KEY_LIMIT = 1 << (10 + GRADE_BITS);

/** Every verdict about one arrangement, as plain numbers and booleans (for explain). */
export interface Judgment {
  exact: boolean;
  roleFit: boolean;
  formatsPresent: number;
  usedMask: number;
  musicXmlBit: number;
  durationOutcome: 'none' | 'within' | 'trim' | 'loop' | 'fail';
  styleMask: number;
  instrumentationMask: number;
  moodMask: number;
  styleOk: boolean;
  instrumentationOk: boolean;
  moodOk: boolean;
  compositionOk: boolean;
  editionOk: boolean;
  recordingOk: boolean;
  assetRightsOk: boolean;
  arrangementReviewOk: boolean;
  assetReviewOk: boolean;
  profilesOk: boolean;
  ready: boolean;
  musicFit: boolean;
  score: number;
  /** Sum of the best grades of the words matched, plus the closeness to a work named "like" (the last part of the key). */
  grade: number;
  likeCloseness: number;
}

export function newJudgment(): Judgment {
  return {
    exact: false,
    roleFit: false,
    formatsPresent: 0,
    usedMask: 0,
    musicXmlBit: 0,
    durationOutcome: 'none',
    styleMask: 0,
    instrumentationMask: 0,
    moodMask: 0,
    styleOk: true,
    instrumentationOk: true,
    moodOk: true,
    compositionOk: true,
    editionOk: true,
    recordingOk: true,
    assetRightsOk: true,
    arrangementReviewOk: true,
    assetReviewOk: true,
    profilesOk: true,
    ready: false,
    musicFit: false,
    score: 0,
    grade: 0,
    likeCloseness: 0,
  };
}

/** The text matches of arrangement `i` for the request's style, instrumentation and mood words. */
export interface TextMasks {
  style: number;
  instrumentation: number;
  mood: number;
  /** Sum of the best grades of the matched words (not the constraints) over the three fields. */
  grade: number;
}

function fieldMask(field: WordField, query: WordQuery | null, i: number, out: TextMasks): number {
  if (!query) return 0;
  const mask = matchedWordsMask(query, field.ids, field.start[i]!, field.start[i + 1]!);
  out.grade += query.grade;
  return mask;
}

/** Text masks of one arrangement, read from its own words (a layered catalog's overlay arrangement: from the overlay's). */
export function textMasksOf(catalog: ResolveCatalog, q: ResolveRequest, i: number, out: TextMasks): TextMasks {
  const layer = catalog.layer;
  if (layer && i >= layer.baseArrangements) {
    const o = layer.over;
    const j = i - layer.baseArrangements;
    out.grade = 0;
    out.style = fieldMask(o.style, q.over!.style, j, out);
    out.instrumentation = fieldMask(o.instrumentation, q.over!.instrumentation, j, out);
    out.mood = fieldMask(o.mood, q.over!.mood, j, out);
    return out;
  }
  out.grade = 0;
  out.style = fieldMask(catalog.style, q.style, i, out);
  out.instrumentation = fieldMask(catalog.instrumentation, q.instrumentation, i, out);
  out.mood = fieldMask(catalog.mood, q.mood, i, out);
  return out;
}

/**
 * False when arrangement `i` cannot be ready for `q`, whatever its words: a request-independent
 * check fails, it does not fit the role, or a required format, MusicXML score or approved profile
 * is missing. Never false for an arrangement `judge` finds ready.
 */
export function couldBeReady(catalog: ResolveCatalog, i: number, q: ResolveRequest): boolean {
  const c = catalog.cols;
  const flags = c.flags[i]!;
  if ((flags & FLAG_STATIC_READY) === 0 || (c.roleMask[i]! & q.roleBit) === 0) return false;
  if (q.requireApprovedProfile && (flags & FLAG_PROFILES_APPROVED) === 0) return false;
  const usable = c.usableMask[i]!;
  if (q.requireMusicXml && (usable & MUSICXML_MASK) === 0) return false;
  if (q.formats.length === 0) return usable !== 0;
  for (let k = 0; k < q.formats.length; k++) if ((usable & q.formats[k]!.mask) === 0) return false;
  return true;
}

const DURATION_OUTCOMES = ['none', 'within', 'trim', 'loop', 'fail'] as const;
const WITHIN = 1;
const TRIM = 2;
const LOOP = 3;
const FAIL = 4;

function durationOutcome(c: ResolveCatalog['cols'], i: number, target: number, maxRepeats: number): number {
  const d = c.duration[i]!;
  if (Math.abs(d - target) <= durationTolerance(target)) return WITHIN;
  const flags = c.flags[i]!;
  if (d > target && (flags & FLAG_TRIMMABLE) !== 0) return TRIM;
  if (d < target && (flags & FLAG_LOOPABLE) !== 0 && loopRepeats(d, target) <= maxRepeats) return LOOP;
  return FAIL;
}

/**
 * Judge arrangement `i` against `q`; returns the packed ranking key. Fills `j` with every verdict
 * when given (for explain); the scan passes null and nothing is written or allocated.
 */
export function judge(
  catalog: ResolveCatalog,
  i: number,
  q: ResolveRequest,
  text: TextMasks,
  j: Judgment | null,
  bestDuration = false,
): number {
  const c = catalog.cols;
  const t = q.t;
  const flags = c.flags[i]!;
  const usable = c.usableMask[i]!;

  // Role: the channel's role is what the caller came for; beds and ambient win under narration.
  const exact = c.intendedBit[i] === q.roleBit;
  const roleFit = (c.roleMask[i]! & q.roleBit) !== 0;
  let earned = exact ? WEIGHT.role : roleFit ? 20 : 0;
  if (q.narration) earned += (WEIGHT.narration / 2) * c.narrationClass[i]!;
  let ready = roleFit;
  let musicFit = true;

  // Formats: each requested one must be a public applied asset with a download link; the lowest
  // kind bit wins, so "musicxml" uses a MusicXML file before a compressed one.
  let used = 0;
  let present = 0;
  const nf = t.formatMasks.length;
  if (nf === 0) {
    if (!q.requireMusicXml) used = usable;
    if (usable !== 0) earned += WEIGHT.formats;
    else ready = false;
  } else {
    for (let k = 0; k < nf; k++) {
      const bits = usable & t.formatMasks[k]!;
      if (bits !== 0) {
        present++;
        used |= bits & -bits;
      }
    }
    earned += t.formatPoints[present]!;
    if (present < nf) ready = false;
  }
  let musicXmlBit = 0;
  if (q.requireMusicXml) {
    const bits = usable & MUSICXML_MASK;
    musicXmlBit = bits & -bits;
    if (bits !== 0) {
      earned += WEIGHT.musicXml;
      used |= musicXmlBit;
    } else ready = false;
  }

  const profilesOk = (flags & FLAG_PROFILES_APPROVED) !== 0;
  if (q.requireApprovedProfile) {
    if (profilesOk) earned += WEIGHT.profile;
    else ready = false;
  }

  let duration = 0;
  if (q.targetSeconds !== null) {
    duration = bestDuration ? WITHIN : durationOutcome(c, i, q.targetSeconds, q.maxRepeats);
    if (duration === WITHIN) earned += WEIGHT.duration;
    else if (duration === FAIL) {
      const d = c.duration[i]!;
      earned += Math.round((5 * Math.min(d, q.targetSeconds)) / Math.max(d, q.targetSeconds));
      musicFit = false;
    } else earned += 8;
  }

  // Style, instrumentation, mood: no constraint broken ("no vocals"), and at least half of the
  // other words must match; points by the share of words met (a kept constraint counts as met).
  let styleOk = true;
  let instrumentationOk = true;
  let moodOk = true;
  if (q.style) {
    const m = textPoints(q.style, text.style);
    earned += t.stylePoints[m >>> 1]!;
    if ((m & 1) === 0) musicFit = styleOk = false;
  }
  if (q.instrumentation) {
    const m = textPoints(q.instrumentation, text.instrumentation);
    earned += t.instrumentationPoints[m >>> 1]!;
    if ((m & 1) === 0) musicFit = instrumentationOk = false;
  }
  if (q.mood) {
    const m = textPoints(q.mood, text.mood);
    earned += t.moodPoints[m >>> 1]!;
    if ((m & 1) === 0) musicFit = moodOk = false;
  }
  // "Something like X": closeness to X's works, in the field it was written in.
  let likeCloseness_ = 0;
  if (q.like) {
    likeCloseness_ = bestDuration ? LIKE_CAP : likeCloseness(catalog, q.like, i);
    earned += Math.round((LIKE_WEIGHT * Math.min(likeCloseness_, LIKE_FULL)) / LIKE_FULL);
    if (likeCloseness_ < LIKE_PASS) {
      musicFit = false;
      if (q.like.field === 'style') styleOk = false;
      else if (q.like.field === 'mood') moodOk = false;
      else instrumentationOk = false;
    }
  }
  const grade = Math.min(text.grade + likeCloseness_, GRADE_CAP);
  if (!musicFit) ready = false;

  // Clearance: rights of everything that would be used, and review states. Never scored away.
  const edition = c.edition[i]!;
  const recording = c.recording[i]!;
  const compositionOk = (flags & FLAG_COMPOSITION_PASSES) !== 0;
  const editionOk = edition === LAYER_PASS || (edition === LAYER_NOT_APPLICABLE && (used & EDITION_MASK) === 0);
  const recordingOk = recording === LAYER_PASS || (recording === LAYER_NOT_APPLICABLE && (used & RECORDING_MASK) === 0);
  const assetRightsOk = (used & ~c.rightsOkMask[i]!) === 0;
  const arrangementReviewOk = (flags & FLAG_REVIEW_PASSES) !== 0;
  const assetReviewOk = (used & ~c.reviewOkMask[i]!) === 0;
  const rightsOk = compositionOk && editionOk && recordingOk && assetRightsOk;
  const reviewOk = arrangementReviewOk && assetReviewOk;
  if (rightsOk) earned += WEIGHT.rights;
  if (reviewOk) earned += WEIGHT.review;
  if (!rightsOk || !reviewOk) ready = false;

  const score = t.scoreOf[earned]!;
  if (j) {
    j.exact = exact;
    j.roleFit = roleFit;
    j.formatsPresent = present;
    j.usedMask = used;
    j.musicXmlBit = musicXmlBit;
    j.durationOutcome = DURATION_OUTCOMES[duration]!;
    j.styleMask = text.style;
    j.instrumentationMask = text.instrumentation;
    j.moodMask = text.mood;
    j.styleOk = styleOk;
    j.instrumentationOk = instrumentationOk;
    j.moodOk = moodOk;
    j.compositionOk = compositionOk;
    j.editionOk = editionOk;
    j.recordingOk = recordingOk;
    j.assetRightsOk = assetRightsOk;
    j.arrangementReviewOk = arrangementReviewOk;
    j.assetReviewOk = assetReviewOk;
    j.profilesOk = profilesOk;
    j.ready = ready;
    j.musicFit = musicFit;
    j.score = score;
    j.grade = grade;
    j.likeCloseness = likeCloseness_;
  }
  return (
    (ready ? KEY_READY : 0) |
    (roleFit ? KEY_ROLE_FIT : 0) |
    (musicFit ? KEY_MUSIC_FIT : 0) |
    (score << GRADE_BITS) |
    grade
  );
}

/**
 * A text field's verdict from its match mask: (words met) * 2 + (1 when it passes). Met: the
 * words matched and the constraints kept; it passes when no constraint is broken and at least
 * half of the other words match.
 */
function textPoints(query: WordQuery, mask: number): number {
  const n = consideredWords(query);
  const all = n === 31 ? 0x7fffffff : (1 << n) - 1;
  const neg = query.negated & all;
  const matched = bitCount(mask & ~neg & all);
  const broken = mask & neg;
  const kept = bitCount(neg) - bitCount(broken);
  const positives = n - bitCount(neg);
  const passes = broken === 0 && matched * 2 >= positives;
  return ((matched + kept) << 1) | (passes ? 1 : 0);
}

/** Bits of the query words that some word of the catalog matches (the others can match nothing), constraints kept. */
function reachableMask(query: WordQuery | null): number {
  if (!query) return 0;
  let mask = 0;
  for (let k = 0; k < consideredWords(query); k++) if (query.ranges[2 * k]! < query.ranges[2 * k + 1]!) mask |= 1 << k;
  return mask & ~query.negated;
}

/** The best grade sum a field can reach: each reachable word at its best grade. */
function reachableGrade(query: WordQuery | null): number {
  if (!query || !query.maxGrade) return 0;
  let total = 0;
  for (let k = 0; k < consideredWords(query); k++) if ((query.negated & (1 << k)) === 0) total += query.maxGrade[k]!;
  return total;
}

/** The text masks no arrangement can exceed for `q`: every query word the vocabulary has, at its best grade, no constraint broken. */
export function bestTextMasks(q: TextQueries): TextMasks {
  return {
    style: reachableMask(q.style),
    instrumentation: reachableMask(q.instrumentation),
    mood: reachableMask(q.mood),
    grade: reachableGrade(q.style) + reachableGrade(q.instrumentation) + reachableGrade(q.mood),
  };
}

/**
 * An upper bound of the ranking key of every arrangement that agrees with arrangement `i` on all
 * columns but duration and words (a bound class, catalog.ts): its judgment with the best duration
 * outcome and `best` (bestTextMasks) as its word matches. Every point and every pass in `judge`
 * only grows with more words matched and a better duration, so no such arrangement ranks higher.
 */
export function boundKey(catalog: ResolveCatalog, i: number, q: ResolveRequest, best: TextMasks): number {
  return judge(catalog, i, q, best, null, true);
}

/** Folded words of record texts, and the word each folded one stands for as the record writes it. */
function writtenWords(texts: readonly string[]): { folded: string[]; written: Map<string, string> } {
  const folded: string[] = [];
  const written = new Map<string, string>();
  for (const text of texts) {
    // '' separates the texts, as in the index (meaning.ts tiers: no phrase spans two).
    if (folded.length > 0) folded.push('');
    for (const raw of text.split(/[^\p{L}\p{N}]+/u)) {
      const f = words(raw)[0];
      if (f === undefined) continue;
      folded.push(f);
      if (!written.has(f)) written.set(f, raw);
    }
  }
  return { folded, written };
}

/**
 * A text requirement in words: how each matched word matched and at what grade (exact, word form,
 * synonym, broader or narrower term, two steps), each constraint kept or broken, and which words
 * matched nothing, so a caller can rephrase. Words are quoted as the request and the record write
 * them.
 */
function textDetail(query: WordQuery, mask: number, what: string, meaning: Meaning, texts: readonly string[]): string {
  const n = consideredWords(query);
  const { folded, written } = writtenWords(texts);
  const tiers = mask !== 0 ? meaning.tiers(folded) : null;
  const how = (i: number) => meaning.explain(query.words[i]!, tiers!, written)?.text ?? 'matches the record';
  const matched: string[] = [];
  const unmatched: string[] = [];
  const constraints: string[] = [];
  let positives = 0;
  for (let i = 0; i < n; i++) {
    const shown = `"${query.shown[i]}"`;
    const hit = (mask & (1 << i)) !== 0;
    if (query.negated & (1 << i)) {
      constraints.push(hit ? `without ${shown}: broken, the record has it (${how(i)})` : `without ${shown}: kept`);
      continue;
    }
    positives++;
    if (hit) matched.push(`${shown}: ${how(i)}`);
    else unmatched.push(shown);
  }
  const parts: string[] = [];
  if (positives > 0)
    parts.push(`${matched.length} of ${positives} word(s) match${matched.length ? ` (${matched.join('; ')})` : ''}`);
  if (constraints.length) parts.push(`constraints: ${constraints.join('; ')}`);
  if (unmatched.length) parts.push(`no match for ${unmatched.join(', ')}`);
  return (
    `${what}: ${parts.join('; ')}` +
    (positives > 0 ? '; at least half must match' : '') +
    (constraints.length ? ', and no constraint broken' : '') +
    '.' +
    (unmatched.length ? ' The words the archive uses are at /api/v1/music/vocabulary.' : '')
  );
}

/** A "like X" requirement in words: which works X named, and what this arrangement shares with them. */
function likeDetail(
  catalog: ResolveCatalog,
  like: LikeQuery,
  i: number,
  closeness: number,
  written: ReadonlyMap<string, string>,
): string {
  const named = like.slugs.slice(0, 3).join(', ') + (like.slugs.length > 3 ? ` and ${like.slugs.length - 3} more` : '');
  const order = catalog.arrangementWork[i]!;
  const same = like.works.includes(order);
  const shared = likeShared(catalog, like, i);
  const aspects = Object.entries(shared).map(
    ([f, list]) =>
      `${f === 'style' ? 'style, genre or period' : f} ${list
        .map(
          (x) =>
            `"${x
              .split(' ')
              .map((w) => written.get(w) ?? w)
              .join(' ')}"`,
        )
        .join(', ')}`,
  );
  return (
    `Like "${like.text}" (${named}): ${same ? 'the same work; ' : ''}` +
    (aspects.length ? `shares ${aspects.join('; ')}` : 'shares no style, instrumentation or mood with it') +
    `; closeness ${closeness} (at least ${LIKE_PASS} to pass, ranked by closeness).`
  );
}

const kindOfBit = (bit: number): AssetKind => ASSET_KINDS[31 - Math.clz32(bit)]!;

/** The judgment in words: one reason per applicable requirement, and the facts for the prepare analysis. */
function explain(
  catalog: ResolveCatalog,
  records: RecordSource,
  i: number,
  q: ResolveRequest,
  j: Judgment,
): { reasons: ResolveReason[]; facts: EvaluationFacts } {
  const { work: w, arrangement: a } = arrangementAt(catalog, records, i);
  const usable = usableAssets(a);
  const usableMask = catalog.cols.usableMask[i]!;
  const reasons: ResolveReason[] = [];
  const facts: EvaluationFacts = {
    failed: new Set(),
    missingFormats: [],
    noUsableFile: false,
    nonApprovedProfiles: [],
    assetsFailingReview: [],
    assetsFailingRights: [],
  };
  const note = (requirement: ResolveReason['requirement'], passed: boolean, detail: string) => {
    reasons.push({ requirement, passed, detail });
    if (!passed) facts.failed.add(requirement);
  };

  note('role', j.roleFit, roleDetail(a, q, j.exact, j.roleFit));

  if (q.formats.length === 0) {
    const any = usableMask !== 0;
    facts.noUsableFile = !any;
    note(
      'required-formats',
      any,
      any
        ? `No formats required; ${bitCount(usableMask)} public format(s) available.`
        : 'No formats required, but the arrangement has no public file to reuse.',
    );
  } else {
    const parts = q.formats.map((f) => {
      const bits = usableMask & f.mask;
      if (bits !== 0) return `${f.format}: ${assetWords(usable.get(kindOfBit(bits & -bits))!)}`;
      facts.missingFormats.push(f);
      return formatGap(a, f);
    });
    note('required-formats', j.formatsPresent === q.formats.length, `${parts.join('; ')}.`);
  }

  if (q.requireMusicXml) {
    note(
      'music-xml',
      j.musicXmlBit !== 0,
      j.musicXmlBit !== 0
        ? `MusicXML score: ${assetWords(usable.get(kindOfBit(j.musicXmlBit))!)}.`
        : `No public MusicXML score; ${formatGap(a, { asSent: 'musicxml', format: 'musicxml', kinds: ['musicxml', 'mxl'], mask: MUSICXML_MASK })}.`,
    );
  }

  if (q.requireApprovedProfile) {
    const listed = a.renderingProfileSlugs.map((slug) => ({
      slug,
      status: catalog.profiles.get(slug)?.status ?? 'unregistered',
    }));
    facts.nonApprovedProfiles = listed.filter((p) => p.status !== 'approved');
    note(
      'approved-rendering-profile',
      j.profilesOk,
      listed.length === 0
        ? 'Uses no rendering profile.'
        : j.profilesOk
          ? `Every rendering profile is approved: ${listed.map((p) => p.slug).join(', ')}.`
          : `Not approved: ${facts.nonApprovedProfiles.map((p) => `${p.slug} (${p.status})`).join(', ')}; only status "approved" counts.`,
    );
  }

  if (q.targetSeconds !== null) {
    const t = q.targetSeconds;
    // Measured beats declared (docs/audio.md); the reason says which it used and shows the other.
    const d = effectiveDurationSeconds(a.durationSeconds, a.assets);
    const m = measuredDuration(a.assets);
    const head = m
      ? `${d} s measured (asset ${m.assetId}${Math.round(m.seconds) !== a.durationSeconds ? `; declared ${a.durationSeconds} s` : ''}) against a target of ${t} s`
      : `${d} s (declared, not measured) against a target of ${t} s`;
    const detail = {
      none: '',
      within: `${head}: within ${durationTolerance(t)} s.`,
      trim: `${head}: longer, and the record says it can be trimmed at marked phrase ends.`,
      loop: `${head}: shorter, and the record says it loops seamlessly (${loopRepeats(d, t)} repeats; at most ${q.maxRepeats} for ${q.role}).`,
      fail: `${head}: ${
        d > t
          ? 'longer, and the record does not say it can be trimmed'
          : a.loopable
            ? `shorter; it loops seamlessly, but would play ${loopRepeats(d, t)} times, more than the ${q.maxRepeats} repeats allowed for ${q.role} (the repetition would be the music)`
            : 'shorter, and the record does not say it loops'
      } (fits within ${durationTolerance(t)} s).`,
    }[j.durationOutcome];
    note('duration', j.durationOutcome !== 'fail', detail);
  }

  // The field's own texts (what the record says), against which each match is explained.
  const m = catalog.meaning;
  const instrumentationText = withoutQualifiers(a.instrumentation);
  const like = (field: 'style' | 'instrumentation' | 'mood') =>
    q.like && q.like.field === field
      ? likeDetail(
          catalog,
          q.like,
          i,
          j.likeCloseness,
          writtenWords([a.style, w.genre, w.period, a.title, instrumentationText, ...a.moods]).written,
        )
      : '';
  const join = (...parts: string[]) => parts.filter(Boolean).join(' ');
  if (q.style || q.like?.field === 'style')
    note(
      'style',
      j.styleOk,
      join(
        q.style ? textDetail(q.style, j.styleMask, `Style "${a.style}"`, m, [a.style, w.genre, w.period, a.title]) : '',
        like('style'),
      ),
    );
  if (q.instrumentation || q.like?.field === 'instrumentation')
    note(
      'instrumentation',
      j.instrumentationOk,
      join(
        q.instrumentation
          ? textDetail(q.instrumentation, j.instrumentationMask, `Instrumentation "${a.instrumentation}"`, m, [
              instrumentationText,
              a.style,
            ])
          : '',
        like('instrumentation'),
      ),
    );
  if (q.mood || q.like?.field === 'mood')
    note(
      'mood',
      j.moodOk,
      join(
        q.mood ? textDetail(q.mood, j.moodMask, `Moods "${a.moods.join(', ')}"`, m, [...a.moods, a.style]) : '',
        like('mood'),
      ),
    );

  const used = [...usable.entries()].filter(([k]) => j.usedMask & KIND_BIT[k]).map(([, asset]) => asset);
  note('composition-rights', j.compositionOk, compositionCheck(w).detail);
  const r = a.rights;
  const edition = catalog.cols.edition[i]!;
  const recording = catalog.cols.recording[i]!;
  note(
    'edition-rights',
    j.editionOk,
    layerDetail(
      'Edition',
      r.edition.status,
      r.edition.note,
      r.license,
      edition === LAYER_NOT_APPLICABLE,
      (j.usedMask & EDITION_MASK) !== 0,
      j.editionOk,
    ),
  );
  note(
    'recording-rights',
    j.recordingOk,
    layerDetail(
      'Recording',
      r.recording.status,
      r.recording.note,
      r.license,
      recording === LAYER_NOT_APPLICABLE,
      (j.usedMask & RECORDING_MASK) !== 0,
      j.recordingOk,
    ),
  );
  facts.assetsFailingRights = used.filter((x) => !(catalog.cols.rightsOkMask[i]! & KIND_BIT[x.kind]));
  note(
    'asset-rights',
    j.assetRightsOk,
    used.length === 0
      ? 'No file would be used.'
      : j.assetRightsOk
        ? used.map((x) => `asset ${x.id}: ${x.rightsStatus}${x.license ? `, ${x.license}` : ''}`).join('; ') + '.'
        : facts.assetsFailingRights
            .map((x) => `asset ${x.id}: rights status "${x.rightsStatus}"${x.license ? '' : ' with no license'}`)
            .join('; ') + '; not cleared for reuse.',
  );
  const state = a.reviewState;
  note(
    'arrangement-review',
    j.arrangementReviewOk,
    state === 'human-listening-approved'
      ? `${REVIEW_STATE_LABELS[state]}: ${REVIEW_STATE_MEANINGS[state]}`
      : state === 'technical-pass'
        ? `${REVIEW_STATE_LABELS[state]}: a technical pass only. ${REVIEW_STATE_MEANINGS[state]} Reuse needs human listening approval.`
        : state === 'rights-review-required'
          ? `${REVIEW_STATE_LABELS[state]}: ${REVIEW_STATE_MEANINGS[state]} Never offered as ready, whatever its files' states.`
          : `${REVIEW_STATE_LABELS[state]}: ${REVIEW_STATE_MEANINGS[state]} Reuse needs human listening approval.`,
  );
  facts.assetsFailingReview = used.filter((x) => !(catalog.cols.reviewOkMask[i]! & KIND_BIT[x.kind]));
  note(
    'asset-review',
    j.assetReviewOk,
    used.length === 0
      ? 'No file would be used.'
      : j.assetReviewOk
        ? used.map((x) => `asset ${x.id} (${x.kind}): ${REVIEW_STATE_LABELS[x.reviewState]}`).join('; ') + '.'
        : facts.assetsFailingReview
            .map((x) =>
              x.reviewState === 'technical-pass'
                ? `asset ${x.id} (${x.kind}) has a technical pass only, which is not listening approval`
                : `asset ${x.id} (${x.kind}) is "${REVIEW_STATE_LABELS[x.reviewState]}"`,
            )
            .join('; ') +
          '. Reuse needs human listening approval for audio (mp3, wav, video) and at least a human review for other files.',
  );
  // The words describe the judgment; they must never tell a different story.
  if (reasons.every((x) => x.passed) !== j.ready)
    throw new Error(`resolve: reasons disagree with readiness for ${w.slug} #${a.id}`);
  return { reasons, facts };
}

/**
 * Judge arrangement `i` and put every verdict into words (for the candidates shown); the words
 * need the arrangement's full record, from `records` (by default the catalog's own, in memory).
 */
export function evaluate(
  catalog: ResolveCatalog,
  i: number,
  q: ResolveRequest,
  records: RecordSource = inMemoryRecords(catalog),
): Evaluation {
  const j = newJudgment();
  judge(catalog, i, q, textMasksOf(catalog, q, i, { style: 0, instrumentation: 0, mood: 0, grade: 0 }), j);
  const { reasons, facts } = explain(catalog, records, i, q, j);
  return {
    ready: j.ready,
    roleFit: j.roleFit,
    musicFit: j.musicFit,
    score: rankScore(j),
    fitScore: j.score,
    grade: j.grade,
    reasons,
    facts,
  };
}

/** Files of the given kinds that exist but cannot be reused (not public, or no link). */
export function unusableAssetsOf(a: ArrangementRecord, kinds: readonly string[]): AssetRecord[] {
  return a.assets.filter((x) => kinds.includes(x.kind) && !isUsable(x));
}
