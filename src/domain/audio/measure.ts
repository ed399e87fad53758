/**
 * From loudness figures to what a channel producer needs (pure; docs/audio.md):
 *
 *   - sections: stretches of the piece at one loudness level, split at silences and at sustained
 *     level changes (an energy heuristic, not a musical analysis: it finds "quiet opening, full
 *     middle, fade-out", not "theme, variation 1");
 *   - quiet stretches: where the music is quiet enough to speak over without ducking it further;
 *   - a suggested mix level for a bed under narration (NARRATION_BED below, with its sources);
 *   - the comparison of declared values with the measurement (`compareDeclared`).
 */
import { STEP_SECONDS, type LoudnessFigures } from './loudness.ts';

export type SectionLevel = 'silence' | 'quiet' | 'moderate' | 'loud';

export interface AudioSection {
  startSeconds: number;
  endSeconds: number;
  /** Mean-energy loudness of the section (LUFS); null for digital silence. */
  loudnessLufs: number | null;
  /** Relative to the whole piece's integrated loudness: quiet <= -8 LU, loud >= +3 LU, silence below -60 LUFS. */
  level: SectionLevel;
}

export interface QuietStretch {
  startSeconds: number;
  endSeconds: number;
  /** The loudest momentary (400 ms) loudness inside the stretch (LUFS); null for digital silence. */
  maxMomentaryLufs: number | null;
}

export interface NarrationBed {
  /** Loudness the narration is assumed to be mixed at (EBU R128 programme target). */
  narrationLufs: number;
  /** How far under the narration the bed's loudest 3 s sit (WCAG 2 SC 1.4.7: at least 20 dB). */
  belowNarrationLu: number;
  /** Gain to apply to this file (dB, negative = quieter); null for silence. */
  gainDb: number | null;
  /** The bed's integrated loudness after that gain (LUFS). */
  bedIntegratedLufs: number | null;
  /** The bed's loudest short-term (3 s) loudness after that gain (LUFS). */
  bedMaxShortTermLufs: number | null;
  rule: string;
}

export interface AudioMeasurement {
  durationSeconds: number;
  sampleRate: number;
  channels: number;
  integratedLufs: number | null;
  truePeakDbtp: number | null;
  samplePeakDbfs: number | null;
  loudnessRangeLu: number | null;
  maxShortTermLufs: number | null;
  sections: AudioSection[];
  quietStretches: QuietStretch[];
  narrationBed: NarrationBed;
  method: string;
}

/** The rule for the suggested bed level, with its sources (shown in records and docs). */
export const NARRATION_BED = {
  narrationLufs: -23,
  belowNarrationLu: 20,
  rule:
    "Narration at -23 LUFS (EBU R128 programme target); the bed's loudest 3 s (short-term loudness) at least 20 LU under it " +
    '(W3C WCAG 2 success criterion 1.4.7 "Low or No Background Audio": background at least 20 dB below foreground speech). ' +
    'gainDb = -43 LUFS - the loudest short-term loudness.',
} as const;

export const MEASUREMENT_METHOD =
  'ITU-R BS.1770-4 / EBU R128 (integrated, gated), EBU Tech 3342 (LRA), 4x oversampled true peak; archive meter v1';

/** Below this momentary loudness a stretch is silence. */
const SILENCE_LUFS = -60;
/** A section boundary needs this much difference between the 4 s before and after. */
const LEVEL_CHANGE_LU = 6;
const CONTEXT_STEPS = 40;
const MIN_SECTION_STEPS = 40;
const MAX_SECTIONS = 64;
const QUIET_BELOW_LU = 6;
const MIN_QUIET_STEPS = 30;
const MAX_QUIET = 64;

const round = (v: number | null, digits = 1): number | null =>
  v === null || !Number.isFinite(v) ? null : Math.round(v * 10 ** digits) / 10 ** digits;
const energyOf = (lufs: number) => (Number.isFinite(lufs) ? Math.pow(10, (lufs + 0.691) / 10) : 0);
const loudnessOfMean = (sum: number, n: number) => (n > 0 && sum > 0 ? -0.691 + 10 * Math.log10(sum / n) : -Infinity);

/** Step i of the momentary series covers [i * 0.1, i * 0.1 + 0.4) s; its centre is used for times. */
const stepTime = (i: number, duration: number) => Math.min(duration, Math.max(0, i * STEP_SECONDS));

