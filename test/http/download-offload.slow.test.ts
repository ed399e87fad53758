/**
 * ARCHIVE_DOWNLOAD_OFFLOAD=nginx with Debian's nginx in front (docs/decisions/0057-large-downloads-nginx-moves-the-bytes.md): the Node process checks the key and the policy, nginx sends the bytes from the
 * blob store through the internal location of the build's nginx.conf (renderNginxConfig, the
 * function the build writes it with).
 * Full and ranged downloads, the archive's ETag, 304 and 416 from Node, no bytes without a key,
 * the internal location unreachable from outside, and Node answering directly still sending bytes.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenOnLoopback } from '../helpers/app.ts';
import { renderNginxConfig, NGINX_BLOBS_LOCATION } from '../../api/site/nginx.ts';
import { freePort } from '../../bench/lib/util.ts';
import { startNginx, type TestNginx } from '../helpers/nginx.ts';
import {
  fileInput,
  importAndCommit,
  importInput,
  LIB,
  openLibraryApp,
  sha256,
  type LibraryTestApp,
} from '../library/library-helpers.ts';

const bytes = randomBytes(3 * 1024 * 1024 + 17);
let t: LibraryTestApp;
let nginx: TestNginx | undefined;
let front: string;
let direct: string;
let fileId: string;

beforeAll(async () => {
  t = await openLibraryApp({ ARCHIVE_DOWNLOAD_OFFLOAD: 'nginx' });
  const { imp } = await importAndCommit(t, importInput([fileInput(bytes, { fileName: 'master take.wav' })]), [bytes]);
  fileId = imp.files[0].id;
  direct = await listenOnLoopback(t.app);

  const prefix = path.join(t.dataDir, 'nginx');
  const port = await freePort();
  const server = renderNginxConfig(path.join(t.buildDir, 'client'), {
    listen: `127.0.0.1:${port}`,
    upstream: direct,
    blobsDir: path.join(t.dataDir, 'blobs'),
  });
  nginx = await startNginx(prefix, port, server);
  front = nginx.front;
}, 180_000);

afterAll(async () => {
  await nginx?.stop();
  await t?.close();
});

const url = () => `${front}/api/v1/library/files/${fileId}`;

describe('library downloads handed to nginx', () => {
  it('sends the whole file through nginx with the archive headers, after the key check', async () => {
    const res = await fetch(url(), { headers: LIB });
    const body = Buffer.from(await res.arrayBuffer());
    expect(res.status).toBe(200);
    expect(body.length).toBe(bytes.length);
    expect(sha256(body)).toBe(sha256(bytes));
    expect(res.headers.get('etag')).toBe(`"${sha256(bytes)}"`);
    expect(res.headers.get('content-type')).toBe('audio/wav');
    expect(res.headers.get('cache-control')).toBe('private, no-cache');
    expect(res.headers.get('content-disposition')).toContain('master take.wav');
    expect(res.headers.get('x-accel-redirect')).toBeNull();
    expect(res.headers.get('server')).toMatch(/nginx/);
  });

  it('answers ranges from nginx, and If-Range with the archive ETag keeps the range', async () => {
    const start = 1024 * 1024 + 3;
    const end = start + 65_535;
    const res = await fetch(url(), {
      headers: { ...LIB, range: `bytes=${start}-${end}`, 'if-range': `"${sha256(bytes)}"` },
    });
    const body = Buffer.from(await res.arrayBuffer());
    expect(res.status).toBe(206);
    expect(res.headers.get('content-range')).toBe(`bytes ${start}-${end}/${bytes.length}`);
    expect(body.equals(bytes.subarray(start, end + 1))).toBe(true);
    const stale = await fetch(url(), { headers: { ...LIB, range: 'bytes=0-9', 'if-range': '"another-version"' } });
    expect(stale.status).toBe(200);
    expect(Buffer.from(await stale.arrayBuffer()).length).toBe(bytes.length);
  });

  it('keeps 304, 416 and the refusals in Node as problem details', async () => {
    const notModified = await fetch(url(), { headers: { ...LIB, 'if-none-match': `"${sha256(bytes)}"` } });
    expect(notModified.status).toBe(304);
    const beyond = await fetch(url(), { headers: { ...LIB, range: `bytes=${bytes.length + 10}-` } });
    expect(beyond.status).toBe(416);
    expect(beyond.headers.get('content-type')).toContain('application/problem+json');
    const anonymous = await fetch(url());
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get('content-type')).toContain('application/problem+json');
    expect((await anonymous.text()).length).toBeLessThan(4000);
  });

  it('never serves the internal location from outside', async () => {
    const res = await fetch(
      `${front}${NGINX_BLOBS_LOCATION}sha256/${sha256(bytes).slice(0, 2)}/${sha256(bytes).slice(2, 4)}/${sha256(bytes)}`,
    );
    expect(res.status).toBe(404);
    expect(Buffer.from(await res.arrayBuffer()).length).toBeLessThan(bytes.length);
  });

  it('answers nginx (and only nginx) with an empty X-Accel-Redirect to the blob', async () => {
    const h = sha256(bytes);
    const res = await fetch(`${direct}/api/v1/library/files/${fileId}`, {
      headers: { ...LIB, 'x-archive-download-offload': 'nginx' },
    });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-accel-redirect')).toBe(
      `${NGINX_BLOBS_LOCATION}sha256/${h.slice(0, 2)}/${h.slice(2, 4)}/${h}`,
    );
    expect(res.headers.get('x-archive-etag')).toBe(`"${h}"`);
    expect((await res.arrayBuffer()).byteLength).toBe(0);
    // The build's nginx.conf marks exactly the proxied download locations.
    const conf = renderNginxConfig('/srv/client', { blobsDir: '/srv/data/blobs' });
    expect(conf.match(/proxy_set_header X-Archive-Download-Offload nginx;/g)).toHaveLength(2);
    expect(conf).toContain(`location ${NGINX_BLOBS_LOCATION} {\n        internal;\n        alias /srv/data/blobs/;`);
    expect(renderNginxConfig('/srv/client')).not.toContain('X-Archive-Download-Offload');
  });

  it('still sends the bytes itself to a client that reaches Node directly', async () => {
    const res = await fetch(`${direct}/api/v1/library/files/${fileId}`, { headers: LIB });
    const body = Buffer.from(await res.arrayBuffer());
    expect(res.status).toBe(200);
    expect(res.headers.get('x-accel-redirect')).toBeNull();
    expect(sha256(body)).toBe(sha256(bytes));
  });
});
