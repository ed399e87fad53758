/**
 * Loudness metering after ITU-R BS.1770-4 and EBU R128 / EBU Tech 3341-3342, as a streaming meter:
 * PCM is pushed in chunks and only one energy value per 100 ms is kept, so a ten-minute file costs
 * about 6,000 numbers, not its samples.
 *
 *   - K-weighting: the two BS.1770 biquads (high shelf, then high pass), with coefficients derived
 *     for any sample rate by the bilinear transform of the analogue prototypes (as libebur128 does;
 *     at 48 kHz they equal the coefficients printed in BS.1770).
 *   - Momentary loudness: 400 ms blocks every 100 ms (75 % overlap); short-term: 3 s every 100 ms.
 *   - Integrated loudness: mean energy of the momentary blocks above the absolute gate (-70 LUFS)
 *     and above the relative gate (10 LU under the absolutely gated mean).
 *   - Loudness range (EBU Tech 3342): short-term values above -70 LUFS and above 20 LU under their
 *     mean energy; LRA = 95th minus 10th percentile.
 *   - True peak: 4x oversampling (polyphase windowed-sinc interpolator, 12 taps per phase as in
 *     BS.1770-4 Annex 2) below 96 kHz, 2x up to 192 kHz; the largest absolute interpolated value.
 *
 * Channel weights: 1 for mono and stereo; for six channels (L R C LFE Ls Rs) the LFE is left out and
 * the surrounds weigh 1.41. Pure: no I/O; `measure.ts` turns the figures into a measurement.
 */

export interface LoudnessFigures {
  sampleRate: number;
  channels: number;
  /** Frames pushed (samples per channel). */
  frames: number;
  durationSeconds: number;
  /** Integrated loudness (LUFS); null when every block is below the absolute gate (silence). */
  integratedLufs: number | null;
  /** Loudness range (LU); null when fewer than two short-term values pass the gates. */
  loudnessRangeLu: number | null;
  /** True peak (dBTP); null for digital silence. */
  truePeakDbtp: number | null;
  /** Sample peak (dBFS); null for digital silence. */
  samplePeakDbfs: number | null;
  /** Momentary loudness (400 ms window) ending at each 100 ms step, from 0.4 s on (LUFS, -Infinity for silence). */
  momentary: Float64Array;
  /** Short-term loudness (3 s window) ending at each 100 ms step, from 3 s on (LUFS). */
  shortTerm: Float64Array;
}

export const STEP_SECONDS = 0.1;
const ABSOLUTE_GATE = -70;

interface Biquad {
  b0: number;
  b1: number;
  b2: number;
  a1: number;
  a2: number;
}

/** The two K-weighting stages for a sample rate (libebur128's derivation of the BS.1770 filters). */
export function kWeighting(sampleRate: number): [Biquad, Biquad] {
  let f0 = 1681.974450955533;
  const G = 3.999843853973347;
  let Q = 0.7071752369554196;
  let K = Math.tan((Math.PI * f0) / sampleRate);
  const Vh = Math.pow(10, G / 20);
  const Vb = Math.pow(Vh, 0.4996667741545416);
  let a0 = 1 + K / Q + K * K;
  const shelf: Biquad = {
    b0: (Vh + (Vb * K) / Q + K * K) / a0,
    b1: (2 * (K * K - Vh)) / a0,
    b2: (Vh - (Vb * K) / Q + K * K) / a0,
    a1: (2 * (K * K - 1)) / a0,
    a2: (1 - K / Q + K * K) / a0,
  };
  f0 = 38.13547087602444;
  Q = 0.5003270373238773;
  K = Math.tan((Math.PI * f0) / sampleRate);
  a0 = 1 + K / Q + K * K;
  const highPass: Biquad = { b0: 1, b1: -2, b2: 1, a1: (2 * (K * K - 1)) / a0, a2: (1 - K / Q + K * K) / a0 };
  return [shelf, highPass];
}

/** BS.1770 channel weights for a channel count (see the file comment). */
export function channelWeights(channels: number): number[] {
  if (channels === 6) return [1, 1, 1, 0, 1.41, 1.41];
  if (channels === 5) return [1, 1, 1, 1.41, 1.41];
  return Array.from({ length: channels }, () => 1);
}

const TAPS_PER_PHASE = 12;

