/**
 * The pure audio measurement (src/domain/audio/): the meter against the EBU's published test
 * signals (Tech 3341 / 3342 cases built in code), true peak between samples, gating, sections,
 * quiet stretches, the narration-bed rule, declared-versus-measured and the WAV / MPEG readers.
 */
import { describe, expect, it } from 'vitest';
import {
  channelWeights,
  integrated,
  kWeighting,
  LoudnessMeter,
  loudnessRange,
} from '../../src/domain/audio/loudness.ts';
import {
  compareDeclared,
  measureAudio,
  NARRATION_BED,
  quietStretches,
  sections,
} from '../../src/domain/audio/measure.ts';
import { mpegChannels } from '../../src/domain/audio/mpeg.ts';
import { readWavFormat, WavError, wavFrames } from '../../src/domain/audio/wav.ts';

const RATE = 48000;

/** A sine of `seconds` at `dbfs` peak level (and phase), as Float32 samples. */
function sine(seconds: number, dbfs: number, freq = 997, rate = RATE, phase = 0): Float32Array {
  const amp = Math.pow(10, dbfs / 20);
  const out = new Float32Array(Math.round(seconds * rate));
  for (let i = 0; i < out.length; i++) out[i] = amp * Math.sin((2 * Math.PI * freq * i) / rate + phase);
  return out;
}

