/**
 * Imports through HTTP: creation and idempotency, validation, resumable uploads by offset,
 * commit with server-side rehash (match and mismatch), zero-length and duplicate content,
 * path-traversal names kept as metadata only. Every answer is checked against the OpenAPI document.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  CUR,
  LIB,
  fileInput,
  importAndCommit,
  importInput,
  openLibraryApp,
  sha256,
  type LibraryTestApp,
} from './library-helpers.ts';

let t: LibraryTestApp;
beforeEach(async () => {
  t = await openLibraryApp();
});
afterEach(() => t.close());

const post = (payload: unknown) => t.request({ method: 'POST', url: '/api/v1/library/imports', headers: LIB, payload });
const put = (imp: string, file: string, bytes: Buffer, query = '?offset=0') =>
  t.request({
    method: 'PUT',
    url: `/api/v1/library/imports/${imp}/files/${file}${query}`,
    headers: { ...LIB, 'content-type': 'application/octet-stream' },
    payload: bytes,
  });
const getImport = (id: string) => t.request({ url: `/api/v1/library/imports/${id}`, headers: LIB });
const commit = (id: string) => t.request({ method: 'POST', url: `/api/v1/library/imports/${id}/commit`, headers: LIB });

function walk(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((n) => {
    const abs = path.join(dir, n);
    return statSync(abs).isDirectory() ? walk(abs) : [abs];
  });
}

describe('creating an import', () => {
  it('answers the import record with ids, declared values, offsets and absolute upload URLs', async () => {
    const wav = randomBytes(2048);
    const input = importInput([
      fileInput(wav),
      fileInput(Buffer.from('{}'), {
        kind: 'manifest',
        fileName: 'm.json',
        originalRelativePath: 'm.json',
        contentType: 'application/json',
        byteLength: '2',
      }),
    ]);
    const res = await post(input);
    expect(res.statusCode).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json();
    expect(body.apiVersion).toBe('v1');
    const imp = body.data;
    expect(imp.id).toMatch(/^[0-9a-f-]{36}$/);
    expect(imp.status).toBe('open');
    expect(imp.track).toMatchObject({
      stableKey: 'minuet-bed-001',
      visibility: 'private',
      reviewStatus: 'technical-pass',
    });
    expect(imp.files).toHaveLength(2);
    expect(imp.files[0]).toMatchObject({
      fileName: 'bed.wav',
      originalRelativePath: 'masters/bed.wav',
      kind: 'wav',
      contentType: 'audio/wav',
      byteLength: 2048,
      sha256: sha256(wav),
      receivedBytes: 0,
      status: 'pending',
    });
    expect(imp.files[1]).toMatchObject({ byteLength: 2, status: 'pending' });
    expect(imp.files[0].links.upload).toBe(`${t.baseUrl}/api/v1/library/imports/${imp.id}/files/${imp.files[0].id}`);
    expect(res.headers.location).toBe(`${t.baseUrl}/api/v1/library/imports/${imp.id}`);
  });

  it('returns the same import for the same idempotencyKey and content, and 422 for changed content', async () => {
    const wav = randomBytes(100);
    const input = importInput([fileInput(wav)]);
    const first = (await post(input)).json().data;
    // Same content in other spellings: digit-string length, upper-case digest, other key order.
    const respelled = {
      files: [{ ...input.files[0]!, byteLength: String(wav.length), sha256: sha256(wav).toUpperCase() }],
      track: input.track,
      idempotencyKey: input.idempotencyKey,
    };
    const again = await post(respelled);
    expect(again.statusCode).toBe(200);
    expect(again.json().data.id).toBe(first.id);
    const changed = await post({ ...input, track: { ...input.track, title: 'Another title' } });
    expect(changed.statusCode).toBe(422);
    expect(changed.json().type).toBe(`${t.baseUrl}/problems/idempotency-conflict`);
  });

  it('gives exactly one import to concurrent identical requests', async () => {
    const input = importInput([fileInput(randomBytes(10))]);
    const answers = await Promise.all(Array.from({ length: 6 }, () => post(input)));
    expect(new Set(answers.map((a) => a.json().data.id)).size).toBe(1);
  });

  it('names every invalid field', async () => {
    const input = importInput([fileInput(randomBytes(5))]) as unknown as Record<string, any>;
    delete input.track.genre; // every track field must be present
    input.track.visibility = 'public';
    input.track.sourceType = 'tape';
    input.files[0].byteLength = '12x';
    input.files[0].sha256 = 'abc';
    input.files[0].extra = 1;
    const res = await post(input);
    expect(res.statusCode).toBe(400);
    const pointers = res.json().errors.map((e: { pointer: string }) => e.pointer);
    expect(pointers).toEqual(
      expect.arrayContaining([
        '/track/genre',
        '/track/visibility',
        '/track/sourceType',
        '/files/0/byteLength',
        '/files/0/sha256',
        '/files/0/extra',
      ]),
    );
  });

  it('applies the rules the schema cannot: length limit, one file per path, named listening approval', async () => {
    const f = fileInput(randomBytes(5));
    const res = await post(
      importInput(
        [f, { ...f, byteLength: 5 * 1024 ** 4 }],
        {},
        { reviewStatus: 'human-listening-approved', quality: { technicalValidationPassed: true } },
      ),
    );
    expect(res.statusCode).toBe(400);
    expect(res.json().errors).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ pointer: '/files/1/byteLength' }),
        expect.objectContaining({ pointer: '/files/1/originalRelativePath' }),
        expect.objectContaining({ pointer: '/track/quality/listeningApprovedBy' }),
      ]),
    );
  });
});

describe('uploading', () => {
  it('appends at the reported offset and refuses a wrong offset with expected and provided offsets', async () => {
    const bytes = randomBytes(10_000);
    const imp = (await post(importInput([fileInput(bytes)]))).json().data;
    const fileId = imp.files[0].id;
    const first = await put(imp.id, fileId, bytes.subarray(0, 4000));
    expect(first.statusCode).toBe(200);
    expect(first.json().data).toMatchObject({ receivedBytes: 4000, status: 'partial' });
    expect(first.headers['upload-offset']).toBe('4000');
    const wrong = await put(imp.id, fileId, bytes.subarray(3000), '?offset=3000');
    expect(wrong.statusCode).toBe(409);
    expect(wrong.json()).toMatchObject({
      type: `${t.baseUrl}/problems/offset-mismatch`,
      expectedOffset: 4000,
      providedOffset: 3000,
    });
    expect((await getImport(imp.id)).json().data.files[0].receivedBytes).toBe(4000);
    const rest = await put(imp.id, fileId, bytes.subarray(4000), '?offset=4000');
    expect(rest.json().data).toMatchObject({ receivedBytes: 10_000, status: 'uploaded' });
  });

  it('refuses bytes past the declared length with 413 and keeps nothing of that request', async () => {
    const bytes = randomBytes(1000);
    const imp = (await post(importInput([fileInput(bytes)]))).json().data;
    await put(imp.id, imp.files[0].id, bytes.subarray(0, 600));
    const over = await put(
      imp.id,
      imp.files[0].id,
      Buffer.concat([bytes.subarray(600), randomBytes(10)]),
      '?offset=600',
    );
    expect(over.statusCode).toBe(413);
    expect((await getImport(imp.id)).json().data.files[0].receivedBytes).toBe(600);
  });

  it('refuses a streamed body (no Content-Length) that runs past the declared length, keeping nothing of it', async () => {
    const bytes = randomBytes(1000);
    const imp = (await post(importInput([fileInput(bytes)]))).json().data;
    await put(imp.id, imp.files[0].id, bytes.subarray(0, 100));
    const res = await t.request({
      method: 'PUT',
      url: `/api/v1/library/imports/${imp.id}/files/${imp.files[0].id}?offset=100`,
      headers: { ...LIB, 'content-type': 'application/octet-stream' },
      payload: Readable.from([bytes.subarray(100, 600), bytes.subarray(600), randomBytes(50)]),
    });
    expect(res.statusCode).toBe(413);
    expect((await getImport(imp.id)).json().data.files[0].receivedBytes).toBe(100);
    expect((await put(imp.id, imp.files[0].id, bytes.subarray(100), '?offset=100')).statusCode).toBe(200);
  });

  it('accepts only application/octet-stream bodies', async () => {
    const imp = (await post(importInput([fileInput(randomBytes(10))]))).json().data;
    const res = await t.request({
      method: 'PUT',
      url: `/api/v1/library/imports/${imp.id}/files/${imp.files[0].id}`,
      headers: { ...LIB, 'content-type': 'text/plain' },
      payload: 'hello',
    });
    expect(res.statusCode).toBe(415);
  });

  it('answers 400 for ids that are not UUIDs and 404 for unknown ones', async () => {
    const bad = await t.request({ url: '/api/v1/library/imports/not-a-uuid', headers: LIB });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().errors[0].parameter).toBe('id');
    const unknown = await t.request({
      url: '/api/v1/library/imports/00000000-0000-4000-8000-000000000000',
      headers: LIB,
    });
    expect(unknown.statusCode).toBe(404);
    const imp = (await post(importInput([fileInput(randomBytes(10))]))).json().data;
    const noFile = await put(imp.id, '00000000-0000-4000-8000-000000000000', randomBytes(10));
    expect(noFile.statusCode).toBe(404);
    const badOffset = await put(imp.id, imp.files[0].id, randomBytes(10), '?offset=-1');
    expect(badOffset.statusCode).toBe(400);
  });
});

describe('committing', () => {
  it('rehashes, stores the files content-addressed and answers every server length and sha256', async () => {
    const a = randomBytes(3000);
    const empty = Buffer.alloc(0);
    const input = importInput([
      fileInput(a),
      fileInput(empty, {
        kind: 'qa-result',
        fileName: 'empty.txt',
        originalRelativePath: 'qa/empty.txt',
        contentType: 'text/plain',
      }),
    ]);
    const { imp, commit: result } = await importAndCommit(t, input, [a, empty]);
    expect(result).toMatchObject({
      importId: imp.id,
      status: 'committed',
      stableKey: 'minuet-bed-001',
      visibility: 'private',
    });
    expect(result.files).toEqual([
      expect.objectContaining({
        declaredByteLength: 3000,
        serverByteLength: 3000,
        declaredSha256: sha256(a),
        serverSha256: sha256(a),
        matched: true,
      }),
      expect.objectContaining({
        declaredByteLength: 0,
        serverByteLength: 0,
        serverSha256: sha256(empty),
        matched: true,
      }),
    ]);
    const after = (await getImport(imp.id)).json().data;
    expect(after.status).toBe('committed');
    expect(after.files.map((f: { status: string }) => f.status)).toEqual(['verified', 'verified']);
    expect(
      existsSync(path.join(t.dataDir, 'blobs', 'sha256', sha256(a).slice(0, 2), sha256(a).slice(2, 4), sha256(a))),
    ).toBe(true);
    // Committing again answers the same result; uploading now is a conflict.
    const again = await commit(imp.id);
    expect(again.statusCode).toBe(200);
    expect(again.json().data.files).toEqual(result.files);
    const late = await put(imp.id, imp.files[0].id, a);
    expect(late.statusCode).toBe(409);
    expect(late.json().type).toBe(`${t.baseUrl}/problems/conflict`);
  });

  it('refuses incomplete files with 409 and keeps the bytes', async () => {
    const a = randomBytes(500);
    const imp = (await post(importInput([fileInput(a)]))).json().data;
    await put(imp.id, imp.files[0].id, a.subarray(0, 100));
    const res = await commit(imp.id);
    expect(res.statusCode).toBe(409);
    expect(res.json().files[0]).toMatchObject({ id: imp.files[0].id, receivedBytes: 100, byteLength: 500 });
    expect((await getImport(imp.id)).json().data.files[0].receivedBytes).toBe(100);
  });

  it('lists expected and actual values on a mismatch, commits nothing, and accepts the file again', async () => {
    const good = randomBytes(800);
    const declared = randomBytes(800);
    const input = importInput([
      fileInput(good, { originalRelativePath: 'a.wav' }),
      fileInput(declared, { originalRelativePath: 'b.wav' }),
    ]);
    const imp = (await post(input)).json().data;
    await put(imp.id, imp.files[0].id, good);
    const wrong = randomBytes(800);
    await put(imp.id, imp.files[1].id, wrong);
    const res = await commit(imp.id);
    expect(res.statusCode).toBe(422);
    const problem = res.json();
    expect(problem.type).toBe(`${t.baseUrl}/problems/digest-mismatch`);
    expect(problem.files).toEqual([
      expect.objectContaining({
        id: imp.files[1].id,
        expectedByteLength: 800,
        actualByteLength: 800,
        expectedSha256: sha256(declared),
        actualSha256: sha256(wrong),
      }),
    ]);
    const state = (await getImport(imp.id)).json().data;
    expect(state.status).toBe('open');
    expect(state.files.map((f: { status: string }) => f.status)).toEqual(['verified', 'mismatch']);
    expect(state.files[1].receivedBytes).toBe(0);
    expect((await t.request({ url: '/api/v1/library/tracks/minuet-bed-001', headers: LIB })).statusCode).toBe(404);
    await put(imp.id, imp.files[1].id, declared);
    const ok = await commit(imp.id);
    expect(ok.statusCode).toBe(200);
    expect(ok.json().data.files.map((f: { serverSha256: string }) => f.serverSha256)).toEqual([
      sha256(good),
      sha256(declared),
    ]);
  });

  it('stores identical content once and keeps traversal names as metadata only', async () => {
    const same = randomBytes(1500);
    const input = importInput([
      fileInput(same, { fileName: '../../../../etc/passwd', originalRelativePath: '../../outside/take.wav' }),
      fileInput(same, {
        fileName: '..\\..\\win.ini',
        originalRelativePath: '/abs/path/take.wav',
        kind: 'candidate-take',
      }),
    ]);
    const { commit: result } = await importAndCommit(t, input, [same, same]);
    expect(result.files.map((f: { originalRelativePath: string }) => f.originalRelativePath)).toEqual([
      '../../outside/take.wav',
      '/abs/path/take.wav',
    ]);
    const blobs = walk(path.join(t.dataDir, 'blobs', 'sha256'));
    expect(blobs).toEqual([
      path.join(t.dataDir, 'blobs', 'sha256', sha256(same).slice(0, 2), sha256(same).slice(2, 4), sha256(same)),
    ]);
    expect(existsSync(path.join(t.dataDir, '..', 'outside'))).toBe(false);
    const pkg = (await t.request({ url: '/api/v1/library/tracks/minuet-bed-001', headers: CUR })).json().data;
    const download = await t.request({ url: new URL(pkg.files[0].links.download).pathname, headers: LIB });
    expect(download.headers['content-disposition']).toContain('filename="passwd"');
    expect(download.rawPayload.equals(same)).toBe(true);
  });

  it('refuses a second package under a stableKey that is already committed', async () => {
    const a = randomBytes(10);
    await importAndCommit(t, importInput([fileInput(a)]), [a]);
    const res = await post(importInput([fileInput(a)]));
    expect(res.statusCode).toBe(409);
  });
});
