/** Shared fixtures of the library tests: keys, track and file inputs, an app with a fresh data folder. */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { openApp, type TestApp } from '../helpers/app.ts';
import type {
  MusicLibraryFileInput,
  MusicLibraryImportInput,
  MusicLibraryTrackInput,
} from '../../src/schemas/library.ts';

export const LIBRARY_SECRET = 'library-secret-0123456789';
export const CURATOR_SECRET = 'curator-secret-0123456789';
export const ADMIN_SECRET = 'admin-secret-0123456789';

/** Environment with one key per role; the curator key carries the label "ada". */
export const KEY_ENV = {
  ARCHIVE_LIBRARY_KEYS: `prod-team=${LIBRARY_SECRET}`,
  ARCHIVE_CURATOR_KEYS: `ada=${CURATOR_SECRET}`,
  ARCHIVE_ADMIN_KEYS: ADMIN_SECRET,
};

export const LIB = { 'x-archive-import-key': LIBRARY_SECRET };
export const CUR = { authorization: `Bearer ${CURATOR_SECRET}` };

export const sha256 = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

export function track(overrides: Partial<MusicLibraryTrackInput> = {}): MusicLibraryTrackInput {
  return {
    stableKey: 'minuet-bed-001',
    title: 'Minuet bed',
    collection: 'Baroque beds',
    sourceType: 'score-rendering',
    rightsStatus: 'public-domain',
    license: 'CC0-1.0',
    reviewStatus: 'technical-pass',
    visibility: 'private',
    composer: 'Christian Petzold',
    genre: 'minuet',
    attribution: null,
    description: 'A calm piano bed of the minuet.',
    musicalKey: 'G major',
    tags: ['calm', 'piano'],
    intendedUses: ['music-bed'],
    channelKeys: ['sleep-channel'],
    rightsEvidence: {
      workSlug: 'bach-minuet-in-g',
      evidenceUrls: ['https://imslp.org/wiki/Minuet_in_G_major,_BWV_Anh.114_(Petzold,_Christian)'],
      instrumentation: 'Piano',
    },
    reproducibility: { engine: 'test-renderer', seed: '42' },
    quality: { technicalValidationPassed: true },
    durationSeconds: 90,
    bpm: 96,
    sourceCreatedAtUtc: '2026-11-01T00:00:00Z',
    ...overrides,
  };
}

export function fileInput(bytes: Buffer, overrides: Partial<MusicLibraryFileInput> = {}): MusicLibraryFileInput {
  return {
    kind: 'wav',
    fileName: 'bed.wav',
    originalRelativePath: 'masters/bed.wav',
    contentType: 'audio/wav',
    sha256: sha256(bytes),
    downloadPolicy: 'protected',
    byteLength: bytes.length,
    metadata: null,
    ...overrides,
  };
}

export function importInput(
  files: MusicLibraryFileInput[],
  overrides: Partial<MusicLibraryImportInput> = {},
  trackOverrides: Partial<MusicLibraryTrackInput> = {},
): MusicLibraryImportInput {
  return {
    idempotencyKey: `import-${Math.random().toString(36).slice(2)}`,
    track: track(trackOverrides),
    files,
    ...overrides,
  };
}

export interface LibraryTestApp extends TestApp {
  dataDir: string;
}

/** The sample build with a fresh data folder and the test keys; the folder goes with the app. */
export async function openLibraryApp(
  env: Record<string, string> = {},
  buildDir = inject('sampleBuildDir'),
): Promise<LibraryTestApp> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pdma-library-'));
  const t = await openApp(buildDir, { ARCHIVE_DATA_DIR: dataDir, ...KEY_ENV, ...env });
  return {
    ...t,
    dataDir,
    close: async () => {
      await t.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

// Loose JSON answers: the shapes are checked against OpenAPI by request(); tests read fields freely.
type Json = Record<string, any>;

/** Create the import `input` (200): its record, open, its files not uploaded yet. */
export async function openImport(t: TestApp, input: MusicLibraryImportInput): Promise<Json> {
  const created = await t.request({ method: 'POST', url: '/api/v1/library/imports', headers: LIB, payload: input });
  if (created.statusCode !== 200) throw new Error(`import failed: ${created.body}`);
  return created.json().data as Json;
}

/** Create the import `input`, upload `bytes` (one buffer a file, in order) and commit it (200 each). */
export async function importAndCommit(
  t: TestApp,
  input: MusicLibraryImportInput,
  bytes: Buffer[],
): Promise<{ imp: Json; commit: Json }> {
  const imp = await openImport(t, input);
  for (const [i, file] of (imp.files as Json[]).entries()) {
    const res = await t.request({
      method: 'PUT',
      url: `/api/v1/library/imports/${imp.id}/files/${file.id}?offset=0`,
      headers: { ...LIB, 'content-type': 'application/octet-stream' },
      payload: bytes[i]!,
    });
    if (res.statusCode !== 200) throw new Error(`upload failed: ${res.body}`);
  }
  const commit = await t.request({ method: 'POST', url: `/api/v1/library/imports/${imp.id}/commit`, headers: LIB });
  if (commit.statusCode !== 200) throw new Error(`commit failed: ${commit.body}`);
  return { imp, commit: commit.json().data as Json };
}
