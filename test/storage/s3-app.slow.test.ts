/**
 * The archive on the S3 blob store (ARCHIVE_BLOB_STORE=s3) against a real S3-protocol server
 * (s3rver) this file starts: a library upload resumed by offset and committed (rehash, multipart
 * into the bucket, nothing left on the local disk), protected ranged downloads, published blobs at
 * /blobs/{sha256}, and presigned redirects when ARCHIVE_S3_PRESIGN_SECONDS is set. Every answer is
 * checked against the OpenAPI document.
 */
import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { HeadObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApp, PROJECT_ROOT, type TestApp } from '../helpers/app.ts';
import { startS3, type TestS3 } from '../helpers/s3-server.ts';
import { ConfigError, loadConfig } from '../../api/config.ts';
import { createBlobStore } from '../../api/blobs/create.ts';
import { S3_PART_BYTES } from '../../api/blobs/s3-blob-store.ts';
import {
  fileInput,
  importAndCommit,
  importInput,
  KEY_ENV,
  LIB,
  openImport,
  sha256,
} from '../library/library-helpers.ts';

const BUCKET = 'archive-blobs';
const BASE = 'https://s3.example.test';
const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-s3app-'));
const publicBytes = randomBytes(6000);
let s3: TestS3;
let out: string;
const apps: TestApp[] = [];

function s3Env(dataDir: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    ...s3.env,
    ...KEY_ENV,
    ARCHIVE_DATA_DIR: dataDir,
    ARCHIVE_BLOB_STORE: 's3',
    ARCHIVE_S3_BUCKET: BUCKET,
    ARCHIVE_S3_PREFIX: 'archive/',
    ...extra,
  };
}

beforeAll(async () => {
  s3 = await startS3([BUCKET]);
  // A catalog whose work links one public blob asset.
  const content = path.join(root, 'content');
  cpSync(path.join(PROJECT_ROOT, 'test', 'fixtures', 'mini'), content, { recursive: true });
  const file = path.join(content, 'works', 'bach-minuet-in-g', 'index.md');
  const asset = `      - id: 3
        kind: wav
        title: Blob asset
        blob: ${sha256(publicBytes)}
        byteLength: ${publicBytes.length}
        sourcePageUrl: https://files.example.org/minuet
        mediaType: audio/wav
        rightsStatus: original-generated-recording
        license: CC0-1.0
        attribution: null
        reviewState: human-reviewed
        access: public
`;
  writeFileSync(file, readFileSync(file, 'utf8').replace('---\nA short minuet', `${asset}---\nA short minuet`));
  out = path.join(root, 'build');
  const build = spawnSync(
    process.execPath,
    ['scripts/build.ts', '--content', content, '--out', out, '--base-url', BASE, '--quiet'],
    { encoding: 'utf8' },
  );
  expect(build.status, build.stderr).toBe(0);
});
afterAll(async () => {
  for (const a of apps) await a.close();
  await s3?.close();
  rmSync(root, { recursive: true, force: true });
});

async function open(extra: Record<string, string> = {}): Promise<{ t: TestApp; dataDir: string }> {
  const dataDir = mkdtempSync(path.join(root, 'data-'));
  const t = await openApp(out, s3Env(dataDir, extra));
  apps.push(t);
  return { t, dataDir };
}

const objectLength = async (hash: string) =>
  (
    await s3.client.send(
      new HeadObjectCommand({ Bucket: BUCKET, Key: `archive/sha256/${hash.slice(0, 2)}/${hash.slice(2, 4)}/${hash}` }),
    )
  ).ContentLength;

