/**
 * Engraved score pages are stored once as SVG with brotli and gzip forms written by the build
 * beside them (src/lib/site/precompress.ts), and served by Accept-Encoding: by the front server
 * over a real socket (fast path and Fastify's path: ranges, HEAD, 304) and by nginx with the
 * build's generated config (gzip_static; brotli_static when Debian's module is there).
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApp, type TestApp, listenOnLoopback } from '../helpers/app.ts';
import { standaloneConfig } from '../../bench/lib/nginx.ts';
import { findOrInstallDebianPackage } from '../../bench/lib/util.ts';
import { DEBIAN_BROTLI_STATIC_MODULE, renderNginxConfig } from '../../api/site/nginx.ts';
import { PRECOMPRESSED_FILE } from '../../src/lib/site/precompress.ts';

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
}

/** One request on a fresh socket, with the body exactly as it came over the wire (never decoded). */
function raw(origin: string, urlPath: string, headers: Record<string, string> = {}, method = 'GET'): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${origin}${urlPath}`, { method, headers, agent: false }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }));
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

describe('precompressed score pages from the front server (real socket)', () => {
  let t: TestApp;
  let origin: string;
  let rel: string;
  let client: string;

  beforeAll(async () => {
    t = await openApp();
    origin = await listenOnLoopback(t.app);
    client = path.join(t.buildDir, 'client');
    const slug = readdirSync(path.join(client, 'works')).find((s) =>
      existsSync(path.join(client, 'works', s, 'score', '1', 'page-1.svg')),
    );
    expect(slug, 'the sample build has an engraved score').toBeDefined();
    rel = `works/${slug}/score/1/page-1.svg`;
  });
  afterAll(async () => {
    await t?.close();
  });

  it('the build wrote both compressed forms beside every engraved page, and they decode to the page', () => {
    const pages = walk(client).filter((f) => PRECOMPRESSED_FILE.test(f));
    expect(pages.length).toBeGreaterThan(1);
    for (const page of pages) {
      const svg = readFileSync(path.join(client, page));
      expect(zlib.brotliDecompressSync(readFileSync(path.join(client, `${page}.br`))).equals(svg), page).toBe(true);
      expect(zlib.gunzipSync(readFileSync(path.join(client, `${page}.gz`))).equals(svg), page).toBe(true);
    }
    // Nothing else was given compressed forms (stored files, HTML, records).
    const others = walk(client).filter(
      (f) => /\.(br|gz)$/.test(f) && !PRECOMPRESSED_FILE.test(f.replace(/\.(br|gz)$/, '')),
    );
    expect(others).toEqual([]);
  });

  it('answers br, gzip or identity by Accept-Encoding, each with its own strong ETag and Vary', async () => {
    const svg = readFileSync(path.join(client, rel));
    const br = readFileSync(path.join(client, `${rel}.br`));
    const gz = readFileSync(path.join(client, `${rel}.gz`));
    // Twice: the first answer finds the file, the second comes from what the server remembered.
    for (const round of [1, 2]) {
      const plain = await raw(origin, `/${rel}`);
      expect(plain.status).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.headers.vary).toBe('Accept-Encoding');
      expect(plain.headers['content-type']).toBe('image/svg+xml');
      expect(plain.body.equals(svg), `round ${round}`).toBe(true);

      const b = await raw(origin, `/${rel}`, { 'accept-encoding': 'gzip, deflate, br, zstd' });
      expect(b.status).toBe(200);
      expect(b.headers['content-encoding']).toBe('br');
      expect(b.headers.vary).toBe('Accept-Encoding');
      expect(b.headers['content-type']).toBe('image/svg+xml');
      expect(Number(b.headers['content-length'])).toBe(br.length);
      expect(b.body.equals(br)).toBe(true);
      expect(zlib.brotliDecompressSync(b.body).equals(svg)).toBe(true);

      const g = await raw(origin, `/${rel}`, { 'accept-encoding': 'gzip, deflate' });
      expect(g.headers['content-encoding']).toBe('gzip');
      expect(g.headers.vary).toBe('Accept-Encoding');
      expect(g.body.equals(gz)).toBe(true);

      const refused = await raw(origin, `/${rel}`, { 'accept-encoding': 'br;q=0, gzip;q=0' });
      expect(refused.headers['content-encoding']).toBeUndefined();
      expect(refused.body.equals(svg)).toBe(true);

      const tags = new Set([plain.headers.etag, b.headers.etag, g.headers.etag]);
      expect(tags.size, 'one ETag per encoding').toBe(3);
      for (const tag of tags) expect(tag).toMatch(/^"[A-Za-z0-9_-]+"$/);
    }
    // Through Fastify's path (a query string skips the fast path): the same choice and headers.
    const viaFastify = await raw(origin, `/${rel}?x=1`, { 'accept-encoding': 'br' });
    expect(viaFastify.headers['content-encoding']).toBe('br');
    expect(viaFastify.headers.vary).toBe('Accept-Encoding');
    expect(viaFastify.body.equals(br)).toBe(true);
  });

  it('304, HEAD and ranges apply to the chosen encoding', async () => {
    const br = readFileSync(path.join(client, `${rel}.br`));
    const first = await raw(origin, `/${rel}`, { 'accept-encoding': 'br' });
    const brTag = String(first.headers.etag);
    const again = await raw(origin, `/${rel}`, { 'accept-encoding': 'br', 'if-none-match': brTag });
    expect(again.status).toBe(304);
    expect(again.headers.etag).toBe(brTag);
    expect(again.headers.vary).toBe('Accept-Encoding');
    expect(again.body.length).toBe(0);
    // The brotli tag does not validate the gzip form.
    const other = await raw(origin, `/${rel}`, { 'accept-encoding': 'gzip', 'if-none-match': brTag });
    expect(other.status).toBe(200);
    expect(other.headers['content-encoding']).toBe('gzip');

    const head = await raw(origin, `/${rel}`, { 'accept-encoding': 'br' }, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.headers['content-encoding']).toBe('br');
    expect(Number(head.headers['content-length'])).toBe(br.length);
    expect(head.body.length).toBe(0);

    const part = await raw(origin, `/${rel}`, { 'accept-encoding': 'br', range: 'bytes=0-9' });
    expect(part.status).toBe(206);
    expect(part.headers['content-encoding']).toBe('br');
    expect(part.headers.vary).toBe('Accept-Encoding');
    expect(part.headers['content-range']).toBe(`bytes 0-9/${br.length}`);
    expect(part.body.equals(br.subarray(0, 10))).toBe(true);
    const cond = await raw(origin, `/${rel}`, { 'accept-encoding': 'br', range: 'bytes=5-', 'if-range': brTag });
    expect(cond.status).toBe(206);
    expect(cond.body.equals(br.subarray(5))).toBe(true);
    const beyond = await raw(origin, `/${rel}`, { 'accept-encoding': 'br', range: `bytes=${br.length}-` });
    expect(beyond.status).toBe(416);
    expect(beyond.headers['content-range']).toBe(`bytes */${br.length}`);
  });

  it('files without compressed forms are not negotiated', async () => {
    const page = await raw(origin, `/${path.posix.dirname(rel)}/`, { 'accept-encoding': 'br, gzip' });
    expect(page.status).toBe(200);
    expect(page.headers['content-encoding']).toBeUndefined();
    expect(page.headers.vary).toBeUndefined();
    const midi = await raw(origin, `/${path.posix.dirname(rel)}/score.mid`, { 'accept-encoding': 'br, gzip' });
    expect(midi.headers['content-encoding']).toBeUndefined();
  });

  it("nginx with the generated config serves the same forms (gzip_static; brotli_static with Debian's module)", async () => {
    const bin = spawnSync('sh', ['-c', 'command -v nginx'], { encoding: 'utf8' }).stdout.trim();
    // npm test installs nginx (scripts/ensure-test-tools.ts): a missing one fails, never passes quietly.
    expect(bin, 'nginx is not installed: run `node scripts/ensure-test-tools.ts` (npm test does)').not.toBe('');
    // Debian 12 ships the brotli static module as a package; installed when missing and root.
    const brotli = findOrInstallDebianPackage({
      pkg: 'libnginx-mod-http-brotli-static',
      command: 'ngx_http_brotli_static_module.so',
      candidates: [DEBIAN_BROTLI_STATIC_MODULE],
      version: () => null,
      budgetMs: 120_000,
      log: (m) => console.log(m),
    });
    expect(brotli.path, `brotli static module unavailable (${brotli.note})`).not.toBeNull();
    expect(renderNginxConfig(client)).toContain('gzip_static on;');
    expect(renderNginxConfig(client)).not.toMatch(/^\s*brotli_static on;/m);
    const prefix = mkdtempSync(path.join(os.tmpdir(), 'pdma-precompressed-nginx-'));
    mkdirSync(path.join(prefix, 'tmp'), { recursive: true });
    const port = await freePort();
    const confPath = path.join(prefix, 'nginx.conf');
    const conf = standaloneConfig(prefix, client, `127.0.0.1:${port}`, 'http://127.0.0.1:9', {
      brotliStatic: brotli.path !== null,
    });
    // As root, nginx's workers would drop to "nobody", who cannot read the private temp build.
    writeFileSync(confPath, process.getuid?.() === 0 ? conf.replace('daemon off;', 'daemon off;\nuser root;') : conf);
    const check = spawnSync(bin, ['-t', '-p', prefix, '-e', path.join(prefix, 'error.log'), '-c', confPath], {
      encoding: 'utf8',
    });
    expect(check.status, check.stderr).toBe(0);
    const nginx = spawn(bin, ['-p', prefix, '-e', path.join(prefix, 'error.log'), '-c', confPath], { stdio: 'ignore' });
    try {
      const o = `http://127.0.0.1:${port}`;
      for (let i = 0; i < 100; i++) {
        if (
          await raw(o, '/').then(
            () => true,
            () => false,
          )
        )
          break;
        await new Promise((r) => setTimeout(r, 50));
      }
      const svg = readFileSync(path.join(client, rel));
      const plain = await raw(o, `/${rel}`);
      expect(plain.status).toBe(200);
      expect(plain.headers['content-encoding']).toBeUndefined();
      expect(plain.body.equals(svg)).toBe(true);
      const g = await raw(o, `/${rel}`, { 'accept-encoding': 'gzip' });
      expect(g.status).toBe(200);
      expect(g.headers['content-encoding']).toBe('gzip');
      expect(g.headers.vary).toBe('Accept-Encoding');
      expect(g.headers['content-type']).toBe('image/svg+xml');
      expect(g.body.equals(readFileSync(path.join(client, `${rel}.gz`)))).toBe(true);
      expect(g.headers.etag).toBeDefined();
      expect(g.headers.etag).not.toBe(plain.headers.etag);
      const notModified = await raw(o, `/${rel}`, {
        'accept-encoding': 'gzip',
        'if-none-match': String(g.headers.etag),
      });
      expect(notModified.status).toBe(304);
      if (brotli.path) {
        const b = await raw(o, `/${rel}`, { 'accept-encoding': 'gzip, deflate, br' });
        expect(b.headers['content-encoding']).toBe('br');
        expect(b.headers.vary).toBe('Accept-Encoding');
        expect(b.body.equals(readFileSync(path.join(client, `${rel}.br`)))).toBe(true);
        expect(b.headers.etag).not.toBe(g.headers.etag);
      }
      // A stored file is never negotiated by nginx either.
      const html = await raw(o, `/${path.posix.dirname(rel)}/`, { 'accept-encoding': 'gzip, br' });
      expect(html.headers['content-encoding']).toBeUndefined();
    } finally {
      nginx.kill('SIGTERM');
      await new Promise((r) => nginx.once('exit', r));
      rmSync(prefix, { recursive: true, force: true });
    }
  });
});

function walk(dir: string, base = dir): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...walk(full, base));
    else out.push(path.relative(base, full).split(path.sep).join('/'));
  }
  return out;
}

async function freePort(): Promise<number> {
  const { createServer } = await import('node:net');
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.listen(0, '127.0.0.1', () => {
      const port = (srv.address() as AddressInfo).port;
      srv.close(() => resolve(port));
    });
    srv.on('error', reject);
  });
}