function concat(...parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** Meter a mono or stereo signal, pushed in uneven chunks (so chunk edges are exercised). */
function meter(channels: Float32Array[], rate = RATE) {
  const m = new LoudnessMeter(rate, channels.length);
  const n = channels[0]!.length;
  for (let at = 0, k = 0; at < n; k++) {
    const size = 1000 + ((k * 7919) % 20000);
    m.push(channels.map((c) => c.subarray(at, Math.min(n, at + size))));
    at += size;
  }
  return m.result();
}

describe('loudness meter (BS.1770-4 / EBU R128)', () => {
  it('K-weighting at 48 kHz equals the coefficients printed in BS.1770-4', () => {
    const [shelf, hp] = kWeighting(48000);
    expect(shelf.b0).toBeCloseTo(1.53512485958697, 9);
    expect(shelf.b1).toBeCloseTo(-2.69169618940638, 9);
    expect(shelf.b2).toBeCloseTo(1.19839281085285, 9);
    expect(shelf.a1).toBeCloseTo(-1.69065929318241, 9);
    expect(shelf.a2).toBeCloseTo(0.73248077421585, 9);
    expect(hp.a1).toBeCloseTo(-1.99004745483398, 9);
    expect(hp.a2).toBeCloseTo(0.99007225036621, 9);
  });

  it('EBU Tech 3341 case 1: a 1 kHz stereo sine at -23 dBFS reads -23.0 LUFS; at -33 dBFS, -33.0', () => {
    for (const level of [-23, -33]) {
      const s = sine(20, level, 1000);
      const r = meter([s, s]);
      expect(r.integratedLufs!).toBeCloseTo(level, 1);
      expect(r.loudnessRangeLu!).toBeLessThan(0.1);
      expect(r.durationSeconds).toBe(20);
    }
  });

  it('mono counts once, stereo twice (+3 dB for the same signal in both channels)', () => {
    const s = sine(5, -20);
    const mono = meter([s]).integratedLufs!;
    const stereo = meter([s, s]).integratedLufs!;
    expect(stereo - mono).toBeCloseTo(3.01, 1);
  });

  it('gates: silence around a tone does not lower the integrated loudness, and a quiet tail 20 LU down is gated out relatively', () => {
    const tone = sine(10, -23, 1000);
    const withSilence = meter([concat(new Float32Array(RATE * 10), tone, new Float32Array(RATE * 10))]);
    const alone = meter([tone]);
    // Only the blocks straddling the edges add a little: within 0.2 LU.
    expect(Math.abs(withSilence.integratedLufs! - alone.integratedLufs!)).toBeLessThan(0.2);
    const quietTail = meter([concat(tone, sine(10, -43, 1000))]);
    expect(Math.abs(quietTail.integratedLufs! - alone.integratedLufs!)).toBeLessThan(0.2);
    expect(meter([new Float32Array(RATE * 3)]).integratedLufs).toBeNull();
  });

  it('EBU Tech 3342 case 1: 20 s at -20 dBFS then 20 s at -30 dBFS gives LRA 10 LU', () => {
    const s = concat(sine(20, -20, 1000), sine(20, -30, 1000));
    const r = meter([s, s]);
    expect(r.loudnessRangeLu!).toBeGreaterThan(9.5);
    expect(r.loudnessRangeLu!).toBeLessThan(10.5);
  });

  it('true peak finds the peak between samples: a sine at fs/4 sampled 45 degrees off its crest', () => {
    // Samples land at +-0.707 of the crest: sample peak -3 dB, true peak 0 dB.
    const s = sine(1, -6, RATE / 4, RATE, Math.PI / 4);
    const r = meter([s]);
    expect(r.samplePeakDbfs!).toBeCloseTo(-9.03, 1);
    expect(r.truePeakDbtp!).toBeGreaterThan(-6.6);
    expect(r.truePeakDbtp!).toBeLessThan(-5.6);
  });

  it('works at 44.1 kHz and 22.05 kHz (coefficients derived per rate)', () => {
    for (const rate of [44100, 22050]) {
      const s = sine(10, -23, 1000, rate);
      expect(meter([s, s], rate).integratedLufs!).toBeCloseTo(-23, 0);
    }
  });

  it('weights surround channels and leaves out the LFE', () => {
    expect(channelWeights(2)).toEqual([1, 1]);
    expect(channelWeights(6)).toEqual([1, 1, 1, 0, 1.41, 1.41]);
  });

  it('refuses impossible input', () => {
    expect(() => new LoudnessMeter(1000, 2)).toThrow(RangeError);
    expect(() => new LoudnessMeter(48000, 0)).toThrow(RangeError);
    const m = new LoudnessMeter(48000, 2);
    expect(() => m.push([new Float32Array(10)])).toThrow(/2 channels/);
    expect(() => m.push([new Float32Array(10), new Float32Array(9)])).toThrow(/differ/);
  });

  it('integrated and loudnessRange over block values', () => {
    expect(integrated([-20, -20, -80])).toBeCloseTo(-20, 5);
    expect(integrated([])).toBeNull();
    expect(loudnessRange([-25])).toBeNull();
  });
});

describe('sections, quiet stretches and the narration bed', () => {
  // A piece: 10 s quiet opening (-40 dBFS), 20 s full (-18 dBFS), 5 s silence, 10 s quiet close.
  const piece = concat(sine(10, -40), sine(20, -18), new Float32Array(RATE * 5), sine(10, -40));
  const figures = meter([piece, piece]);
  const m = measureAudio(figures);

  it('splits at level changes and silence, with times in seconds', () => {
    const levels = m.sections.map((s) => s.level);
    // Levels are relative to the whole piece, whose integrated loudness is the full part's.
    expect(levels).toEqual(['quiet', 'moderate', 'silence', 'quiet']);
    const [opening, full, gap, close] = m.sections;
    expect(opening!.startSeconds).toBe(0);
    expect(Math.abs(opening!.endSeconds - 10)).toBeLessThan(0.6);
    expect(Math.abs(full!.endSeconds - 30)).toBeLessThan(0.6);
    expect(gap!.loudnessLufs ?? -Infinity).toBeLessThan(-60);
    expect(Math.abs(gap!.endSeconds - 35)).toBeLessThan(0.6);
    expect(close!.endSeconds).toBe(45);
  });

  it('finds the stretches quiet enough to speak over', () => {
    const q = m.quietStretches;
    // The opening, and the silence with the quiet close (one stretch: nothing loud between them).
    expect(q.length).toBe(2);
    expect(q[0]!.startSeconds).toBe(0);
    expect(Math.abs(q[0]!.endSeconds - 10)).toBeLessThan(0.6);
    expect(q[1]!.startSeconds).toBeGreaterThan(29.5);
    expect(q[1]!.startSeconds).toBeLessThan(30.5);
    expect(q[1]!.endSeconds).toBe(45);
    // A steady piece has none.
    const steady = sine(20, -20);
    expect(quietStretches(meter([steady]).momentary, -23, 20)).toEqual([]);
  });

  it('suggests the bed gain: the loudest 3 s at -43 LUFS (EBU R128 -23 LUFS narration, 20 LU under it per WCAG 1.4.7)', () => {
    const bed = m.narrationBed;
    expect(bed.narrationLufs).toBe(-23);
    expect(bed.belowNarrationLu).toBe(20);
    expect(bed.gainDb!).toBeCloseTo(-43 - m.maxShortTermLufs!, 1);
    expect(bed.bedMaxShortTermLufs).toBe(-43);
    expect(bed.rule).toBe(NARRATION_BED.rule);
    expect(bed.rule).toMatch(/EBU R128/);
    expect(bed.rule).toMatch(/WCAG/);
  });

  it('short and silent inputs give sensible answers', () => {
    expect(sections([], null, 0)).toEqual([]);
    const silent = measureAudio(meter([new Float32Array(RATE * 5)]));
    expect(silent.integratedLufs).toBeNull();
    expect(silent.narrationBed.gainDb).toBeNull();
    expect(silent.sections.map((s) => s.level)).toEqual(['silence']);
    const tiny = measureAudio(meter([sine(0.2, -20)]));
    expect(tiny.durationSeconds).toBe(0.2);
    expect(tiny.integratedLufs).toBeNull();
  });
});

describe('declared against measured', () => {
  it('flags a declared 1:30 whose file measures 24 s', () => {
    const flags = compareDeclared({ durationSeconds: 90 }, { durationSeconds: 24.03, integratedLufs: -16 });
    expect(flags).toHaveLength(1);
    expect(flags[0]!.field).toBe('duration');
    expect(flags[0]!.detail).toMatch(/1:30 \(90 s\).*24\.0 s/);
  });

  it('tolerates m:ss rounding and short tails; flags loudness more than 1 LU off', () => {
    expect(compareDeclared({ durationSeconds: 18 }, { durationSeconds: 18.9, integratedLufs: -16 })).toEqual([]);
    expect(compareDeclared({ durationSeconds: 600 }, { durationSeconds: 625, integratedLufs: -16 })).toEqual([]);
    expect(compareDeclared({ integratedLufs: -16.5 }, { durationSeconds: 10, integratedLufs: -16 })).toEqual([]);
    const loud = compareDeclared({ integratedLufs: -23 }, { durationSeconds: 10, integratedLufs: -14.5 });
    expect(loud.map((f) => f.field)).toEqual(['loudness']);
    expect(compareDeclared({ integratedLufs: -23 }, { durationSeconds: 10, integratedLufs: null })[0]!.detail).toMatch(
      /silence/,
    );
  });
});

describe('readers', () => {
  function wav(channels: number, bits: number, float: boolean, frames: number[][]): Uint8Array {
    const width = bits / 8;
    const data = Buffer.alloc(frames.length * channels * width);
    let at = 0;
    for (const f of frames) {
      for (const v of f) {
        if (float) data.writeFloatLE(v, at);
        else if (bits === 16) data.writeInt16LE(Math.round(v * 32767), at);
        else if (bits === 24) data.writeIntLE(Math.round(v * 8388607), at, 3);
        at += width;
      }
    }
    const fmt = Buffer.alloc(24);
    fmt.write('fmt ', 0);
    fmt.writeUInt32LE(16, 4);
    fmt.writeUInt16LE(float ? 3 : 1, 8);
    fmt.writeUInt16LE(channels, 10);
    fmt.writeUInt32LE(8000, 12);
    fmt.writeUInt32LE(8000 * channels * width, 16);
    fmt.writeUInt16LE(channels * width, 20);
    fmt.writeUInt16LE(bits, 22);
    const list = Buffer.from('LIST\x04\x00\x00\x00abcd', 'latin1');
    const head = Buffer.alloc(8);
    head.write('data', 0);
    head.writeUInt32LE(data.length, 4);
    const riff = Buffer.alloc(12);
    riff.write('RIFF', 0);
    riff.writeUInt32LE(4 + fmt.length + list.length + head.length + data.length, 4);
    riff.write('WAVE', 8);
    return new Uint8Array(Buffer.concat([riff, fmt, list, head, data]));
  }

  it('reads 16-bit, 24-bit and float WAV, skipping other chunks', () => {
    for (const [bits, float] of [
      [16, false],
      [24, false],
      [32, true],
    ] as const) {
      const bytes = wav(2, bits, float, [
        [0.5, -0.5],
        [0.25, 0],
        [-1, 1],
      ]);
      const f = readWavFormat(bytes);
      expect(f).toMatchObject({ channels: 2, sampleRate: 8000, bitsPerSample: bits, float, frames: 3 });
      const [l, r] = wavFrames(bytes, f, 1, 5);
      expect(l!.length).toBe(2);
      expect(l![0]).toBeCloseTo(0.25, 3);
      expect(r![1]).toBeCloseTo(1, 3);
    }
  });

  it('refuses what is not WAVE PCM', () => {
    expect(() => readWavFormat(new TextEncoder().encode('ID3 not a wav file'))).toThrow(WavError);
    const bad = wav(1, 16, false, [[0]]);
    bad[20] = 2; // ADPCM
    expect(() => readWavFormat(bad)).toThrow(/not PCM/);
  });

  it('reads the channel mode of an MPEG frame header after an ID3v2 tag', () => {
    const id3 = [0x49, 0x44, 0x33, 4, 0, 0, 0, 0, 0, 2, 0, 0];
    const frame = (mode: number) => [0xff, 0xfb, 0x90, mode << 6];
    expect(mpegChannels(new Uint8Array([...id3, ...frame(3), 0, 0, 0, 0]))).toBe(1);
    expect(mpegChannels(new Uint8Array([...id3, ...frame(1), 0, 0, 0, 0]))).toBe(2);
    expect(mpegChannels(new Uint8Array([1, 2, 3, 4, 5, 6]))).toBeNull();
  });
});
