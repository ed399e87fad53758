/**
 * GET /api/v1/works and resolve over the build's prebuilt index: unknown filters are problems,
 * unusual queries still answer exactly, a build folder without an index is refused with a clear
 * message, one made before the composers had their own file is read as before, and full records
 * are read on demand (none are loaded at start).
 */
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApp, type TestApp } from '../helpers/app.ts';
import { SiteHandle } from '../../api/site/site-handle.ts';
import { isCompleteBuild } from '../../api/site/builds.ts';

let t: TestApp;
beforeAll(async () => {
  t = await openApp();
});
afterAll(() => t.close());

describe('bad catalog queries are problem details naming the parameter', () => {
  it.each([
    ['/api/v1/works?color=blue', ['color']],
    ['/api/v1/works?composers=bach', ['composers']],
    ['/api/v1/works?query=bach&sort=title&page=2', ['sort']],
    ['/api/v1/profiles?flavour=sweet', ['flavour']],
  ])('%s', async (url, fields) => {
    const res = await t.request({ url });
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    const body = res.json();
    expect(body.type).toBe(`${t.baseUrl}/problems/invalid-query`);
    expect(body.errors.map((e: { parameter: string }) => e.parameter)).toEqual(fields);
    expect(body.detail).toContain(fields[0]);
  });

  it('a 10 KB query string is a problem detail naming the parameter, whatever its shape', async () => {
    for (const query of [
      `query=${'ab '.repeat(3400)}`,
      Array.from({ length: 1000 }, (_, i) => `query=w${i}`).join('&'),
      `composer=${'%C3%A9'.repeat(1700)}`,
    ]) {
      expect(query.length).toBeGreaterThanOrEqual(10_000);
      const res = await t.request({ url: `/api/v1/works?${query}` });
      expect(res.statusCode, query.slice(0, 40)).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
      expect(res.json().errors.map((e: { parameter: string }) => e.parameter)).toEqual([query.split('=')[0]]);
    }
  });

  it('a query of 200 characters answers; 201 is a problem', async () => {
    expect((await t.request({ url: `/api/v1/works?query=${'a '.repeat(100)}` })).statusCode).toBe(200);
    expect((await t.request({ url: `/api/v1/works?query=${'a'.repeat(201)}` })).statusCode).toBe(400);
  });
});

describe('unusual queries answer exactly', () => {
  it('a query of many one-letter words is the intersection of their prefixes', async () => {
    const all = (await t.request({ url: '/api/v1/works?pageSize=100' })).json().data.total as number;
    const a = (await t.request({ url: '/api/v1/works?query=a&pageSize=100' })).json().data;
    const many = (
      await t.request({ url: `/api/v1/works?query=${encodeURIComponent('a a a b c')}&pageSize=100` })
    ).json().data;
    expect(a.total).toBeGreaterThan(0);
    expect(a.total).toBeLessThanOrEqual(all);
    expect(many.total).toBeLessThanOrEqual(a.total);
    for (const item of many.items) expect(a.items.map((i: { slug: string }) => i.slug)).toContain(item.slug);
  });

  it('punctuation only is no constraint (as before), and a page past the end is empty with the exact total', async () => {
    const all = (await t.request({ url: '/api/v1/works' })).json().data;
    const punct = (await t.request({ url: `/api/v1/works?query=${encodeURIComponent('!!! ...')}` })).json().data;
    expect(punct.total).toBe(all.total);
    const past = (await t.request({ url: '/api/v1/works?query=bach&page=999' })).json().data;
    expect(past.items).toEqual([]);
    expect(past.total).toBeGreaterThan(0);
  });
});

describe('records on demand', () => {
  it("a fresh server has read no full record; a resolve reads only its candidates' works", async () => {
    const fresh = await openApp();
    try {
      const records = fresh.handle.current.catalog.records as unknown as { cache: Map<number, unknown> };
      expect(records.cache.size).toBe(0);
      const res = await fresh.request({
        method: 'POST',
        url: '/api/v1/music/resolve',
        payload: JSON.stringify({
          channel: { channelKey: 'k', intendedRole: 'music-bed' },
          requirements: { requiredFormats: ['mp3'] },
        }),
        headers: { 'content-type': 'application/json' },
      });
      expect(res.statusCode).toBe(200);
      const shown = new Set(res.json().data.candidates.map((c: { workSlug: string }) => c.workSlug));
      expect(shown.size).toBeGreaterThan(0);
      expect(records.cache.size).toBe(shown.size);
    } finally {
      await fresh.close();
    }
  });
});

describe('a build folder without an index', () => {
  let copy: string;
  beforeAll(() => {
    copy = mkdtempSync(path.join(os.tmpdir(), 'pdma-no-index-'));
    cpSync(t.buildDir, copy, { recursive: true });
    rmSync(path.join(copy, 'index'), { recursive: true, force: true });
  });
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it('is not a complete build (start rebuilds it) and is refused with the reason', async () => {
    expect(isCompleteBuild(t.buildDir)).toBe(true);
    expect(isCompleteBuild(copy)).toBe(false);
    await expect(SiteHandle.open(copy)).rejects.toThrow(/has no index .*rebuild/);
  });
});

describe('the composers of a build folder', () => {
  let copy: string;
  beforeAll(() => {
    copy = mkdtempSync(path.join(os.tmpdir(), 'pdma-composers-'));
    cpSync(t.buildDir, copy, { recursive: true });
  });
  afterAll(() => rmSync(copy, { recursive: true, force: true }));

  it('are read from catalog.json in a folder made before composers.json, and a folder with neither is refused', async () => {
    const index = path.join(copy, 'index');
    const composers = JSON.parse(readFileSync(path.join(index, 'composers.json'), 'utf8'));
    expect(composers.length).toBeGreaterThan(1);
    const served = await SiteHandle.open(t.buildDir);
    expect(served.current.catalog.composers).toEqual(composers);
    await served.current.catalog.listing.close();
    // The older shape: the list inside catalog.json, no composers.json.
    const manifest = JSON.parse(readFileSync(path.join(index, 'catalog.json'), 'utf8'));
    expect(manifest.composers).toBeUndefined();
    writeFileSync(path.join(index, 'catalog.json'), `${JSON.stringify({ ...manifest, composers })}\n`);
    rmSync(path.join(index, 'composers.json'));
    const older = await SiteHandle.open(copy);
    expect(older.current.catalog.composers).toEqual(composers);
    await older.current.catalog.listing.close();
    writeFileSync(path.join(index, 'catalog.json'), `${JSON.stringify(manifest)}\n`);
    await expect(SiteHandle.open(copy)).rejects.toThrow(/composers cannot be read.*rebuild/);
  });
});
