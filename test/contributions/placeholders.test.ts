/**
 * Honest intake: the untouched template is refused with a problem detail that
 * names every placeholder left in it; the same body with the placeholders filled is accepted.
 */
import { existsSync, readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkPlaceholders, placeholderReason } from '../../src/domain/contributions/placeholders.ts';
import type { MusicContributionInput } from '../../src/schemas/contribution.ts';
import { intakeDirs } from '../../api/contributions/store.ts';
import { fillTemplate } from '../helpers/filled-template.ts';
import { CONTRIBUTIONS, openIntakeApp, type IntakeApp } from './helpers.ts';

let t: IntakeApp;
let template: MusicContributionInput;
beforeAll(async () => {
  t = await openIntakeApp();
  template = (await t.request({ url: `${CONTRIBUTIONS}/template` })).json();
});
afterAll(() => t.close());

const stored = () => {
  const dir = intakeDirs(t.dataDir).contributions;
  return existsSync(dir) ? readdirSync(dir).length : 0;
};

describe('placeholder refusal', () => {
  it('knows each kind of placeholder and nothing else', () => {
    expect(placeholderReason('REPLACE: your name')).toContain('placeholder');
    expect(placeholderReason('REPLACE-with-a-profile-slug')).toContain('placeholder');
    expect(placeholderReason('https://example.invalid/REPLACE/a.mp3')).toContain('example.invalid');
    expect(placeholderReason('https://cdn.files.invalid/a.mp3')).toContain('never resolves');
    expect(placeholderReason('0'.repeat(64))).toContain('64 zeros');
    expect(placeholderReason('2000-01-01T00:00:00Z')).toContain('2000-01-01');
    for (const real of [
      'Replace the old score',
      'https://example.org/a.mp3',
      `${'0'.repeat(63)}1`,
      '2000-01-02T00:00:00Z',
      'https://invalid-example.org/x',
    ]) {
      expect(placeholderReason(real), real).toBeNull();
    }
    expect(checkPlaceholders(fillTemplate(template))).toEqual([]);
  });

  it('refuses the untouched template with 400 naming every placeholder field; nothing is stored', async () => {
    const before = stored();
    const res = await t.post(CONTRIBUTIONS, template);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    const problem = res.json() as { type: string; detail: string; errors: { pointer: string; detail: string }[] };
    expect(problem.type).toBe(`${t.baseUrl}/problems/invalid-body`);
    const pointers = problem.errors.map((e) => e.pointer);
    for (const p of [
      '/idempotencyKey',
      '/submittedBy/name',
      '/rights/territory',
      '/rights/license',
      '/rights/checkedAtUtc',
      '/rights/evidenceUrls/0',
      '/assets/0/downloadUrl',
      '/assets/0/sourcePageUrl',
      '/assets/0/sha256',
      '/assets/1/sha256',
      '/arrangement/title',
      '/reproducibility/manifestUrl',
      '/reproducibility/inputSha256/0',
      '/changeSummary',
    ]) {
      expect(pointers, p).toContain(p);
    }
    expect(problem.errors.find((e) => e.pointer === '/assets/0/sha256')!.detail).toContain('64 zeros');
    expect(problem.errors.find((e) => e.pointer === '/rights/checkedAtUtc')!.detail).toContain('2000-01-01');
    expect(problem.errors.find((e) => e.pointer === '/assets/0/downloadUrl')!.detail).toContain('example.invalid');
    expect(problem.detail).toContain('/changeSummary');
    expect(stored()).toBe(before);
  });

  it('refuses a single placeholder left behind, and accepts the filled template', async () => {
    const filled = fillTemplate(template);
    const one = structuredClone(filled);
    one.assets[1]!.sha256 = '0'.repeat(64);
    const res = await t.post(CONTRIBUTIONS, one);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([{ pointer: '/assets/1/sha256', detail: expect.stringContaining('64 zeros') }]);
    const ok = await t.post(CONTRIBUTIONS, filled);
    expect(ok.statusCode, ok.body).toBe(202);
  });

  it('the 202 answer says which declared states the archive re-checks and which only a reviewer confirms', async () => {
    const body = fillTemplate(template);
    body.idempotencyKey = 'recheck-answer-0001';
    body.submittedBy.kind = 'Human';
    body.assets[0]!.reviewState = 'human-reviewed';
    body.assets[1]!.reviewState = 'technical-pass';
    const res = await t.post(CONTRIBUTIONS, body);
    expect(res.statusCode, res.body).toBe(202);
    const recheck = res.json().data.recheck as { pointer: string; declared: string; howChecked: string }[];
    const at = (p: string) => recheck.find((r) => r.pointer === p)!;
    expect(at('/assets/1/reviewState')).toMatchObject({
      declared: 'technical-pass',
      howChecked: expect.stringContaining('runs its own technical checks'),
    });
    expect(at('/assets/1/reviewState').howChecked).toContain('not human review');
    expect(at('/assets/0/reviewState')).toMatchObject({
      declared: 'human-reviewed',
      howChecked: expect.stringContaining('labeled admin key'),
    });
    expect(at('/quality/technicalValidationPassed').howChecked).toContain('Re-run by the archive');
    // The tracking record keeps saying it.
    const tracked = await t.request({ url: new URL(res.json().data.links.self).pathname });
    expect(tracked.json().data.recheck).toEqual(recheck);
  });
});