/** Polyphase interpolation filter: `factor` phases of TAPS_PER_PHASE taps (Hann-windowed sinc). */
function interpolator(factor: number): Float64Array[] {
  const length = factor * TAPS_PER_PHASE;
  const centre = (length - 1) / 2;
  const phases = Array.from({ length: factor }, () => new Float64Array(TAPS_PER_PHASE));
  for (let i = 0; i < length; i++) {
    const x = (i - centre) / factor;
    const sinc = x === 0 ? 1 : Math.sin(Math.PI * x) / (Math.PI * x);
    const window = 0.5 - 0.5 * Math.cos((2 * Math.PI * (i + 0.5)) / length);
    phases[i % factor]![Math.floor(i / factor)] = sinc * window;
  }
  // Each phase sums to 1, so a constant signal keeps its level.
  for (const p of phases) {
    const sum = p.reduce((s, v) => s + v, 0);
    for (let j = 0; j < p.length; j++) p[j]! /= sum;
  }
  return phases;
}

export class LoudnessMeter {
  readonly sampleRate: number;
  readonly channels: number;
  private readonly weights: number[];
  private readonly stages: [Biquad, Biquad];
  /** Filter state per channel: x1 x2 y1 y2 of stage one, then of stage two. */
  private readonly state: Float64Array[];
  private readonly history: Float64Array[];
  /** Interpolation coefficients, phase after phase (TAPS_PER_PHASE each); null without oversampling. */
  private readonly phases: Float64Array | null;
  private frames = 0;
  /** Weighted energy (sum of squares) of each finished 100 ms step, and its frame count. */
  private stepEnergy: number[] = [];
  private stepFrames: number[] = [];
  private currentEnergy = 0;
  private currentFrames = 0;
  private nextBoundary: number;
  private truePeak = 0;
  private samplePeak = 0;

  constructor(sampleRate: number, channels: number) {
    if (!(sampleRate >= 8000 && sampleRate <= 384000))
      throw new RangeError(`sample rate ${sampleRate} Hz is outside 8 kHz to 384 kHz`);
    if (!(channels >= 1 && channels <= 8)) throw new RangeError(`${channels} channels: 1 to 8 are measured`);
    this.sampleRate = sampleRate;
    this.channels = channels;
    this.weights = channelWeights(channels);
    this.stages = kWeighting(sampleRate);
    this.state = Array.from({ length: channels }, () => new Float64Array(8));
    this.history = Array.from({ length: channels }, () => new Float64Array(TAPS_PER_PHASE));
    const factor = sampleRate < 96000 ? 4 : sampleRate <= 192000 ? 2 : 1;
    this.phases = factor > 1 ? Float64Array.from(interpolator(factor).flatMap((p) => [...p])) : null;
    this.nextBoundary = this.boundary(1);
  }

  private boundary(step: number): number {
    return Math.round(step * STEP_SECONDS * this.sampleRate);
  }

  /** Push one chunk: one Float32Array per channel, all of the same length, samples in [-1, 1]. */
  push(channelData: readonly Float32Array[]): void {
    if (channelData.length !== this.channels)
      throw new RangeError(`expected ${this.channels} channels, got ${channelData.length}`);
    const n = channelData[0]!.length;
    if (channelData.some((c) => c.length !== n)) throw new RangeError('channels of one chunk differ in length');
    // K-weighted squares, summed over channels with their weights, frame by frame.
    const energy = new Float64Array(n);
    const [s1, s2] = this.stages;
    for (let c = 0; c < this.channels; c++) {
      const w = this.weights[c]!;
      const x = channelData[c]!;
      const st = this.state[c]!;
      let [x1, x2, y1, y2, u1, u2, z1, z2] = st as unknown as number[];
      let peak = this.samplePeak;
      for (let i = 0; i < n; i++) {
        const v = x[i]!;
        const a = Math.abs(v);
        if (a > peak) peak = a;
        const y = s1.b0 * v + s1.b1 * x1! + s1.b2 * x2! - s1.a1 * y1! - s1.a2 * y2!;
        x2 = x1;
        x1 = v;
        y2 = y1;
        y1 = y;
        const z = s2.b0 * y + s2.b1 * u1! + s2.b2 * u2! - s2.a1 * z1! - s2.a2 * z2!;
        u2 = u1;
        u1 = y;
        z2 = z1;
        z1 = z;
        if (w !== 0) energy[i]! += w * z * z;
      }
      this.samplePeak = peak;
      st.set([x1!, x2!, y1!, y2!, u1!, u2!, z1!, z2!]);
      this.interpolatePeak(c, x);
    }
    for (let i = 0; i < n; i++) {
      this.currentEnergy += energy[i]!;
      this.currentFrames++;
      this.frames++;
      if (this.frames === this.nextBoundary) {
        this.stepEnergy.push(this.currentEnergy);
        this.stepFrames.push(this.currentFrames);
        this.currentEnergy = 0;
        this.currentFrames = 0;
        this.nextBoundary = this.boundary(this.stepEnergy.length + 1);
      }
    }
  }

