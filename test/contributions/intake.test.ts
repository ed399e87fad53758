/**
 * Contributions and correction reports over HTTP: the acceptance path (template -> 202 -> same
 * code on retry -> 422 on changed content -> tracking shows pending), tracking codes, media
 * types, limits, and that the catalog is never edited by a submission.
 */
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAjv } from '../../src/domain/validation.ts';
import type { MusicContributionInput } from '../../src/schemas/contribution.ts';
import { CONTRIBUTIONS, REPORTS, openIntakeApp, validReport, type IntakeApp } from './helpers.ts';
import { intakeDirs } from '../../api/contributions/store.ts';
import { fillTemplate } from '../helpers/filled-template.ts';
import { expectEach } from '../helpers/expect-each.ts';

let t: IntakeApp;
let template: MusicContributionInput;
beforeAll(async () => {
  t = await openIntakeApp();
  // The template with its placeholders filled in: the untouched template is refused.
  template = fillTemplate((await t.request({ url: `${CONTRIBUTIONS}/template` })).json());
});
afterAll(() => t.close());

const withKey = (key: string, changes: Partial<MusicContributionInput> = {}) => ({
  ...template,
  idempotencyKey: key,
  ...changes,
});
const pathOf = (url: string) => new URL(url).pathname;

describe('contribution intake', () => {
  it('accepts the template as-is (202, Location, pending), returns the same code on retry, and 422 for changed content', async () => {
    const first = await t.post(CONTRIBUTIONS, template);
    expect(first.statusCode).toBe(202);
    const data = first.json().data;
    expect(data).toMatchObject({ kind: 'contribution', status: 'pending', changedCanonicalData: false, review: null });
    expect(data.trackingCode).toMatch(/^C(-[2-9A-HJKMNP-Z]{4}){4}$/);
    expect(first.headers.location).toBe(`${t.baseUrl}${CONTRIBUTIONS}/${data.trackingCode}`);
    expect(data.links.self).toBe(first.headers.location);
    expect(data.links.work).toBe(`${t.baseUrl}/api/v1/works/satie-gymnopedie-1`);
    expect(data.receivedAtUtc).toMatch(/Z$/);
    expect(first.headers['cache-control']).toBe('no-store');
    expect(first.headers['idempotent-replayed']).toBeUndefined();

    const again = await t.post(CONTRIBUTIONS, JSON.stringify(template, null, 2));
    expect(again.statusCode).toBe(202);
    expect(again.json().data.trackingCode).toBe(data.trackingCode);
    expect(again.json().data.receivedAtUtc).toBe(data.receivedAtUtc);
    expect(again.headers['idempotent-replayed']).toBe('true');
    expect(again.headers.location).toBe(first.headers.location);

    const changed = await t.post(CONTRIBUTIONS, { ...template, changeSummary: 'something else' });
    expect(changed.statusCode).toBe(422);
    expect(changed.json()).toMatchObject({
      type: `${t.baseUrl}/problems/idempotency-conflict`,
      status: 422,
      errors: [{ pointer: '/idempotencyKey' }],
    });
    expect(changed.json().detail).toContain('new idempotencyKey');

    const tracking = await t.request({ url: pathOf(data.links.self) });
    expect(tracking.statusCode).toBe(200);
    expect(tracking.json().data).toMatchObject({
      trackingCode: data.trackingCode,
      status: 'pending',
      changedCanonicalData: false,
    });
    expect(tracking.json().data.history).toEqual([
      { status: 'pending', atUtc: data.receivedAtUtc, note: expect.stringContaining('queued for human review') },
    ]);
    // Contact details stay private.
    expect(tracking.body).not.toContain('e-mail address reviewers can reach');
  });

  it('keeps one record per key: three posts with two keys store two submissions', async () => {
    const before = await storedCount();
    const codes = new Set<string>();
    for (const key of ['count-check-0001', 'count-check-0002', 'count-check-0001'])
      codes.add((await t.post(CONTRIBUTIONS, withKey(key))).json().data.trackingCode);
    expect(codes.size).toBe(2);
    expect(await storedCount()).toBe(before + 4); // two submissions, two idempotency records
  });

  it('makes one record out of concurrent duplicates', async () => {
    const answers = await Promise.all(
      Array.from({ length: 25 }, () => t.post(CONTRIBUTIONS, withKey('concurrent-duplicate-key'))),
    );
    expectEach(answers, (a) => a.statusCode === 202);
    expect(new Set(answers.map((a) => a.json().data.trackingCode)).size).toBe(1);
    expect(answers.filter((a) => a.headers['idempotent-replayed'] === undefined)).toHaveLength(1);
  });

  it('finds a code typed in lower case or without hyphens; unknown and malformed codes are the same 404', async () => {
    const code: string = (await t.post(CONTRIBUTIONS, withKey('lookup-forms-0001'))).json().data.trackingCode;
    for (const form of [code.toLowerCase(), code.replace(/-/g, '')]) {
      const res = await t.request({ url: `${CONTRIBUTIONS}/${form}` });
      expect(res.statusCode).toBe(200);
      expect(res.json().data.trackingCode).toBe(code);
    }
    const unknown = await t.request({ url: `${CONTRIBUTIONS}/C-2222-3333-4444-5555` });
    const malformed = await t.request({ url: `${CONTRIBUTIONS}/not-a-code` });
    const wrongKind = await t.request({ url: `${CONTRIBUTIONS}/${code.replace(/^C/, 'R')}` });
    for (const res of [unknown, malformed, wrongKind]) {
      expect(res.statusCode).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json().type).toBe(`${t.baseUrl}/problems/not-found`);
    }
  });

  it('revalidates a tracking record with its ETag', async () => {
    const code: string = (await t.post(CONTRIBUTIONS, withKey('etag-check-0001'))).json().data.trackingCode;
    const first = await t.request({ url: `${CONTRIBUTIONS}/${code}` });
    expect(first.headers.etag).toMatch(/^"/);
    expect(first.headers['cache-control']).toBe('no-cache');
    const second = await t.request({
      url: `${CONTRIBUTIONS}/${code}`,
      headers: { 'if-none-match': first.headers.etag as string },
    });
    expect(second.statusCode).toBe(304);
  });

  it('accepts application/json, text/json and application/*+json; refuses other media types with 415', async () => {
    for (const [i, type] of [
      'application/json; charset=utf-8',
      'text/json',
      'application/vnd.archive.contribution+json',
    ].entries()) {
      const res = await t.post(CONTRIBUTIONS, withKey(`media-type-${i}-key`), type);
      expect(res.statusCode, type).toBe(202);
    }
    const xml = await t.post(CONTRIBUTIONS, JSON.stringify(withKey('media-type-xml')), 'application/xml');
    expect(xml.statusCode).toBe(415);
    expect(xml.json().type).toBe(`${t.baseUrl}/problems/unsupported-media-type`);
    const form = await t.post(REPORTS, 'a=b', 'application/x-www-form-urlencoded');
    expect(form.statusCode).toBe(415);
  });

  it('answers malformed JSON and empty bodies with 400, and bodies over the limit with 413, storing nothing', async () => {
    const before = await storedCount();
    const broken = await t.post(CONTRIBUTIONS, '{"schemaVersion": "archive.music-contribution.v1",');
    expect(broken.statusCode).toBe(400);
    expect(broken.json().type).toBe(`${t.baseUrl}/problems/malformed-json`);
    const empty = await t.post(CONTRIBUTIONS, '');
    expect(empty.statusCode).toBe(400);
    const huge = await t.post(CONTRIBUTIONS, withKey('too-large-body', { rationale: 'x'.repeat(300 * 1024) }));
    expect(huge.statusCode).toBe(413);
    expect(huge.json().type).toBe(`${t.baseUrl}/problems/payload-too-large`);
    const hugeReport = await t.post(REPORTS, { ...validReport(), proposedValue: 'x'.repeat(70 * 1024) });
    expect(hugeReport.statusCode).toBe(413);
    const notObject = await t.post(CONTRIBUTIONS, '[1,2]');
    expect(notObject.statusCode).toBe(400);
    expect(notObject.json().errors[0].pointer).toBe('');
    expect(await storedCount()).toBe(before);
  });

  it('reports schema and safety violations together, all at once', async () => {
    const body = withKey('x', {
      assets: [{ ...template.assets[0]!, downloadUrl: 'http://example.org/a.musicxml' }],
      submittedBy: { name: 'Agent', kind: 'AutomatedAgent' },
      quality: { humanListeningApproved: true },
    });
    const res = await t.post(CONTRIBUTIONS, body);
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual([
      { pointer: '/idempotencyKey', detail: 'must be at least 8 characters' },
      {
        pointer: '/assets/0/downloadUrl',
        detail: 'must be an https:// URL (files and evidence are fetched only over HTTPS)',
      },
      {
        pointer: '/quality/humanListeningApproved',
        detail:
          'true requires submittedBy.kind "Human" (it is "AutomatedAgent"): only an accountable human may assert listening approval',
      },
    ]);
  });

  it('never edits the catalog', async () => {
    const before = (await t.request({ url: '/api/v1/works/satie-gymnopedie-1' })).body;
    await t.post(
      CONTRIBUTIONS,
      withKey('catalog-untouched', { operation: 'metadata-revision', work: { title: 'Changed title' } }),
    );
    await t.post(REPORTS, validReport());
    expect((await t.request({ url: '/api/v1/works/satie-gymnopedie-1' })).body).toBe(before);
  });
});

