/**
 * Resolve over audio rendered from an arrangement's score (docs/audio.md, "Listening approval";
 * docs/resolve.md, "Rendered audio"): its measured length, its exact cuts and its measured loop
 * drive `fit`; it is offered as the arrangement's MP3 (the cut or loop that fits, with its FLAC
 * and provenance page in the compact answer); and it is `reuse`-ready only once a person approved
 * exactly that audio: the verdict's digest must be the master served. The rendered audio here is
 * built by the records' own function (src/lib/site/audio-record.ts) from a rendering's manifest
 * entry; the real renderer's output is checked in test/build/rendered-audio.slow.test.ts.
 */
import { describe, expect, it } from 'vitest';
import { buildResolveCatalog } from '../../src/domain/resolve/catalog.ts';
import { resolveMusic } from '../../src/domain/resolve/resolve.ts';
import { catalogRecords } from '../helpers/resolve-fixture.ts';
import { compactResolve } from '../../src/domain/resolve/compact.ts';
import { renderedAudioRecord } from '../../src/lib/site/audio-record.ts';
import { listeningState, renderedStatementOf } from '../../src/domain/audio/listening.ts';
import { hex, renderedEntry as entry } from '../helpers/rendered-entry.ts';
import type { ListeningFact } from '../../src/schemas/audio.ts';
import type { MusicResolveInput } from '../../src/schemas/resolve.ts';
import type { ArrangementRecord, WorkRecord } from '../../src/schemas/work.ts';

const BASE = 'https://rendered.example.test';
const { records: SAMPLE, profiles: PROFILES, instruments: INSTRUMENTS } = catalogRecords(BASE);
const ctx = { baseUrl: BASE, catalogGeneratedAtUtc: '2026-01-01T00:00:00Z' };
const SLUG = 'brahms-wiegenlied-op-49-no-4';
const SCORE_ID = 901;

const approvedBy = (sha: string, verdict: ListeningFact['verdict'] = 'approved'): ListeningFact => ({
  verdict,
  audioSha256: sha,
  listener: 'editor-ana',
  atUtc: '2026-12-07T10:00:00Z',
});

/**
 * The sample plus a piano bed of the Wiegenlied with only a score, rendered: calm, music-bed,
 * `seconds` long; recording layer "original-generated-recording" (the archive's own rendering).
 */
function withRenderedBed(
  seconds: number,
  listening: ListeningFact | null,
  options: { loop?: { seamless: boolean; ms: number }; reviewState?: ArrangementRecord['reviewState'] } = {},
): WorkRecord[] {
  const records = structuredClone(SAMPLE);
  const work = records.find((w) => w.slug === SLUG)!;
  const template = work.arrangements[0]!;
  const score = structuredClone(template.assets.find((a) => a.kind === 'musicxml')!);
  score.id = SCORE_ID;
  score.renderedAudio = renderedAudioRecord(entry(seconds, options), BASE, SLUG, SCORE_ID, listening);
  work.arrangements.push({
    ...structuredClone(template),
    id: 90,
    rank: 9,
    title: 'Wiegenlied: rendered piano bed',
    style: 'solo piano, calm',
    instrumentation: 'Piano',
    intendedRole: 'music-bed',
    alsoSuits: [],
    moods: ['calm'],
    loopable: options.loop !== undefined,
    trimmable: false,
    renderingProfileSlugs: [],
    reviewState: options.reviewState ?? 'technical-pass',
    reviewStatus: 'Technical pass (not listening-approved)',
    measuredDurationSeconds: seconds,
    rights: {
      ...template.rights,
      recording: { status: 'original-generated-recording', note: 'Rendered by the archive from the score.' },
      license: 'CC0-1.0',
    },
    assets: [score],
  });
  return records;
}

const brief = (target: number, formats: string[] = ['mp3']): MusicResolveInput =>
  ({
    workSlug: SLUG,
    channel: { channelKey: 'rendered-test', intendedRole: 'music-bed' },
    requirements: { requiredFormats: formats, targetDurationSeconds: target, mood: 'calm', instrumentation: 'piano' },
  }) as MusicResolveInput;

