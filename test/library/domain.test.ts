/**
 * The library's pure rules: state machines, import rules and the idempotency hash, publication
 * eligibility with reasons, the work-file edit publication makes, and the listing filters.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/domain/catalog.ts';
import { canonicalJson, checkImportInput, importContentHash } from '../../src/domain/library/import-input.ts';
import { checkEligibility, publishableKind, readRightsEvidence } from '../../src/domain/library/eligibility.ts';
import {
  addArrangementToWorkFile,
  baseName,
  buildArrangement,
  formatDuration,
} from '../../src/domain/library/publication.ts';
import { canMoveImport, fileStatus, planCommit, planUpload } from '../../src/domain/library/states.ts';
import { trackMatches } from '../../src/domain/library/track-query.ts';
import {
  LIBRARY_REVIEW_STATUSES,
  LIBRARY_SOURCE_TYPES,
  SOURCE_TYPE_MEANINGS,
  REVIEW_STATUS_MEANINGS,
} from '../../src/domain/library/vocabulary.ts';
import { validate } from '../../src/domain/validation.ts';
import { MusicLibraryImportInput } from '../../src/schemas/library.ts';
import { WorkContent, WorkFile } from '../../src/schemas/work.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { fileInput, importInput, track } from './library-helpers.ts';

const MINI = path.join(PROJECT_ROOT, 'test', 'fixtures', 'mini');
const catalog = loadCatalog(MINI).catalog;
const findWork = (slug: string) => catalog.works.find((w) => w.content.slug === slug)?.content ?? null;
const wavFile = {
  id: 'f1',
  kind: 'wav',
  contentType: 'audio/wav',
  fileName: 'bed.wav',
  byteLength: 10,
  sha256: 'a'.repeat(64),
};

describe('state machines', () => {
  it('moves an import only from open, to committed or failed', () => {
    expect(canMoveImport('open', 'committed')).toBe(true);
    expect(canMoveImport('open', 'failed')).toBe(true);
    expect(canMoveImport('committed', 'open')).toBe(false);
    expect(canMoveImport('failed', 'committed')).toBe(false);
  });

  it('derives a file status from the bytes held and the last commit', () => {
    const f = { byteLength: 10, verified: null, lastMismatch: null };
    expect(fileStatus(f, 0)).toBe('pending');
    expect(fileStatus(f, 4)).toBe('partial');
    expect(fileStatus(f, 10)).toBe('uploaded');
    expect(fileStatus({ ...f, byteLength: 0 }, 0)).toBe('uploaded');
    const mismatch = { actualByteLength: 10, actualSha256: 'b'.repeat(64), atUtc: '2026-01-01T00:00:00Z' };
    expect(fileStatus({ ...f, lastMismatch: mismatch }, 0)).toBe('mismatch');
    expect(fileStatus({ ...f, lastMismatch: mismatch }, 3)).toBe('partial');
    expect(
      fileStatus({ ...f, verified: { byteLength: 10, sha256: 'a'.repeat(64), atUtc: '2026-01-01T00:00:00Z' } }, 0),
    ).toBe('verified');
  });

  it('plans uploads: offset equal to the bytes held, no growth past the declared length, open imports only', () => {
    const file = { byteLength: 100, verified: null };
    expect(planUpload({ importStatus: 'open', file, receivedBytes: 40, offset: 40, contentLength: 60 })).toEqual({
      ok: true,
      remaining: 60,
    });
    expect(planUpload({ importStatus: 'open', file, receivedBytes: 40, offset: 0, contentLength: null })).toMatchObject(
      { ok: false, problem: 'offset-mismatch', expectedOffset: 40, providedOffset: 0 },
    );
    expect(planUpload({ importStatus: 'open', file, receivedBytes: 40, offset: 40, contentLength: 61 })).toMatchObject({
      ok: false,
      problem: 'payload-too-large',
    });
    expect(
      planUpload({ importStatus: 'committed', file, receivedBytes: 100, offset: 100, contentLength: 0 }),
    ).toMatchObject({ ok: false, problem: 'conflict' });
  });

  it('plans a commit: incomplete, to verify, already verified', () => {
    const v = { byteLength: 1, sha256: 'a'.repeat(64), atUtc: '2026-01-01T00:00:00Z' };
    const plan = planCommit([
      { file: { byteLength: 5, verified: null }, receivedBytes: 2 },
      { file: { byteLength: 5, verified: null }, receivedBytes: 5 },
      { file: { byteLength: 0, verified: null }, receivedBytes: 0 },
      { file: { byteLength: 1, verified: v }, receivedBytes: 0 },
    ]);
    expect([plan.incomplete.length, plan.toVerify.length, plan.alreadyVerified.length]).toEqual([1, 2, 1]);
  });
});

describe('import rules', () => {
  it('accepts byteLength as an integer or a digit string, and nothing else', () => {
    const ok = importInput([fileInput(Buffer.from('x'), { byteLength: '1' })]);
    expect(validate(MusicLibraryImportInput, ok)).toEqual([]);
    for (const bad of [-1, 1.5, '1.5', '', ' 1', 'ten', null]) {
      const errors = validate(
        MusicLibraryImportInput,
        importInput([fileInput(Buffer.from('x'), { byteLength: bad as never })]),
      );
      expect([...new Set(errors.map((e) => e.pointer))], String(bad)).toEqual(['/files/0/byteLength']);
    }
  });

  it('requires every track field to be present, nullable ones as null', () => {
    const input = importInput([]);
    expect(
      validate(MusicLibraryImportInput, {
        ...input,
        track: { ...input.track, composer: null, tags: null, rightsEvidence: null, bpm: null },
      }),
    ).toEqual([]);
    const { bpm: _bpm, ...missing } = input.track;
    expect(validate(MusicLibraryImportInput, { ...input, track: missing }).map((e) => e.pointer)).toEqual([
      '/track/bpm',
    ]);
  });

  it('checks the maximum length, one file per path and a named listening approval', () => {
    const f = fileInput(Buffer.from('abc'));
    const input = importInput(
      [f, { ...f, byteLength: '99999999999' }],
      {},
      { reviewStatus: 'human-listening-approved', quality: { listeningApprovedBy: ' ' } },
    );
    expect(checkImportInput(input, { maxFileBytes: 1000 }).map((e) => e.pointer)).toEqual([
      '/files/1/byteLength',
      '/files/1/originalRelativePath',
      '/track/quality/listeningApprovedBy',
    ]);
    const named = importInput(
      [f],
      {},
      { reviewStatus: 'human-listening-approved', quality: { listeningApprovedBy: 'Ada Lovelace' } },
    );
    expect(checkImportInput(named, { maxFileBytes: 1000 })).toEqual([]);
  });

  it('hashes equal content equally, whatever the spelling', () => {
    expect(canonicalJson({ b: 1, a: [{ d: null, c: 'x' }] })).toBe('{"a":[{"c":"x","d":null}],"b":1}');
    const f = fileInput(Buffer.from('abc'));
    const a = importInput([f], { idempotencyKey: 'k1' });
    const b = {
      idempotencyKey: 'k2',
      files: [{ ...f, byteLength: '3', sha256: f.sha256.toUpperCase() }],
      track: { ...a.track },
    };
    expect(importContentHash(b)).toBe(importContentHash(a));
    expect(importContentHash({ ...a, track: { ...a.track, bpm: 97 } })).not.toBe(importContentHash(a));
  });
});

describe('publication eligibility', () => {
  it('accepts a public-domain arrangement with evidence and a technical pass', () => {
    const result = checkEligibility({ track: track(), files: [wavFile], findWork });
    expect(result.reasons).toEqual([]);
    expect(result.plan).toMatchObject({
      durationSeconds: 90,
      roles: ['music-bed'],
      evidence: { workSlug: 'bach-minuet-in-g', instrumentation: 'Piano' },
    });
  });

  it('treats no review state as implying a technical pass', () => {
    for (const reviewStatus of ['human-reviewed', 'human-listening-approved', 'pending'] as const) {
      const result = checkEligibility({ track: track({ reviewStatus, quality: null }), files: [wavFile], findWork });
      expect(
        result.reasons.map((r) => r.condition),
        reviewStatus,
      ).toEqual(['technical-pass']);
    }
    expect(
      checkEligibility({
        track: track({ reviewStatus: 'pending', quality: { technicalValidationPassed: true } }),
        files: [wavFile],
        findWork,
      }).eligible,
    ).toBe(true);
  });

  it('never publishes rights-review-required, whatever else holds', () => {
    const result = checkEligibility({
      track: track({ reviewStatus: 'rights-review-required' }),
      files: [wavFile],
      findWork,
    });
    expect(result.eligible).toBe(false);
    expect(result.reasons.map((r) => r.condition)).toEqual(['rights-review']);
  });

  it('lists every failed condition at once', () => {
    const result = checkEligibility({
      track: track({
        rightsStatus: 'licensed',
        rightsEvidence: { workSlug: 'bach-minuet-in-g', evidenceUrls: [], recordingStatus: 'licensed' },
        quality: null,
        reviewStatus: 'pending',
        durationSeconds: 0,
        intendedUses: null,
      }),
      files: [{ ...wavFile, kind: 'manifest', contentType: 'application/json' }],
      findWork,
    });
    expect(result.reasons.map((r) => r.condition)).toEqual([
      'public-domain-arrangement',
      'rights-evidence',
      'public-domain-arrangement',
      'technical-pass',
      'publishable-file',
      'arrangement-fields',
      'arrangement-fields',
    ]);
  });

  it('needs a public-domain composition', () => {
    const work = structuredClone(findWork('bach-minuet-in-g')!);
    work.rights.composition.status = 'permission-documented';
    const result = checkEligibility({ track: track(), files: [wavFile], findWork: () => work });
    expect(result.reasons).toEqual([
      expect.objectContaining({
        condition: 'public-domain-arrangement',
        detail: expect.stringContaining('permission-documented'),
      }),
    ]);
  });

  it('reads rights evidence strictly', () => {
    expect(readRightsEvidence(null).reasons).toHaveLength(1);
    expect(readRightsEvidence(['x']).reasons).toHaveLength(1);
    expect(
      readRightsEvidence({ workSlug: 'w', evidenceUrls: ['https://a.example/x', 'ftp://b'] }).reasons.map(
        (r) => r.detail,
      ),
    ).toEqual([expect.stringContaining('not HTTPS')]);
    expect(readRightsEvidence({ workSlug: 'w', evidenceUrls: ['https://a.example/x'] }).evidence?.evidenceUrls).toEqual(
      ['https://a.example/x'],
    );
  });

  it('publishes audio and notation only; masters by media type; candidate takes never', () => {
    expect(publishableKind({ kind: 'mp3', contentType: 'audio/mpeg' })).toBe('mp3');
    expect(publishableKind({ kind: 'master', contentType: 'audio/wav' })).toBe('wav');
    expect(publishableKind({ kind: 'master', contentType: 'audio/flac' })).toBeNull();
    expect(publishableKind({ kind: 'candidate-take', contentType: 'audio/wav' })).toBeNull();
    expect(publishableKind({ kind: 'production-card', contentType: 'application/pdf' })).toBeNull();
  });
});

describe('the work-file edit', () => {
  const file = readFileSync(path.join(MINI, 'works', 'bach-minuet-in-g', 'index.md'), 'utf8');
  const plan = checkEligibility({
    track: track(),
    files: [wavFile, { ...wavFile, id: 'f2', kind: 'midi', contentType: 'audio/midi', fileName: 'x/../take.mid' }],
    findWork,
  }).plan!;
  const draft = buildArrangement({ track: track(), plan, curator: 'ada', nowUtc: '2026-11-22T10:00:00.000Z' });

  it('builds an arrangement with the next ids, blob assets, and states copied, never raised', () => {
    expect(draft.assetIds).toEqual([3, 4]);
    expect(draft.arrangement).toMatchObject({
      id: 2,
      rank: 2,
      duration: '1:30',
      durationSeconds: 90,
      reviewState: 'technical-pass',
      intendedRole: 'music-bed',
    });
    expect(draft.arrangement.assets[1]).toMatchObject({
      kind: 'midi',
      blob: 'a'.repeat(64),
      byteLength: 10,
      reviewState: 'technical-pass',
      access: 'public',
      title: 'Minuet bed: take.mid',
    });
    expect(draft.arrangement.rights.recording.status).toBe('public-domain');
    expect(draft.arrangement.notes).toContain('by ada on 2026-11-22');
    expect(validate(WorkContent.properties.arrangements.items, draft.arrangement)).toEqual([]);
  });

  it('appends the arrangement and leaves every other line as written', () => {
    const out = addArrangementToWorkFile(file, draft.arrangement);
    expect(out.startsWith(file.slice(0, file.indexOf('\n---\n')))).toBe(true);
    expect(out.endsWith(file.slice(file.indexOf('\n---\n')))).toBe(true);
    const data = YAML.parse(out.slice(4, out.indexOf('\n---\n')), { schema: 'core' });
    expect(data.arrangements.map((a: { id: number }) => a.id)).toEqual([1, 2]);
    expect(validate(WorkFile, data, { useDefaults: true })).toEqual([]);
  });

  it('handles a work with no arrangements yet, or an empty flow list', () => {
    const none = '---\nslug: x\ntitle: "T"\n---\nBody\n';
    expect(YAML.parse(addArrangementToWorkFile(none, draft.arrangement).split('---\n')[1]!).arrangements).toHaveLength(
      1,
    );
    const empty = '---\nslug: x\narrangements: []\ncomments: []\n---\nBody\n';
    const out = addArrangementToWorkFile(empty, draft.arrangement);
    expect(out).toContain('\ncomments: []\n---\nBody\n');
    expect(YAML.parse(out.split('---\n')[1]!).arrangements[0].id).toBe(2);
  });

  it('formats durations and client file names', () => {
    expect(formatDuration(90)).toBe('1:30');
    expect(formatDuration(14400)).toBe('240:00');
    expect(baseName('../../etc/passwd')).toBe('passwd');
    expect(baseName('a\\b\\c.wav')).toBe('c.wav');
    expect(baseName('..')).toBe('file');
  });
});

describe('vocabulary and filters', () => {
  it('gives every controlled value a meaning, and review states include the two named in the spec', () => {
    for (const s of LIBRARY_SOURCE_TYPES) expect(SOURCE_TYPE_MEANINGS[s]).toBeTruthy();
    for (const s of LIBRARY_REVIEW_STATUSES) expect(REVIEW_STATUS_MEANINGS[s]).toBeTruthy();
    expect(LIBRARY_REVIEW_STATUSES).toEqual(expect.arrayContaining(['rights-review-required', 'technical-pass']));
  });

  it('matches tracks by folded words and whole list entries', () => {
    const t = track({
      title: 'Dvořák largo bed',
      intendedUses: ['music-bed', 'Intro'],
      channelKeys: ['Sleep-Channel'],
    });
    expect(trackMatches(t, { query: 'dvorak' })).toBe(true);
    expect(trackMatches(t, { query: 'dvorak nocturne' })).toBe(false);
    expect(trackMatches(t, { intendedUse: 'intro' })).toBe(true);
    expect(trackMatches(t, { intendedUse: 'intr' })).toBe(false);
    expect(
      trackMatches(t, { channel: 'sleep-channel', sourceType: 'score-rendering', collection: 'BAROQUE BEDS' }),
    ).toBe(true);
  });
});
