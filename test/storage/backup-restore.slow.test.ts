/**
 * `npm run backup` while the archive serves and takes submissions, then `npm run restore` into a
 * fresh folder and `npm start` on it: over HTTP the restored archive serves every work, every
 * submission acknowledged before the backup began (and nothing half-written), and every library
 * track with its files' exact bytes.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openApp, PROJECT_ROOT, type TestApp, listenOnLoopback } from '../helpers/app.ts';
import { startService, type Started, runScript } from '../helpers/process.ts';
import { ensureContentRepo } from '../../api/site/content-repo.ts';
import { CONTRIBUTIONS, REPORTS, validReport } from '../contributions/helpers.ts';
import { fillTemplate } from '../helpers/filled-template.ts';
import { fileInput, importAndCommit, importInput, KEY_ENV, LIB, sha256 } from '../library/library-helpers.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-backup-'));
const original = path.join(root, 'original');
const restored = path.join(root, 'restored');
const backupDir = path.join(root, 'backup');
const RATE = { ARCHIVE_CONTRIBUTION_RATE_LIMIT: '100000/60', ARCHIVE_CORRECTION_RATE_LIMIT: '100000/60' };
let t: TestApp;
let url: string;
let service: Started | null = null;

type Json = Record<string, any>;
const getJson = async (base: string, p: string, headers: Record<string, string> = {}) => {
  const res = await fetch(`${base}${p}`, { headers });
  return { status: res.status, body: (await res.json()) as Json };
};
const post = (p: string, body: unknown) =>
  fetch(`${url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });

beforeAll(async () => {
  // The original archive: the sample catalog's content repository and build, listening on loopback.
  await ensureContentRepo(path.join(original, 'content'), path.join(PROJECT_ROOT, 'content'));
  t = await openApp(inject('sampleBuildDir'), { ARCHIVE_DATA_DIR: original, ...KEY_ENV, ...RATE });
  url = await listenOnLoopback(t.app);
});
afterAll(async () => {
  await service?.stop();
  await t?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('backup and restore', () => {
  it('restores into a fresh folder an archive that serves every work, submission and track', async () => {
    // The template with its placeholders filled (the untouched template is refused).
    const template = fillTemplate((await getJson(url, `${CONTRIBUTIONS}/template`)).body);
    const contributions: string[] = [];
    for (let i = 0; i < 5; i++) {
      const res = await post(CONTRIBUTIONS, { ...template, idempotencyKey: `before-backup-${i}` });
      expect(res.status).toBe(202);
      contributions.push(((await res.json()) as Json).data.trackingCode);
    }
    const reports: string[] = [];
    for (let i = 0; i < 2; i++) {
      const res = await post(REPORTS, { ...validReport(), proposedValue: `1888 (${i})` });
      expect(res.status).toBe(202);
      reports.push(((await res.json()) as Json).data.trackingCode);
    }
    const tracks: Array<{ stableKey: string; files: Array<{ id: string; bytes: Buffer }> }> = [];
    for (const key of ['backup-bed-001', 'backup-bed-002']) {
      const bytes = [randomBytes(200_000), Buffer.from(`{"key":"${key}"}`)];
      const input = importInput(
        [
          fileInput(bytes[0]!),
          fileInput(bytes[1]!, {
            kind: 'manifest',
            fileName: 'm.json',
            originalRelativePath: 'm.json',
            contentType: 'application/json',
            byteLength: bytes[1]!.length,
          }),
        ],
        {},
        { stableKey: key },
      );
      const { imp } = await importAndCommit(t, input, bytes);
      tracks.push({ stableKey: key, files: imp.files.map((f: Json, i: number) => ({ id: f.id, bytes: bytes[i]! })) });
    }

    // Back up while submissions keep arriving.
    let writing = true;
    const during: string[] = [];
    const writer = (async () => {
      // A steady stream of submissions (about 20 a second), not a flood: the backup needs one pass
      // over the state with no write in between, and refuses with a clear message when a sustained
      // flood never leaves one (documented in docs/storage.md).
      for (let i = 0; writing && i < 2000; i++) {
        const res = await post(CONTRIBUTIONS, { ...template, idempotencyKey: `during-backup-${i}` });
        if (res.status === 202) during.push(((await res.json()) as Json).data.trackingCode);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const backup = await runScript('backup.ts', ['--out', backupDir], { ARCHIVE_DATA_DIR: original });
    writing = false;
    await writer;
    expect(backup.status, backup.out).toBe(0);
    expect(during.length).toBeGreaterThan(0);
    const manifest = JSON.parse(readFileSync(path.join(backupDir, 'manifest.json'), 'utf8'));
    expect(manifest).toMatchObject({
      content: { branch: 'main', bundle: 'content.bundle' },
      blobs: { backend: 'local', count: 4 },
    });

    // A backup folder is never overwritten.
    const again = await runScript('backup.ts', ['--out', backupDir], { ARCHIVE_DATA_DIR: original });
    expect(again.status).toBe(1);
    expect(again.out).toMatch(/not empty/);

    const restore = await runScript('restore.ts', ['--from', backupDir], { ARCHIVE_DATA_DIR: restored });
    expect(restore.status, restore.out).toBe(0);
    expect(existsSync(path.join(restored, 'content', '.git'))).toBe(true);
    // Restoring over existing data is refused.
    const twice = await runScript('restore.ts', ['--from', backupDir], { ARCHIVE_DATA_DIR: restored });
    expect(twice.status).toBe(1);
    expect(twice.out).toMatch(/already/);

    service = await startService({ ARCHIVE_DATA_DIR: restored, ...KEY_ENV }, 300_000);
    const base = service.url;

    // Every work of the original, each record.
    const slugs = async (origin: string) => {
      const out: string[] = [];
      for (let page = 1; ; page++) {
        const { body } = await getJson(origin, `/api/v1/works?pageSize=100&page=${page}`);
        out.push(...body.data.items.map((w: Json) => w.slug));
        if (page >= body.data.totalPages) return out.sort();
      }
    };
    const works = await slugs(url);
    expect(works.length).toBeGreaterThan(10);
    expect(await slugs(base)).toEqual(works);
    for (const slug of works) {
      const res = await fetch(`${base}/api/v1/works/${slug}`);
      expect(res.status, slug).toBe(200);
      expect(((await res.json()) as Json).data.slug).toBe(slug);
      const page = await fetch(`${base}/works/${slug}/`);
      expect(page.status, slug).toBe(200);
    }

    // Every submission acknowledged before the backup, as the original answers it; every one
    // taken during the backup is either whole or absent.
    for (const [p, codes] of [
      [CONTRIBUTIONS, contributions],
      [REPORTS, reports],
    ] as const) {
      for (const code of codes) {
        const before = await getJson(url, `${p}/${code}`);
        const after = await getJson(base, `${p}/${code}`);
        expect(after.status, code).toBe(200);
        expect(after.body.data.status).toBe(before.body.data.status);
        expect(after.body.data.receivedAtUtc).toBe(before.body.data.receivedAtUtc);
        expect(after.body.data.trackingCode).toBe(code);
      }
    }
    for (const code of during) {
      const after = await getJson(base, `${CONTRIBUTIONS}/${code}`);
      expect([200, 404], code).toContain(after.status);
      if (after.status === 200) expect(after.body.data.status).toBe('pending');
    }

    // Every track, and the exact bytes of every file.
    for (const track of tracks) {
      const res = await getJson(base, `/api/v1/library/tracks/${track.stableKey}`, LIB);
      expect(res.status, track.stableKey).toBe(200);
      expect(res.body.data.stableKey).toBe(track.stableKey);
      for (const f of track.files) {
        const file = await fetch(`${base}/api/v1/library/files/${f.id}`, { headers: LIB });
        expect(file.status).toBe(200);
        expect(sha256(Buffer.from(await file.arrayBuffer()))).toBe(sha256(f.bytes));
      }
    }
  }, 420_000);

  it('refuses a folder that is not a complete backup', async () => {
    const res = await runScript('restore.ts', ['--from', path.join(root, 'no-backup')], {
      ARCHIVE_DATA_DIR: path.join(root, 'other'),
    });
    expect(res.status).toBe(1);
    expect(res.out).toMatch(/no manifest\.json/);
  });
});
