/** Pure proposal builders: ids, review-state boundaries, staleness, correction whitelist, front matter diffs. */
import { describe, expect, it } from 'vitest';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { applyCorrection, correctionReportErrors } from '../../src/domain/review/correction.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { rewriteWorkFile } from '../../src/domain/work-file.ts';
import { contributionText, correctionText } from '../../src/domain/review/messages.ts';
import {
  buildContributionChange,
  checkBaseSha256,
  nextAssetId,
  ProposalError,
  type Data,
} from '../../src/domain/review/proposal.ts';
import type { MusicContributionInput } from '../../src/schemas/contribution.ts';
import type { CorrectionReportInput } from '../../src/schemas/correction.ts';
import { GYMNOPEDIE_TEXT, gymnopedie, proposalInput } from './proposal-input.ts';

const text = GYMNOPEDIE_TEXT;
const work = gymnopedie;
const H = 'a'.repeat(64);

const submission = (over: Partial<MusicContributionInput> = {}): MusicContributionInput => ({
  schemaVersion: 'archive.music-contribution.v1',
  operation: 'source-score',
  idempotencyKey: 'unit-test-key-1',
  submittedBy: { name: 'Ada', kind: 'AutomatedAgent', agentName: 'bot', agentVersion: '2.0' },
  target: { workSlug: 'satie-gymnopedie-1', assetType: null, assetId: null, baseSha256: null },
  rights: {
    compositionStatus: 'public-domain',
    editionStatus: 'original-contribution',
    territory: 'US, EU, CA',
    license: 'CC0-1.0',
    evidenceUrls: ['https://example.org/e'],
  },
  assets: [
    {
      kind: 'musicxml',
      title: 'Score',
      downloadUrl: 'https://files.example.org/s.musicxml',
      sourcePageUrl: 'https://example.org/p',
      sha256: H,
      rightsStatus: 'original-contribution',
      reviewState: 'human-listening-approved',
    },
  ],
  quality: {},
  changeSummary: 'Adds a score.',
  rationale: 'Because.',
  ...over,
});

const input = proposalInput;

