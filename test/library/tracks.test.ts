/**
 * Reading the library: listing with filters and pages, the complete package, and protected
 * downloads (ranges, If-Range, 416, ETag from the sha256, Content-Disposition, curator-only).
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { expectHeadAsGet } from '../helpers/app.ts';
import {
  CUR,
  LIB,
  fileInput,
  importAndCommit,
  importInput,
  openImport,
  openLibraryApp,
  sha256,
  type LibraryTestApp,
} from './library-helpers.ts';

let t: LibraryTestApp;
const wav = randomBytes(40_000);
const mid = randomBytes(700);
const master = randomBytes(5000);
let pkg: Record<string, any>;

beforeAll(async () => {
  t = await openLibraryApp();
  await importAndCommit(
    t,
    importInput([
      fileInput(wav),
      fileInput(mid, {
        kind: 'midi',
        fileName: 'Menuet «G».mid',
        originalRelativePath: 'midi/Menuet «G».mid',
        contentType: 'audio/midi',
      }),
      fileInput(master, {
        kind: 'master',
        fileName: 'master.wav',
        originalRelativePath: 'masters/master.wav',
        downloadPolicy: 'curator-only',
      }),
    ]),
    [wav, mid, master],
  );
  const more = randomBytes(10);
  await importAndCommit(
    t,
    importInput(
      [fileInput(more)],
      {},
      {
        stableKey: 'nocturne-lead',
        title: 'Nocturne lead',
        collection: 'Romantic leads',
        genre: 'nocturne',
        sourceType: 'human-recording',
        intendedUses: ['music-lead'],
        channelKeys: ['Night-Radio'],
        composer: 'Frédéric Chopin',
        description: 'A nocturne melody.',
        tags: ['night'],
      },
    ),
    [more],
  );
  // An import that is never committed must not show up anywhere.
  await openImport(t, importInput([fileInput(more)], {}, { stableKey: 'uncommitted' }));
  pkg = (await t.request({ url: '/api/v1/library/tracks/minuet-bed-001', headers: LIB })).json().data;
});
afterAll(() => t.close());

const list = async (query = '') =>
  (await t.request({ url: `/api/v1/library/tracks${query}`, headers: LIB })).json().data;

describe('listing packages', () => {
  it('lists committed packages only, with the default page size', async () => {
    const page = await list();
    expect(page.items.map((i: { stableKey: string }) => i.stableKey)).toEqual(['minuet-bed-001', 'nocturne-lead']);
    expect(page).toMatchObject({ page: 1, pageSize: 50, total: 2, totalPages: 1 });
    expect(page.items[0]).toMatchObject({
      fileCount: 3,
      totalBytes: 45_700,
      visibility: 'private',
      reviewStatusLabel: 'Technical pass (not listening-approved)',
    });
  });

  it('filters by query, collection, genre, sourceType, intendedUse and channel', async () => {
    const keys = async (q: string) => (await list(q)).items.map((i: { stableKey: string }) => i.stableKey);
    expect(await keys('?query=chopin')).toEqual(['nocturne-lead']);
    expect(await keys('?query=calm%20piano')).toEqual(['minuet-bed-001']);
    expect(await keys('?collection=baroque%20beds')).toEqual(['minuet-bed-001']);
    expect(await keys('?genre=nocturne')).toEqual(['nocturne-lead']);
    expect(await keys('?sourceType=human-recording')).toEqual(['nocturne-lead']);
    expect(await keys('?intendedUse=music-bed')).toEqual(['minuet-bed-001']);
    expect(await keys('?channel=night-radio')).toEqual(['nocturne-lead']);
    expect(await keys('?channel=none')).toEqual([]);
  });

  it('pages with absolute links and refuses a pageSize over the maximum', async () => {
    const page = await list('?pageSize=1&page=2');
    expect(page.items.map((i: { stableKey: string }) => i.stableKey)).toEqual(['nocturne-lead']);
    expect(page.links.prev).toBe(`${t.baseUrl}/api/v1/library/tracks?pageSize=1&page=1`);
    expect(page.links.next).toBeNull();
    const tooBig = await t.request({ url: '/api/v1/library/tracks?pageSize=201', headers: LIB });
    expect(tooBig.statusCode).toBe(400);
    expect(tooBig.json().errors[0].parameter).toBe('pageSize');
    const badType = await t.request({ url: '/api/v1/library/tracks?sourceType=tape', headers: LIB });
    expect(badType.statusCode).toBe(400);
  });
});

describe('reading a package', () => {
  it('has rights, QA, reproducibility and per file path, length, digest, states and download URL', () => {
    expect(pkg).toMatchObject({
      stableKey: 'minuet-bed-001',
      rightsStatus: 'public-domain',
      license: 'CC0-1.0',
      visibility: 'private',
      reproducibility: { engine: 'test-renderer', seed: '42' },
      quality: { technicalValidationPassed: true },
      rightsEvidence: { workSlug: 'bach-minuet-in-g' },
      publication: null,
    });
    expect(pkg.files).toHaveLength(3);
    expect(pkg.files[1]).toMatchObject({
      originalRelativePath: 'midi/Menuet «G».mid',
      byteLength: 700,
      sha256: sha256(mid),
      rightsStatus: 'public-domain',
      reviewStatus: 'technical-pass',
      downloadPolicy: 'protected',
    });
    expect(pkg.files[1].links.download).toBe(`${t.baseUrl}/api/v1/library/files/${pkg.files[1].id}`);
  });

  it('answers 404 for an unknown or uncommitted stableKey and 400 for a malformed one', async () => {
    expect((await t.request({ url: '/api/v1/library/tracks/uncommitted', headers: LIB })).statusCode).toBe(404);
    expect((await t.request({ url: '/api/v1/library/tracks/nope', headers: LIB })).statusCode).toBe(404);
    expect((await t.request({ url: '/api/v1/library/tracks/..%2F..%2Fetc', headers: LIB })).statusCode).toBe(400);
  });
});

describe('downloading a file', () => {
  const url = () => new URL(pkg.files[0].links.download).pathname;

  it('serves the exact bytes with ETag from the sha256, private caching and the original name', async () => {
    const res = await t.request({ url: url(), headers: LIB });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(wav)).toBe(true);
    expect(res.headers.etag).toBe(`"${sha256(wav)}"`);
    expect(res.headers['content-type']).toBe('audio/wav');
    expect(res.headers['cache-control']).toBe('private, no-cache');
    expect(res.headers['content-disposition']).toBe('attachment; filename="bed.wav"; filename*=UTF-8\'\'bed.wav');
    const midi = await t.request({ url: new URL(pkg.files[1].links.download).pathname, headers: LIB });
    expect(midi.headers['content-disposition']).toContain("filename*=UTF-8''Menuet%20%C2%ABG%C2%BB.mid");
    const again = await t.request({ url: url(), headers: { ...LIB, 'if-none-match': res.headers.etag as string } });
    expect(again.statusCode).toBe(304);
  });

  it('serves ranges, honors If-Range and refuses unsatisfiable ranges with 416', async () => {
    const part = await t.request({ url: url(), headers: { ...LIB, range: 'bytes=1000-1999' } });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 1000-1999/${wav.length}`);
    expect(part.rawPayload.equals(wav.subarray(1000, 2000))).toBe(true);
    const tail = await t.request({ url: url(), headers: { ...LIB, range: 'bytes=-10' } });
    expect(tail.rawPayload.equals(wav.subarray(wav.length - 10))).toBe(true);
    const stale = await t.request({ url: url(), headers: { ...LIB, range: 'bytes=0-9', 'if-range': '"0000"' } });
    expect(stale.statusCode).toBe(200);
    expect(stale.rawPayload.length).toBe(wav.length);
    const fresh = await t.request({
      url: url(),
      headers: { ...LIB, range: 'bytes=0-9', 'if-range': `"${sha256(wav)}"` },
    });
    expect(fresh.statusCode).toBe(206);
    const outside = await t.request({ url: url(), headers: { ...LIB, range: `bytes=${wav.length}-` } });
    expect(outside.statusCode).toBe(416);
    expect(outside.headers['content-range']).toBe(`bytes */${wav.length}`);
  });

  it('answers HEAD with the headers of GET (Content-Length of the file, ETag, Accept-Ranges) and no body', async () => {
    await expectHeadAsGet(t, url(), wav.length, LIB);
    const part = await t.app.inject({ method: 'HEAD', url: url(), headers: { ...LIB, range: 'bytes=1000-1999' } });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-length']).toBe('1000');
    expect(part.headers['content-range']).toBe(`bytes 1000-1999/${wav.length}`);
    expect(part.rawPayload.length).toBe(0);
    // The key check holds for HEAD as for GET.
    expect((await t.app.inject({ method: 'HEAD', url: url() })).statusCode).toBe(401);
  });

  it('keeps curator-only files from library keys', async () => {
    const masterUrl = new URL(pkg.files[2].links.download).pathname;
    expect((await t.request({ url: masterUrl, headers: LIB })).statusCode).toBe(403);
    const res = await t.request({ url: masterUrl, headers: CUR });
    expect(res.statusCode).toBe(200);
    expect(res.rawPayload.equals(master)).toBe(true);
  });

  it('never serves uncommitted bytes', async () => {
    const bytes = randomBytes(30);
    const imp = await openImport(t, importInput([fileInput(bytes)], {}, { stableKey: 'half-done' }));
    await t.request({
      method: 'PUT',
      url: `/api/v1/library/imports/${imp.id}/files/${imp.files[0].id}`,
      headers: { ...LIB, 'content-type': 'application/octet-stream' },
      payload: bytes,
    });
    expect((await t.request({ url: `/api/v1/library/files/${imp.files[0].id}`, headers: LIB })).statusCode).toBe(404);
    expect((await t.request({ url: '/api/v1/library/files/not-a-uuid', headers: LIB })).statusCode).toBe(400);
  });
});
