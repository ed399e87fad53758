/**
 * `npm run backup -- --out DIR`: a backup of a running (or stopped) archive, consistent while it
 * serves. DIR (new or empty) receives:
 *
 *   state/            every state record (contributions, reports, reviews, library imports,
 *                     tracks, file index, idempotency keys), copied until a pass sees no change
 *   content.bundle    the content repository, every branch (git bundle)
 *   blobs/sha256/...  every blob of the configured store (local folder or S3), hash-checked
 *   named/render-cache/...  the render cache's entries (engraved scores; each checked against the
 *                     digest it carries), so a restored archive does not engrave every score
 *                     again; `--without-render-cache` leaves them out (they are derived: smaller
 *                     backup, every score engraved once more after a restore)
 *   manifest.json     written last: a backup without it is incomplete
 *
 * Consistency: the server writes each record atomically (temporary file + rename) and in an order
 * that survives a crash at any point (docs/library.md, docs/contributions.md), blobs before the
 * records that name them and content commits before the records that say they landed. So the
 * backup takes, in this order: (1) the state as of one moment -- copied, then re-checked until no
 * file changed (inode, size, times) between its copy and the check; (2) the content repository
 * after that moment; (3) the blobs after that (blobs are immutable and never deleted, so every
 * blob a record or commit names is there). A restore then looks like the service at moment (1)
 * plus later content commits and blobs it already knows how to treat (a pending publication whose
 * commit landed settles as public; unreferenced blobs are harmless).
 *
 * Under steady writes a pass may never come out clean; after PASSES_BEFORE_PAUSE passes the
 * backup asks the server for a brief write pause (api/storage/write-pause.ts, at most
 * ARCHIVE_BACKUP_WRITE_PAUSE_MS): new record writes wait, the next pass finds nothing changed,
 * the pause ends. Writes are delayed, never refused or lost.
 *
 * Reads ARCHIVE_DATA_DIR, ARCHIVE_CONTENT_REPO, ARCHIVE_BLOB_STORE and the ARCHIVE_S3_* settings.
 */
import { createHash } from 'node:crypto';
import { createWriteStream, promises as fs } from 'node:fs';
import path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig, type Config } from '../api/config.ts';
import { createBlobStore } from '../api/blobs/create.ts';
import { blobKey, HEX64, namedKey } from '../api/blobs/blob-store.ts';
import { isIntactEntry, RENDER_CACHE_PREFIX } from '../src/lib/site/render-cache.ts';
import { git } from '../api/site/content-repo.ts';
import { PROJECT_ROOT } from '../build/command.ts';
import { pauseWrites } from '../api/storage/write-pause.ts';

export const BACKUP_FORMAT = 'public-domain-music-archive-backup';
export const BACKUP_VERSION = 1;

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  version: number;
  startedAtUtc: string;
  finishedAtUtc: string;
  content: { bundle: string; branch: string; head: string; refs: number };
  state: { files: number; bytes: number; rounds: number; pausedMs?: number };
  blobs: { backend: 'local' | 's3'; count: number; bytes: number };
  /**
   * The render cache's entries under `named/` (absent in backups made before they were kept, and
   * `included: false` with `--without-render-cache`); `damaged`: entries that failed their digest
   * in the store and were left out (those scores are engraved again after a restore).
   */
  renderCache?: { included: boolean; count: number; bytes: number; damaged: number };
}

export interface BackupOptions {
  /** Leave the render cache out (default: include it). */
  withoutRenderCache?: boolean;
}

/** State files the server is writing right now are `.<name>.<pid>.<random>.tmp`; never copied. */
const isTemp = (name: string) => name.startsWith('.') && name.endsWith('.tmp');
const MAX_ROUNDS = 20;
/** Passes without a pause before asking for one: a quiet archive is never paused. */
const PASSES_BEFORE_PAUSE = 3;

interface Signature {
  ino: number;
  size: number;
  mtimeMs: number;
  ctimeMs: number;
}
const sameSig = (a: Signature | undefined, b: Signature | undefined) =>
  !!a && !!b && a.ino === b.ino && a.size === b.size && a.mtimeMs === b.mtimeMs && a.ctimeMs === b.ctimeMs;

async function walkFiles(root: string, rel = '', depth = 0): Promise<string[]> {
  if (depth > 16) throw new Error(`${path.join(root, rel)} nests deeper than the state layout ever does`);
  const entries = await fs
    .readdir(path.join(root, rel), { withFileTypes: true })
    .catch((err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') return [];
      throw err;
    });
  const out: string[] = [];
  for (const e of entries) {
    const r = rel ? path.join(rel, e.name) : e.name;
    if (e.isDirectory()) out.push(...(await walkFiles(root, r, depth + 1)));
    else if (e.isFile() && !isTemp(e.name)) out.push(r);
  }
  return out;
}

