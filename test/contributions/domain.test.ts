/**
 * Pure rules of intake: tracking codes, the status table, content hashing, safety rules, the
 * template and the schema document.
 */
import { describe, expect, it } from 'vitest';
import { ASSET_KINDS } from '../../src/schemas/common.ts';
import { MusicContributionInput, type MusicContributionInput as Contribution } from '../../src/schemas/contribution.ts';
import { createAjv, validate } from '../../src/domain/validation.ts';
import {
  TRACKING_ALPHABET,
  TRACKING_CODE_BITS,
  generateTrackingCode,
  normalizeTrackingCode,
} from '../../src/domain/contributions/tracking-code.ts';
import {
  STATUS_TRANSITIONS,
  SUBMISSION_STATUSES,
  TransitionError,
  canTransition,
  isFinal,
  transition,
} from '../../src/domain/contributions/status.ts';
import { canonicalJson, contentSha256, keySha256 } from '../../src/domain/contributions/content-hash.ts';
import {
  checkContributionSafety,
  checkCorrectionSafety,
  hasBase64Payload,
} from '../../src/domain/contributions/safety.ts';
import {
  PLACEHOLDER_PREFIX,
  buildContributionTemplate,
  type TemplateWork,
} from '../../src/domain/contributions/template.ts';
import { buildContributionSchemaDocument } from '../../src/domain/contributions/schema-document.ts';
import { newStoredContribution } from '../../src/domain/contributions/tracking.ts';

const WORK: TemplateWork = {
  slug: 'satie-gymnopedie-1',
  title: 'Gymnopédie No. 1',
  originalTitle: null,
  composer: 'Erik Satie',
  period: 'Modern',
  genre: 'Piano piece',
  year: '1888',
  workNumber: null,
  summary: 'A slow piano piece.',
};
const template = () => buildContributionTemplate(WORK, 'piano-soft');

describe('tracking codes', () => {
  it('look like C-XXXX-XXXX-XXXX-XXXX / R-..., from an alphabet without 0, O, 1, I, L', () => {
    for (let i = 0; i < 200; i++) {
      expect(generateTrackingCode('contribution')).toMatch(/^C(-[2-9A-HJKMNP-Z]{4}){4}$/);
      expect(generateTrackingCode('correction-report')).toMatch(/^R(-[2-9A-HJKMNP-Z]{4}){4}$/);
    }
    expect(TRACKING_ALPHABET).not.toMatch(/[01OIL]/);
    expect(TRACKING_CODE_BITS).toBeGreaterThanOrEqual(60);
  });

  it('are random, not sequential: 5,000 codes are distinct and use every symbol in every position', () => {
    const codes = Array.from({ length: 5000 }, () => generateTrackingCode('contribution').slice(2).replace(/-/g, ''));
    expect(new Set(codes).size).toBe(codes.length);
    for (let pos = 0; pos < 16; pos++) expect(new Set(codes.map((c) => c[pos])).size).toBe(TRACKING_ALPHABET.length);
  });

  it('map random bytes to symbols without modulo bias (bytes >= 248 are skipped)', () => {
    const bytes = [255, 248, 0, 30, 31, 247];
    let n = 0;
    const code = generateTrackingCode('contribution', (size) =>
      Uint8Array.from({ length: size }, () => bytes[n++ % bytes.length]!),
    );
    // 0 -> '2', 30 -> 'Z', 31 -> '2', 247 -> 247 % 31 = 30 -> 'Z'; 255 and 248 never appear.
    expect(code).toBe('C-2Z2Z-2Z2Z-2Z2Z-2Z2Z');
  });

  it('normalize what people type: any case, hyphens and spaces optional; refuse the other kind and bad symbols', () => {
    expect(normalizeTrackingCode('c-7kqm-t4xh-r2pz-9wnb', 'contribution')).toBe('C-7KQM-T4XH-R2PZ-9WNB');
    expect(normalizeTrackingCode('C7KQM T4XH R2PZ 9WNB', 'contribution')).toBe('C-7KQM-T4XH-R2PZ-9WNB');
    expect(normalizeTrackingCode('R-7KQM-T4XH-R2PZ-9WNB', 'contribution')).toBeNull();
    expect(normalizeTrackingCode('R-7KQM-T4XH-R2PZ-9WNB', 'correction-report')).toBe('R-7KQM-T4XH-R2PZ-9WNB');
    expect(normalizeTrackingCode('C-7KQM-T4XH-R2PZ-9WN0', 'contribution')).toBeNull(); // 0 is not in the alphabet
    expect(normalizeTrackingCode('C-7KQM-T4XH-R2PZ', 'contribution')).toBeNull();
    expect(normalizeTrackingCode('C-7KQM-T4XH-R2PZ-9WNB-X', 'contribution')).toBeNull();
    expect(normalizeTrackingCode('../../etc/passwd', 'contribution')).toBeNull();
  });
});

