/**
 * `npm run restore -- --from DIR`: rebuild an archive's data from a backup made by
 * `npm run backup` (scripts/backup.ts) into the configured, empty places:
 *
 *   ARCHIVE_DATA_DIR/state        the state records (must not exist yet)
 *   ARCHIVE_CONTENT_REPO          the content repository from the bundle, every branch, its
 *                                 branch checked out (default ARCHIVE_DATA_DIR/content; must not exist)
 *   the configured blob store     every blob, its digest checked again (ARCHIVE_BLOB_STORE=local:
 *                                 ARCHIVE_DATA_DIR/blobs; s3: the ARCHIVE_S3_BUCKET), so a backup of
 *                                 a local store can be restored onto S3 and back
 *   the render cache              the backup's render cache entries (named objects of the same
 *                                 store), each checked against the digest it carries, so the
 *                                 first build reuses every engraving instead of engraving again
 *
 * Then `npm start` builds the restored content and serves it. Blobs go first and the state last,
 * so a restore that stops half-way never leaves records naming missing bytes; remove what it made
 * and run it again.
 */
import { createReadStream, createWriteStream, existsSync, promises as fs } from 'node:fs';
import path from 'node:path';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../api/config.ts';
import { createBlobStore } from '../api/blobs/create.ts';
import { HEX64, NAMED_OBJECT } from '../api/blobs/blob-store.ts';
import { isIntactEntry, RENDER_CACHE_PREFIX } from '../src/lib/site/render-cache.ts';
import { git } from '../api/site/content-repo.ts';
import { PROJECT_ROOT } from '../build/command.ts';
import { BACKUP_FORMAT, BACKUP_VERSION, type BackupManifest } from './backup.ts';

async function isEmptyOrMissing(dir: string): Promise<boolean> {
  try {
    return (await fs.readdir(dir)).length === 0;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw err;
  }
}

async function blobFiles(root: string): Promise<Array<{ sha256: string; file: string }>> {
  const out: Array<{ sha256: string; file: string }> = [];
  const top = path.join(root, 'sha256');
  const names = async (dir: string) => (await fs.readdir(dir).catch(() => [] as string[])).sort();
  for (const a of await names(top))
    for (const b of await names(path.join(top, a)))
      for (const h of await names(path.join(top, a, b)))
        if (HEX64.test(h)) out.push({ sha256: h, file: path.join(top, a, b, h) });
  return out;
}

/** The named objects under `named/<prefix>/` of a backup, sorted (names have at most 8 segments: a bounded walk). */
async function namedFiles(root: string, prefix: string): Promise<Array<{ name: string; file: string }>> {
  const out: Array<{ name: string; file: string }> = [];
  const walk = async (dir: string, name: string, depth: number): Promise<void> => {
    if (depth > 8) return;
    const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const e of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
      const child = `${name}/${e.name}`;
      if (e.isDirectory()) await walk(path.join(dir, e.name), child, depth + 1);
      else if (e.isFile() && NAMED_OBJECT.test(child)) out.push({ name: child, file: path.join(dir, e.name) });
    }
  };
  await walk(path.join(root, 'named', prefix), prefix, 1);
  return out;
}

