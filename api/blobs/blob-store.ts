/**
 * Content-addressed files (docs/decisions/0014-blob-store.md and
 * docs/decisions/0026-blobs-behind-an-interface.md), behind one interface with two backends:
 *
 *   - LocalBlobStore (default): `ARCHIVE_DATA_DIR/blobs/sha256/ab/cd/<hash>` on the local disk;
 *   - S3BlobStore (api/blobs/s3-blob-store.ts): the same keys in an S3-compatible bucket.
 *
 * A blob is written to a local staging file, hashed while it streams, and stored under its name
 * only once its digest is known (and, when one was declared, verified), so a key in the store
 * always holds exactly the bytes its name promises. Identical content is stored once. Staging is
 * always on the local disk (library uploads append there and resume from its length); only
 * committed bytes go to the backend.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, promises as fs } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fsyncDir } from '../storage/durable-json-file.ts';

export const HEX64 = /^[0-9a-f]{64}$/;

export class DigestMismatchError extends Error {
  readonly expected: string;
  readonly actual: string;
  constructor(expected: string, actual: string) {
    super(`expected sha256 ${expected}, got ${actual}`);
    this.expected = expected;
    this.actual = actual;
  }
}

export interface BlobInfo {
  sha256: string;
  byteLength: number;
}

/** An inclusive byte range, as a Range header names it. */
export interface ByteRange {
  start: number;
  end: number;
}

/** What a presigned download answer should carry (S3 sets these headers on its answer). */
export interface DownloadHeaders {
  contentType: string;
  cacheControl: string;
  downloadName?: string;
}

/** The blob store every feature uses (library uploads and commits, downloads, review, backup). */
export interface BlobStore {
  readonly backend: 'local' | 's3';
  /** Local folder for staging files (in-progress uploads and fetches); same disk as a local store. */
  readonly stagingRoot: string;
  /** Length of a stored blob, or null when it is not stored. */
  stat(sha256: string): Promise<BlobInfo | null>;
  /** A fresh staging path (the caller writes it, then adopts or removes it). */
  stagingPath(): Promise<string>;
  /**
   * Store a complete staging file after hashing it; `expected` guards the digest. The staging
   * file is consumed either way (stored, or removed when the content already exists); on a
   * digest mismatch it is left for the caller.
   */
  adoptFile(stagingFile: string, expected?: string): Promise<BlobInfo>;
  putStream(source: Readable, expected?: string): Promise<BlobInfo>;
  putBytes(bytes: Buffer, expected?: string): Promise<BlobInfo>;
  /** The bytes of a stored blob (all, or one inclusive range), streamed. */
  read(sha256: string, range?: ByteRange): Promise<Readable>;
  readBytes(sha256: string): Promise<Buffer>;
  /** Run `use` with the blob as a local file (a temporary copy when the backend is remote). */
  withLocalFile<T>(sha256: string, use: (file: string) => Promise<T>): Promise<T>;
  /** A time-limited URL the client may fetch the blob from directly, or null to stream it here. */
  presignedUrl(sha256: string, headers: DownloadHeaders): Promise<string | null>;
  /** Every stored blob (backup). */
  list(): AsyncGenerator<BlobInfo>;
  /** Where a blob lives under a local store's root (a fronting nginx can send it); null when remote. */
  offloadPath(sha256: string): string | null;
  /** Readiness: resolves with a short description when the store is reachable and writable, else rejects saying why. */
  check(): Promise<string>;
  /**
   * Named objects beside the blobs, for caches of derived artifacts whose key is the digest of
   * their inputs rather than of their bytes (the render cache): `named/<name>` in the folder or
   * bucket. The caller verifies what it reads (its bytes carry their own digest). Null when absent.
   */
  getNamed(name: string): Promise<Buffer | null>;
  /** Write a named object whole (readers see the old bytes or the new, never a part). */
  putNamed(name: string, bytes: Buffer): Promise<void>;
  /** Every named object under `prefix` (a name's leading segments, e.g. `render-cache`), sorted by name (backup). */
  listNamed(prefix: string): AsyncGenerator<NamedInfo>;
  /**
   * A named object's fingerprint without reading it: a string that changes whenever the object is
   * written again or changed in place (local: device, inode, size, modification time; S3: ETag and
   * length). Null when absent. The render view (src/lib/site/render-view.ts) keys its unpacked
   * copies by it.
   */
  namedFingerprint(name: string): Promise<string | null>;
}

export interface NamedInfo {
  name: string;
  byteLength: number;
}

/** Names of named objects: lowercase path segments (`render-cache/v2/ab/<key>`), no dot segments. */
export const NAMED_OBJECT = /^[a-z0-9][a-z0-9_-]*(\/[a-z0-9][a-z0-9._-]*){0,7}$/;