  private interpolatePeak(c: number, x: Float32Array): void {
    let peak = this.truePeak;
    if (!this.phases) {
      for (let i = 0; i < x.length; i++) peak = Math.max(peak, Math.abs(x[i]!));
      this.truePeak = peak;
      return;
    }
    const h = this.history[c]!;
    const taps = TAPS_PER_PHASE;
    const coef = this.phases;
    const factor = coef.length / taps;
    // Input with the previous chunk's last samples in front, so the filter runs across chunks.
    const buf = new Float64Array(taps + x.length);
    buf.set(h);
    buf.set(x, taps);
    for (let i = taps; i < buf.length; i++) {
      for (let p = 0; p < factor; p++) {
        const o = p * taps;
        let acc = 0;
        for (let k = 0; k < taps; k++) acc += coef[o + k]! * buf[i - k]!;
        if (acc > peak) peak = acc;
        else if (-acc > peak) peak = -acc;
      }
    }
    this.truePeak = peak;
    h.set(buf.subarray(buf.length - taps));
  }

  /** Loudness of the windows of `stepsPerWindow` steps ending at each step (first at the window's length). */
  private windows(stepsPerWindow: number): Float64Array {
    const count = Math.max(0, this.stepEnergy.length - stepsPerWindow + 1);
    const out = new Float64Array(count);
    let e = 0;
    let f = 0;
    for (let i = 0; i < this.stepEnergy.length; i++) {
      e += this.stepEnergy[i]!;
      f += this.stepFrames[i]!;
      if (i >= stepsPerWindow) {
        e -= this.stepEnergy[i - stepsPerWindow]!;
        f -= this.stepFrames[i - stepsPerWindow]!;
      }
      if (i >= stepsPerWindow - 1) out[i - stepsPerWindow + 1] = loudnessOf(Math.max(0, e) / f);
    }
    return out;
  }

  result(): LoudnessFigures {
    const momentary = this.windows(4);
    const shortTerm = this.windows(30);
    return {
      sampleRate: this.sampleRate,
      channels: this.channels,
      frames: this.frames,
      durationSeconds: this.frames / this.sampleRate,
      integratedLufs: integrated(momentary),
      loudnessRangeLu: loudnessRange(shortTerm),
      truePeakDbtp: this.truePeak > 0 ? 20 * Math.log10(Math.max(this.truePeak, this.samplePeak)) : null,
      samplePeakDbfs: this.samplePeak > 0 ? 20 * Math.log10(this.samplePeak) : null,
      momentary,
      shortTerm,
    };
  }
}

/** BS.1770 loudness of a mean weighted energy. */
export function loudnessOf(meanEnergy: number): number {
  return meanEnergy > 0 ? -0.691 + 10 * Math.log10(meanEnergy) : -Infinity;
}

const energyOf = (lufs: number) => Math.pow(10, (lufs + 0.691) / 10);

function meanEnergyLoudness(values: Iterable<number>): number | null {
  let sum = 0;
  let n = 0;
  for (const v of values) {
    sum += energyOf(v);
    n++;
  }
  return n > 0 ? loudnessOf(sum / n) : null;
}

/** Integrated loudness from momentary block loudnesses (absolute, then relative gate). */
export function integrated(blocks: ArrayLike<number>): number | null {
  const above = Array.from(blocks).filter((l) => l > ABSOLUTE_GATE);
  const ungated = meanEnergyLoudness(above);
  if (ungated === null) return null;
  const relative = ungated - 10;
  return meanEnergyLoudness(above.filter((l) => l > relative));
}

/** Loudness range (EBU Tech 3342) from short-term loudnesses. */
export function loudnessRange(shortTerm: ArrayLike<number>): number | null {
  const above = Array.from(shortTerm).filter((l) => l > ABSOLUTE_GATE);
  const mean = meanEnergyLoudness(above);
  if (mean === null) return null;
  const gated = above.filter((l) => l > mean - 20).sort((a, b) => a - b);
  if (gated.length < 2) return null;
  const at = (q: number) => gated[Math.min(gated.length - 1, Math.max(0, Math.round(q * (gated.length - 1))))]!;
  return at(0.95) - at(0.1);
}