describe('status transitions', () => {
  it('follow the table; applied and declined are final', () => {
    expect(STATUS_TRANSITIONS).toEqual({
      pending: ['accepted', 'needs-information', 'declined'],
      'needs-information': ['pending', 'accepted', 'declined'],
      accepted: ['applied', 'declined', 'needs-information'],
      applied: [],
      declined: [],
    });
    expect(SUBMISSION_STATUSES.filter(isFinal)).toEqual(['applied', 'declined']);
    expect(canTransition('pending', 'applied')).toBe(false);
    expect(canTransition('needs-information', 'pending')).toBe(true);
  });

  it('record each move in the history; only applied changes canonical data', () => {
    const t0 = '2026-01-01T00:00:00.000Z';
    let r = newStoredContribution(template(), 'C-2222-2222-2222-2222', t0, 'x');
    r = transition(r, 'needs-information', '2026-01-02T00:00:00.000Z', 'Please add dated rights evidence.');
    expect(r.changedCanonicalData).toBe(false);
    r = transition(r, 'pending', '2026-01-03T00:00:00.000Z');
    r = transition(r, 'accepted', '2026-01-04T00:00:00.000Z');
    r = transition(r, 'applied', '2026-01-05T00:00:00.000Z', 'Merged.');
    expect(r.status).toBe('applied');
    expect(r.changedCanonicalData).toBe(true);
    expect(r.updatedAtUtc).toBe('2026-01-05T00:00:00.000Z');
    expect(r.history.map((h) => h.status)).toEqual(['pending', 'needs-information', 'pending', 'accepted', 'applied']);
    expect(r.history[1]!.note).toBe('Please add dated rights evidence.');
    expect(() => transition(r, 'declined', '2026-01-06T00:00:00.000Z')).toThrow(TransitionError);
    expect(() => transition(r, 'declined', '2026-01-06T00:00:00.000Z')).toThrow('"applied" is final');
  });

  it('refuse moves the table does not allow, naming the allowed ones', () => {
    const r = newStoredContribution(template(), 'C-2222-2222-2222-2222', '2026-01-01T00:00:00.000Z', 'x');
    expect(() => transition(r, 'applied', '2026-01-02T00:00:00.000Z')).toThrow(
      '"pending" cannot become "applied"; allowed next: accepted, needs-information, declined.',
    );
  });
});

