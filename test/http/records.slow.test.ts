/**
 * The static records through the front server: types, envelope, ETag/304, HEAD, ranges, and
 * problem details. Every JSON answer is checked against the OpenAPI document by `request()`.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApp, PROJECT_ROOT, type TestApp } from '../helpers/app.ts';
import type { WorkRecord } from '../../src/schemas/work.ts';
import type { ProfileRecord } from '../../src/schemas/profile.ts';

let t: TestApp;
let works: WorkRecord[];
beforeAll(async () => {
  t = await openApp();
  works = await t.handle.current.catalog.records.all();
});
afterAll(() => t.close());

const withMusicXml = () => {
  const w = works.find((w) => w.sourceAssets.some((a) => a.kind === 'musicxml' && a.links.rawMusicXml));
  if (!w) throw new Error('the sample catalog has no work with a public MusicXML source');
  return w;
};

describe('GET /api/v1/works/{slug}', () => {
  it('answers the record in the envelope as application/json', async () => {
    const w = withMusicXml();
    const res = await t.request({ url: `/api/v1/works/${w.slug}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/json');
    const body = res.json();
    expect(body.apiVersion).toBe('v1');
    expect(body.generatedAtUtc).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect(body.data.slug).toBe(w.slug);
    expect(typeof body.data.rightsNote).toBe('string');
    for (const asset of body.data.sourceAssets) {
      expect(Number.isInteger(asset.id)).toBe(true);
      expect(asset.reviewStatus).toEqual(expect.any(String));
    }
    const xml = body.data.sourceAssets.find((a: { kind: string }) => a.kind === 'musicxml');
    expect(xml.links.rawMusicXml).toMatch(new RegExp(`^${t.baseUrl}/works/${w.slug}/files/.+\\.musicxml$`));
  });

  it('answers 304 to a repeat with If-None-Match, and 200 to a stale tag', async () => {
    const url = `/api/v1/works/${works[0]!.slug}`;
    const first = await t.request({ url });
    const etag = String(first.headers.etag);
    expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/); // strong: no W/ prefix
    expect(first.headers['cache-control']).toContain('max-age=');
    const again = await t.request({ url, headers: { 'if-none-match': etag } });
    expect(again.statusCode).toBe(304);
    expect(again.body).toBe('');
    expect(again.headers.etag).toBe(etag);
    const stale = await t.request({ url, headers: { 'if-none-match': '"not-the-tag"' } });
    expect(stale.statusCode).toBe(200);
  });

  it('answers HEAD with the headers and no body', async () => {
    const url = `/api/v1/works/${works[0]!.slug}`;
    const get = await t.request({ url });
    const head = await t.request({ method: 'HEAD', url });
    expect(head.statusCode).toBe(200);
    expect(head.body).toBe('');
    expect(head.headers.etag).toBe(get.headers.etag);
    expect(head.headers['content-length']).toBe(String(Buffer.byteLength(get.body)));
  });

  it('answers 404 application/problem+json for an unknown slug', async () => {
    const res = await t.request({ url: '/api/v1/works/no-such-work' });
    expect(res.statusCode).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json()).toMatchObject({
      type: `${t.baseUrl}/problems/not-found`,
      status: 404,
      title: 'Not found',
      instance: '/api/v1/works/no-such-work',
    });
  });

  it('answers 405 with Allow for a write to a record', async () => {
    const res = await t.request({ method: 'DELETE', url: `/api/v1/works/${works[0]!.slug}` });
    expect(res.statusCode).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
    expect(res.json().type).toBe(`${t.baseUrl}/problems/method-not-allowed`);
  });

  it('refuses path traversal', async () => {
    const res = await t.request({ url: '/api/v1/works/..%2F..%2Fbuild.json' });
    expect(res.statusCode).toBe(404);
  });
});

describe('GET /api/v1/works/{slug}/index.md', () => {
  it('is text/markdown and carries what an agent must keep with a claim', async () => {
    const w = withMusicXml();
    const res = await t.request({ url: `/api/v1/works/${w.slug}/index.md` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(res.body).toContain(`slug: ${w.slug}`);
    expect(res.body).toContain(w.rightsNote.slice(0, 40));
    for (const a of w.sourceAssets) {
      expect(res.body).toContain(`| ${a.id} | ${a.kind} |`);
      expect(res.body).toContain(a.reviewState);
      expect(res.body).toContain(a.links.sourcePage);
    }
    if (w.rights.license) expect(res.body).toContain(w.rights.license);
  });
});

describe('stored files', () => {
  it('serves raw MusicXML byte-for-byte with its digest, and byte ranges', async () => {
    const w = withMusicXml();
    const asset = w.sourceAssets.find((a) => a.kind === 'musicxml' && a.links.rawMusicXml)!;
    const url = new URL(asset.links.rawMusicXml!).pathname;
    const res = await t.app.inject({ url });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('application/vnd.recordare.musicxml+xml');
    expect(createHash('sha256').update(res.rawPayload).digest('hex')).toBe(asset.sha256);
    expect(res.rawPayload.length).toBe(asset.byteLength);
    const part = await t.request({ url, headers: { range: 'bytes=5-14' } });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 5-14/${asset.byteLength}`);
    expect(part.rawPayload).toEqual(res.rawPayload.subarray(5, 15));
    const ifRangeStale = await t.request({ url, headers: { range: 'bytes=5-14', 'if-range': '"old"' } });
    expect(ifRangeStale.statusCode).toBe(200);
    const beyond = await t.request({ url, headers: { range: `bytes=${asset.byteLength! + 10}-` } });
    expect(beyond.statusCode).toBe(416);
    expect(beyond.headers['content-range']).toBe(`bytes */${asset.byteLength}`);
  });
});

describe('discovery documents', () => {
  it('/llms.txt is text/plain and tells agents about caching, 429 and keys', async () => {
    const res = await t.request({ url: '/llms.txt' });
    expect(res.headers['content-type']).toBe('text/plain; charset=utf-8');
    expect(res.body).toContain('If-None-Match');
    expect(res.body).toContain('Retry-After');
    expect(res.body).toMatch(/Never put a key in a URL/);
    expect(res.body).toContain(`${t.baseUrl}/api/v1/openapi.json`);
  });

  it('/api/v1 lists capabilities and conventions', async () => {
    const res = await t.request({ url: '/api/v1' });
    expect(res.statusCode).toBe(200);
    const data = res.json().data;
    expect(data.capabilities.map((c: { path: string }) => c.path)).toContain('/api/v1/works/{slug}');
    expect(data.links.openapi).toBe(`${t.baseUrl}/api/v1/openapi.json`);
  });

  it('/api/v1/music/workflow states the review-state boundaries', async () => {
    const res = await t.request({ url: '/api/v1/music/workflow' });
    const data = res.json().data;
    const states = Object.fromEntries(
      data.reviewStates.map((s: { state: string; meaning: string }) => [s.state, s.meaning]),
    );
    expect(states['technical-pass']).toMatch(/not listening approval/);
    expect(states['rights-review-required']).toMatch(/not permission to publish/);
    expect(data.channelContract.roles).toHaveLength(7);
    expect(data.rightsChecklist.map((c: { id: string }) => c.id)).toEqual(
      expect.arrayContaining(['composition', 'edition', 'recording']),
    );
  });
});

describe('profiles and instruments', () => {
  it('serves each definition byte-for-byte, matching its fingerprint', async () => {
    const profiles = t.handle.current.catalog.profiles;
    expect(profiles.length).toBeGreaterThan(0);
    for (const p of profiles) {
      const res = await t.request({ url: `/api/v1/profiles/${p.slug}/definition` });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toBe('application/json');
      const stored = readFileSync(
        path.join(PROJECT_ROOT, process.env.TEST_CONTENT_DIR ?? 'content', 'profiles', `${p.slug}.json`),
      );
      expect(res.rawPayload.equals(stored)).toBe(true);
      expect(createHash('sha256').update(res.rawPayload).digest('hex')).toBe(p.fingerprint.value);
      const record = await t.request({ url: `/api/v1/profiles/${p.slug}` });
      expect((record.json().data as ProfileRecord).links.definition).toBe(
        `${t.baseUrl}/api/v1/profiles/${p.slug}/definition`,
      );
    }
  });

  it('lists instruments with readiness and filter links', async () => {
    const res = await t.request({ url: '/api/v1/instruments' });
    const { instruments } = res.json().data;
    expect(instruments.length).toBeGreaterThan(0);
    for (const i of instruments) {
      expect(['ready', 'candidate', 'none']).toContain(i.readiness);
      expect(i.links.works).toBe(`${t.baseUrl}/api/v1/works?instrument=${encodeURIComponent(i.slug)}`);
    }
  });

  it('an unknown profile is a 404 problem', async () => {
    const res = await t.request({ url: '/api/v1/profiles/no-such-profile' });
    expect(res.statusCode).toBe(404);
  });
});
