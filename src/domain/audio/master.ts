/**
 * Mastering of rendered audio (docs/audio.md, "Rendered from the score"): a gain to the target
 * integrated loudness and a look-ahead peak limiter that keeps the true peak under the ceiling,
 * measured by the archive's own meter (loudness.ts), and 16-bit quantization with a
 * deterministic triangular dither. Pure: samples in, samples out, no clocks, no randomness that
 * differs between runs, so the same render always masters to the same bytes.
 */
import { LoudnessMeter, type LoudnessFigures } from './loudness.ts';

/** What a mastered deliverable aims at: YouTube's normalization level, with headroom for the MP3. */
export interface MasterTarget {
  /** Integrated loudness, LUFS (-14: YouTube normalizes to it and never raises quieter uploads). */
  integratedLufs: number;
  /** The true peak the lossless master may reach, dBTP (under -1 leaves room for the MP3's overshoot). */
  ceilingDbtp: number;
}

export const MASTER_TARGET: MasterTarget = { integratedLufs: -14, ceilingDbtp: -2 };

/** Look-ahead (and attack) of the limiter, seconds: the gain is down before a peak arrives. */
const LOOKAHEAD_SECONDS = 0.0015;
/** Release time constant, seconds. */
const RELEASE_SECONDS = 0.08;
/** Passes of gain and limiting at most (each measures once; two are usually enough, a heavily limited render needs more). */
const MAX_PASSES = 6;
/** How close the integrated loudness must come to the target, LU. */
const LOUDNESS_SLACK_LU = 0.2;

const dbToGain = (db: number) => Math.pow(10, db / 20);

/** The archive's meter over whole channels. */
export function meter(channels: readonly Float32Array[], sampleRate: number): LoudnessFigures {
  const m = new LoudnessMeter(sampleRate, channels.length);
  const n = channels[0]?.length ?? 0;
  const piece = 65536;
  for (let at = 0; at < n; at += piece) m.push(channels.map((c) => c.subarray(at, Math.min(n, at + piece))));
  return m.result();
}

/**
 * A linked stereo look-ahead limiter: every sample of every channel ends at or under `ceiling`
 * (linear sample peak). The gain needed at each sample is the smallest over the next look-ahead
 * window (a sliding minimum), released exponentially, then averaged over the look-ahead window,
 * so it ramps down before a peak instead of stepping (and still reaches the needed gain at the
 * peak: the average of values that are each at most the need there is at most that need).
 * Answers new arrays; the input is not changed.
 */
export function limit(channels: readonly Float32Array[], sampleRate: number, ceiling: number): Float32Array[] {
  const n = channels[0]?.length ?? 0;
  const look = Math.max(1, Math.round(LOOKAHEAD_SECONDS * sampleRate));
  // The gain each sample needs on its own.
  const need = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    let peak = 0;
    for (const c of channels) {
      const a = Math.abs(c[i]!);
      if (a > peak) peak = a;
    }
    need[i] = peak > ceiling ? ceiling / peak : 1;
  }
  // Sliding minimum over [i, i + look - 1] (a monotonic queue of indexes).
  const ahead = new Float32Array(n);
  const queue = new Int32Array(n + 1);
  let head = 0;
  let tail = 0;
  for (let i = n - 1; i >= 0; i--) {
    while (tail > head && need[queue[tail - 1]!]! >= need[i]!) tail--;
    queue[tail++] = i;
    while (queue[head]! > i + look - 1) head++;
    ahead[i] = need[queue[head]!]!;
  }
  // Release: the gain comes back towards 1 no faster than the release constant allows.
  const release = 1 - Math.exp(-1 / (RELEASE_SECONDS * sampleRate));
  let g = 1;
  for (let i = 0; i < n; i++) {
    const back = g + (1 - g) * release;
    g = Math.min(ahead[i]!, back);
    ahead[i] = g;
  }
  // Average over the look-ahead window ending at each sample: a ramp into each peak.
  const out = channels.map(() => new Float32Array(n));
  let sum = 0;
  for (let i = 0; i < n; i++) {
    sum += ahead[i]!;
    if (i >= look) sum -= ahead[i - look]!;
    const gain = sum / Math.min(i + 1, look);
    for (let c = 0; c < channels.length; c++) {
      const v = channels[c]![i]! * gain;
      // Float rounding may leave a sample a hair over: it is held at the ceiling.
      out[c]![i] = v > ceiling ? ceiling : v < -ceiling ? -ceiling : v;
    }
  }
  return out;
}

