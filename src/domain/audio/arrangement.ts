/**
 * An arrangement's audio as a caller meets it (pure; docs/audio.md): which file to listen to, which
 * measured duration stands for the arrangement, how it fits a requested runtime, and the measured
 * facts in words (records, Markdown, HTML and resolve reasons share these sentences).
 */
import type { MusicRole } from '../../schemas/common.ts';
import type { AssetMeasurement, RenderedAudio } from '../../schemas/audio.ts';

/** The asset fields these rules read (a published AssetRecord has them all). */
export interface AudioAssetView {
  id: number;
  kind: string;
  access: string;
  reviewState: string;
  links: { download: string | null };
  measured?: AssetMeasurement | null;
  /** SHA-256 of the file, when known. */
  sha256?: string | null;
  /** Scores: the audio the archive rendered from it (docs/audio.md, "Rendered from the score"). */
  renderedAudio?: RenderedAudio;
}

type RenderedFile = RenderedAudio['files'][number];

/**
 * An arrangement's audio rendered from its score (docs/audio.md): the first public score of the
 * arrangement whose audio was rendered, a listening-approved one first. What resolve reads of it:
 * the measured length of the whole score, which exact cuts exist, the measured loop, and whether
 * a person approved it after listening.
 */
export interface RenderedView {
  /** The score asset rendered. */
  assetId: number;
  audio: RenderedAudio;
  approved: boolean;
  /** The whole score: its MP3 and FLAC, and its measured length (seconds). */
  master: { mp3: RenderedFile; flac: RenderedFile | null; seconds: number };
  /** Exactly 30 s / 60 s cuts that end on a bar line, by length. */
  cuts: Map<number, { mp3: RenderedFile; flac: RenderedFile | null }>;
  /** The rendered loop and its measured seam; null when none was made. */
  loop: {
    mp3: RenderedFile;
    flac: RenderedFile | null;
    seconds: number;
    seamless: boolean;
    longestSilenceMs: number;
  } | null;
}

export function renderedView(assets: readonly AudioAssetView[]): RenderedView | null {
  let best: RenderedView | null = null;
  for (const a of assets) {
    const audio = a.renderedAudio;
    if ((a.kind !== 'musicxml' && a.kind !== 'mxl') || a.access !== 'public' || audio?.status !== 'rendered') continue;
    const file = (role: string, format: string) => audio.files.find((f) => f.role === role && f.format === format);
    const mp3 = file('master', 'mp3');
    if (!mp3) continue;
    const cuts = new Map<number, { mp3: RenderedFile; flac: RenderedFile | null }>();
    for (const c of audio.cuts) {
      const role = `cut-${c.seconds}`;
      const cutMp3 = file(role, 'mp3');
      if (cutMp3) cuts.set(c.seconds, { mp3: cutMp3, flac: file(role, 'flac') ?? null });
    }
    const loopMp3 = file('loop', 'mp3');
    const view: RenderedView = {
      assetId: a.id,
      audio,
      approved: audio.reviewState === 'human-listening-approved',
      master: { mp3, flac: file('master', 'flac') ?? null, seconds: (file('master', 'flac') ?? mp3).durationSeconds },
      cuts,
      loop:
        audio.loop && loopMp3
          ? {
              mp3: loopMp3,
              flac: file('loop', 'flac') ?? null,
              seconds: audio.loop.seconds,
              seamless: audio.loop.seamless,
              longestSilenceMs: audio.loop.longestSilenceMs,
            }
          : null,
    };
    if (!best || (view.approved && !best.approved)) best = view;
  }
  return best;
}

/** Whole seconds a rendered cut can stand in for: a target within tolerance of an exact cut's length. */
export function cutFor(view: RenderedView | null, target: number): number | null {
  if (!view) return null;
  for (const seconds of view.cuts.keys()) if (Math.abs(seconds - target) <= fitTolerance(target)) return seconds;
  return null;
}