export function namedKey(name: string): string {
  if (!NAMED_OBJECT.test(name) || name.split('/').some((s) => s === '.' || s === '..'))
    throw new Error(`not a named object's name: ${name}`);
  return `named/${name}`;
}

/** Hash a file by streaming it (never read whole into memory). */
export async function hashFile(file: string): Promise<BlobInfo> {
  const hash = createHash('sha256');
  let byteLength = 0;
  for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 })) {
    hash.update(chunk as Buffer);
    byteLength += (chunk as Buffer).length;
  }
  return { sha256: hash.digest('hex'), byteLength };
}

/** The relative key of a blob: `sha256/ab/cd/<hash>` (the same on disk and in a bucket). */
export function blobKey(sha256: string): string {
  const hash = sha256.toLowerCase();
  if (!HEX64.test(hash)) throw new Error(`not a sha256 digest: ${sha256}`);
  return `sha256/${hash.slice(0, 2)}/${hash.slice(2, 4)}/${hash}`;
}

/** Staging, streaming puts and hashing shared by both backends; `store` moves verified bytes in. */
export abstract class StagedBlobStore implements BlobStore {
  abstract readonly backend: 'local' | 's3';
  readonly stagingRoot: string;

  constructor(stagingRoot: string) {
    this.stagingRoot = stagingRoot;
  }

  abstract stat(sha256: string): Promise<BlobInfo | null>;
  abstract read(sha256: string, range?: ByteRange): Promise<Readable>;
  abstract withLocalFile<T>(sha256: string, use: (file: string) => Promise<T>): Promise<T>;
  abstract presignedUrl(sha256: string, headers: DownloadHeaders): Promise<string | null>;
  abstract list(): AsyncGenerator<BlobInfo>;
  abstract offloadPath(sha256: string): string | null;
  abstract check(): Promise<string>;
  abstract getNamed(name: string): Promise<Buffer | null>;
  abstract putNamed(name: string, bytes: Buffer): Promise<void>;
  abstract listNamed(prefix: string): AsyncGenerator<NamedInfo>;
  abstract namedFingerprint(name: string): Promise<string | null>;
  /** Put a verified staging file under its digest (the blob is known not to exist yet). */
  protected abstract store(stagingFile: string, info: BlobInfo): Promise<void>;

  /** Hash a file by streaming it (kept as a static for callers of the former class). */
  static hashFile(file: string): Promise<BlobInfo> {
    return hashFile(file);
  }

  async stagingPath(): Promise<string> {
    await fs.mkdir(this.stagingRoot, { recursive: true });
    return path.join(this.stagingRoot, `${Date.now()}-${randomBytes(8).toString('hex')}`);
  }

  async adoptFile(stagingFile: string, expected?: string): Promise<BlobInfo> {
    const info = await hashFile(stagingFile);
    if (expected && expected.toLowerCase() !== info.sha256) {
      throw new DigestMismatchError(expected.toLowerCase(), info.sha256);
    }
    if (await this.stat(info.sha256)) {
      await fs.unlink(stagingFile);
    } else {
      await this.store(stagingFile, info);
    }
    return info;
  }

  /** Store a stream; used when bytes arrive whole (tests, small files). */
  async putStream(source: Readable, expected?: string): Promise<BlobInfo> {
    const staging = await this.stagingPath();
    try {
      await pipeline(source, createWriteStream(staging, { flags: 'wx' }));
      return await this.adoptFile(staging, expected);
    } catch (err) {
      await fs.unlink(staging).catch(() => undefined);
      throw err;
    }
  }

  async putBytes(bytes: Buffer, expected?: string): Promise<BlobInfo> {
    const staging = await this.stagingPath();
    try {
      await fs.writeFile(staging, bytes, { flag: 'wx' });
      return await this.adoptFile(staging, expected);
    } catch (err) {
      await fs.unlink(staging).catch(() => undefined);
      throw err;
    }
  }

  async readBytes(sha256: string): Promise<Buffer> {
    const chunks: Buffer[] = [];
    for await (const chunk of await this.read(sha256)) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }
}

/** The default backend: a folder on the local disk (`ARCHIVE_DATA_DIR/blobs`). */
export class LocalBlobStore extends StagedBlobStore {
  readonly backend = 'local' as const;
  readonly root: string;

  constructor(root: string) {
    // Staging inside the root: the final move into the store is a rename on one file system.
    super(path.join(root, 'staging'));
    this.root = root;
  }

  pathFor(sha256: string): string {
    return path.join(this.root, this.relativePathFor(sha256));
  }