describe('correction reports', () => {
  it('accepts a report (202, R- code, Location) and tracks it as pending', async () => {
    const res = await t.post(REPORTS, validReport());
    expect(res.statusCode).toBe(202);
    const data = res.json().data;
    expect(data.trackingCode).toMatch(/^R(-[2-9A-HJKMNP-Z]{4}){4}$/);
    expect(res.headers.location).toBe(`${t.baseUrl}${REPORTS}/${data.trackingCode}`);
    expect(data).toMatchObject({
      kind: 'correction-report',
      status: 'pending',
      changedCanonicalData: false,
      summary: { workSlug: 'satie-gymnopedie-1', fieldName: 'year', targetId: null },
    });
    const tracking = await t.request({ url: pathOf(data.links.self) });
    expect(tracking.statusCode).toBe(200);
    expect(tracking.json().data.status).toBe('pending');
    expect(tracking.json().data.history).toHaveLength(1);
    // A second identical report is a second report: reports carry no idempotency key.
    expect((await t.post(REPORTS, validReport())).json().data.trackingCode).not.toBe(data.trackingCode);
  });

  it('refuses an invalid report with every violation', async () => {
    const res = await t.post(REPORTS, {
      ...validReport(),
      reporterKind: 'Robot',
      fieldName: 'f'.repeat(81),
      evidenceUrl: 'javascript:alert(1)',
      extra: true,
    });
    expect(res.statusCode).toBe(400);
    expect(
      res
        .json()
        .errors.map((e: { pointer: string }) => e.pointer)
        .sort(),
    ).toEqual(['/evidenceUrl', '/extra', '/fieldName', '/reporterKind']);
  });

  it('answers unknown report codes with 404', async () => {
    expect((await t.request({ url: `${REPORTS}/R-2222-3333-4444-5555` })).statusCode).toBe(404);
  });
});

