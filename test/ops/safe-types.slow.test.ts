/**
 * An applied contributor file declared text/html (or SVG) is served as
 * application/octet-stream, as an attachment, with nosniff; an audio file keeps its type.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestApp } from '../helpers/app.ts';
import { openAppWithBlobAssets, sha256Hex, type BlobAsset } from '../helpers/blob-assets.ts';

const html = Buffer.from('<!doctype html><script>alert(document.domain)</script>');
const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
const wav = randomBytes(800);
const hex = sha256Hex;
let t: TestApp;

beforeAll(async () => {
  const asset = (id: number, bytes: Buffer, mediaType: string, kind: string): BlobAsset => ({
    id,
    bytes,
    kind,
    mediaType,
    title: `Contributed file ${id}`,
    access: 'public',
  });
  t = await openAppWithBlobAssets('pdma-safe-types-', 'https://safe.example.test', [
    asset(3, html, 'text/html', 'artwork'),
    asset(4, svg, 'image/svg+xml', 'score-image'),
    asset(5, wav, 'audio/wav', 'wav'),
  ]);
});
afterAll(async () => {
  await t?.close();
});

describe('contributed files are served with a safe type', () => {
  it('serves a file declared text/html or image/svg+xml as an application/octet-stream attachment with nosniff', async () => {
    for (const bytes of [html, svg]) {
      for (const method of ['GET', 'HEAD']) {
        const res = await t.request({ method, url: `/blobs/${hex(bytes)}` });
        expect(res.statusCode).toBe(200);
        expect(res.headers['content-type']).toBe('application/octet-stream');
        expect(String(res.headers['content-disposition'])).toMatch(/^attachment; filename=/);
        expect(res.headers['x-content-type-options']).toBe('nosniff');
        if (method === 'GET') expect(res.rawPayload.equals(bytes)).toBe(true);
      }
    }
  });

  it('keeps an inert declared type', async () => {
    const res = await t.request({ url: `/blobs/${hex(wav)}` });
    expect(res.headers['content-type']).toBe('audio/wav');
    expect(String(res.headers['content-disposition'])).toMatch(/^attachment; /);
    expect(res.headers['x-content-type-options']).toBe('nosniff');
  });
});
