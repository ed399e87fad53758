/**
 * Reliability with the real service (`npm start`'s entry point): a connection dropped
 * mid-upload resumes from the reported offset to the same sha256; SIGKILL during an upload and at
 * every step of a commit leaves nothing half-committed, and after a restart uploads resume and the
 * commit completes; SIGKILL right after a publication's commit settles it as public on restart.
 * Commit steps are hit exactly with ARCHIVE_LIBRARY_FAILPOINTS (api/library/failpoints.ts).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ensureContentRepo } from '../../api/site/content-repo.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { startService, type Started } from '../helpers/process.ts';
import { KEY_ENV, LIBRARY_SECRET, CURATOR_SECRET, fileInput, importInput, sha256 } from './library-helpers.ts';

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pdma-library-crash-'));
// A fixed base URL, so every restart reuses the same build.
const env = { ARCHIVE_DATA_DIR: dataDir, PUBLIC_BASE_URL: 'http://crash.example.test', ...KEY_ENV };
const key = { 'x-archive-import-key': LIBRARY_SECRET };
let service: Started | null = null;

beforeAll(async () => {
  await ensureContentRepo(path.join(dataDir, 'content'), path.join(PROJECT_ROOT, 'test', 'fixtures', 'mini'));
});
afterAll(async () => {
  await service?.stop('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

async function start(extra: Record<string, string> = {}): Promise<Started> {
  await service?.stop('SIGKILL');
  service = await startService({ ...env, ...extra });
  return service;
}

async function api(method: string, url: string, body?: unknown, headers: Record<string, string> = key) {
  const res = await fetch(`${service!.url}${url}`, {
    method,
    headers: { ...headers, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await res.text();
  return { status: res.status, json: () => JSON.parse(text) };
}

/** PUT raw bytes with a real socket; resolves with the status. */
function put(url: string, bytes: Buffer): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      `${service!.url}${url}`,
      {
        method: 'PUT',
        headers: { ...key, 'content-type': 'application/octet-stream', 'content-length': String(bytes.length) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(bytes);
  });
}

/** Start a PUT that declares `total` bytes but sends only `sent`; returns the request to destroy. */
function partialPut(url: string, total: number, sent: Buffer): http.ClientRequest {
  const req = http.request(`${service!.url}${url}`, {
    method: 'PUT',
    headers: { ...key, 'content-type': 'application/octet-stream', 'content-length': String(total) },
  });
  req.on('error', () => undefined);
  req.write(sent);
  return req;
}

async function receivedBytes(importId: string): Promise<number> {
  return (await api('GET', `/api/v1/library/imports/${importId}`)).json().data.files[0].receivedBytes;
}