describe('library uploads and downloads on the S3 blob store', () => {
  it('resumes an upload by offset, commits it into the bucket (multipart) and serves ranges of it', async () => {
    const { t, dataDir } = await open();
    const bytes = randomBytes(S3_PART_BYTES + 300_000);
    const imp = await openImport(t, importInput([fileInput(bytes)], {}, { stableKey: 's3-bed-001' }));
    const fileId = imp.files[0].id;
    const put = (offset: number, part: Buffer) =>
      t.request({
        method: 'PUT',
        url: `/api/v1/library/imports/${imp.id}/files/${fileId}?offset=${offset}`,
        headers: { ...LIB, 'content-type': 'application/octet-stream' },
        payload: part,
      });
    const first = await put(0, bytes.subarray(0, 5_000_000));
    expect(first.statusCode).toBe(200);
    const offset = (await t.request({ url: `/api/v1/library/imports/${imp.id}`, headers: LIB })).json().data.files[0]
      .receivedBytes;
    expect(offset).toBe(5_000_000);
    expect((await put(0, bytes.subarray(0, 10))).statusCode).toBe(409); // a wrong offset is refused
    expect((await put(offset, bytes.subarray(offset))).statusCode).toBe(200);
    const commit = await t.request({ method: 'POST', url: `/api/v1/library/imports/${imp.id}/commit`, headers: LIB });
    expect(commit.statusCode, commit.body).toBe(200);
    expect(commit.json().data.status).toBe('committed');

    expect(await objectLength(sha256(bytes))).toBe(bytes.length);
    // Committed bytes live in the bucket only; staging is gone.
    expect(existsSync(path.join(dataDir, 'blobs', 'sha256'))).toBe(false);
    const staging = path.join(dataDir, 'blobs', 'staging');
    expect(existsSync(staging) ? readdirSync(path.join(staging, 'library')).length : 0).toBe(0);

    const download = `/api/v1/library/files/${fileId}`;
    const whole = await t.request({ url: download, headers: LIB });
    expect(whole.statusCode).toBe(200);
    expect(whole.headers.etag).toBe(`"${sha256(bytes)}"`);
    expect(whole.headers['content-type']).toBe('audio/wav');
    expect(sha256(whole.rawPayload)).toBe(sha256(bytes));
    const part = await t.request({ url: download, headers: { ...LIB, range: 'bytes=8388600-8388615' } });
    expect(part.statusCode).toBe(206);
    expect(part.headers['content-range']).toBe(`bytes 8388600-8388615/${bytes.length}`);
    expect(part.rawPayload.equals(bytes.subarray(8388600, 8388616))).toBe(true);
    expect(
      (await t.request({ url: download, headers: { ...LIB, range: 'bytes=0-0' } })).rawPayload.equals(
        bytes.subarray(0, 1),
      ),
    ).toBe(true);
    expect(
      (await t.request({ url: download, headers: { ...LIB, 'if-none-match': `"${sha256(bytes)}"` } })).statusCode,
    ).toBe(304);
    expect((await t.request({ url: download, headers: { ...LIB, range: `bytes=${bytes.length}-` } })).statusCode).toBe(
      416,
    );
  });

  it('serves a published blob from the bucket, and only a published one', async () => {
    const { t } = await open();
    const store = createBlobStore(loadConfig(s3Env(path.join(root, 'unused')), PROJECT_ROOT));
    await store.putBytes(publicBytes);
    const stray = randomBytes(100);
    await store.putBytes(stray);
    const res = await t.request({ url: `/blobs/${sha256(publicBytes)}` });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('audio/wav');
    expect(res.headers['cache-control']).toContain('immutable');
    expect(res.rawPayload.equals(publicBytes)).toBe(true);
    const tail = await t.request({ url: `/blobs/${sha256(publicBytes)}`, headers: { range: 'bytes=-100' } });
    expect(tail.statusCode).toBe(206);
    expect(tail.rawPayload.equals(publicBytes.subarray(-100))).toBe(true);
    expect((await t.request({ url: `/blobs/${sha256(stray)}` })).statusCode).toBe(404);
  });

  it('answers downloads with a presigned redirect when configured, after the key check', async () => {
    const { t } = await open({ ARCHIVE_S3_PRESIGN_SECONDS: '120' });
    const bytes = randomBytes(3000);
    // Created, uploaded and committed (each 200).
    const { imp: created } = await importAndCommit(
      t,
      importInput([fileInput(bytes)], {}, { stableKey: 's3-presigned-001' }),
      [bytes],
    );
    const download = `/api/v1/library/files/${created.files[0].id}`;
    expect((await t.request({ url: download })).statusCode).toBe(401);
    const redirect = await t.request({ url: download, headers: LIB });
    expect(redirect.statusCode).toBe(307);
    expect(redirect.headers['cache-control']).toBe('private, no-store');
    const location = String(redirect.headers.location);
    expect(location).toMatch(new RegExp(`^${s3.endpoint}/${BUCKET}/archive/sha256/`));
    expect(location).toContain('X-Amz-Expires=120');
    const fetched = await fetch(location, { headers: { range: 'bytes=10-19' } });
    expect(fetched.status).toBe(206);
    expect(Buffer.from(await fetched.arrayBuffer()).equals(bytes.subarray(10, 20))).toBe(true);
    expect(fetched.headers.get('content-type')).toBe('audio/wav');
    expect(fetched.headers.get('content-disposition')).toContain('bed.wav');

    await createBlobStore(loadConfig(s3Env(path.join(root, 'unused')), PROJECT_ROOT)).putBytes(publicBytes);
    const published = await t.request({ url: `/blobs/${sha256(publicBytes)}` });
    expect(published.statusCode).toBe(307);
    expect(Buffer.from(await (await fetch(String(published.headers.location))).arrayBuffer()).equals(publicBytes)).toBe(
      true,
    );
    expect((await t.request({ url: `/blobs/${'0'.repeat(64)}` })).statusCode).toBe(404);
  });
});

