/**
 * Fit to a runtime and the listen link on every resolve candidate, over the sample
 * catalog built as the build builds it: `fit` for every target, `listen` (a public MP3/WAV or a
 * reason) on every candidate, and measured durations preferred over declared ones in the fit,
 * the duration requirement and the ranking column.
 */
import { describe, expect, it } from 'vitest';
import { buildResolveCatalog } from '../../src/domain/resolve/catalog.ts';
import { resolveMusic } from '../../src/domain/resolve/resolve.ts';
import { catalogRecords } from '../helpers/resolve-fixture.ts';
import { fitOf, listenAsset, measuredDuration, noListenReason } from '../../src/domain/audio/arrangement.ts';
import type { MusicResolveInput } from '../../src/schemas/resolve.ts';
import type { AssetMeasurement } from '../../src/schemas/audio.ts';
import type { WorkRecord } from '../../src/schemas/work.ts';

const BASE = 'https://fit.example.test';
const { records: SAMPLE, profiles: PROFILES, instruments: INSTRUMENTS } = catalogRecords(BASE);
const ctx = { baseUrl: BASE, catalogGeneratedAtUtc: '2026-01-01T00:00:00Z' };

const resolve = (records: WorkRecord[], input: Partial<MusicResolveInput['requirements']>, workSlug?: string) =>
  resolveMusic(
    buildResolveCatalog(records, PROFILES, INSTRUMENTS),
    {
      ...(workSlug ? { workSlug } : {}),
      channel: { channelKey: 'fit-test', intendedRole: 'music-bed' },
      requirements: { requiredFormats: [], ...input },
    } as MusicResolveInput,
    ctx,
  );

function measurement(seconds: number): AssetMeasurement {
  return {
    durationSeconds: seconds,
    sampleRate: 44100,
    channels: 2,
    integratedLufs: -16,
    truePeakDbtp: -1,
    samplePeakDbfs: -1.2,
    loudnessRangeLu: 4,
    maxShortTermLufs: -14,
    sections: [{ startSeconds: 0, endSeconds: seconds, loudnessLufs: -16, level: 'moderate' }],
    quietStretches: [],
    narrationBed: {
      narrationLufs: -23,
      belowNarrationLu: 20,
      gainDb: -29,
      bedIntegratedLufs: -45,
      bedMaxShortTermLufs: -43,
      rule: 'rule',
    },
    method: 'test',
    declared: { durationSeconds: null, integratedLufs: null },
    disagreements: [],
  };
}

describe('fit', () => {
  it('native within max(3 s, 10 %), trim when longer and trimmable, loop when shorter and loopable, else edit', () => {
    expect(fitOf(62, 60, false, false)).toBe('native');
    expect(fitOf(57, 60, false, false)).toBe('native');
    expect(fitOf(100, 60, false, true)).toBe('trim');
    expect(fitOf(100, 60, true, false)).toBe('edit');
    expect(fitOf(18, 60, true, false)).toBe('loop');
    expect(fitOf(18, 60, false, true)).toBe('edit');
    expect(fitOf(600, 300, true, true)).toBe('trim');
  });

  it('is on every candidate when a target is asked, with the delta in seconds; null without a target', () => {
    const r = resolve(SAMPLE, { targetDurationSeconds: 60 });
    expect(r.candidates.length).toBeGreaterThan(3);
    expect(r.candidates.some((c) => c.fit!.durationSource === 'measured')).toBe(true);
    for (const c of r.candidates) {
      expect(c.fit).not.toBeNull();
      expect(c.fit!.targetSeconds).toBe(60);
      // The sample's recordings carry the archive's measurement (scripts/render-sample-audio.ts),
      // so their fit uses it; an arrangement without a recording keeps its declared duration.
      const seconds = c.measuredDurationSeconds ?? c.durationSeconds;
      expect(c.fit!.durationSource).toBe(c.measuredDurationSeconds !== null ? 'measured' : 'declared');
      // A measured duration is reported to a tenth of a second.
      expect(c.fit!.durationSeconds).toBeCloseTo(seconds, c.measuredDurationSeconds !== null ? 1 : 10);
      expect(c.fit!.deltaSeconds).toBeCloseTo(c.fit!.durationSeconds - 60, 1);
      // The kind is judged on the whole seconds the ranking uses.
      expect(c.fit!.kind).toBe(fitOf(Math.max(1, Math.round(seconds)), 60, c.loopable, c.trimmable));
      const duration = c.reasons.find((x) => x.requirement === 'duration')!;
      expect(duration.passed).toBe(c.fit!.kind !== 'edit');
    }
    for (const c of resolve(SAMPLE, {}).candidates) expect(c.fit).toBeNull();
  });
});