/**
 * The loop's seam as measured on the arrangement's rendered loop: `seamless` (ten plays, no
 * silence over 5 ms), `gap` (a measured silence at the seam), or `not-measured` (no rendered
 * loop). The measurement is of the rendered loop's files: when the arrangement also has a
 * contributed recording that is not one of them (another digest), its seam was never measured.
 */
export function loopSeam(assets: readonly AudioAssetView[]): {
  state: 'seamless' | 'gap' | 'not-measured';
  longestSilenceMs: number | null;
  assetId: number | null;
} {
  const view = renderedView(assets);
  const none = { state: 'not-measured' as const, longestSilenceMs: null, assetId: null };
  if (!view?.loop) return none;
  const loopFiles = new Set([view.loop.mp3.sha256, view.loop.flac?.sha256]);
  const recordings = assets.filter(
    (a) => (LISTENABLE as readonly string[]).includes(a.kind) && a.access === 'public' && a.links.download,
  );
  if (recordings.some((a) => !loopFiles.has(a.sha256 ?? undefined))) return none;
  return {
    state: view.loop.seamless ? 'seamless' : 'gap',
    longestSilenceMs: view.loop.longestSilenceMs,
    assetId: view.assetId,
  };
}

const LISTENABLE = ['mp3', 'wav'] as const;

/**
 * The file a caller may hear: a public MP3 (else WAV) with a download link, the first by asset
 * order. Listening to a file is not reuse: it may still be pending review (the candidate says so).
 */
export function listenAsset<A extends AudioAssetView>(assets: readonly A[]): A | null {
  for (const kind of LISTENABLE) {
    const found = assets.find((a) => a.kind === kind && a.access === 'public' && a.links.download);
    if (found) return found;
  }
  return null;
}

/** Why there is nothing to listen to, in words (null when there is). */
export function noListenReason(assets: readonly AudioAssetView[]): string | null {
  if (listenAsset(assets)) return null;
  const audio = assets.filter((a) => (LISTENABLE as readonly string[]).includes(a.kind));
  if (audio.length === 0) {
    const kinds = [...new Set(assets.map((a) => a.kind))].sort();
    return `The arrangement has no MP3 or WAV recording${kinds.length > 0 ? ` (files: ${kinds.join(', ')})` : ''}; contribute one (operation performance) to make it listenable.`;
  }
  const a = audio[0]!;
  if (a.reviewState === 'rights-review-required')
    return `Its ${a.kind} (asset ${a.id}) is held for rights review (access ${a.access}): not published until a rights reviewer clears it.`;
  return `Its ${a.kind} (asset ${a.id}) is not public (access ${a.access}), so there is no public link to hear it.`;
}

/**
 * The measured duration standing for the arrangement: the listen file's measurement, else the
 * first measured MP3/WAV of the arrangement, else the measured length of the audio rendered from
 * its score (`source` "rendered"); null when nothing was measured (then the declared one is used).
 */
export function measuredDuration(
  assets: readonly AudioAssetView[],
): { seconds: number; assetId: number; source: 'recording' | 'rendered' } | null {
  const listen = listenAsset(assets);
  const measured = listen?.measured
    ? listen
    : assets.find((a) => (LISTENABLE as readonly string[]).includes(a.kind) && a.measured);
  if (measured?.measured)
    return { seconds: measured.measured.durationSeconds, assetId: measured.id, source: 'recording' };
  const rendered = renderedView(assets);
  return rendered ? { seconds: rendered.master.seconds, assetId: rendered.assetId, source: 'rendered' } : null;
}

/** The duration resolve ranks on: measured when measured, else declared (whole seconds, at least 1). */
export function effectiveDurationSeconds(declaredSeconds: number, assets: readonly AudioAssetView[]): number {
  const m = measuredDuration(assets);
  return m ? Math.max(1, Math.round(m.seconds)) : declaredSeconds;
}

export type FitKind = 'native' | 'cut' | 'loop' | 'trim' | 'edit';