/** Poll (no timing assertion) until the server holds at least `min` bytes. */
async function waitForBytes(importId: string, min: number): Promise<number> {
  for (;;) {
    const n = await receivedBytes(importId);
    if (n >= min) return n;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** Resume from the offset the server reports until the file is complete. */
async function resume(importId: string, fileId: string, bytes: Buffer): Promise<void> {
  for (;;) {
    const offset = await receivedBytes(importId);
    if (offset === bytes.length) return;
    const status = await put(
      `/api/v1/library/imports/${importId}/files/${fileId}?offset=${offset}`,
      bytes.subarray(offset),
    );
    if (status === 200) return;
    expect(status).toBe(409); // the dropped request may still be ending: read the offset again
    await new Promise((r) => setTimeout(r, 50));
  }
}

/**
 * An import of `size` random bytes whose upload has begun: a PUT of all of them that sends only
 * the first `sent`, once the server holds at least `held` of them. The request is still open.
 */
async function uploadUnderway(stableKey: string, size: number, sent: number, held: number) {
  const bytes = randomBytes(size);
  const imp = (await api('POST', '/api/v1/library/imports', importInput([fileInput(bytes)], {}, { stableKey }))).json()
    .data;
  const req = partialPut(
    `/api/v1/library/imports/${imp.id}/files/${imp.files[0].id}?offset=0`,
    bytes.length,
    bytes.subarray(0, sent),
  );
  await waitForBytes(imp.id, held);
  return { bytes, imp, req };
}

describe('uploads that break off', () => {
  it('resume after a dropped connection from the reported offset to the same sha256', async () => {
    await start();
    const { bytes, imp, req } = await uploadUnderway('dropped', 3 * 1024 * 1024, 1024 * 1024, 512 * 1024);
    req.destroy();
    await resume(imp.id, imp.files[0].id, bytes);
    const commit = await api('POST', `/api/v1/library/imports/${imp.id}/commit`);
    expect(commit.status).toBe(200);
    expect(commit.json().data.files[0]).toMatchObject({ serverByteLength: bytes.length, serverSha256: sha256(bytes) });
  });

  it('resume after the server is killed mid-upload and restarted', async () => {
    await start();
    const { bytes, imp, req } = await uploadUnderway('killed-upload', 2 * 1024 * 1024, 1536 * 1024, 256 * 1024);
    await service!.stop('SIGKILL');
    req.destroy();
    await start();
    const state = (await api('GET', `/api/v1/library/imports/${imp.id}`)).json().data;
    expect(state.status).toBe('open');
    expect(state.files[0].receivedBytes).toBeGreaterThan(0);
    expect(state.files[0].receivedBytes).toBeLessThan(bytes.length);
    await resume(imp.id, imp.files[0].id, bytes);
    const commit = await api('POST', `/api/v1/library/imports/${imp.id}/commit`);
    expect(commit.json().data.files[0].serverSha256).toBe(sha256(bytes));
  });
});

describe('SIGKILL during a commit', () => {
  for (const point of ['commit-after-mark', 'commit-after-adopt', 'commit-after-claim', 'commit-before-flip']) {
    it(`at ${point} leaves nothing committed, and a new commit after restart completes`, async () => {
      await start({ ARCHIVE_LIBRARY_FAILPOINTS: point });
      const a = randomBytes(300_000);
      const b = randomBytes(200_000);
      const stableKey = `crash-${point}`;
      const imp = (
        await api(
          'POST',
          '/api/v1/library/imports',
          importInput(
            [fileInput(a, { originalRelativePath: 'a.wav' }), fileInput(b, { originalRelativePath: 'b.wav' })],
            {},
            { stableKey },
          ),
        )
      ).json().data;
      expect(await put(`/api/v1/library/imports/${imp.id}/files/${imp.files[0].id}`, a)).toBe(200);
      expect(await put(`/api/v1/library/imports/${imp.id}/files/${imp.files[1].id}`, b)).toBe(200);
      await expect(api('POST', `/api/v1/library/imports/${imp.id}/commit`)).rejects.toThrow();
      expect(await service!.stop()).toBeNull(); // killed by a signal, not exited

      await start();
      const state = (await api('GET', `/api/v1/library/imports/${imp.id}`)).json().data;
      expect(state.status).toBe('open');
      expect((await api('GET', `/api/v1/library/tracks/${stableKey}`)).status).toBe(404);
      expect((await api('GET', `/api/v1/library/files/${imp.files[0].id}`)).status).toBe(404);
      const listed = (await api('GET', '/api/v1/library/tracks'))
        .json()
        .data.items.map((i: { stableKey: string }) => i.stableKey);
      expect(listed).not.toContain(stableKey);

      const commit = await api('POST', `/api/v1/library/imports/${imp.id}/commit`);
      expect(commit.status).toBe(200);
      expect(commit.json().data.files.map((f: { serverSha256: string }) => f.serverSha256)).toEqual([
        sha256(a),
        sha256(b),
      ]);
      const download = await fetch(`${service!.url}/api/v1/library/files/${imp.files[1].id}`, { headers: key });
      expect(Buffer.from(await download.arrayBuffer()).equals(b)).toBe(true);
    });
  }
});

describe('SIGKILL during a publication', () => {
  it('right after the branch moved: public on restart, with the arrangement in the work record', async () => {
    await start({ ARCHIVE_LIBRARY_FAILPOINTS: 'publish-after-merge' });
    const wav = randomBytes(5000);
    const imp = (
      await api('POST', '/api/v1/library/imports', importInput([fileInput(wav)], {}, { stableKey: 'crash-publish' }))
    ).json().data;
    expect(await put(`/api/v1/library/imports/${imp.id}/files/${imp.files[0].id}`, wav)).toBe(200);
    expect((await api('POST', `/api/v1/library/imports/${imp.id}/commit`)).status).toBe(200);
    await expect(
      api('POST', '/api/v1/library/tracks/crash-publish/publish', undefined, {
        authorization: `Bearer ${CURATOR_SECRET}`,
      }),
    ).rejects.toThrow();
    await start();
    const pkg = (await api('GET', '/api/v1/library/tracks/crash-publish')).json().data;
    expect(pkg.visibility).toBe('public');
    const work = (await api('GET', '/api/v1/works/bach-minuet-in-g', undefined, {})).json().data;
    expect(work.arrangements.flatMap((a: { assets: { sha256: string }[] }) => a.assets.map((x) => x.sha256))).toContain(
      sha256(wav),
    );
  });
});
