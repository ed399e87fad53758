/** The pure rules behind the submitter's answer: tokens, the answered record, carried verification. */
import { describe, expect, it } from 'vitest';
import {
  deriveResponseToken,
  looksLikeResponseToken,
  responseTokenMatches,
  responseTokenSha256,
} from '../../src/domain/contributions/response-token.ts';
import {
  answerRecord,
  carryVerification,
  REVISED_NOT_FETCHED,
  reviseContribution,
  revisionErrors,
} from '../../src/domain/contributions/answer.ts';
import { TransitionError, transition } from '../../src/domain/contributions/status.ts';
import { newStoredContribution } from '../../src/domain/contributions/tracking.ts';
import type { MusicContributionInput } from '../../src/schemas/contribution.ts';
import type { VerificationEntry } from '../../src/schemas/review.ts';

const secret = Buffer.alloc(32, 7);
const body = (over: Partial<MusicContributionInput> = {}): MusicContributionInput => ({
  schemaVersion: 'archive.music-contribution.v1',
  operation: 'source-score',
  idempotencyKey: 'domain-answer-key-1',
  submittedBy: { name: 'Ada', kind: 'Human' },
  rights: { compositionStatus: 'public-domain', territory: 'US', evidenceUrls: ['https://example.org/e'] },
  assets: [
    {
      kind: 'musicxml',
      title: 'Score',
      downloadUrl: 'https://files.example.org/a.musicxml',
      sourcePageUrl: 'https://example.org/a',
      sha256: 'a'.repeat(64),
      rightsStatus: 'public-domain',
      reviewState: 'pending',
    },
    {
      kind: 'mp3',
      title: 'Take',
      downloadUrl: 'https://files.example.org/b.mp3',
      sourcePageUrl: 'https://example.org/b',
      sha256: 'b'.repeat(64),
      rightsStatus: 'public-domain',
      reviewState: 'pending',
    },
  ],
  quality: {},
  changeSummary: 'Adds a score.',
  ...over,
});

describe('response tokens', () => {
  it('are derived: the same code and secret give the same token, another code or secret another', () => {
    const t = deriveResponseToken(secret, 'C-2222-3333-4444-5555');
    expect(t).toMatch(/^pdma_rt_[A-Za-z0-9_-]{43}$/);
    expect(looksLikeResponseToken(t)).toBe(true);
    expect(deriveResponseToken(secret, 'C-2222-3333-4444-5555')).toBe(t);
    expect(deriveResponseToken(secret, 'C-2222-3333-4444-5556')).not.toBe(t);
    expect(deriveResponseToken(Buffer.alloc(32, 8), 'C-2222-3333-4444-5555')).not.toBe(t);
    expect(() => deriveResponseToken(Buffer.alloc(16), 'C-2222-3333-4444-5555')).toThrow(/32 bytes/);
  });

  it('match only their own digest; nothing matches a missing or malformed digest', () => {
    const t = deriveResponseToken(secret, 'R-2222-3333-4444-5555');
    const stored = responseTokenSha256(t);
    expect(stored).toMatch(/^[0-9a-f]{64}$/);
    expect(responseTokenMatches(t, stored)).toBe(true);
    expect(responseTokenMatches(`${t} `, stored)).toBe(false);
    expect(responseTokenMatches(undefined, stored)).toBe(false);
    expect(responseTokenMatches(t, null)).toBe(false);
    expect(responseTokenMatches(t, undefined)).toBe(false);
    expect(responseTokenMatches(t, 'abc')).toBe(false);
    expect(looksLikeResponseToken('C-2222-3333-4444-5555')).toBe(false);
  });
});

describe('the answered record', () => {
  const asked = () =>
    transition(
      newStoredContribution(body(), 'C-2222-3333-4444-5555', '2026-01-01T00:00:00.000Z', 'x'),
      'needs-information',
      '2026-01-02T00:00:00.000Z',
      'Which edition?',
      'alice',
    );

  it('goes back to pending with the answer after the request, each naming its action and actor', () => {
    const r = answerRecord(asked(), 'The 1888 one.', '2026-01-03T00:00:00.000Z', false);
    expect(r.status).toBe('pending');
    expect(r.updatedAtUtc).toBe('2026-01-03T00:00:00.000Z');
    expect(r.history.slice(1)).toEqual([
      {
        status: 'needs-information',
        atUtc: '2026-01-02T00:00:00.000Z',
        note: 'Which edition?',
        actor: 'alice',
        action: 'request-information',
      },
      {
        status: 'pending',
        atUtc: '2026-01-03T00:00:00.000Z',
        note: 'The 1888 one.',
        actor: 'submitter',
        action: 'answer',
        revisedSubmission: false,
      },
    ]);
  });

  it('only from needs-information', () => {
    const pending = newStoredContribution(body(), 'C-2222-3333-4444-5555', '2026-01-01T00:00:00.000Z', 'x');
    expect(() => answerRecord(pending, 'Nobody asked.', '2026-01-03T00:00:00.000Z', false)).toThrow(TransitionError);
    const accepted = transition(pending, 'accepted', '2026-01-02T00:00:00.000Z');
    expect(() => answerRecord(accepted, 'Too late.', '2026-01-03T00:00:00.000Z', null)).toThrow(TransitionError);
  });

  it('a revision replaces the body and keeps the old one; it may not change the idempotency key', () => {
    const revised = body({ changeSummary: 'Adds a corrected score.' });
    const r = reviseContribution(asked(), revised, 'y', '2026-01-03T00:00:00.000Z');
    expect(r.submission.changeSummary).toBe('Adds a corrected score.');
    expect(r.contentSha256).toBe('y');
    expect(r.previousSubmissions).toEqual([
      { replacedAtUtc: '2026-01-03T00:00:00.000Z', contentSha256: 'x', submission: body() },
    ]);
    expect(revisionErrors(body(), revised)).toEqual([]);
    expect(revisionErrors(body(), body({ idempotencyKey: 'another-key-123' }))).toEqual([
      expect.objectContaining({ pointer: '/submission/idempotencyKey' }),
    ]);
  });

  it('carries only the verification of files the revision left as they were', () => {
    const verified = (index: number, url: string, sha: string): VerificationEntry => ({
      index,
      url,
      declaredSha256: sha,
      status: 'verified',
      sha256: sha,
      byteLength: 10,
      mediaType: null,
      reason: null,
      checks: null,
    });
    const entries = [
      verified(0, 'https://files.example.org/a.musicxml', 'a'.repeat(64)),
      verified(1, 'https://files.example.org/b.mp3', 'b'.repeat(64)),
    ];
    const revised = body();
    revised.assets[1] = {
      ...revised.assets[1]!,
      downloadUrl: 'https://files.example.org/c.mp3',
      sha256: 'c'.repeat(64),
    };
    revised.assets.push({ ...revised.assets[0]!, downloadUrl: null, title: 'Linked only' });
    const out = carryVerification(entries, revised);
    expect(out[0]).toBe(entries[0]);
    expect(out[1]).toMatchObject({
      index: 1,
      status: 'not-fetched',
      url: 'https://files.example.org/c.mp3',
      reason: REVISED_NOT_FETCHED,
      sha256: null,
    });
    expect(out[2]).toMatchObject({ index: 2, status: 'not-fetched', url: null });
    expect(out).toHaveLength(3);
  });
});
