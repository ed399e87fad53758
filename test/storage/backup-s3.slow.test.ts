/**
 * Backup and restore across blob backends, against a real S3-protocol server (s3rver) this file
 * starts: an archive on the S3 store is backed up (blobs read from the bucket) and restored onto
 * the local folder, and that backup restored again onto a fresh bucket prefix; each restored
 * archive serves the track's files with their exact bytes.
 */
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { runScript } from '../helpers/process.ts';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openApp, PROJECT_ROOT, type TestApp } from '../helpers/app.ts';
import { startS3, type TestS3 } from '../helpers/s3-server.ts';
import { ensureContentRepo } from '../../api/site/content-repo.ts';
import { fileInput, importAndCommit, importInput, KEY_ENV, LIB, sha256 } from '../library/library-helpers.ts';

const BUCKET = 'archive-blobs';
const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-backup-s3-'));
let s3: TestS3;
const apps: TestApp[] = [];

const onS3 = (dataDir: string, prefix: string) => ({
  ...s3.env,
  ...KEY_ENV,
  ARCHIVE_DATA_DIR: dataDir,
  ARCHIVE_BLOB_STORE: 's3',
  ARCHIVE_S3_BUCKET: BUCKET,
  ARCHIVE_S3_PREFIX: prefix,
});
const open = async (env: Record<string, string>) => {
  const t = await openApp(inject('sampleBuildDir'), env);
  apps.push(t);
  return t;
};

beforeAll(async () => {
  s3 = await startS3([BUCKET]);
});
afterAll(async () => {
  for (const a of apps) await a.close();
  await s3?.close();
  rmSync(root, { recursive: true, force: true });
});

describe('backup and restore across blob stores', () => {
  it('backs up an archive on S3 and restores it onto the local folder and onto S3 again', async () => {
    const source = path.join(root, 'source');
    await ensureContentRepo(path.join(source, 'content'), path.join(PROJECT_ROOT, 'content'));
    const t = await open(onS3(source, 'source/'));
    const bytes = randomBytes(300_000);
    const { imp } = await importAndCommit(t, importInput([fileInput(bytes)], {}, { stableKey: 's3-backup-001' }), [
      bytes,
    ]);
    const fileId = imp.files[0].id as string;

    const backupDir = path.join(root, 'backup');
    const backup = await runScript('backup.ts', ['--out', backupDir], onS3(source, 'source/'));
    expect(backup.status, backup.out).toBe(0);
    expect(backup.out).toMatch(/blobs: 1 \(300000 bytes\) from the s3 store/);

    const local = path.join(root, 'local');
    const toLocal = await runScript('restore.ts', ['--from', backupDir], { ARCHIVE_DATA_DIR: local });
    expect(toLocal.status, toLocal.out).toBe(0);
    expect(
      existsSync(
        path.join(local, 'blobs', 'sha256', sha256(bytes).slice(0, 2), sha256(bytes).slice(2, 4), sha256(bytes)),
      ),
    ).toBe(true);

    const bucket = path.join(root, 'bucket');
    const toS3 = await runScript('restore.ts', ['--from', backupDir], onS3(bucket, 'restored/'));
    expect(toS3.status, toS3.out).toBe(0);

    for (const env of [{ ...KEY_ENV, ARCHIVE_DATA_DIR: local }, onS3(bucket, 'restored/')]) {
      const restored = await open(env);
      const track = await restored.request({ url: '/api/v1/library/tracks/s3-backup-001', headers: LIB });
      expect(track.statusCode, env.ARCHIVE_DATA_DIR).toBe(200);
      const file = await restored.request({ url: `/api/v1/library/files/${fileId}`, headers: LIB });
      expect(file.statusCode).toBe(200);
      expect(sha256(file.rawPayload)).toBe(sha256(bytes));
    }
  }, 120_000);
});