describe('readiness on the S3 blob store', () => {
  it('reports storage ready while the bucket answers, and names storage when it does not', async () => {
    const { t } = await open();
    // (These data folders have no content repository, so /readyz is 503 for that; storage is the check here.)
    const ready = await t.app.inject({ url: '/readyz' });
    expect(ready.json().checks.storage).toMatchObject({ ok: true });
    expect(ready.json().checks.storage.detail).toContain(`S3 bucket ${BUCKET} reachable`);
    const { t: missing } = await open({ ARCHIVE_S3_BUCKET: 'no-such-bucket' });
    const res = await missing.app.inject({ url: '/readyz' });
    expect(res.statusCode).toBe(503);
    expect(res.json().detail).toContain('storage');
    expect(res.json().checks.storage).toMatchObject({ ok: false });
    expect(res.json().checks.storage.detail).toContain('no-such-bucket is not reachable');
  });
});

describe('blob store configuration', () => {
  const load = (env: Record<string, string>) => () => loadConfig(env, PROJECT_ROOT);
  it('defaults to the local folder and checks every S3 variable at start-up', () => {
    expect(loadConfig({}, PROJECT_ROOT).blobStore).toEqual({
      backend: 'local',
      bucket: null,
      prefix: '',
      presignSeconds: 0,
    });
    expect(
      loadConfig({ ARCHIVE_BLOB_STORE: 's3', ARCHIVE_S3_BUCKET: 'my-bucket', ARCHIVE_S3_PREFIX: 'a/b' }, PROJECT_ROOT)
        .blobStore.prefix,
    ).toBe('a/b/');
    expect(
      loadConfig({ ARCHIVE_S3_FORCE_PATH_STYLE: 'true', ARCHIVE_S3_ENDPOINT: 'http://127.0.0.1:9000/' }, PROJECT_ROOT)
        .s3,
    ).toEqual({ endpoint: 'http://127.0.0.1:9000', region: 'us-east-1', credentials: null, forcePathStyle: true });
    for (const [env, message] of [
      [{ ARCHIVE_BLOB_STORE: 'gcs' }, /ARCHIVE_BLOB_STORE/],
      [{ ARCHIVE_BLOB_STORE: 's3' }, /ARCHIVE_S3_BUCKET/],
      [{ ARCHIVE_BLOB_STORE: 's3', ARCHIVE_S3_BUCKET: 'ab' }, /3-63/],
      [{ ARCHIVE_S3_ENDPOINT: 'ftp://x' }, /ARCHIVE_S3_ENDPOINT/],
      [{ ARCHIVE_S3_ACCESS_KEY_ID: 'only-one' }, /together/],
      [{ ARCHIVE_S3_FORCE_PATH_STYLE: 'yes' }, /ARCHIVE_S3_FORCE_PATH_STYLE/],
      [
        { ARCHIVE_BLOB_STORE: 's3', ARCHIVE_S3_BUCKET: 'my-bucket', ARCHIVE_S3_PRESIGN_SECONDS: '-1' },
        /ARCHIVE_S3_PRESIGN_SECONDS/,
      ],
      [{ ARCHIVE_S3_PRESIGN_SECONDS: '60' }, /needs ARCHIVE_BLOB_STORE=s3/],
      [{ ARCHIVE_S3_PREFIX: '../x' }, /ARCHIVE_S3_PREFIX/],
      [
        { ARCHIVE_BLOB_STORE: 's3', ARCHIVE_S3_BUCKET: 'my-bucket', ARCHIVE_DOWNLOAD_OFFLOAD: 'nginx' },
        /ARCHIVE_S3_PRESIGN_SECONDS instead/,
      ],
    ] as Array<[Record<string, string>, RegExp]>) {
      expect(load(env), JSON.stringify(env)).toThrow(ConfigError);
      expect(load(env), JSON.stringify(env)).toThrow(message);
    }
  });
});