/** Who accepted the correction report a fact's test applies, and its tracking code. */
const ACCEPTED_REPORT = {
  accepted: { by: 'editor-key', atUtc: '2026-12-07T10:00:00Z' },
  trackingCode: 'R-2222-3333-4444-5555',
};
describe('contribution builders', () => {
  it('allocates max+1 asset ids within the work and lands files as pending whatever the submitter claimed', () => {
    const change = buildContributionChange(input(submission()));
    if (change.kind !== 'work') throw new Error('expected a work change');
    const added = (change.after.sourceAssets as Data[]).at(-1)!;
    expect(added.id).toBe(nextAssetId(work()));
    expect(added.id).toBeGreaterThan(20);
    expect(added).toMatchObject({
      reviewState: 'pending',
      access: 'public',
      url: 'https://files.example.org/s.musicxml',
      sha256: H,
    });
  });

  /** The source asset the change of `s` adds when the reviewer Eve asserts `state` for its first asset. */
  const addedWithAssertion = (
    s: MusicContributionInput,
    state: 'human-reviewed' | 'human-listening-approved',
    over: Parameters<typeof input>[1] = {},
  ) => {
    const change = buildContributionChange(
      input(s, {
        ...over,
        assertions: { reviewer: 'Eve', atUtc: '2026-01-01T00:00:00Z', assets: { 0: state }, arrangement: null },
      }),
    );
    return ((change as { after: Data }).after.sourceAssets as Data[]).at(-1)!;
  };

  it("honors a named reviewer's assertion and references the verified blob", () => {
    const added = addedWithAssertion(submission(), 'human-reviewed', {
      verified: [{ sha256: H, byteLength: 10, technicalChecks: 'ok' }],
    });
    expect(added).toMatchObject({ blob: H, byteLength: 10, reviewState: 'human-reviewed', technicalChecks: 'ok' });
    expect(added.url).toBeUndefined();
  });

  it('never makes uncleared rights public, even with an assertion', () => {
    const s = submission({
      rights: { compositionStatus: 'unknown', territory: 'US', evidenceUrls: ['https://example.org/e'] },
    });
    const added = addedWithAssertion(s, 'human-listening-approved');
    expect(added).toMatchObject({ reviewState: 'rights-review-required', access: 'admin-only' });
  });

  it('reports a stale baseSha256 and a vanished work as stale ProposalErrors', () => {
    expect(checkBaseSha256(null, 'x', 'w')).toBeNull();
    expect(checkBaseSha256(H, H.toUpperCase(), 'w')).toBeNull();
    const stale = () =>
      buildContributionChange(input(submission({ target: { workSlug: 'satie-gymnopedie-1', baseSha256: H } })));
    expect(stale).toThrow(/stale/);
    const vanished = () => buildContributionChange(input(submission(), { work: null }));
    expect(vanished).toThrow(ProposalError);
    expect(vanished).toThrow(expect.objectContaining({ stale: true }));
  });

  it('lowers a contributed profile that claims approval', () => {
    const profile = {
      slug: 'new-profile',
      version: '1.0.0',
      title: 'P',
      kind: 'instrument',
      status: 'approved',
      summary: '',
      renderReady: true,
      instruments: ['piano'],
      approvalBoundary: {
        approvedFor: 'x',
        notApprovedFor: 'y',
        approvedBy: 'Someone',
        approvedAtUtc: '2026-01-01T00:00:00Z',
      },
      engine: { name: 'e', version: '1' },
      settings: {},
    };
    const change = buildContributionChange(
      input(submission({ operation: 'rendering-profile', target: null }), {
        profileBytes: Buffer.from(JSON.stringify(profile)),
      }),
    );
    expect(change.kind).toBe('profile');
    const written = JSON.parse((change as { content: string }).content);
    expect(written.status).toBe('candidate');
    expect(written.approvalBoundary.approvedBy).toBeNull();
  });

  it('carries tracking code, submitter, rights, summary and rationale in the commit message and PR body', () => {
    const t = contributionText('C-2222-3333-4444-5555', submission());
    for (const s of [
      'Tracking-Code: C-2222-3333-4444-5555',
      'Ada (AutomatedAgent; agent bot 2.0)',
      'composition public-domain',
      'Adds a score.',
      'Because.',
    ])
      expect(t.message).toContain(s);
    expect(t.body).toContain('| Tracking code | C-2222-3333-4444-5555 |');
  });
});

