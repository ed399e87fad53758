/**
 * One blob-store suite, run against both backends: the local folder and S3 (a real S3-protocol
 * server, s3rver, started by this file on a loopback port). Storing, deduplication, digest checks,
 * ranged reads, a multipart-sized file, listing, local copies and presigned URLs.
 */
import { createHash, randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DigestMismatchError, LocalBlobStore, type BlobStore } from '../../api/blobs/blob-store.ts';
import { S3_PART_BYTES, S3BlobStore } from '../../api/blobs/s3-blob-store.ts';
import { startS3, type TestS3 } from '../helpers/s3-server.ts';

const BUCKET = 'archive-blobs';
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const collect = async (r: Readable) => Buffer.concat(await r.toArray());

let s3: TestS3;
const roots: string[] = [];
const fresh = () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pdma-blobstore-'));
  roots.push(dir);
  return dir;
};

/** Names of the S3 commands the client sent (to see multipart at work). */
const commands: string[] = [];

beforeAll(async () => {
  s3 = await startS3([BUCKET]);
  s3.client.middlewareStack.add(
    (next, context) => async (args) => {
      commands.push(String(context.commandName));
      return next(args);
    },
    { step: 'initialize' },
  );
});
afterAll(async () => {
  await s3?.close();
  for (const r of roots) rmSync(r, { recursive: true, force: true });
});

/** A store in `bucket` under `prefix` of the test's S3 server, staging in a fresh folder. */
const s3Store = (bucket: string, prefix: string, presignSeconds = 0) =>
  new S3BlobStore({ client: s3.client, bucket, prefix, stagingRoot: path.join(fresh(), 'staging'), presignSeconds });

let counter = 0;
const backends: Array<[string, () => BlobStore]> = [
  ['local folder', () => new LocalBlobStore(path.join(fresh(), 'blobs'))],
  // A fresh key prefix per store: each test sees an empty store in the one bucket.
  ['S3 (s3rver)', () => s3Store(BUCKET, `t${++counter}/blobs/`)],
];

