/**
 * The mini fixture with blob-backed assets added to its one work, built in full and served by an
 * app whose blob store holds the given bytes: the setup of the tests that read files the store
 * serves (`/blobs/{sha256}`).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { LocalBlobStore } from '../../api/blobs/blob-store.ts';
import { openApp, PROJECT_ROOT, type TestApp } from './app.ts';
import { fixtureCopies, MINI_WORK, replaceInFile } from './fixture-copies.ts';

export const sha256Hex = (b: Buffer) => createHash('sha256').update(b).digest('hex');

export interface BlobAsset {
  id: number;
  bytes: Buffer;
  kind: string;
  mediaType: string;
  title: string;
  access: 'public' | 'admin-only';
}

function assetYaml(a: BlobAsset): string {
  return `      - id: ${a.id}
        kind: ${a.kind}
        title: ${a.title}
        blob: ${sha256Hex(a.bytes)}
        byteLength: ${a.bytes.length}
        sourcePageUrl: https://files.example.org/minuet
        mediaType: ${a.mediaType}
        rightsStatus: original-generated-recording
        license: CC0-1.0
        attribution: null
        reviewState: human-reviewed
        access: ${a.access}
`;
}

/**
 * Build the mini fixture with `assets` added to its arrangement, put their bytes (and `alsoStored`)
 * in a fresh blob store, and open the app over the build. `close()` removes everything.
 */
export async function openAppWithBlobAssets(
  prefix: string,
  baseUrl: string,
  assets: BlobAsset[],
  alsoStored: Buffer[] = [],
): Promise<TestApp> {
  const root = mkdtempSync(path.join(os.tmpdir(), prefix));
  const copies = fixtureCopies(`${prefix}content-`);
  const content = copies.copy();
  replaceInFile(content, MINI_WORK, '---\nA short minuet', `${assets.map(assetYaml).join('')}---\nA short minuet`);
  const out = path.join(root, 'build');
  const build = spawnSync(
    process.execPath,
    ['scripts/build.ts', '--content', content, '--out', out, '--base-url', baseUrl, '--quiet'],
    { cwd: PROJECT_ROOT, encoding: 'utf8' },
  );
  copies.removeAll();
  if (build.status !== 0) throw new Error(`the build failed:\n${build.stderr}`);
  const dataDir = path.join(root, 'data');
  const store = new LocalBlobStore(path.join(dataDir, 'blobs'));
  for (const b of [...assets.map((a) => a.bytes), ...alsoStored]) await store.putBytes(b);
  const t = await openApp(out, { ARCHIVE_DATA_DIR: dataDir });
  return {
    ...t,
    close: async () => {
      await t.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