describe('contract documents', () => {
  it("serves the schema as application/schema+json, from the validator's own schema, with an ETag", async () => {
    const res = await t.request({ url: `${CONTRIBUTIONS}/schema` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/schema+json');
    const doc = res.json();
    expect(doc.$id).toBe(`${t.baseUrl}${CONTRIBUTIONS}/schema`);
    expect(doc['x-archive'].limits.bodyBytes).toBe(256 * 1024);
    const validate = createAjv().compile(doc);
    expect(validate(template)).toBe(true);
    expect(validate({ ...template, operation: 'remix' })).toBe(false);
    const again = await t.request({
      url: `${CONTRIBUTIONS}/schema`,
      headers: { 'if-none-match': res.headers.etag as string },
    });
    expect(again.statusCode).toBe(304);
  });

  it('serves a template for a real work that links its schema', async () => {
    const res = await t.request({ url: `${CONTRIBUTIONS}/template` });
    expect(res.headers['content-type']).toBe('application/json');
    expect(res.headers.link).toBe(`<${t.baseUrl}${CONTRIBUTIONS}/schema>; rel="describedby"`);
    expect(template.target?.workSlug).toBe('satie-gymnopedie-1');
    expect(template.work?.title).toBe((await t.handle.current.catalog.records.get('satie-gymnopedie-1'))!.title);
    const profiles = t.handle.current.catalog.profiles.map((p) => p.slug);
    expect(profiles).toContain(template.arrangement!.renderingProfileSlugs[0]);
  });
});

/** Record files in every intake collection. */
async function storedCount(): Promise<number> {
  const dirs = intakeDirs(t.dataDir);
  let n = 0;
  for (const dir of [dirs.contributions, dirs.correctionReports, dirs.idempotency]) {
    if (!existsSync(dir)) continue;
    n += readdirSync(dir, { recursive: true }).filter(
      (f) => String(f).endsWith('.json') && !path.basename(String(f)).startsWith('.'),
    ).length;
  }
  return n;
}
