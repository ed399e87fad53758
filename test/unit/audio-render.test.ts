/**
 * The pure parts of rendered audio (docs/audio.md, "Rendered from the score"): mastering to
 * -14 LUFS under a true-peak ceiling (src/domain/audio/master.ts), MIDI cuts, repetitions and the
 * tempo map (src/domain/audio/smf.ts), and where a timed cut ends (src/domain/audio/cuts.ts).
 */
import { describe, expect, it } from 'vitest';
import { limit, master, meter, toPcm16, fromPcm16 } from '../../src/domain/audio/master.ts';
import {
  cutAt,
  lastTick,
  parseSmf,
  repeated,
  secondsAt,
  writeSmf,
  SmfError,
  type Smf,
} from '../../src/domain/audio/smf.ts';
import { barLinesOf, longestSilentRun, planCut } from '../../src/domain/audio/cuts.ts';

const RATE = 48000;

/** Stereo decaying "piano-like" tones with sharp attacks: a high crest factor, as a real render has. */
function plucks(seconds: number, level: number): Float32Array[] {
  const n = Math.round(seconds * RATE);
  const l = new Float32Array(n);
  const r = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    const t = i / RATE;
    const since = t % 1;
    const env = Math.exp(-since * 25);
    const f = 220 * (1 + (Math.floor(t / 0.5) % 4));
    l[i] = level * env * Math.sin(2 * Math.PI * f * t);
    r[i] = level * env * Math.sin(2 * Math.PI * f * 1.5 * t);
  }
  return [l, r];
}

describe('mastering', () => {
  it('brings a quiet render to -14 LUFS with its true peak under the ceiling, measured by the archive meter', () => {
    const quiet = plucks(12, 0.05);
    expect(meter(quiet, RATE).integratedLufs!).toBeLessThan(-30);
    const m = master(quiet, RATE);
    expect(Math.abs(m.figures.integratedLufs! - -14)).toBeLessThanOrEqual(0.5);
    expect(m.figures.truePeakDbtp!).toBeLessThanOrEqual(-2);
    // Reaching -14 LUFS needed the limiter (the plucks' crest is too high for gain alone).
    expect(m.limiterCeilingDbfs).not.toBeNull();
  });

  it('limits every sample to the ceiling and ramps into a peak instead of stepping', () => {
    const n = RATE;
    const x = new Float32Array(n).fill(0.1);
    x[RATE / 2] = 1;
    const [y] = limit([x], RATE, 0.5);
    let peak = 0;
    for (const v of y!) peak = Math.max(peak, Math.abs(v));
    expect(peak).toBeLessThanOrEqual(0.5);
    // Before the peak the gain comes down over the look-ahead, sample by sample.
    const before = y!.slice(RATE / 2 - 72, RATE / 2);
    for (let i = 1; i < before.length; i++) expect(before[i]!).toBeLessThanOrEqual(before[i - 1]! + 1e-9);
    // Far from it the signal is untouched.
    expect(y![100]).toBeCloseTo(0.1, 6);
  });

  it('quantizes to 16 bits with a dither that is the same on every run', () => {
    const s = plucks(0.2, 0.3);
    const a = toPcm16(s);
    expect(Buffer.compare(a, toPcm16(s))).toBe(0);
    const back = fromPcm16(a, 2);
    for (let i = 0; i < 1000; i++) expect(Math.abs(back[0]![i]! - s[0]![i]!)).toBeLessThan(3 / 32768);
  });
});

/** A one-track file: a tempo of 0.5 s per quarter (120 qpm) then 1 s, and three notes. */
function smf(): Smf {
  const t = (tick: number, ...bytes: number[]) => ({ tick, bytes: Uint8Array.from(bytes) });
  return {
    format: 1,
    division: 480,
    tracks: [
      [
        t(0, 0xff, 0x51, 3, 0x07, 0xa1, 0x20),
        t(0, 0xc0, 0),
        t(0, 0x90, 60, 80),
        t(480, 0x80, 60, 64),
        t(480, 0x90, 64, 80),
        t(960, 0xff, 0x51, 3, 0x0f, 0x42, 0x40),
        t(1440, 0x80, 64, 64),
        t(1440, 0x90, 67, 80),
        t(1920, 0x80, 67, 64),
        t(1920, 0xff, 0x2f, 0),
      ],
    ],
  };
}

describe('MIDI files', () => {
  it('round-trips through bytes, with running status expanded', () => {
    const bytes = writeSmf(smf());
    const back = parseSmf(bytes);
    expect(back.division).toBe(480);
    expect(back.tracks[0]!.map((e) => e.tick)).toEqual(smf().tracks[0]!.map((e) => e.tick));
    expect(() => parseSmf(new Uint8Array([1, 2, 3]))).toThrow(SmfError);
    // Running status: 90 3C 50, then 3C 00 with no status byte.
    const running = Uint8Array.from([
      ...[0x4d, 0x54, 0x68, 0x64, 0, 0, 0, 6, 0, 0, 0, 1, 0x01, 0xe0],
      ...[0x4d, 0x54, 0x72, 0x6b, 0, 0, 0, 11],
      ...[0x00, 0x90, 0x3c, 0x50, 0x60, 0x3c, 0x00, 0x00, 0xff, 0x2f, 0x00],
    ]);
    const parsed = parseSmf(running);
    expect([...parsed.tracks[0]![1]!.bytes]).toEqual([0x90, 0x3c, 0x00]);
  });

  it('reads seconds through the tempo map', () => {
    const s = smf();
    expect(secondsAt(s, 960)).toBeCloseTo(1, 9); // two quarters at 0.5 s
    expect(secondsAt(s, 1920)).toBeCloseTo(3, 9); // then two at 1 s
  });

  it('cuts at a tick: nothing starts after it and what sounds is released there', () => {
    const cut = cutAt(smf(), 1000);
    const events = cut.tracks[0]!;
    expect(events.some((e) => e.bytes[0] === 0x90 && e.bytes[1] === 67)).toBe(false);
    const off64 = events.find((e) => e.bytes[0] === 0x80 && e.bytes[1] === 64)!;
    expect(off64.tick).toBe(1000);
    expect(lastTick(cut)).toBe(1000);
  });

  it('repeats end to end with the tempo repeated, so every period lasts as long', () => {
    const three = repeated(smf(), 1920, 3);
    expect(secondsAt(three, 1920)).toBeCloseTo(3, 9);
    expect(secondsAt(three, 3840) - secondsAt(three, 1920)).toBeCloseTo(3, 9);
    expect(three.tracks[0]!.filter((e) => e.bytes[0] === 0x90).length).toBe(9);
  });
});

describe('cuts and seams', () => {
  const bars = barLinesOf(
    Array.from({ length: 40 }, (_, i) => ({ tstamp: i * 2000, qstamp: i * 4, measureOn: `m${i}` })),
  );

  it('ends a 30 s cut on the last bar line that leaves time to ring out', () => {
    expect(bars[0]).toEqual({ seconds: 2, quarters: 4, index: 1 });
    expect(planCut(bars, 80, 30)).toEqual({ seconds: 30, bar: { seconds: 28, quarters: 56, index: 14 } });
    expect(planCut(bars, 80, 60)!.bar.seconds).toBe(58);
    // A piece no longer than the cut needs none.
    expect(planCut(bars, 25, 30)).toBeNull();
  });

  it('finds the longest silent run', () => {
    const x = new Float32Array(1000).fill(0.5);
    x.fill(0, 100, 340);
    expect(longestSilentRun([x], 0.001)).toBe(240);
  });
});
