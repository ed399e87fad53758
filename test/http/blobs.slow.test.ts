/**
 * Blob-backed assets: a public asset's blob is served at /blobs/{sha256} with its declared type,
 * ETag and ranges; a non-public asset's blob, or any other blob in the store, is not.
 */
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApp, PROJECT_ROOT, type TestApp } from '../helpers/app.ts';
import { LocalBlobStore as BlobStore } from '../../api/blobs/blob-store.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-blobs-'));
const publicBytes = randomBytes(5000);
const privateBytes = randomBytes(3000);
const strayBytes = randomBytes(100);
const hex = (b: Buffer) => createHash('sha256').update(b).digest('hex');
let t: TestApp;

beforeAll(async () => {
  const content = path.join(root, 'content');
  cpSync(path.join(PROJECT_ROOT, 'test', 'fixtures', 'mini'), content, { recursive: true });
  const file = path.join(content, 'works', 'bach-minuet-in-g', 'index.md');
  const blobAsset = (id: number, hash: string, size: number, access: string) => `      - id: ${id}
        kind: wav
        title: Blob asset ${id}
        blob: ${hash}
        byteLength: ${size}
        sourcePageUrl: https://files.example.org/minuet
        mediaType: audio/wav
        rightsStatus: original-generated-recording
        license: CC0-1.0
        attribution: null
        reviewState: human-reviewed
        access: ${access}
`;
  const text = readFileSync(file, 'utf8').replace(
    '---\nA short minuet',
    `${blobAsset(3, hex(publicBytes), publicBytes.length, 'public')}${blobAsset(4, hex(privateBytes), privateBytes.length, 'admin-only')}---\nA short minuet`,
  );
  writeFileSync(file, text);
  const out = path.join(root, 'build');
  const build = spawnSync(
    process.execPath,
    ['scripts/build.ts', '--content', content, '--out', out, '--base-url', 'https://blobs.example.test', '--quiet'],
    { encoding: 'utf8' },
  );
  expect(build.status, build.stderr).toBe(0);
  const dataDir = path.join(root, 'data');
  const store = new BlobStore(path.join(dataDir, 'blobs'));
  for (const b of [publicBytes, privateBytes, strayBytes]) await store.putBytes(b);
  t = await openApp(out, { ARCHIVE_DATA_DIR: dataDir });
});
afterAll(async () => {
  await t?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('blob-backed assets', () => {
  it('links a public blob asset from the record and serves its bytes', async () => {
    const record = (await t.request({ url: '/api/v1/works/bach-minuet-in-g' })).json().data;
    const asset = record.arrangements[0].assets.find((a: { id: number }) => a.id === 3);
    expect(asset.sha256).toBe(hex(publicBytes));
    expect(asset.byteLength).toBe(publicBytes.length);
    expect(asset.links.download).toBe(`https://blobs.example.test/blobs/${hex(publicBytes)}`);
    const res = await t.request({ url: `/blobs/${hex(publicBytes)}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('audio/wav');
    expect(res.headers.etag).toBe(`"${hex(publicBytes)}"`);
    expect(res.headers['cache-control']).toContain('immutable');
    expect(res.rawPayload.equals(publicBytes)).toBe(true);
    const part = await t.request({ url: `/blobs/${hex(publicBytes)}`, headers: { range: 'bytes=-100' } });
    expect(part.statusCode).toBe(206);
    expect(part.rawPayload.equals(publicBytes.subarray(publicBytes.length - 100))).toBe(true);
  });

  it('answers HEAD with the headers of GET (Content-Length of the file, ETag, Accept-Ranges) and no body', async () => {
    const url = `/blobs/${hex(publicBytes)}`;
    const get = await t.request({ url });
    const head = await t.app.inject({ method: 'HEAD', url });
    expect(head.statusCode).toBe(200);
    expect(head.headers['content-length']).toBe(String(publicBytes.length));
    expect(head.rawPayload.length).toBe(0);
    for (const name of [
      'etag',
      'accept-ranges',
      'content-type',
      'cache-control',
      'content-disposition',
      'content-length',
    ])
      expect(head.headers[name], name).toBe(get.headers[name]);
    expect(head.headers.etag).toBe(`"${hex(publicBytes)}"`);
    expect(head.headers['accept-ranges']).toBe('bytes');
    const missing = await t.app.inject({ method: 'HEAD', url: `/blobs/${hex(strayBytes)}` });
    expect(missing.statusCode).toBe(404);
  });

  it('does not serve the blob of a non-public asset, nor a stray blob, nor a malformed digest', async () => {
    const record = (await t.request({ url: '/api/v1/works/bach-minuet-in-g' })).json().data;
    const hidden = record.arrangements[0].assets.find((a: { id: number }) => a.id === 4);
    expect(hidden.links.download).toBeNull();
    expect(hidden.access).toBe('admin-only');
    for (const url of [`/blobs/${hex(privateBytes)}`, `/blobs/${hex(strayBytes)}`, '/blobs/not-a-digest']) {
      const res = await t.request({ url });
      expect(res.statusCode, url).toBe(404);
      expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    }
  });
});
