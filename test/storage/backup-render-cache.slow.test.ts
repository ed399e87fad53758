/**
 * Backup and restore carry the render cache: an archive whose build engraved a real song from
 * ../shared/corpora is backed up (`npm run backup`), restored into a fresh data folder
 * (`npm run restore`), and the restored archive's full build engraves nothing and compresses
 * nothing (build.json: every score and every page's compressed forms from the cache). A damaged
 * entry in a backup is left out at restore; `--without-render-cache` leaves the cache out.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RenderSummary } from '../../src/lib/site/render-scores.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScript } from '../helpers/process.ts';
import { filesUnder } from '../helpers/build-folders.ts';
import { corpusScores, LIEDER, makeCorpusContent } from '../helpers/corpus-content.ts';
import { ensureContentRepo } from '../../api/site/content-repo.ts';
import { LocalBlobStore } from '../../api/blobs/blob-store.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-backup-render-cache-'));
const original = path.join(root, 'original');
const restored = path.join(root, 'restored');
const backupDir = path.join(root, 'backup');

interface BuildJson {
  scores: Omit<RenderSummary, 'manifest' | 'durationMs'>;
  compressedPages: { files: number };
}

const run = (script: string, args: string[], dataDir: string) => runScript(script, args, { ARCHIVE_DATA_DIR: dataDir });

/** A full build of the data folder's content repository with its configured blob store as the render cache. */
async function build(dataDir: string, name: string): Promise<BuildJson> {
  const out = path.join(root, name);
  const res = await run(
    'build.ts',
    [
      '--content',
      path.join(dataDir, 'content'),
      '--out',
      out,
      '--base-url',
      'https://backup-render-cache.example.test',
      '--render-cache',
      'config',
      '--engrave-workers',
      '1',
      '--quiet',
    ],
    dataDir,
  );
  expect(res.status, res.out).toBe(0);
  return JSON.parse(readFileSync(path.join(out, 'build.json'), 'utf8')) as BuildJson;
}

const cacheEntries = (dataDir: string) =>
  existsSync(path.join(dataDir, 'blobs'))
    ? filesUnder(path.join(dataDir, 'blobs')).filter((f) => f.startsWith('named/render-cache/'))
    : [];

let first: BuildJson;

beforeAll(async () => {
  // The smallest song of a spread: a real score, engraved in seconds.
  const seed = path.join(root, 'seed');
  const song = corpusScores(LIEDER)
    .slice(0, 40)
    .sort((a, b) => readFileSync(a).length - readFileSync(b).length)[0]!;
  makeCorpusContent(seed, [song], { sampleWorks: false });
  await ensureContentRepo(path.join(original, 'content'), seed);
  first = await build(original, 'build-original');
}, 600_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('backup and restore carry the render cache', () => {
  it('a restored archive builds every score from the cache: nothing engraved, nothing compressed', async () => {
    expect(first.scores).toMatchObject({ rendered: 1, engraved: 1, fromCache: 0 });
    expect(first.scores.compressedForCache).toBeGreaterThan(0);
    const entries = cacheEntries(original);
    expect(entries).toHaveLength(2); // the engraving and the PDF

    const backup = await run('backup.ts', ['--out', backupDir], original);
    expect(backup.status, backup.out).toBe(0);
    expect(backup.out).toMatch(/render cache: 2 entries \(\d+ bytes\)/);
    const manifest = JSON.parse(readFileSync(path.join(backupDir, 'manifest.json'), 'utf8')) as {
      renderCache: { included: boolean; count: number; bytes: number; damaged: number };
    };
    expect(manifest.renderCache).toMatchObject({ included: true, count: 2, damaged: 0 });
    expect(filesUnder(backupDir).filter((f) => f.startsWith('named/render-cache/'))).toEqual(entries);

    const restore = await run('restore.ts', ['--from', backupDir], restored);
    expect(restore.status, restore.out).toBe(0);
    expect(restore.out).toMatch(/render cache: 2 entries restored into the local store/);
    expect(cacheEntries(restored)).toEqual(entries);
    for (const e of entries)
      expect(readFileSync(path.join(restored, 'blobs', e)).equals(readFileSync(path.join(original, 'blobs', e)))).toBe(
        true,
      );

    const again = await build(restored, 'build-restored');
    expect(again.scores).toMatchObject({
      rendered: 1,
      engraved: 0,
      fromCache: 1,
      corrupt: 0,
      pdfsMade: 0,
      compressedForCache: 0,
      compressedFromCache: first.scores.compressedForCache,
    });
    // No page was compressed by the build: every page's br and gzip came with its engraving.
    expect(again.compressedPages.files).toBe(0);
  }, 600_000);

  it('a damaged entry in a backup is left out at restore; the rest is restored', async () => {
    const copy = path.join(root, 'backup-damaged');
    const made = await run('backup.ts', ['--out', copy], original);
    expect(made.status, made.out).toBe(0);
    const entry = filesUnder(copy).find((f) => f.includes('/render-cache/v1/engraving/'))!;
    const bytes = readFileSync(path.join(copy, entry));
    bytes[bytes.length - 10]! ^= 0xff;
    writeFileSync(path.join(copy, entry), bytes);

    const target = path.join(root, 'restored-damaged');
    const res = await run('restore.ts', ['--from', copy], target);
    expect(res.status, res.out).toBe(0);
    expect(res.out).toMatch(/fails its digest; left out/);
    expect(res.out).toMatch(/render cache: 1 entries restored into the local store, 1 damaged left out/);
    const store = new LocalBlobStore(path.join(target, 'blobs'));
    const name = entry.slice('named/'.length);
    expect(await store.getNamed(name)).toBeNull();
    expect(cacheEntries(target)).toEqual(cacheEntries(original).filter((e) => e !== entry));
  }, 300_000);

  it('--without-render-cache leaves the cache out and says so', async () => {
    const lean = path.join(root, 'backup-lean');
    const res = await run('backup.ts', ['--out', lean, '--without-render-cache'], original);
    expect(res.status, res.out).toBe(0);
    expect(res.out).toMatch(/render cache: left out/);
    expect(existsSync(path.join(lean, 'named'))).toBe(false);
    const manifest = JSON.parse(readFileSync(path.join(lean, 'manifest.json'), 'utf8')) as {
      renderCache: { included: boolean; count: number };
    };
    expect(manifest.renderCache).toMatchObject({ included: false, count: 0 });
    const target = path.join(root, 'restored-lean');
    const restore = await run('restore.ts', ['--from', lean], target);
    expect(restore.status, restore.out).toBe(0);
    expect(restore.out).toMatch(/render cache: not in this backup/);
    expect(cacheEntries(target)).toEqual([]);
  }, 300_000);
});
