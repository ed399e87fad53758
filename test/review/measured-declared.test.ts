/** Declared against measured at accept (src/domain/review/measured.ts): what counts as declared, per operation. */
import { describe, expect, it } from 'vitest';
import {
  annotateMeasurements,
  assetMeasurement,
  declaredAudio,
  durationSecondsOf,
} from '../../src/domain/review/measured.ts';
import type { MusicContributionInput } from '../../src/schemas/contribution.ts';
import type { AudioMeasurement } from '../../src/schemas/audio.ts';
import type { VerificationEntry } from '../../src/schemas/review.ts';

const audio = (seconds: number, lufs: number | null): AudioMeasurement => ({
  durationSeconds: seconds,
  sampleRate: 44100,
  channels: 2,
  integratedLufs: lufs,
  truePeakDbtp: -1,
  samplePeakDbfs: -1,
  loudnessRangeLu: 3,
  maxShortTermLufs: -12,
  sections: [],
  quietStretches: [],
  narrationBed: {
    narrationLufs: -23,
    belowNarrationLu: 20,
    gainDb: -31,
    bedIntegratedLufs: -45,
    bedMaxShortTermLufs: -43,
    rule: 'r',
  },
  method: 'm',
});

function submission(
  operation: string,
  duration: string | null,
  assets: Array<{ kind: string; loudnessLufs?: number | null }>,
): MusicContributionInput {
  return {
    operation,
    arrangement:
      duration === null
        ? null
        : {
            title: 'x',
            style: null,
            instrumentation: null,
            duration,
            intendedRole: 'music-bed',
            renderingProfileSlugs: [],
          },
    assets: assets.map((a, i) => ({ title: `file ${i}`, ...a })),
  } as unknown as MusicContributionInput;
}

const entry = (index: number, a: AudioMeasurement | null, kind = 'mp3'): VerificationEntry => ({
  index,
  url: 'https://x.test/f',
  declaredSha256: null,
  status: 'verified',
  sha256: 'a'.repeat(64),
  byteLength: 10,
  mediaType: null,
  reason: null,
  checks: { kind: kind as 'mp3', passed: true, summary: 'ok', measurements: {}, audio: a },
});

describe('declared values per operation', () => {
  it('reads m:ss and h:mm:ss', () => {
    expect(durationSecondsOf('1:30')).toBe(90);
    expect(durationSecondsOf('0:19')).toBe(19);
    expect(durationSecondsOf('1:02:03')).toBe(3723);
    expect(durationSecondsOf('90 s')).toBeNull();
    expect(durationSecondsOf(null)).toBeNull();
  });

  it('arrangement: its m:ss; performance: the performed arrangement; others: no duration; loudness from the asset', () => {
    expect(declaredAudio(submission('arrangement', '1:30', [{ kind: 'mp3', loudnessLufs: -16 }]), 0, null)).toEqual({
      durationSeconds: 90,
      integratedLufs: -16,
    });
    expect(declaredAudio(submission('performance', null, [{ kind: 'wav' }]), 0, 240)).toEqual({
      durationSeconds: 240,
      integratedLufs: null,
    });
    expect(declaredAudio(submission('source-score', null, [{ kind: 'mp3' }]), 0, 240)).toEqual({
      durationSeconds: null,
      integratedLufs: null,
    });
  });
});

describe('annotateMeasurements', () => {
  it('warns once per disagreement, leaves agreeing and unmeasured files alone, and lands the measurement beside the declared values', () => {
    const s = submission('performance', null, [
      { kind: 'mp3', loudnessLufs: -14 },
      { kind: 'wav' },
      { kind: 'musicxml' },
      { kind: 'mp3' },
    ]);
    const entries = [entry(0, audio(24, -20)), entry(1, audio(239, -16)), entry(2, null, 'musicxml'), entry(3, null)];
    const { entries: out, warnings } = annotateMeasurements(entries, s, 240);
    expect(warnings).toHaveLength(2);
    expect(warnings[0]).toMatch(
      /^Asset 0 \(mp3, "file 0"\): Declared duration 4:00 \(240 s\) but the file measures 24\.0 s/,
    );
    expect(warnings[1]).toMatch(/^Asset 0 .*Declared integrated loudness -14 LUFS but the file measures -20 LUFS/);
    expect(out[0]!.disagreements!.map((d) => d.field)).toEqual(['duration', 'loudness']);
    expect(out[1]).toMatchObject({ declared: { durationSeconds: 240, integratedLufs: null }, disagreements: [] });
    expect(out[2]).toEqual(entries[2]);
    expect(out[3]).toEqual(entries[3]);
    const landed = assetMeasurement(out[0]);
    expect(landed).toMatchObject({
      durationSeconds: 24,
      integratedLufs: -20,
      declared: { durationSeconds: 240, integratedLufs: -14 },
    });
    expect(landed!.disagreements).toHaveLength(2);
    expect(assetMeasurement(out[2])).toBeNull();
  });
});