export async function restore(
  config: Config,
  fromDir: string,
  log: (line: string) => void = () => undefined,
): Promise<BackupManifest> {
  const manifestFile = path.join(fromDir, 'manifest.json');
  if (!existsSync(manifestFile)) throw new Error(`${fromDir} has no manifest.json: not a complete backup`);
  const manifest = JSON.parse(await fs.readFile(manifestFile, 'utf8')) as BackupManifest;
  if (manifest.format !== BACKUP_FORMAT || manifest.version !== BACKUP_VERSION)
    throw new Error(
      `${manifestFile} is not a backup this version can restore (format ${manifest.format}, version ${manifest.version})`,
    );
  const stateDir = path.join(config.dataDir, 'state');
  if (!(await isEmptyOrMissing(stateDir)))
    throw new Error(`${stateDir} already holds state; restore into an empty ARCHIVE_DATA_DIR`);
  if (!(await isEmptyOrMissing(config.contentRepo)))
    throw new Error(`${config.contentRepo} already exists; restore into an empty ARCHIVE_CONTENT_REPO`);

  // 1. Blobs, each verified against its name as it goes into the store.
  const store = createBlobStore(config);
  const files = await blobFiles(path.join(fromDir, 'blobs'));
  let done = 0;
  for (const { sha256, file } of files) {
    if (!(await store.stat(sha256))) {
      const staging = await store.stagingPath();
      await pipeline(createReadStream(file), createWriteStream(staging, { flags: 'wx' }));
      try {
        await store.adoptFile(staging, sha256);
      } catch (err) {
        await fs.rm(staging, { force: true });
        throw new Error(`blob ${sha256} in the backup is damaged: ${(err as Error).message}`);
      }
    }
    done++;
    if (done % 500 === 0) log(`blobs: ${done}/${files.length}`);
  }
  if (files.length !== manifest.blobs.count)
    throw new Error(`the backup lists ${manifest.blobs.count} blobs but holds ${files.length}`);
  log(`blobs: ${files.length} restored into the ${store.backend} store`);

  // 1b. The render cache's entries, each checked against its digest. Derived data: a damaged one
  // is left out (its score is engraved again by the first build), not a reason to stop.
  if (manifest.renderCache?.included) {
    const entries = await namedFiles(fromDir, RENDER_CACHE_PREFIX);
    if (entries.length !== manifest.renderCache.count)
      throw new Error(
        `the backup lists ${manifest.renderCache.count} render cache entries but holds ${entries.length}`,
      );
    let restored = 0;
    let damaged = 0;
    for (const { name, file } of entries) {
      const bytes = await fs.readFile(file);
      if (!isIntactEntry(name, bytes)) {
        damaged++;
        log(`render cache: ${name} in the backup fails its digest; left out (its score is engraved again)`);
        continue;
      }
      await store.putNamed(name, bytes);
      restored++;
      if (restored % 500 === 0) log(`render cache: ${restored}/${entries.length}`);
    }
    log(
      `render cache: ${restored} entries restored into the ${store.backend} store${damaged ? `, ${damaged} damaged left out` : ''}`,
    );
  } else log('render cache: not in this backup; the first build engraves every score');

  // 2. The content repository, every branch from the bundle, its branch checked out.
  const bundle = path.join(fromDir, manifest.content.bundle);
  await fs.mkdir(config.contentRepo, { recursive: true });
  await git(config.contentRepo, ['init', '--quiet', `--initial-branch=${manifest.content.branch}`]);
  await git(config.contentRepo, ['bundle', 'verify', '--quiet', bundle]);
  await git(config.contentRepo, [
    'fetch',
    '--quiet',
    '--update-head-ok',
    bundle,
    '+refs/heads/*:refs/heads/*',
    '+refs/tags/*:refs/tags/*',
  ]);
  await git(config.contentRepo, ['reset', '--quiet', '--hard', `refs/heads/${manifest.content.branch}`]);
  const head = await git(config.contentRepo, ['rev-parse', 'HEAD']);
  if (head !== manifest.content.head)
    throw new Error(`the restored ${manifest.content.branch} is at ${head}, the backup says ${manifest.content.head}`);
  log(`content: ${manifest.content.branch} at ${head.slice(0, 12)}`);

  // 3. The state last, moved into place in one rename.
  const staging = `${stateDir}.restoring-${process.pid}`;
  await fs.rm(staging, { recursive: true, force: true });
  await fs.mkdir(config.dataDir, { recursive: true });
  await fs.cp(path.join(fromDir, 'state'), staging, { recursive: true, errorOnExist: true });
  await fs.rm(stateDir, { recursive: true, force: true }); // empty (checked above)
  await fs.rename(staging, stateDir);
  log(`state: ${manifest.state.files} records`);
  return manifest;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const { values } = parseArgs({ options: { from: { type: 'string' } } });
  try {
    if (!values.from)
      throw new Error(
        'usage: npm run restore -- --from DIR   (into the empty ARCHIVE_DATA_DIR / ARCHIVE_CONTENT_REPO / blob store configured)',
      );
    const config = loadConfig(process.env, PROJECT_ROOT);
    const manifest = await restore(config, path.resolve(values.from), (line) => console.log(line));
    console.log(
      `restored the backup of ${manifest.finishedAtUtc} into ${config.dataDir}; npm start builds and serves it`,
    );
  } catch (err) {
    console.error(
      err instanceof ConfigError ? `configuration error: ${err.message}` : `restore failed: ${(err as Error).message}`,
    );
    process.exit(1);
  }
}