describe('correction reports', () => {
  const report = (over: Partial<CorrectionReportInput>): CorrectionReportInput => ({
    workSlug: 'satie-gymnopedie-1',
    targetType: 'work',
    fieldName: 'year',
    proposedValue: '1887',
    rationale: 'r',
    reporterName: 'Bob',
    reporterKind: 'Human',
    ...over,
  });

  it('changes exactly one whitelisted field, keeping the rest of the file byte-identical', () => {
    const before = work();
    const result = applyCorrection(before, report({ fieldName: 'year', proposedValue: '1887', currentValue: '1888' }));
    const out = rewriteWorkFile(text, before, result.after);
    const changed = out.split('\n').filter((l, i) => l !== text.split('\n')[i]);
    expect(changed).toEqual(['year: "1887"']);
    expect(correctionText('R-2222-3333-4444-5555', report({})).message).toContain(
      'Tracking-Code: R-2222-3333-4444-5555',
    );
  });

  it("a person's fact changes the person's record (so every work naming them), with its evidence and who accepted it", () => {
    const satie = JSON.parse(readFileSync(path.join(PROJECT_ROOT, 'content', 'people', 'satie-erik.json'), 'utf8'));
    const ctx = {
      person: (slug: string) => (slug === 'satie-erik' ? structuredClone(satie) : null),
      ...ACCEPTED_REPORT,
    };
    const died = report({
      targetType: 'composer',
      fieldName: 'died',
      proposedValue: '1925-07-02',
      currentValue: '1925-07-01',
      evidenceUrl: 'https://example.org/satie',
      rationale: 'The register says so.',
    });
    const result = applyCorrection(work(), died, ctx);
    expect(result.after).toEqual(work());
    expect(result.pointer).toBe('people/satie-erik.json: /died');
    expect(result.person?.after.died).toBe('1925-07-02');
    expect(result.person?.after.evidence.at(-1)).toEqual({
      url: 'https://example.org/satie',
      note: 'The register says so.',
      facts: ['died'],
      acceptedBy: 'editor-key',
      acceptedAtUtc: '2026-12-07T10:00:00Z',
      via: 'R-2222-3333-4444-5555',
    });
    // The dotted field of a work names the same fact.
    expect(applyCorrection(work(), { ...died, targetType: 'work', fieldName: 'composer.died' }, ctx).person?.slug).toBe(
      'satie-erik',
    );
    // A fact without evidence is refused, at intake and at apply; "unknown" needs none.
    expect(() => applyCorrection(work(), { ...died, evidenceUrl: null }, ctx)).toThrow(/without evidence/);
    expect(correctionReportErrors({ ...died, evidenceUrl: null })).toEqual([
      {
        pointer: '/evidenceUrl',
        detail: expect.stringMatching(/required for "died": a fact without evidence is refused/),
      },
    ]);
    expect(correctionReportErrors({ ...died, proposedValue: 'unknown', evidenceUrl: null })).toEqual([]);
    // A work without a lyricist has none to correct.
    expect(() => applyCorrection(work(), { ...died, targetType: 'lyricist' }, ctx)).toThrow(/names no lyricist/);
  });

  it("a work's first publication is a fact with evidence: exact, an upper bound, or unpublished", () => {
    const ctx = ACCEPTED_REPORT;
    const fp = report({
      fieldName: 'firstPublished',
      proposedValue: 'no later than 1890',
      evidenceUrl: 'https://example.org/edition',
      rationale: 'The 1890 edition.',
    });
    const result = applyCorrection(work(), fp, ctx);
    expect(result.after.firstPublished).toEqual({
      bound: 'no-later-than',
      year: 1890,
      evidence: [
        {
          url: 'https://example.org/edition',
          note: 'The 1890 edition.',
          acceptedBy: 'editor-key',
          acceptedAtUtc: '2026-12-07T10:00:00Z',
          via: 'R-2222-3333-4444-5555',
        },
      ],
    });
    expect(result.oldValue).toBe('1888');
    expect(() => applyCorrection(work(), { ...fp, proposedValue: 'around 1890' }, ctx)).toThrow(/no later than/);
    expect(correctionReportErrors({ ...fp, evidenceUrl: null })[0]?.pointer).toBe('/evidenceUrl');
  });

  it('coerces null, validates types, refuses unknown fields and stale current values', () => {
    expect(applyCorrection(work(), report({ fieldName: 'key', proposedValue: 'null' })).newValue).toBeNull();
    expect(
      applyCorrection(
        work(),
        report({ targetType: 'source-asset', targetId: 1, fieldName: 'license', proposedValue: 'CC-BY-4.0' }),
      ).pointer,
    ).toBe('/sourceAssets/0/license');
    expect(() =>
      applyCorrection(
        work(),
        report({ fieldName: 'composer.died', proposedValue: '1925-02-30', evidenceUrl: 'https://example.org/x' }),
      ),
    ).toThrow(/real date/);
    expect(() =>
      applyCorrection(work(), report({ fieldName: 'reviewState', proposedValue: 'human-listening-approved' })),
    ).toThrow(/not a field/);
    expect(() =>
      applyCorrection(
        work(),
        report({ targetType: 'source-asset', targetId: 1, fieldName: 'reviewState', proposedValue: 'x' }),
      ),
    ).toThrow(/not a field/);
    expect(() =>
      applyCorrection(work(), report({ fieldName: 'title', currentValue: 'Something else', proposedValue: 'X' })),
    ).toThrow(/stale/);
    expect(() => applyCorrection(null, report({}))).toThrow(/does not exist/);
  });
});