describe('content hashing', () => {
  it('ignores key order and spacing but not values, array order or added fields', () => {
    expect(canonicalJson({ b: 1, a: { d: [2, 1], c: null } })).toBe('{"a":{"c":null,"d":[2,1]},"b":1}');
    expect(contentSha256({ a: 1, b: 2 })).toBe(contentSha256(JSON.parse('{ "b": 2,   "a": 1 }')));
    expect(contentSha256({ a: [1, 2] })).not.toBe(contentSha256({ a: [2, 1] }));
    expect(contentSha256({ a: 1 })).not.toBe(contentSha256({ a: 1, b: null }));
    expect(contentSha256({ a: '1' })).not.toBe(contentSha256({ a: 1 }));
    expect(keySha256('abc')).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('safety rules', () => {
  it('pass the template', () => {
    expect(checkContributionSafety(template())).toEqual([]);
  });

  it('refuse data: URLs and embedded base64 payloads anywhere, pointing at the field', () => {
    const body = template();
    body.assets[0]!.downloadUrl = 'data:application/vnd.recordare.musicxml+xml;base64,PD94bWwg';
    body.rights.evidenceUrls = ['https://example.org/ok', 'DATA:text/plain,hello'];
    body.quality.listeningNotes = 'see data:audio/mpeg;base64,SUQzBAAAAAAA';
    body.changeSummary = 'Metadata: updated the year; data: none changed.';
    const errors = checkContributionSafety(body);
    expect(errors.map((e) => e.pointer)).toEqual([
      '/assets/0/downloadUrl',
      '/rights/evidenceUrls/1',
      '/quality/listeningNotes',
    ]);
    expect(errors[0]!.detail).toContain('JSON never carries binary content');
  });

  it('require HTTPS for download, source-page, evidence and manifest URLs', () => {
    const body = template();
    body.assets[1]!.downloadUrl = 'http://example.org/a.mp3';
    body.assets[1]!.sourcePageUrl = 'ftp://example.org/a';
    body.rights.evidenceUrls = ['http://example.org/evidence'];
    body.reproducibility!.manifestUrl = 'http://example.org/manifest.json';
    expect(checkContributionSafety(body)).toEqual([
      {
        pointer: '/assets/1/downloadUrl',
        detail: 'must be an https:// URL (files and evidence are fetched only over HTTPS)',
      },
      {
        pointer: '/assets/1/sourcePageUrl',
        detail: 'must be an https:// URL (files and evidence are fetched only over HTTPS)',
      },
      {
        pointer: '/rights/evidenceUrls/0',
        detail: 'must be an https:// URL (files and evidence are fetched only over HTTPS)',
      },
      {
        pointer: '/reproducibility/manifestUrl',
        detail: 'must be an https:// URL (files and evidence are fetched only over HTTPS)',
      },
    ]);
  });

  it('spot base64 payloads in URLs without flagging ordinary long URLs', () => {
    const payload = Buffer.from(Array.from({ length: 120 }, (_, i) => (i * 37) % 256)).toString('base64');
    expect(hasBase64Payload(`https://example.org/upload?file=${payload}`)).toBe(true);
    expect(hasBase64Payload(`https://example.org/upload?file=${encodeURIComponent(payload)}`)).toBe(true);
    expect(
      hasBase64Payload(
        'https://github.com/SomeOrg/SomeRepo/blob/0a1b2c3d4e5f60718293a4b5c6d7e8f901234567/scores/Satie/Gymnopedie1/Gymnopedie1Score/final/v2/score.musicxml',
      ),
    ).toBe(false);
    expect(hasBase64Payload(`https://example.org/${'a-very-long-descriptive-kebab-case-slug-2'.repeat(4)}`)).toBe(
      false,
    );
    expect(hasBase64Payload(`https://example.org/files/${'0123456789abcdef'.repeat(4)}`)).toBe(false); // a SHA-256 path
    const body = template();
    body.assets[0]!.downloadUrl = `https://example.org/upload?file=${payload}`;
    expect(checkContributionSafety(body)).toEqual([
      { pointer: '/assets/0/downloadUrl', detail: expect.stringContaining('base64 payload') },
    ]);
  });

  it('let only a Human assert listening approval', () => {
    const body = template();
    body.assets[1]!.reviewState = 'human-listening-approved';
    body.quality.humanListeningApproved = true;
    expect(checkContributionSafety(body).map((e) => e.pointer)).toEqual([
      '/assets/1/reviewState',
      '/quality/humanListeningApproved',
    ]);
    body.submittedBy.kind = 'Human';
    expect(checkContributionSafety(body)).toEqual([]);
  });

  it('never throw on shapes the schema refuses', () => {
    for (const body of [
      null,
      1,
      'x',
      [],
      { assets: 'x', rights: [], quality: 3 },
      { assets: [null, 1, { downloadUrl: 5 }], rights: { evidenceUrls: [1, null] } },
    ]) {
      expect(() => checkContributionSafety(body)).not.toThrow();
      expect(() => checkCorrectionSafety(body)).not.toThrow();
    }
  });

  it('check correction reports: http(s) evidence only, no binary content', () => {
    const base = {
      targetType: 'work',
      fieldName: 'year',
      proposedValue: '1888',
      rationale: 'r',
      reporterName: 'n',
      reporterKind: 'Human',
    };
    expect(checkCorrectionSafety({ ...base, evidenceUrl: 'http://example.org/x' })).toEqual([]);
    expect(checkCorrectionSafety({ ...base, evidenceUrl: 'javascript:alert(1)' })).toEqual([
      { pointer: '/evidenceUrl', detail: 'must be an http:// or https:// URL' },
    ]);
    expect(checkCorrectionSafety({ ...base, evidenceUrl: 'data:text/html,<b>x</b>' }).map((e) => e.pointer)).toEqual([
      '/evidenceUrl',
    ]);
    expect(
      checkCorrectionSafety({ ...base, proposedValue: 'data:image/png;base64,iVBORw0KGgo=' }).map((e) => e.pointer),
    ).toEqual(['/proposedValue']);
  });
});

describe('template and schema document', () => {
  it('the template is a complete arrangement that passes the schema and the safety rules', () => {
    const t = template();
    expect(validate(MusicContributionInput, t)).toEqual([]);
    expect(t.operation).toBe('arrangement');
    expect(t.target?.workSlug).toBe('satie-gymnopedie-1');
    expect(t.work?.composer).toBe('Erik Satie');
    // Every model and every optional field is present, so nothing is left for the reader to guess.
    for (const key of Object.keys(MusicContributionInput.properties)) expect(t, key).toHaveProperty(key);
    const placeholders = JSON.stringify(t).match(new RegExp(PLACEHOLDER_PREFIX, 'g')) ?? [];
    expect(placeholders.length).toBeGreaterThan(15);
  });

  it('the schema document is JSON Schema 2020-12 that validates exactly like the server', () => {
    const doc = buildContributionSchemaDocument('https://archive.example', {
      bodyLimitBytes: 262144,
      rateLimit: { limit: 20, windowSeconds: 60 },
    });
    expect(doc.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
    expect(doc.$id).toBe('https://archive.example/api/v1/music/contributions/schema');
    expect(JSON.stringify(doc)).not.toContain('"$id":"ChannelContext"');
    const fn = createAjv().compile(doc);
    expect(fn(template())).toBe(true);
    const bad: Partial<Contribution> = { ...template(), schemaVersion: 'v2' as never };
    expect(fn(bad)).toBe(false);
    const x = doc['x-archive'] as {
      controlledValues: Record<string, string[]>;
      safetyRules: { id: string }[];
      operations: { operation: string }[];
    };
    expect(x.controlledValues['assets[].kind']).toEqual([...ASSET_KINDS]);
    expect(x.safetyRules.map((r) => r.id)).toEqual([
      'no-binary-content',
      'no-base64-in-urls',
      'https-only',
      'human-listening-approval',
    ]);
    expect(x.operations).toHaveLength(7);
  });
});
