/**
 * Where a rendered score's timed cuts end (docs/audio.md, "Cuts and loops"): a 30 s or 60 s cut
 * is exactly that long, and its music stops on a bar line of the score (the last one that leaves
 * at least MIN_RING_SECONDS for the instruments' own release and reverb before the cut's end), so
 * the file ends on a finished bar that rings out rather than on a fade into silence. Pure.
 */

/** The cut lengths offered, seconds. */
export const CUT_SECONDS = [30, 60] as const;

/** The least time a cut leaves after its last bar line for the sound to ring out. */
export const MIN_RING_SECONDS = 0.75;

export interface BarLine {
  /** Seconds from the start of the render. */
  seconds: number;
  /** Quarter notes from the start of the score (Verovio's timemap). */
  quarters: number;
  /** Which bar starts there (1 = the second bar of the score: the first bar line). */
  index: number;
}

export interface CutPlan {
  /** The cut's whole length, seconds (exact: the file holds this many seconds of samples). */
  seconds: number;
  /** The bar line the music stops on. */
  bar: BarLine;
}

/**
 * The cut of `seconds` for a score whose bars start at `bars` (bar lines after the start, in
 * order) and whose music lasts `pieceSeconds`: null when the piece is no longer than the cut
 * (the whole render is the deliverable) or no bar line leaves room to ring out.
 */
export function planCut(bars: readonly BarLine[], pieceSeconds: number, seconds: number): CutPlan | null {
  if (pieceSeconds <= seconds) return null;
  let chosen: BarLine | null = null;
  for (const bar of bars) {
    if (bar.seconds <= 0) continue;
    if (bar.seconds > seconds - MIN_RING_SECONDS) break;
    chosen = bar;
  }
  return chosen ? { seconds, bar: chosen } : null;
}

/**
 * Bar lines from Verovio's timemap (entries with `measureOn` mark a bar's start; `tstamp` in ms,
 * `qstamp` in quarter notes): every start after the first, in time order, each once.
 */
export function barLinesOf(timemap: readonly { tstamp?: number; qstamp?: number; measureOn?: string }[]): BarLine[] {
  const out: BarLine[] = [];
  let last = 0;
  for (const e of timemap) {
    if (e.measureOn === undefined || typeof e.tstamp !== 'number' || typeof e.qstamp !== 'number') continue;
    const seconds = e.tstamp / 1000;
    if (seconds <= last) continue;
    last = seconds;
    out.push({ seconds, quarters: e.qstamp, index: out.length + 1 });
  }
  return out;
}

/** Frames of silence (every channel under `threshold`) in the longest run of `channels`: the seam check. */
export function longestSilentRun(channels: readonly Float32Array[], threshold: number): number {
  const n = channels[0]?.length ?? 0;
  let run = 0;
  let longest = 0;
  for (let i = 0; i < n; i++) {
    let quiet = true;
    for (const c of channels)
      if (Math.abs(c[i]!) >= threshold) {
        quiet = false;
        break;
      }
    run = quiet ? run + 1 : 0;
    if (run > longest) longest = run;
  }
  return longest;
}