describe('measured durations are preferred', () => {
  it('a measurement changes the fit, the duration reason and the ranking, and is shown beside the declared value', () => {
    const records = structuredClone(SAMPLE);
    const canon = records.find((w) => w.slug === 'pachelbel-canon-in-d')!;
    const arr = canon.arrangements.find((a) => a.id === 1)!; // declared 18 s, loopable
    const mp3 = arr.assets.find((a) => a.kind === 'mp3')!;
    mp3.measured = measurement(58.6);
    arr.measuredDurationSeconds = measuredDuration(arr.assets)!.seconds;
    // The same arrangement with only its declared duration (no measurement), for comparison.
    const declaredOnly = structuredClone(SAMPLE);
    const plain = declaredOnly.find((w) => w.slug === 'pachelbel-canon-in-d')!.arrangements.find((a) => a.id === 1)!;
    for (const a of plain.assets) a.measured = null;
    plain.measuredDurationSeconds = null;
    const before = resolve(declaredOnly, { targetDurationSeconds: 60 }, 'pachelbel-canon-in-d').candidates.find(
      (c) => c.arrangementId === 1,
    )!;
    const after = resolve(records, { targetDurationSeconds: 60 }, 'pachelbel-canon-in-d').candidates.find(
      (c) => c.arrangementId === 1,
    )!;
    expect(before.fit).toMatchObject({
      kind: 'loop',
      durationSource: 'declared',
      durationSeconds: 18,
      deltaSeconds: -42,
    });
    expect(before.measuredDurationSeconds).toBeNull();
    expect(after.fit).toMatchObject({
      kind: 'native',
      durationSource: 'measured',
      durationSeconds: 58.6,
      deltaSeconds: -1.4,
    });
    expect(after.durationSeconds).toBe(18);
    expect(after.measuredDurationSeconds).toBe(58.6);
    expect(after.reasons.find((x) => x.requirement === 'duration')!.detail).toBe(
      `59 s measured (asset ${mp3.id}; declared 18 s) against a target of 60 s: within 6 s.`,
    );
    expect(after.score).toBeGreaterThan(before.score); // within tolerance earns more than looping

    // Longer than the target: the record says it can be trimmed.
    mp3.measured = measurement(300);
    const trimmed = resolve(records, { targetDurationSeconds: 60 }, 'pachelbel-canon-in-d').candidates.find(
      (c) => c.arrangementId === 1,
    )!;
    expect(trimmed.fit).toMatchObject({ kind: 'trim', durationSource: 'measured', deltaSeconds: 240 });
    // Without trim or loop marks, a measured duration that misses the target fails the requirement.
    arr.trimmable = false;
    arr.loopable = false;
    const long = resolve(records, { targetDurationSeconds: 60 }, 'pachelbel-canon-in-d').candidates.find(
      (c) => c.arrangementId === 1,
    )!;
    expect(long.fit).toMatchObject({ kind: 'edit', durationSource: 'measured', deltaSeconds: 240 });
    expect(long.reasons.find((x) => x.requirement === 'duration')!.passed).toBe(false);
  });
});

describe('listen', () => {
  it('every candidate has a public MP3/WAV link or a reason why not', () => {
    const r = resolve(SAMPLE, {});
    let linked = 0;
    for (const c of r.candidates) {
      if (c.listen.url) {
        linked++;
        expect(c.listen.reason).toBeNull();
        const asset = c.assets.find((a) => a.id === c.listen.assetId)!;
        expect(asset.access).toBe('public');
        expect(['mp3', 'wav']).toContain(asset.kind);
        expect(c.listen.url).toBe(asset.links.download);
        expect(c.listen.reviewStatus).toBe(asset.reviewStatus);
      } else {
        expect(c.listen.reason).toMatch(/MP3 or WAV|not public|rights review/);
        expect(c.assets.some((a) => a.access === 'public' && (a.kind === 'mp3' || a.kind === 'wav'))).toBe(false);
      }
    }
    expect(linked).toBeGreaterThan(0);
  });

  it('says why: no recording, or a recording that is not public', () => {
    const canon = structuredClone(SAMPLE.find((w) => w.slug === 'pachelbel-canon-in-d')!);
    const assets = canon.arrangements.find((a) => a.id === 1)!.assets;
    expect(listenAsset(assets)?.kind).toBe('mp3');
    const withoutAudio = assets.filter((a) => a.kind !== 'mp3' && a.kind !== 'wav');
    expect(listenAsset(withoutAudio)).toBeNull();
    expect(noListenReason(withoutAudio)).toMatch(/^The arrangement has no MP3 or WAV recording \(files: .*musicxml/);
    const hidden = assets.map((a) => (a.kind === 'mp3' ? { ...a, access: 'admin-only' as const } : a));
    expect(noListenReason(hidden)).toMatch(/is not public \(access admin-only\)/);
    const held = assets.map((a) =>
      a.kind === 'mp3' ? { ...a, access: 'admin-only' as const, reviewState: 'rights-review-required' as const } : a,
    );
    expect(noListenReason(held)).toMatch(/held for rights review/);
  });
});