function candidate(records: WorkRecord[], input: MusicResolveInput) {
  const answer = resolveMusic(buildResolveCatalog(records, PROFILES, INSTRUMENTS), input, ctx);
  return { answer, c: answer.candidates.find((x) => x.arrangementId === 90)! };
}

describe('listening verdicts on rendered audio', () => {
  it('approve only the audio they name: another digest counts for nothing, and the words never overstate', () => {
    const served = hex('a');
    expect(listeningState(null, served)).toEqual({ reviewState: 'technical-pass', listening: null });
    const ok = listeningState(approvedBy(served), served);
    expect(ok.reviewState).toBe('human-listening-approved');
    expect(ok.listening).toMatchObject({ current: true, listener: 'editor-ana' });
    const stale = listeningState(approvedBy(hex('f')), served);
    expect(stale.reviewState).toBe('technical-pass');
    expect(stale.listening!.current).toBe(false);
    expect(listeningState(approvedBy(served, 'declined'), served).reviewState).toBe('technical-pass');
    const made = { name: 'FluidSynth', version: '2.3.1' };
    const sf = { name: 'Fluid (R3) General MIDI SoundFont' };
    expect(renderedStatementOf(made, sf, ok.listening)).toMatch(
      /; human-listening-approved: editor-ana listened to this audio/,
    );
    expect(renderedStatementOf(made, sf, stale.listening)).toMatch(
      /technical-pass \(not listening-approved: .*earlier rendering/,
    );
    expect(renderedStatementOf(made, sf, null)).toMatch(
      /technical-pass \(not listening-approved until a person has listened\)/,
    );

    // In the record: the master FLAC's digest decides.
    const approved = renderedAudioRecord(entry(95), BASE, SLUG, SCORE_ID, approvedBy(hex('a')));
    expect(approved.reviewState).toBe('human-listening-approved');
    const other = renderedAudioRecord(entry(95), BASE, SLUG, SCORE_ID, approvedBy(hex('b'))); // the MP3's digest, not the master FLAC's
    expect(other.reviewState).toBe('technical-pass');
  });
});

describe('resolve over rendered audio', () => {
  it('a 60 s brief fits the exact 60 s cut, offers its MP3; not ready until a person approved that audio', () => {
    const { answer, c } = candidate(withRenderedBed(95, null), brief(60));
    expect(c.fit).toMatchObject({ kind: 'cut', durationSource: 'rendered', durationSeconds: 95 });
    expect(c.renderedAudio).toMatchObject({ assetId: SCORE_ID, reviewState: 'technical-pass', fitting: 'cut-60' });
    expect(c.formats).toContainEqual({
      format: 'mp3',
      assetId: SCORE_ID,
      download: `${BASE}/works/${SLUG}/audio/${SCORE_ID}/cut-60.mp3`,
      rendered: true,
    });
    expect(c.reasons.find((r) => r.requirement === 'duration')).toMatchObject({
      passed: true,
      detail: expect.stringContaining('exact 60 s cut that ends on a bar line'),
    });
    expect(c.ready).toBe(false);
    expect(c.reasons.find((r) => r.requirement === 'asset-review')).toMatchObject({
      passed: false,
      detail: expect.stringContaining('the audio rendered from asset 901 (mp3) has a technical pass only'),
    });
    expect(answer.verdict).not.toBe('reuse');
  });

  it('is reuse once a listener approved exactly the served master, with the cut, its FLAC and the provenance page', () => {
    const { answer, c } = candidate(withRenderedBed(95, approvedBy(hex('a'))), brief(60));
    expect(answer.verdict).toBe('reuse');
    expect(answer.candidates[0]!.arrangementId).toBe(90);
    expect(c.ready).toBe(true);
    expect(c.reasons.find((r) => r.requirement === 'arrangement-review')!.detail).toContain(
      'editor-ana listened to exactly that audio',
    );
    const compact = compactResolve(answer, { full: null, vocabulary: `${BASE}/api/v1/music/vocabulary` }, ['mp3']);
    const first = compact.candidates[0]!;
    expect(first.provenance).toBe(`${BASE}/works/${SLUG}/audio/${SCORE_ID}/`);
    expect(first.downloads).toEqual([
      {
        format: 'mp3',
        assetId: SCORE_ID,
        url: `${BASE}/works/${SLUG}/audio/${SCORE_ID}/cut-60.mp3`,
        file: 'cut-60.mp3',
      },
      {
        format: 'flac',
        assetId: SCORE_ID,
        url: `${BASE}/works/${SLUG}/audio/${SCORE_ID}/cut-60.flac`,
        file: 'cut-60.flac',
      },
    ]);
    // A verdict on other audio (an earlier rendering) leaves it not ready.
    expect(candidate(withRenderedBed(95, approvedBy(hex('9'))), brief(60)).c.ready).toBe(false);
    // A declined verdict too.
    expect(candidate(withRenderedBed(95, approvedBy(hex('a'), 'declined')), brief(60)).c.ready).toBe(false);
  });

  it('a target no cut fits is judged on the measured length of the whole score', () => {
    const { c } = candidate(withRenderedBed(95, approvedBy(hex('a'))), brief(180));
    expect(c.fit).toMatchObject({ kind: 'edit', durationSource: 'rendered' });
    expect(c.ready).toBe(false);
    const native = candidate(withRenderedBed(95, approvedBy(hex('a'))), brief(95)).c;
    expect(native.fit!.kind).toBe('native');
    expect(native.renderedAudio!.fitting).toBe('master');
  });

  it('says "seamless" only where the rendered loop was measured seamless; a measured gap is no loop fit', () => {
    const seamless = candidate(
      withRenderedBed(20, approvedBy(hex('a')), { loop: { seamless: true, ms: 0 } }),
      brief(300),
    ).c;
    expect(seamless.fit!.kind).toBe('loop');
    expect(seamless.renderedAudio!.fitting).toBe('loop');
    expect(seamless.reasons.find((r) => r.requirement === 'duration')!.detail).toContain(
      'its rendered loop (asset 901) was measured seamless: ten plays, longest silence 0 ms',
    );
    expect(seamless.formats.find((f) => f.format === 'mp3')!.download).toBe(
      `${BASE}/works/${SLUG}/audio/${SCORE_ID}/loop.mp3`,
    );
    const gap = candidate(
      withRenderedBed(20, approvedBy(hex('a')), { loop: { seamless: false, ms: 29.5 } }),
      brief(300),
    ).c;
    expect(gap.fit!.kind).toBe('edit');
    const detail = gap.reasons.find((r) => r.requirement === 'duration')!;
    expect(detail.passed).toBe(false);
    expect(detail.detail).toContain('29.5 ms of silence at the seam');
    expect(detail.detail).not.toContain('seamless');
  });

  it('measures the seam of the rendered loop only: a contributed recording with other bytes is "not measured"', () => {
    const records = withRenderedBed(20, approvedBy(hex('a')), { loop: { seamless: true, ms: 0 } });
    const arr = records.find((w) => w.slug === SLUG)!.arrangements.find((a) => a.id === 90)!;
    const template = SAMPLE.flatMap((w) => w.arrangements.flatMap((a) => a.assets)).find((x) => x.kind === 'mp3')!;
    const recording = { ...structuredClone(template), id: 902, sha256: hex('7'), measured: null };
    arr.assets.push(recording);
    const c = candidate(records, brief(300)).c;
    const detail = c.reasons.find((r) => r.requirement === 'duration')!.detail;
    expect(detail).toContain('the record marks it loopable (its seam has not been measured)');
    expect(detail).not.toContain('seamless');
    // The same recording with the rendered loop's own bytes is the measured loop.
    recording.sha256 = hex('e');
    expect(candidate(records, brief(300)).c.reasons.find((r) => r.requirement === 'duration')!.detail).toContain(
      'was measured seamless',
    );
  });

  it('never makes an arrangement held for rights review ready, whatever the listener said', () => {
    const held = candidate(
      withRenderedBed(95, approvedBy(hex('a')), { reviewState: 'rights-review-required' }),
      brief(60),
    ).c;
    expect(held.ready).toBe(false);
    expect(held.reasons.find((r) => r.requirement === 'arrangement-review')!.passed).toBe(false);
  });
});
