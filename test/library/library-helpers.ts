/** Shared fixtures of the library tests: keys, track and file inputs, an app with a fresh data folder. */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { inject } from 'vitest';
import { createApp } from '../../api/app.ts';
import { loadConfig } from '../../api/config.ts';
import { SiteHandle } from '../../api/site-handle.ts';
import { PROJECT_ROOT, type TestApp } from '../helpers/app.ts';
import { assertMatchesOpenApi } from '../helpers/openapi.ts';
import type { MusicLibraryFileInput, MusicLibraryImportInput, MusicLibraryTrackInput } from '../../src/schemas/library.ts';

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
    rightsEvidence: { workSlug: 'bach-minuet-in-g', evidenceUrls: ['https://imslp.org/wiki/Minuet_in_G_major,_BWV_Anh.114_(Petzold,_Christian)'], instrumentation: 'Piano' },
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

export function importInput(files: MusicLibraryFileInput[], overrides: Partial<MusicLibraryImportInput> = {}, trackOverrides: Partial<MusicLibraryTrackInput> = {}): MusicLibraryImportInput {
  return { idempotencyKey: `import-${Math.random().toString(36).slice(2)}`, track: track(trackOverrides), files, ...overrides };
}

export interface LibraryTestApp extends TestApp {
  dataDir: string;
}

// One parsed OpenAPI document per build folder: the shared checker compiles each document once.
const documents = new Map<string, Record<string, unknown>>();
function openApiOf(buildDir: string): Record<string, unknown> {
  let doc = documents.get(buildDir);
  if (!doc) {
    doc = JSON.parse(readFileSync(path.join(buildDir, 'client', 'api', 'v1', 'openapi.json'), 'utf8')) as Record<string, unknown>;
    documents.set(buildDir, doc);
  }
  return doc;
}

/**
 * The sample build with a fresh data folder and the test keys (like openApp, which compiles the
 * document per app and so allows one app per file; this allows one per test).
 */
export async function openLibraryApp(env: Record<string, string> = {}, buildDir = inject('sampleBuildDir')): Promise<LibraryTestApp> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pdma-library-'));
  const baseUrl = JSON.parse(readFileSync(path.join(buildDir, 'build.json'), 'utf8')).baseUrl as string;
  const config = loadConfig({ PUBLIC_BASE_URL: baseUrl, ARCHIVE_DATA_DIR: dataDir, ...KEY_ENV, ...env }, PROJECT_ROOT);
  const handle = await SiteHandle.open(buildDir);
  const app = await createApp({ config, handle }, { logger: false });
  const doc = openApiOf(buildDir);
  return {
    app,
    handle,
    baseUrl,
    buildDir,
    dataDir,
    async request(options) {
      const res = await app.inject({
        method: (options.method ?? 'GET') as 'GET',
        url: options.url,
        headers: options.headers,
        ...(options.payload !== undefined ? { payload: options.payload as string } : {}),
      });
      assertMatchesOpenApi(doc, options.method ?? 'GET', options.url, res);
      return res;
    },
    close: async () => {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

type Json = Record<string, any>;

/** Create an import, upload every file whole, commit; returns the import and commit bodies. */
export async function importAndCommit(t: TestApp, input: MusicLibraryImportInput, bytes: Buffer[]): Promise<{ imp: Json; commit: Json }> {
  const created = await t.request({ method: 'POST', url: '/api/v1/library/imports', headers: LIB, payload: input });
  if (created.statusCode !== 200) throw new Error(`import failed: ${created.body}`);
  const imp = created.json().data as Json;
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
