/**
 * Over a real socket, a record answered from memory (the fast path) carries exactly the status,
 * headers and bytes the full path gave for the same request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApp, type TestApp } from '../helpers/app.ts';

let t: TestApp;
let base: string;
beforeAll(async () => {
  t = await openApp();
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const addr = t.app.server.address();
  base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
});
afterAll(() => t.close());

const keep = ['content-type', 'etag', 'cache-control', 'accept-ranges', 'content-length'];
const pick = (h: Headers) => Object.fromEntries(keep.map((k) => [k, h.get(k)]));

describe('fast path', () => {
  it('answers GET, HEAD and conditional GET like the full path', async () => {
    const slug = t.handle.current.catalog.records.slugs()[0]!;
    for (const path of [
      `/api/v1/works/${slug}`,
      `/api/v1/works/${slug}/index.md`,
      `/works/${slug}/`,
      '/llms.txt',
      '/api/v1',
    ]) {
      const first = await fetch(`${base}${path}`); // full path: loads and caches the file
      const firstBody = Buffer.from(await first.arrayBuffer());
      const second = await fetch(`${base}${path}`); // from memory
      const secondBody = Buffer.from(await second.arrayBuffer());
      expect(second.status, path).toBe(first.status);
      expect(pick(second.headers), path).toEqual(pick(first.headers));
      expect(secondBody.equals(firstBody), path).toBe(true);
      const head = await fetch(`${base}${path}`, { method: 'HEAD' });
      expect(pick(head.headers), path).toEqual(pick(first.headers));
      const conditional = await fetch(`${base}${path}`, { headers: { 'if-none-match': first.headers.get('etag')! } });
      expect(conditional.status, path).toBe(304);
      expect(conditional.headers.get('etag')).toBe(first.headers.get('etag'));
    }
  });

  it('leaves ranges, query strings and unknown paths to the full path', async () => {
    const slug = t.handle.current.catalog.records.slugs()[0]!;
    await fetch(`${base}/api/v1/works/${slug}`);
    const ranged = await fetch(`${base}/api/v1/works/${slug}`, { headers: { range: 'bytes=0-4' } });
    expect(ranged.status).toBe(206);
    expect(await ranged.text()).toBe('{"api');
    const missing = await fetch(`${base}/api/v1/works/no-such-work`);
    expect(missing.status).toBe(404);
    expect(missing.headers.get('content-type')).toMatch(/^application\/problem\+json/);
  });
});