export interface Mastered {
  channels: Float32Array[];
  /** The gain applied before the limiter, dB. */
  gainDb: number;
  /** The limiter's ceiling (sample peak), dBFS; null when no limiting was needed. */
  limiterCeilingDbfs: number | null;
  /** The archive's measurement of the result. */
  figures: LoudnessFigures;
  passes: number;
}

/**
 * Gain to the target loudness, then limit so the true peak stays under the ceiling; measured
 * after each pass and corrected (the limiter lowers the loudness a little, inter-sample peaks sit
 * a little over the sample peaks). Silence (no gated loudness) is returned as it is.
 */
export function master(
  channels: readonly Float32Array[],
  sampleRate: number,
  target: MasterTarget = MASTER_TARGET,
): Mastered {
  const first = meter(channels, sampleRate);
  if (first.integratedLufs === null)
    return { channels: channels.map((c) => c.slice()), gainDb: 0, limiterCeilingDbfs: null, figures: first, passes: 1 };
  let gainDb = target.integratedLufs - first.integratedLufs;
  let ceilingDb = target.ceilingDbtp - 0.3;
  let best: Mastered | null = null;
  for (let pass = 1; pass <= MAX_PASSES; pass++) {
    const g = dbToGain(gainDb);
    const gained = channels.map((c) => {
      const out = new Float32Array(c.length);
      for (let i = 0; i < c.length; i++) out[i] = c[i]! * g;
      return out;
    });
    let peak = 0;
    for (const c of gained) for (let i = 0; i < c.length; i++) peak = Math.max(peak, Math.abs(c[i]!));
    const needsLimit = 20 * Math.log10(peak) > ceilingDb;
    const limited = needsLimit ? limit(gained, sampleRate, dbToGain(ceilingDb)) : gained;
    const figures = meter(limited, sampleRate);
    best = {
      channels: limited,
      gainDb,
      limiterCeilingDbfs: needsLimit ? ceilingDb : null,
      figures,
      passes: pass,
    };
    const loudnessOff = target.integratedLufs - (figures.integratedLufs ?? target.integratedLufs);
    const peakOver = (figures.truePeakDbtp ?? -Infinity) - target.ceilingDbtp;
    if (Math.abs(loudnessOff) <= LOUDNESS_SLACK_LU && peakOver <= 0) break;
    if (peakOver > 0) ceilingDb -= peakOver + 0.1;
    gainDb += loudnessOff;
  }
  return best!;
}

/**
 * 16-bit little-endian interleaved PCM with triangular dither (two uniform values of a fixed
 * xorshift sequence per sample), so the same samples always give the same bytes.
 */
export function toPcm16(channels: readonly Float32Array[]): Buffer {
  const n = channels[0]?.length ?? 0;
  const out = Buffer.alloc(n * channels.length * 2);
  let s = 0x9e3779b9 >>> 0;
  const next = () => {
    s ^= s << 13;
    s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5;
    s >>>= 0;
    return s / 4294967296;
  };
  let o = 0;
  for (let i = 0; i < n; i++) {
    for (const c of channels) {
      const dither = next() - next();
      const v = Math.round(c[i]! * 32767 + dither);
      out.writeInt16LE(v > 32767 ? 32767 : v < -32768 ? -32768 : v, o);
      o += 2;
    }
  }
  return out;
}

/** Interleaved 16-bit PCM back to channels (what a lossless file decodes to). */
export function fromPcm16(bytes: Uint8Array, channelCount: number): Float32Array[] {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const n = Math.floor(bytes.byteLength / 2 / channelCount);
  const out = Array.from({ length: channelCount }, () => new Float32Array(n));
  for (let i = 0; i < n; i++)
    for (let c = 0; c < channelCount; c++) out[c]![i] = view.getInt16((i * channelCount + c) * 2, true) / 32768;
  return out;
}