/** Copy one file through one open descriptor; answers the signature of what was copied (null: it vanished). */
async function copyOne(src: string, dst: string): Promise<Signature | null> {
  let handle;
  try {
    handle = await fs.open(src, 'r');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  try {
    const s = await handle.stat();
    const bytes = await handle.readFile();
    await fs.mkdir(path.dirname(dst), { recursive: true });
    await fs.writeFile(dst, bytes);
    return { ino: s.ino, size: s.size, mtimeMs: s.mtimeMs, ctimeMs: s.ctimeMs };
  } finally {
    await handle.close();
  }
}

/**
 * Copy `src` to `dst` as of one moment: copy, then compare every file's signature with what was
 * copied; recopy what changed and check again, until one check finds nothing changed.
 */
export async function snapshotTree(
  src: string,
  dst: string,
  log: (line: string) => void = () => undefined,
  options: { pauseMs?: number } = {},
): Promise<{ files: number; bytes: number; rounds: number; pausedMs: number }> {
  const copied = new Map<string, Signature>();
  const pause: { resume?: () => Promise<void> } = {};
  let pausedAt = 0;
  try {
    return await passes();
  } finally {
    await pause.resume?.();
  }
  async function passes(): Promise<{ files: number; bytes: number; rounds: number; pausedMs: number }> {
    for (let round = 1; round <= MAX_ROUNDS; round++) {
      if (round === PASSES_BEFORE_PAUSE + 1 && options.pauseMs && options.pauseMs > 0) {
        pausedAt = Date.now();
        pause.resume = await pauseWrites(src, pausedAt + options.pauseMs);
        log(
          `state: still changing after ${PASSES_BEFORE_PAUSE} passes; writes paused for at most ${options.pauseMs} ms`,
        );
      }
      const now = await walkFiles(src);
      const present = new Set(now);
      let changed = 0;
      for (const rel of copied.keys()) {
        if (!present.has(rel)) {
          copied.delete(rel);
          await fs.rm(path.join(dst, rel), { force: true });
          changed++;
        }
      }
      for (const rel of now) {
        const current = await fs.stat(path.join(src, rel)).catch(() => null);
        const sig = current && {
          ino: current.ino,
          size: current.size,
          mtimeMs: current.mtimeMs,
          ctimeMs: current.ctimeMs,
        };
        if (sig && sameSig(copied.get(rel), sig)) continue;
        changed++;
        const got = await copyOne(path.join(src, rel), path.join(dst, rel));
        if (got) copied.set(rel, got);
        else {
          copied.delete(rel);
          await fs.rm(path.join(dst, rel), { force: true });
        }
      }
      if (changed === 0) {
        let bytes = 0;
        for (const s of copied.values()) bytes += s.size;
        return { files: copied.size, bytes, rounds: round, pausedMs: pausedAt ? Date.now() - pausedAt : 0 };
      }
      log(`state: ${changed} file(s) copied or changed in pass ${round}; checking again`);
    }
    throw new Error(
      `the state kept changing for ${MAX_ROUNDS} passes; run the backup again when the server is less busy`,
    );
  }
}

/** Every blob digest the snapshotted state names (library files, verified contributor files). */
async function referencedBlobs(stateDir: string): Promise<Set<string>> {
  const out = new Set<string>();
  for (const rel of await walkFiles(stateDir)) {
    if (!rel.endsWith('.json')) continue;
    const top = rel.split(path.sep)[0];
    if (top !== 'library' && top !== 'reviews') continue;
    const text = await fs.readFile(path.join(stateDir, rel), 'utf8');
    const record = JSON.parse(text) as {
      files?: Array<{ verified?: { sha256?: string } | null }>;
      verification?: Array<{ status?: string; sha256?: string | null }>;
    };
    for (const f of record.files ?? []) if (f.verified?.sha256) out.add(f.verified.sha256);
    for (const v of record.verification ?? []) if (v.status === 'verified' && v.sha256) out.add(v.sha256);
  }
  return out;
}

export async function backup(
  config: Config,
  outDir: string,
  log: (line: string) => void = () => undefined,
  options: BackupOptions = {},
): Promise<BackupManifest> {
  const startedAtUtc = new Date().toISOString();
  const existing = await fs.readdir(outDir).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [];
    throw err;
  });
  if (existing.length > 0) throw new Error(`${outDir} is not empty; back up into a new folder`);
  await fs.mkdir(outDir, { recursive: true });

  // 1. State as of one moment.
  const state = await snapshotTree(path.join(config.dataDir, 'state'), path.join(outDir, 'state'), log, {
    pauseMs: config.backupWritePauseMs,
  });
  // An archive that has served nothing yet has no state folder; the backup still has one (empty).
  await fs.mkdir(path.join(outDir, 'state'), { recursive: true });
  log(
    `state: ${state.files} records (${state.bytes} bytes) in ${state.rounds} pass(es)${state.pausedMs ? `, writes paused ${state.pausedMs} ms` : ''}`,
  );

  // 2. The content repository, every branch, after that moment.
  const branch = await git(config.contentRepo, ['symbolic-ref', '--short', 'HEAD']);
  await git(config.contentRepo, ['bundle', 'create', '--quiet', path.join(outDir, 'content.bundle'), '--all']);
  const heads = (await git(config.contentRepo, ['bundle', 'list-heads', path.join(outDir, 'content.bundle')]))
    .split('\n')
    .filter((l) => l.trim());
  const head = heads.find((l) => l.endsWith(` refs/heads/${branch}`))?.split(' ')[0];
  if (!head) throw new Error(`the bundle has no branch ${branch}`);
  log(`content: ${heads.length} refs, ${branch} at ${head.slice(0, 12)}`);

  // 3. Blobs after that, each hash-checked on the way.
  const blobs = createBlobStore(config);
  let count = 0;
  let bytes = 0;
  const have = new Set<string>();
  for await (const info of blobs.list()) {
    const target = path.join(outDir, 'blobs', ...blobKey(info.sha256).split('/'));
    await fs.mkdir(path.dirname(target), { recursive: true });
    const hash = createHash('sha256');
    const hasher = new Transform({
      transform(chunk: Buffer, _enc, done) {
        hash.update(chunk);
        done(null, chunk);
      },
    });
    await pipeline(await blobs.read(info.sha256), hasher, createWriteStream(target, { flags: 'wx' }));
    const actual = hash.digest('hex');
    if (actual !== info.sha256)
      throw new Error(
        `the blob ${info.sha256} in the store holds bytes whose sha256 is ${actual}; the store is damaged`,
      );
    have.add(info.sha256);
    count++;
    bytes += info.byteLength;
    if (count % 500 === 0) log(`blobs: ${count} copied (${bytes} bytes)`);
  }
  log(`blobs: ${count} (${bytes} bytes) from the ${blobs.backend} store`);
  const missing = [...(await referencedBlobs(path.join(outDir, 'state')))].filter((h) => HEX64.test(h) && !have.has(h));
  if (missing.length > 0)
    throw new Error(
      `${missing.length} blob(s) named by the state are not in the store (e.g. ${missing[0]}); the store is missing data`,
    );

  // 4. The render cache's entries: derived, so a damaged one is left out (that score is engraved
  // again after a restore) rather than failing the backup.
  const renderCache = { included: !options.withoutRenderCache, count: 0, bytes: 0, damaged: 0 };
  if (renderCache.included) {
    for await (const { name } of blobs.listNamed(RENDER_CACHE_PREFIX)) {
      const entry = await blobs.getNamed(name);
      if (entry === null) continue; // replaced or removed since it was listed
      if (!isIntactEntry(name, entry)) {
        renderCache.damaged++;
        log(`render cache: ${name} fails its digest; left out (its score is engraved again after a restore)`);
        continue;
      }
      const target = path.join(outDir, ...namedKey(name).split('/'));
      await fs.mkdir(path.dirname(target), { recursive: true });
      await fs.writeFile(target, entry, { flag: 'wx' });
      renderCache.count++;
      renderCache.bytes += entry.length;
      if (renderCache.count % 500 === 0) log(`render cache: ${renderCache.count} entries copied`);
    }
    log(
      `render cache: ${renderCache.count} entries (${renderCache.bytes} bytes)${renderCache.damaged ? `, ${renderCache.damaged} damaged left out` : ''}`,
    );
  } else log('render cache: left out (--without-render-cache); a restore engraves every score again');

  const manifest: BackupManifest = {
    format: BACKUP_FORMAT,
    version: BACKUP_VERSION,
    startedAtUtc,
    finishedAtUtc: new Date().toISOString(),
    content: { bundle: 'content.bundle', branch, head, refs: heads.length },
    state,
    blobs: { backend: blobs.backend, count, bytes },
    renderCache,
  };
  const temp = path.join(outDir, '.manifest.json.tmp');
  await fs.writeFile(temp, `${JSON.stringify(manifest, null, 2)}\n`);
  await fs.rename(temp, path.join(outDir, 'manifest.json'));
  return manifest;
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  const { values } = parseArgs({
    options: { out: { type: 'string' }, 'without-render-cache': { type: 'boolean', default: false } },
  });
  try {
    if (!values.out)
      throw new Error('usage: npm run backup -- --out DIR [--without-render-cache]   (DIR new or empty)');
    const config = loadConfig(process.env, PROJECT_ROOT);
    const out = path.resolve(values.out);
    const manifest = await backup(config, out, (line) => console.log(line), {
      withoutRenderCache: values['without-render-cache'],
    });
    console.log(
      `backed up ${manifest.state.files} records, ${manifest.content.refs} content refs, ${manifest.blobs.count} blobs and ${manifest.renderCache?.count ?? 0} render cache entries into ${out}`,
    );
  } catch (err) {
    console.error(
      err instanceof ConfigError ? `configuration error: ${err.message}` : `backup failed: ${(err as Error).message}`,
    );
    process.exit(1);
  }
}