export function measureAudio(f: LoudnessFigures): AudioMeasurement {
  const duration = f.durationSeconds;
  const integrated = f.integratedLufs;
  let maxShort = -Infinity;
  for (const v of f.shortTerm) if (v > maxShort) maxShort = v;
  // Files shorter than 3 s have no short-term value: their loudest momentary block stands in.
  if (f.shortTerm.length === 0) for (const v of f.momentary) if (v > maxShort) maxShort = v;
  const maxShortTerm = Number.isFinite(maxShort) ? maxShort : null;
  const target = NARRATION_BED.narrationLufs - NARRATION_BED.belowNarrationLu;
  const gain = maxShortTerm === null ? null : target - maxShortTerm;
  return {
    durationSeconds: round(duration, 3)!,
    sampleRate: f.sampleRate,
    channels: f.channels,
    integratedLufs: round(integrated),
    truePeakDbtp: round(f.truePeakDbtp),
    samplePeakDbfs: round(f.samplePeakDbfs),
    loudnessRangeLu: round(f.loudnessRangeLu),
    maxShortTermLufs: round(maxShortTerm),
    sections: sections(f.momentary, integrated, duration),
    quietStretches: quietStretches(f.momentary, integrated, duration),
    narrationBed: {
      narrationLufs: NARRATION_BED.narrationLufs,
      belowNarrationLu: NARRATION_BED.belowNarrationLu,
      gainDb: round(gain),
      bedIntegratedLufs: gain === null || integrated === null ? null : round(integrated + gain),
      bedMaxShortTermLufs: gain === null ? null : round(target),
      rule: NARRATION_BED.rule,
    },
    method: MEASUREMENT_METHOD,
  };
}

function levelOf(lufs: number, integrated: number | null): SectionLevel {
  if (!(lufs > SILENCE_LUFS)) return 'silence';
  if (integrated === null) return 'moderate';
  if (lufs <= integrated - 8) return 'quiet';
  if (lufs >= integrated + 3) return 'loud';
  return 'moderate';
}

/**
 * Sections: boundaries where silence (momentary below -60 LUFS) starts or ends, and where the mean
 * loudness of the 4 s after a step differs from the 4 s before by at least 6 LU (the strongest such
 * step of a run); sections shorter than 4 s merge into their neighbour. At most 64 sections.
 */
export function sections(momentary: ArrayLike<number>, integrated: number | null, duration: number): AudioSection[] {
  const n = momentary.length;
  if (n === 0)
    return duration > 0
      ? [{ startSeconds: 0, endSeconds: round(duration, 2)!, loudnessLufs: null, level: 'silence' }]
      : [];
  const energy = Float64Array.from({ length: n }, (_, i) => energyOf(momentary[i]!));
  const prefix = new Float64Array(n + 1);
  for (let i = 0; i < n; i++) prefix[i + 1] = prefix[i]! + energy[i]!;
  const mean = (a: number, b: number) => loudnessOfMean(prefix[b]! - prefix[a]!, b - a);
  const silent = (i: number) => !(momentary[i]! > SILENCE_LUFS);
  const cuts = new Set<number>([0, n]);
  for (let i = 1; i < n; i++) if (silent(i) !== silent(i - 1)) cuts.add(i);
  // Level changes: the step of largest difference within each run of steps over the threshold;
  // one near a silence cut is that cut already (the silence edge wins).
  const silenceCuts = [...cuts];
  const addLevelCut = (i: number) => {
    if (!silenceCuts.some((c) => Math.abs(c - i) < CONTEXT_STEPS && c !== 0 && c !== n)) cuts.add(i);
  };
  let best = -1;
  let bestDiff = 0;
  for (let i = CONTEXT_STEPS; i <= n - CONTEXT_STEPS; i++) {
    const before = mean(i - CONTEXT_STEPS, i);
    const after = mean(i, i + CONTEXT_STEPS);
    // Changes into or out of silence are the silence cuts above, not level changes.
    const diff = before > SILENCE_LUFS && after > SILENCE_LUFS ? Math.abs(after - before) : 0;
    if (diff >= LEVEL_CHANGE_LU) {
      if (diff > bestDiff) {
        best = i;
        bestDiff = diff;
      }
    } else if (best >= 0) {
      addLevelCut(best);
      best = -1;
      bestDiff = 0;
    }
  }
  if (best >= 0) addLevelCut(best);
  let bounds = [...cuts].sort((a, b) => a - b);
  // Merge short pieces into the previous one (the first into the next).
  const merged: number[] = [0];
  for (const b of bounds.slice(1)) {
    if (b - merged[merged.length - 1]! < MIN_SECTION_STEPS && b !== n) continue;
    if (b === n && merged.length > 1 && n - merged[merged.length - 1]! < MIN_SECTION_STEPS) merged.pop();
    merged.push(b);
  }
  bounds = merged.length > MAX_SECTIONS + 1 ? [...merged.slice(0, MAX_SECTIONS), n] : merged;
  const out: AudioSection[] = [];
  for (let k = 0; k + 1 < bounds.length; k++) {
    const a = bounds[k]!;
    const b = bounds[k + 1]!;
    const l = mean(a, b);
    const level = levelOf(l, integrated);
    const start = round(stepTime(a, duration), 2)!;
    const end = round(b === n ? duration : stepTime(b, duration), 2)!;
    const prev = out[out.length - 1];
    if (prev && prev.level === level) {
      // Two neighbours at one level are one section.
      const span =
        (prev.endSeconds - prev.startSeconds) * energyOf(prev.loudnessLufs ?? -Infinity) + (end - start) * energyOf(l);
      prev.endSeconds = end;
      prev.loudnessLufs = round(loudnessOfMean(span, prev.endSeconds - prev.startSeconds));
      continue;
    }
    out.push({ startSeconds: start, endSeconds: end, loudnessLufs: round(Number.isFinite(l) ? l : null), level });
  }
  return out;
}

