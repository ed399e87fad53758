/**
 * The exact header set of the static fast path (api/site/fast-static.ts) over a real socket:
 * names, their case and order, and values, for a 200, a 304 and a HEAD of a record answered from
 * memory. Pins the bytes the fast path writes, so a faster way of writing them stays identical.
 */
import { PUBLIC_CSP } from '../../api/http/content-security-policy.ts';
import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let port: number;
beforeAll(async () => {
  t = await openApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = t.app.server.address();
  port = typeof addr === 'object' && addr ? addr.port : 0;
});
afterAll(() => t.close());

interface Raw {
  status: number;
  raw: string[];
  body: Buffer;
}

function raw(path: string, method = 'GET', headers: Record<string, string> = {}): Promise<Raw> {
  return new Promise((resolve, reject) => {
    const req = http.request({ host: '127.0.0.1', port, path, method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode!, raw: res.rawHeaders, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

/** rawHeaders as [name, value] pairs, the Date value replaced (it is the clock). */
const pairs = (r: Raw) => {
  const out: Array<[string, string]> = [];
  for (let i = 0; i < r.raw.length; i += 2) out.push([r.raw[i]!, r.raw[i] === 'Date' ? '<date>' : r.raw[i + 1]!]);
  return out;
};

describe('fast path header set', () => {
  it('writes the same names, order and values for a 200, a HEAD and a 304', async () => {
    const slug = t.handle.current.catalog.records.slugs()[0]!;
    const path = `/api/v1/works/${slug}`;
    await raw(path); // the first answer loads the file; the next ones come from memory
    const ok = await raw(path);
    expect(ok.status).toBe(200);
    const etag = ok.raw[ok.raw.indexOf('ETag') + 1]!;
    expect(etag).toMatch(/^"[A-Za-z0-9_-]{27}"$/);
    expect(pairs(ok)).toEqual([
      ['ETag', etag],
      ['Cache-Control', 'public, max-age=60, stale-while-revalidate=300'],
      ['Accept-Ranges', 'bytes'],
      ['X-Content-Type-Options', 'nosniff'],
      ['Content-Type', 'application/json'],
      ['Content-Length', String(ok.body.length)],
      ['Date', '<date>'],
      ['Connection', 'keep-alive'],
      ['Keep-Alive', 'timeout=5'],
    ]);
    const head = await raw(path, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body.length).toBe(0);
    expect(pairs(head)).toEqual(pairs(ok));
    const notModified = await raw(path, 'GET', { 'If-None-Match': etag });
    expect(notModified.status).toBe(304);
    expect(notModified.body.length).toBe(0);
    expect(pairs(notModified)).toEqual([
      ['ETag', etag],
      ['Cache-Control', 'public, max-age=60, stale-while-revalidate=300'],
      ['Accept-Ranges', 'bytes'],
      ['X-Content-Type-Options', 'nosniff'],
      ['Date', '<date>'],
      ['Connection', 'keep-alive'],
      ['Keep-Alive', 'timeout=5'],
    ]);
    // A weak or listed validator matches too (RFC 9110 13.1.2), with the same 304.
    const listed = await raw(path, 'GET', { 'If-None-Match': `"x", W/${etag}` });
    expect(listed.status).toBe(304);
    expect(pairs(listed)).toEqual(pairs(notModified));
    // An HTML page: its own type, the same header names in the same order, plus the pages'
    // Content-Security-Policy after nosniff.
    const page = await raw(`/works/${slug}/`);
    const again = await raw(`/works/${slug}/`);
    expect(pairs(again)).toEqual(pairs(page));
    const names = pairs(ok).map(([k]) => k);
    names.splice(names.indexOf('X-Content-Type-Options') + 1, 0, 'Content-Security-Policy');
    expect(pairs(again).map(([k]) => k)).toEqual(names);
    expect(again.raw[again.raw.indexOf('Content-Security-Policy') + 1]).toBe(PUBLIC_CSP);
    expect(again.raw[again.raw.indexOf('Content-Type') + 1]).toBe('text/html; charset=utf-8');
  });
});
