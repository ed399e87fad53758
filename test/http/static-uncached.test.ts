/**
 * With no static bytes kept in memory (ARCHIVE_STATIC_CACHE_MB=0) every record is streamed from
 * its file: whole, with a query string (Fastify's path), and as a byte range, each the file's
 * exact bytes; and the caches' sizes /metrics reports stay within their budgets.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
beforeAll(async () => {
  t = await openApp(undefined, { ARCHIVE_STATIC_CACHE_MB: '0', ARCHIVE_STATIC_FACTS_MB: '1' });
});
afterAll(() => t.close());

describe('static files with no bytes kept in memory', () => {
  it('streams whole files, files asked for with a query string, and ranges, byte for byte', async () => {
    const slug = (await t.handle.current.catalog.records.firstSlug())!;
    const file = path.join(t.buildDir, 'client', 'api', 'v1', 'works', slug, 'index.json');
    const bytes = readFileSync(file);
    for (const url of [`/api/v1/works/${slug}`, `/api/v1/works/${slug}?x=1`, `/api/v1/works/${slug}/index.json?y=2`]) {
      const res = await t.app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.rawPayload.equals(bytes), url).toBe(true);
      expect(res.headers['content-length']).toBe(String(bytes.length));
    }
    const res = await t.app.inject({ method: 'GET', url: `/api/v1/works/${slug}`, headers: { range: 'bytes=10-99' } });
    expect(res.statusCode).toBe(206);
    expect(res.rawPayload.equals(bytes.subarray(10, 100))).toBe(true);
    const tail = await t.app.inject({ method: 'GET', url: `/api/v1/works/${slug}`, headers: { range: 'bytes=-7' } });
    expect(tail.statusCode).toBe(206);
    expect(tail.rawPayload.equals(bytes.subarray(bytes.length - 7))).toBe(true);
    const stats = t.handle.current.site.stats();
    expect(stats.bodyBytes).toBe(0);
    expect(stats.bodyBudget).toBe(0);
    expect(stats.factBytes).toBeGreaterThan(0);
    expect(stats.factBytes).toBeLessThanOrEqual(1024 * 1024);
  });
});