/**
 * Quiet stretches: at least 3 s where every momentary (400 ms) loudness stays at least 6 LU under
 * the piece's integrated loudness (or is silence): there a narrator is heard over the bed without
 * ducking it further. At most 64, in time order.
 */
export function quietStretches(
  momentary: ArrayLike<number>,
  integrated: number | null,
  duration: number,
): QuietStretch[] {
  const out: QuietStretch[] = [];
  if (integrated === null)
    return duration >= MIN_QUIET_STEPS * STEP_SECONDS
      ? [{ startSeconds: 0, endSeconds: round(duration, 2)!, maxMomentaryLufs: null }]
      : [];
  const limit = integrated - QUIET_BELOW_LU;
  let start = -1;
  let peak = -Infinity;
  const close = (end: number) => {
    if (start >= 0 && end - start >= MIN_QUIET_STEPS && out.length < MAX_QUIET) {
      const last = end === momentary.length ? duration : stepTime(end - 1, duration) + 0.4;
      out.push({
        startSeconds: round(stepTime(start, duration), 2)!,
        endSeconds: round(Math.min(duration, last), 2)!,
        maxMomentaryLufs: round(Number.isFinite(peak) ? peak : null),
      });
    }
    start = -1;
    peak = -Infinity;
  };
  for (let i = 0; i < momentary.length; i++) {
    const v = momentary[i]!;
    if (v <= limit) {
      if (start < 0) start = i;
      if (v > peak) peak = v;
    } else close(i);
  }
  close(momentary.length);
  return out;
}

// ---------------------------------------------------------------------------------------------
// Declared against measured

/** A declared duration may differ from the measurement by max(2 s, 5 %) (declarations are m:ss, files carry lead-in and tails). */
export function durationTolerance(declaredSeconds: number): number {
  return Math.max(2, declaredSeconds * 0.05);
}

/** A declared integrated loudness may differ by this much (LU). */
export const LOUDNESS_TOLERANCE_LU = 1;

export interface DeclaredAudio {
  durationSeconds?: number | null;
  integratedLufs?: number | null;
}

export interface Disagreement {
  field: 'duration' | 'loudness';
  declared: number;
  measured: number | null;
  detail: string;
}

const mmss = (s: number) => `${Math.floor(s / 60)}:${String(Math.round(s % 60)).padStart(2, '0')}`;

/** Declared values that disagree with the measurement, each in words. */
export function compareDeclared(
  declared: DeclaredAudio,
  m: Pick<AudioMeasurement, 'durationSeconds' | 'integratedLufs'>,
): Disagreement[] {
  const out: Disagreement[] = [];
  const d = declared.durationSeconds;
  if (d != null) {
    const tol = durationTolerance(d);
    if (Math.abs(m.durationSeconds - d) > tol) {
      out.push({
        field: 'duration',
        declared: d,
        measured: m.durationSeconds,
        detail: `Declared duration ${mmss(d)} (${d} s) but the file measures ${m.durationSeconds.toFixed(1)} s (${mmss(m.durationSeconds)}); more than ${tol.toFixed(1)} s apart.`,
      });
    }
  }
  const l = declared.integratedLufs;
  if (l != null) {
    if (m.integratedLufs === null) {
      out.push({
        field: 'loudness',
        declared: l,
        measured: null,
        detail: `Declared loudness ${l} LUFS but the file measures as silence (below the -70 LUFS gate).`,
      });
    } else if (Math.abs(m.integratedLufs - l) > LOUDNESS_TOLERANCE_LU) {
      out.push({
        field: 'loudness',
        declared: l,
        measured: m.integratedLufs,
        detail: `Declared integrated loudness ${l} LUFS but the file measures ${m.integratedLufs} LUFS; more than ${LOUDNESS_TOLERANCE_LU} LU apart.`,
      });
    }
  }
  return out;
}
