/**
 * An applied contributor file declared text/html (or SVG) is served as
 * application/octet-stream, as an attachment, with nosniff; an audio file keeps its type.
 */
import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApp, PROJECT_ROOT, type TestApp } from '../helpers/app.ts';
import { LocalBlobStore as BlobStore } from '../../api/blobs/blob-store.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-safe-types-'));
const html = Buffer.from('<!doctype html><script>alert(document.domain)</script>');
const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>');
const wav = randomBytes(800);
const hex = (b: Buffer) => createHash('sha256').update(b).digest('hex');
let t: TestApp;

beforeAll(async () => {
  const content = path.join(root, 'content');
  cpSync(path.join(PROJECT_ROOT, 'test', 'fixtures', 'mini'), content, { recursive: true });
  const file = path.join(content, 'works', 'bach-minuet-in-g', 'index.md');
  const asset = (id: number, bytes: Buffer, mediaType: string, kind: string) => `      - id: ${id}
        kind: ${kind}
        title: Contributed file ${id}
        blob: ${hex(bytes)}
        byteLength: ${bytes.length}
        sourcePageUrl: https://files.example.org/minuet
        mediaType: ${mediaType}
        rightsStatus: original-generated-recording
        license: CC0-1.0
        attribution: null
        reviewState: human-reviewed
        access: public
`;
  const assets = `${asset(3, html, 'text/html', 'artwork')}${asset(4, svg, 'image/svg+xml', 'score-image')}${asset(5, wav, 'audio/wav', 'wav')}`;
  writeFileSync(file, readFileSync(file, 'utf8').replace('---\nA short minuet', `${assets}---\nA short minuet`));
  const out = path.join(root, 'build');
  const build = spawnSync(
    process.execPath,
    ['scripts/build.ts', '--content', content, '--out', out, '--base-url', 'https://safe.example.test', '--quiet'],
    { encoding: 'utf8' },
  );
  expect(build.status, build.stderr).toBe(0);
  const dataDir = path.join(root, 'data');
  const store = new BlobStore(path.join(dataDir, 'blobs'));
  for (const b of [html, svg, wav]) await store.putBytes(b);
  t = await openApp(out, { ARCHIVE_DATA_DIR: dataDir });
});
afterAll(async () => {
  await t?.close();
  rmSync(root, { recursive: true, force: true });
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