  /** Where a blob lives under the store's root (also the tail of its nginx offload URI). */
  relativePathFor(sha256: string): string {
    return path.join(...blobKey(sha256).split('/'));
  }

  offloadPath(sha256: string): string {
    return this.relativePathFor(sha256);
  }

  async stat(sha256: string): Promise<BlobInfo | null> {
    const file = this.pathFor(sha256);
    try {
      const s = await fs.stat(file);
      return { sha256: sha256.toLowerCase(), byteLength: s.size };
    } catch {
      return null;
    }
  }

  protected async store(stagingFile: string, info: BlobInfo): Promise<void> {
    const target = this.pathFor(info.sha256);
    await fs.mkdir(path.dirname(target), { recursive: true });
    const handle = await fs.open(stagingFile, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    await fs.rename(stagingFile, target);
    await fsyncDir(path.dirname(target));
  }

  async read(sha256: string, range?: ByteRange): Promise<Readable> {
    const file = this.pathFor(sha256);
    await fs.access(file);
    return createReadStream(file, {
      highWaterMark: 1024 * 1024,
      ...(range ? { start: range.start, end: range.end } : {}),
    });
  }

  async withLocalFile<T>(sha256: string, use: (file: string) => Promise<T>): Promise<T> {
    return use(this.pathFor(sha256));
  }

  async presignedUrl(): Promise<string | null> {
    return null;
  }

  async getNamed(name: string): Promise<Buffer | null> {
    try {
      return await fs.readFile(path.join(this.root, ...namedKey(name).split('/')));
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async putNamed(name: string, bytes: Buffer): Promise<void> {
    const target = path.join(this.root, ...namedKey(name).split('/'));
    await fs.mkdir(path.dirname(target), { recursive: true });
    // A temporary name in the same folder, then one rename: a reader never sees a partial object.
    const temp = `${target}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
    try {
      await fs.writeFile(temp, bytes, { flag: 'wx' });
      await fs.rename(temp, target);
    } catch (err) {
      await fs.unlink(temp).catch(() => undefined);
      throw err;
    }
  }

  async namedFingerprint(name: string): Promise<string | null> {
    try {
      const s = await fs.stat(path.join(this.root, ...namedKey(name).split('/')), { bigint: true });
      return s.isFile() ? `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}` : null;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw err;
    }
  }

  async *listNamed(prefix: string): AsyncGenerator<NamedInfo> {
    const top = path.join(this.root, ...namedKey(prefix).split('/'));
    // Names have at most eight segments (NAMED_OBJECT), so the walk is bounded by that depth.
    const walk = async function* (dir: string, rel: string, depth: number): AsyncGenerator<NamedInfo> {
      if (depth > 8) return;
      const entries = (await fs.readdir(dir, { withFileTypes: true }).catch(() => [])).sort((a, b) =>
        a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
      );
      for (const e of entries) {
        const name = `${rel}/${e.name}`;
        if (e.isDirectory()) yield* walk(path.join(dir, e.name), name, depth + 1);
        // A write in progress (`<name>.<pid>-<random>.tmp`) is not an object.
        else if (e.isFile() && !e.name.endsWith('.tmp') && NAMED_OBJECT.test(name)) {
          const s = await fs.stat(path.join(dir, e.name)).catch(() => null);
          if (s?.isFile()) yield { name, byteLength: s.size };
        }
      }
    };
    yield* walk(top, prefix, prefix.split('/').length);
  }

  async check(): Promise<string> {
    // The folder may not exist before the first blob; its parent must then be writable.
    for (const dir of [this.root, path.dirname(this.root)]) {
      try {
        await fs.access(dir, fs.constants.W_OK);
        return `blob folder ${this.root} writable`;
      } catch (err) {
        if ((err as NodeJS.ErrnoException).code !== 'ENOENT')
          throw new Error(`the blob folder ${dir} is not writable (${(err as NodeJS.ErrnoException).code})`);
      }
    }
    throw new Error(`neither the blob folder ${this.root} nor its parent exists`);
  }

  async *list(): AsyncGenerator<BlobInfo> {
    const top = path.join(this.root, 'sha256');
    const names = async (dir: string) => (await fs.readdir(dir).catch(() => [] as string[])).sort();
    for (const a of await names(top)) {
      if (!/^[0-9a-f]{2}$/.test(a)) continue;
      for (const b of await names(path.join(top, a))) {
        if (!/^[0-9a-f]{2}$/.test(b)) continue;
        for (const hash of await names(path.join(top, a, b))) {
          if (!HEX64.test(hash)) continue;
          const s = await fs.stat(path.join(top, a, b, hash)).catch(() => null);
          if (s?.isFile()) yield { sha256: hash, byteLength: s.size };
        }
      }
    }
  }
}