describe.each(backends)('blob store: %s', (_name, open) => {
  it('stores bytes under their digest, reads them back and stores identical content once', async () => {
    const store = open();
    const bytes = randomBytes(70_000);
    expect(await store.stat(sha(bytes))).toBeNull();
    const info = await store.putBytes(bytes);
    expect(info).toEqual({ sha256: sha(bytes), byteLength: bytes.length });
    expect(await store.stat(sha(bytes))).toEqual(info);
    expect((await store.readBytes(sha(bytes))).equals(bytes)).toBe(true);
    await store.putStream(Readable.from([bytes.subarray(0, 10), bytes.subarray(10)]));
    const empty = await store.putBytes(Buffer.alloc(0));
    expect(empty.byteLength).toBe(0);
    expect((await store.readBytes(empty.sha256)).length).toBe(0);
    const listed = [];
    for await (const b of store.list()) listed.push(b);
    expect(listed.sort((a, b) => a.sha256.localeCompare(b.sha256))).toEqual(
      [info, empty].sort((a, b) => a.sha256.localeCompare(b.sha256)),
    );
  });

  it('refuses bytes whose digest differs from the declared one and stores nothing', async () => {
    const store = open();
    const bytes = randomBytes(1000);
    const wrong = sha(Buffer.from('something else'));
    const staging = await store.stagingPath();
    writeFileSync(staging, bytes);
    const err = await store.adoptFile(staging, wrong).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(DigestMismatchError);
    expect((err as DigestMismatchError).actual).toBe(sha(bytes));
    expect(existsSync(staging)).toBe(true); // left for the caller, which records the finding first
    expect(await store.stat(sha(bytes))).toBeNull();
    expect(await store.stat(wrong)).toBeNull();
    await expect(store.putBytes(bytes, wrong)).rejects.toBeInstanceOf(DigestMismatchError);
    expect(await store.stat(sha(bytes))).toBeNull();
    const ok = await store.adoptFile(staging, sha(bytes).toUpperCase());
    expect(ok.sha256).toBe(sha(bytes));
    expect(existsSync(staging)).toBe(false);
  });

  it('reads exact byte ranges', async () => {
    const store = open();
    const bytes = randomBytes(10_000);
    await store.putBytes(bytes);
    for (const [start, end] of [
      [0, 0],
      [0, 9_999],
      [1234, 5678],
      [9_999, 9_999],
    ] as const) {
      expect(
        (await collect(await store.read(sha(bytes), { start, end }))).equals(bytes.subarray(start, end + 1)),
        `${start}-${end}`,
      ).toBe(true);
    }
  });

  it('stores a file larger than one multipart part intact, and hands out a local copy', async () => {
    const store = open();
    const bytes = randomBytes(S3_PART_BYTES * 2 + 12_345);
    commands.length = 0;
    const staging = await store.stagingPath();
    writeFileSync(staging, bytes);
    const info = await store.adoptFile(staging, sha(bytes));
    expect(info.byteLength).toBe(bytes.length);
    expect(existsSync(staging)).toBe(false);
    expect(await store.stat(sha(bytes))).toEqual(info);
    const tail = await collect(await store.read(sha(bytes), { start: S3_PART_BYTES - 5, end: S3_PART_BYTES + 5 }));
    expect(tail.equals(bytes.subarray(S3_PART_BYTES - 5, S3_PART_BYTES + 6))).toBe(true);
    const copied = await store.withLocalFile(sha(bytes), async (file) => sha(readFileSync(file)));
    expect(copied).toBe(sha(bytes));
    if (store instanceof S3BlobStore) {
      // Three parts of a multipart upload, not one PUT.
      expect(commands.filter((c) => c === 'UploadPartCommand')).toHaveLength(3);
      expect(commands).toContain('CompleteMultipartUploadCommand');
      expect(commands).not.toContain('PutObjectCommand');
    }
  });

  it('answers null for a digest it does not hold and throws on a malformed one', async () => {
    const store = open();
    expect(await store.check()).toMatch(/writable|reachable/);
    expect(await store.stat('0'.repeat(64))).toBeNull();
    await expect(store.stat('not-a-digest')).rejects.toThrow(/sha256/);
  });
  it('lists the named objects under a prefix (the render cache, for backup), not the blobs or other names', async () => {
    const store = open();
    await store.putBytes(randomBytes(100));
    const a = `render-cache/v1/engraving/ab/${'ab'.padEnd(64, '1')}`;
    const b = `render-cache/v1/pdf/cd/${'cd'.padEnd(64, '2')}`;
    await store.putNamed(b, Buffer.from('second'));
    await store.putNamed(a, Buffer.from('first!!'));
    await store.putNamed('other-cache/v1/x', Buffer.from('not listed'));
    const listed = [];
    for await (const n of store.listNamed('render-cache')) listed.push(n);
    expect(listed).toEqual([
      { name: a, byteLength: 7 },
      { name: b, byteLength: 6 },
    ]);
    const none = [];
    for await (const n of store.listNamed('no-such-prefix')) none.push(n);
    expect(none).toEqual([]);
  });
  it('fingerprints a named object without reading it: null when absent, stable, changed when rewritten', async () => {
    const store = open();
    const name = `render-cache/v1/engraving/ef/${'ef'.padEnd(64, '3')}`;
    expect(await store.namedFingerprint(name)).toBeNull();
    await store.putNamed(name, Buffer.from('first version'));
    const one = await store.namedFingerprint(name);
    expect(one).toEqual(expect.any(String));
    await store.getNamed(name);
    expect(await store.namedFingerprint(name)).toBe(one);
    await store.putNamed(name, Buffer.from('second version, longer'));
    const two = await store.namedFingerprint(name);
    expect(two).not.toBeNull();
    expect(two).not.toBe(one);
  });
});

describe('readiness check', () => {
  it('fails, naming the store, when the bucket or folder is not there', async () => {
    const missing = s3Store('no-such-bucket', '');
    await expect(missing.check()).rejects.toThrow(/no-such-bucket is not reachable \(404\)/);
    await expect(new LocalBlobStore(path.join(fresh(), 'gone', 'deeper', 'blobs')).check()).rejects.toThrow(
      /nor its parent exists/,
    );
  });
});

describe('presigned downloads (S3)', () => {
  it('are off by default and, when configured, fetch the object with the given headers', async () => {
    const bytes = randomBytes(4096);
    const plain = s3Store(BUCKET, 'presign/', 0);
    await plain.putBytes(bytes);
    expect(
      await plain.presignedUrl(sha(bytes), { contentType: 'audio/wav', cacheControl: 'private, no-cache' }),
    ).toBeNull();
    expect(await new LocalBlobStore(fresh()).presignedUrl()).toBeNull();
    const signing = s3Store(BUCKET, 'presign/', 60);
    const url = await signing.presignedUrl(sha(bytes), {
      contentType: 'audio/wav',
      cacheControl: 'private, no-cache',
      downloadName: 'bed.wav',
    });
    expect(url).toMatch(new RegExp(`^${s3.endpoint}/${BUCKET}/presign/sha256/`));
    expect(url).toContain('X-Amz-Expires=60');
    expect(url).toContain('X-Amz-Signature=');
    const res = await fetch(url!, { headers: { range: 'bytes=100-199' } });
    expect(res.status).toBe(206);
    expect(Buffer.from(await res.arrayBuffer()).equals(bytes.subarray(100, 200))).toBe(true);
    expect(res.headers.get('content-type')).toBe('audio/wav');
    expect(res.headers.get('content-disposition')).toContain('bed.wav');
  });
});
