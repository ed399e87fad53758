/**
 * The fast path for a file it knows whose bytes left the memory cache (a catalog larger than the
 * cache): read again on the request thread and answered with the same ETag and bytes; a file that
 * vanished (a retired build) falls back to the full path instead of failing.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StaticSite } from '../../api/site/static-site.ts';
import { serveStatic } from '../../api/site/fast-static.ts';
import type { SiteHandle } from '../../api/site/site-handle.ts';

let dir: string;
let server: Server;
let base: string;
let site: StaticSite;
let fellBack: string[];

beforeEach(async () => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'fast-evicted-'));
  for (const name of ['a', 'b', 'c']) {
    mkdirSync(path.join(dir, 'api', 'v1', 'works', name), { recursive: true });
    writeFileSync(
      path.join(dir, 'api', 'v1', 'works', name, 'index.json'),
      JSON.stringify({ name, pad: name.repeat(90) }),
    );
  }
  // Room for the bytes of one record only.
  site = new StaticSite(dir, { memoryBudget: 150 });
  const handle = { current: { site } } as unknown as SiteHandle;
  fellBack = [];
  server = createServer((req, res) =>
    serveStatic(req, res, handle, () => {
      fellBack.push(req.url ?? '');
      res.writeHead(599).end();
    }),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  base = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;
});
afterEach(async () => {
  await new Promise((resolve) => server.close(resolve));
  rmSync(dir, { recursive: true, force: true });
});

describe('fast path, bytes evicted from memory', () => {
  it('reads a known file again and answers the same bytes and ETag', async () => {
    const first = await fetch(`${base}/api/v1/works/a`);
    const firstBody = await first.text();
    await fetch(`${base}/api/v1/works/b`); // evicts a's bytes
    await fetch(`${base}/api/v1/works/c`);
    const known = site.peek('/api/v1/works/a');
    expect(known?.body).toBeUndefined();
    const again = await fetch(`${base}/api/v1/works/a`);
    expect(again.status).toBe(200);
    expect(again.headers.get('etag')).toBe(first.headers.get('etag'));
    expect(await again.text()).toBe(firstBody);
    expect(JSON.parse(firstBody).name).toBe('a');
    expect(fellBack).toEqual([]);
  });

  it('hands a known file that vanished to the full path', async () => {
    await fetch(`${base}/api/v1/works/a`);
    await fetch(`${base}/api/v1/works/b`);
    await fetch(`${base}/api/v1/works/c`);
    rmSync(path.join(dir, 'api', 'v1', 'works', 'a'), { recursive: true });
    const gone = await fetch(`${base}/api/v1/works/a`);
    expect(gone.status).toBe(599);
    expect(fellBack).toEqual(['/api/v1/works/a']);
  });
});