/** Within this many seconds of the target (or 10 % of it, if more) a duration fits as is. */
export function fitTolerance(target: number): number {
  return Math.max(3, Math.round(target * 0.1));
}

/**
 * How a piece of `seconds` fits a runtime of `target` seconds: `native` within tolerance; `cut`
 * when an exact rendered cut of the score (30 s or 60 s, ending on a bar line) is within
 * tolerance; `trim` when longer and trimmable at marked phrase ends; `loop` when shorter and
 * loopable (a measured seam with a gap is not); `edit` otherwise (cutting with a fade, or
 * repeating with a crossfade, by the caller's editor).
 */
export function fitOf(
  seconds: number,
  target: number,
  loopable: boolean,
  trimmable: boolean,
  maxRepeats = Number.POSITIVE_INFINITY,
  cut = false,
): FitKind {
  if (Math.abs(seconds - target) <= fitTolerance(target)) return 'native';
  if (cut) return 'cut';
  if (seconds > target && trimmable) return 'trim';
  if (seconds < target && loopable && loopRepeats(seconds, target) <= maxRepeats) return 'loop';
  return 'edit';
}

/** Times a piece of `seconds` plays to fill `target` seconds (1 when it is as long or longer). */
export function loopRepeats(seconds: number, target: number): number {
  return seconds >= target || seconds <= 0 ? 1 : Math.ceil(target / seconds);
}

/**
 * The most repeats of a seamless loop a role accepts before the repetition is the music: a bed
 * under talk hides a short loop longer than a lead the listener follows, and a sleep or ambient
 * lead of hours needs minutes of material, not 758 plays of 19 seconds. Beyond it the loop is an
 * `edit` fit and the `duration` requirement fails (docs/resolve.md, "Fit and listen").
 */
export const MAX_LOOP_REPEATS: Readonly<Record<MusicRole, number>> = {
  'music-bed': 40,
  'music-ambient': 40,
  'music-sleep-lead': 30,
  'music-lead': 8,
  intro: 4,
  outro: 4,
  'short-form': 4,
};

const mmss = (s: number) => `${Math.floor(s / 60)}:${String(Math.round(s) % 60).padStart(2, '0')}`;
const num = (v: number | null, unit: string) => (v === null ? 'n/a' : `${v} ${unit}`);

/** One line of measured facts (Markdown, HTML titles, reasons). */
export function measuredWords(m: AssetMeasurement): string {
  const parts = [
    `${m.durationSeconds.toFixed(1)} s (${mmss(m.durationSeconds)})`,
    m.integratedLufs === null ? 'silent (below -70 LUFS)' : `${m.integratedLufs} LUFS integrated`,
    `true peak ${num(m.truePeakDbtp, 'dBTP')}`,
    `loudness range ${num(m.loudnessRangeLu, 'LU')}`,
    `${m.sections.length} section(s)`,
    `${m.quietStretches.length} quiet stretch(es)`,
    m.narrationBed.gainDb === null
      ? null
      : `as a bed under narration: ${m.narrationBed.gainDb > 0 ? '+' : ''}${m.narrationBed.gainDb} dB`,
  ].filter(Boolean);
  return `Measured: ${parts.join(', ')}.`;
}

/** The declared values and whether they agree, in words. */
export function declaredWords(m: AssetMeasurement): string {
  const d = m.declared;
  const said = [
    d.durationSeconds === null ? null : `duration ${mmss(d.durationSeconds)} (${d.durationSeconds} s)`,
    d.integratedLufs === null ? null : `loudness ${d.integratedLufs} LUFS`,
  ].filter(Boolean);
  if (said.length === 0) return 'Declared: nothing to compare.';
  if (m.disagreements.length === 0) return `Declared: ${said.join(', ')}; agrees with the measurement.`;
  return `Declared: ${said.join(', ')}. Disagrees: ${m.disagreements.map((x) => x.detail).join(' ')}`;
}
