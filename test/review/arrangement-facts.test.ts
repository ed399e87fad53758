/**
 * The pure proposal builders: an arrangement lands with what the contributor
 * declared for resolve (moods, roles, loop/trim, sections), each fact the editor set replacing
 * it; target.arrangementId adds files to an existing arrangement; a metadata revision sets aliases;
 * a file whose archive checks passed lands technical-pass.
 */
import { describe, expect, it } from 'vitest';
import { buildContributionChange, landedState, ProposalError, type Data } from '../../src/domain/review/proposal.ts';
import type { MusicContributionInput } from '../../src/schemas/contribution.ts';
import { GYMNOPEDIE_TEXT, gymnopedie, proposalInput } from './proposal-input.ts';

const text = GYMNOPEDIE_TEXT;
const work = gymnopedie;
const H = 'b'.repeat(64);

const arrangementSubmission = (over: Partial<MusicContributionInput> = {}): MusicContributionInput => ({
  schemaVersion: 'archive.music-contribution.v1',
  operation: 'arrangement',
  idempotencyKey: 'facts-test-key-1',
  submittedBy: { name: 'Ada', kind: 'AiAssisted' },
  target: { workSlug: 'satie-gymnopedie-1' },
  rights: {
    compositionStatus: 'public-domain',
    editionStatus: 'original-contribution',
    recordingStatus: 'original-generated-recording',
    territory: 'US, EU, CA',
    license: 'CC0-1.0',
    evidenceUrls: ['https://example.org/e'],
  },
  assets: [
    {
      kind: 'mp3',
      title: 'Take',
      downloadUrl: 'https://files.example.org/a.mp3',
      sourcePageUrl: 'https://example.org/p',
      sha256: H,
      rightsStatus: 'original-generated-recording',
      reviewState: 'technical-pass',
    },
  ],
  arrangement: {
    title: 'Misty bed',
    duration: '0:19',
    intendedRole: 'music-bed',
    renderingProfileSlugs: [],
    moods: ['misty', ' calm ', 'misty'],
    alsoSuits: ['music-ambient', 'music-bed'],
    loopable: true,
    sections: [
      { label: 'opening', startSeconds: 0, endSeconds: 9 },
      { label: 'theme', startSeconds: 9, endSeconds: 19 },
    ],
  },
  quality: {},
  changeSummary: 'Adds a bed.',
  ...over,
});

const input = proposalInput;

const lastArrangement = (change: ReturnType<typeof buildContributionChange>) => {
  if (change.kind !== 'work') throw new Error('expected a work change');
  return (change.after.arrangements as Data[]).at(-1)!;
};

describe('what resolve ranks on can be supplied', () => {
  it('lands the declared moods, roles, loop/trim and sections (moods trimmed and unique, the intended role not repeated)', () => {
    const a = lastArrangement(buildContributionChange(input(arrangementSubmission())));
    expect(a).toMatchObject({
      moods: ['misty', 'calm'],
      alsoSuits: ['music-ambient'],
      loopable: true,
      trimmable: false,
    });
    expect(a.sections).toEqual([
      { label: 'opening', startSeconds: 0, endSeconds: 9 },
      { label: 'theme', startSeconds: 9, endSeconds: 19 },
    ]);
  });

  it('an editor-set fact replaces the declaration; facts left out keep it', () => {
    const a = lastArrangement(
      buildContributionChange(input(arrangementSubmission(), { editorFacts: { moods: ['hazy'], trimmable: true } })),
    );
    expect(a).toMatchObject({ moods: ['hazy'], loopable: true, trimmable: true, alsoSuits: ['music-ambient'] });
  });

  it('refuses sections that end before they start or are out of order, naming each', () => {
    const s = arrangementSubmission();
    s.arrangement!.sections = [
      { label: 'b', startSeconds: 10, endSeconds: 5 },
      { label: 'a', startSeconds: 2, endSeconds: 4 },
    ];
    const build = () => buildContributionChange(input(s));
    expect(build).toThrow(ProposalError);
    // A ProposalError's message is its reasons, joined.
    expect(build).toThrow(/sections\[0\] \("b"\) must end after it starts.*sections\[1\] \("a"\) starts before/);
  });

  it('target.arrangementId adds the files to that arrangement instead of a new one (operation arrangement or performance)', () => {
    for (const operation of ['arrangement', 'performance'] as const) {
      const s = arrangementSubmission({
        operation,
        target: { workSlug: 'satie-gymnopedie-1', arrangementId: 1 },
        arrangement: { renderingProfileSlugs: [], moods: ['misty'] },
      });
      const change = buildContributionChange(input(s));
      if (change.kind !== 'work') throw new Error('expected a work change');
      const before = work().arrangements as Data[];
      const after = change.after.arrangements as Data[];
      expect(after).toHaveLength(before.length);
      const target = after.find((a) => a.id === 1)!;
      expect((target.assets as Data[]).length).toBe(
        ((before.find((a) => a.id === 1)!.assets as Data[]) ?? []).length + 1,
      );
      expect(target.moods).toEqual(['misty']);
      expect(target.loopable).toBe(before.find((a) => a.id === 1)!.loopable); // not declared: unchanged
    }
    expect(() =>
      buildContributionChange(
        input(arrangementSubmission({ target: { workSlug: 'satie-gymnopedie-1', arrangementId: 99 } })),
      ),
    ).toThrow(/no arrangement 99/);
  });

  it("a metadata revision sets the work's aliases", () => {
    const s = arrangementSubmission({
      operation: 'metadata-revision',
      work: { aliases: ['First Gymnopedie'] },
      assets: [],
      arrangement: null,
    });
    const change = buildContributionChange(input(s));
    if (change.kind !== 'work') throw new Error('expected a work change');
    expect(change.after.aliases).toEqual(['First Gymnopedie']);
  });

  it('a verified file whose archive checks passed lands technical-pass; an assertion or uncleared rights still decide first', () => {
    const s = arrangementSubmission();
    expect(landedState(s, 0, null, { sha256: H, byteLength: 1, technicalChecks: 'ok', checksPassed: true })).toBe(
      'technical-pass',
    );
    expect(landedState(s, 0, null, { sha256: H, byteLength: 1, technicalChecks: 'bad', checksPassed: false })).toBe(
      'pending',
    );
    expect(landedState(s, 0, null, null)).toBe('pending');
    expect(
      landedState(
        s,
        0,
        { reviewer: 'E', atUtc: '2026-01-01T00:00:00Z', assets: { 0: 'human-listening-approved' }, arrangement: null },
        { sha256: H, byteLength: 1, technicalChecks: 'ok', checksPassed: true },
      ),
    ).toBe('human-listening-approved');
    const uncleared = arrangementSubmission();
    uncleared.assets[0]!.rightsStatus = 'unknown';
    expect(
      landedState(uncleared, 0, null, { sha256: H, byteLength: 1, technicalChecks: 'ok', checksPassed: true }),
    ).toBe('rights-review-required');
  });
});
