/**
 * Blob-backed assets: a public asset's blob is served at /blobs/{sha256} with its declared type,
 * ETag and ranges; a non-public asset's blob, or any other blob in the store, is not.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectHeadAsGet, type TestApp } from '../helpers/app.ts';
import { openAppWithBlobAssets, sha256Hex, type BlobAsset } from '../helpers/blob-assets.ts';

const publicBytes = randomBytes(5000);
const privateBytes = randomBytes(3000);
const strayBytes = randomBytes(100);
const hex = sha256Hex;
let t: TestApp;

beforeAll(async () => {
  const blobAsset = (id: number, bytes: Buffer, access: BlobAsset['access']): BlobAsset => ({
    id,
    bytes,
    kind: 'wav',
    mediaType: 'audio/wav',
    title: `Blob asset ${id}`,
    access,
  });
  t = await openAppWithBlobAssets(
    'pdma-blobs-',
    'https://blobs.example.test',
    [blobAsset(3, publicBytes, 'public'), blobAsset(4, privateBytes, 'admin-only')],
    [strayBytes],
  );
});
afterAll(async () => {
  await t?.close();
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
    const head = await expectHeadAsGet(t, url, publicBytes.length);
    expect(head.headers.etag).toBe(`"${hex(publicBytes)}"`);
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
