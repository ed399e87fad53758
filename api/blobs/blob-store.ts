/**
 * Content-addressed files (DESIGN.md 2.9): `blobs/sha256/ab/cd/<hash>`. A blob is written to a
 * staging file, hashed while it streams, and moved into place only once its digest is known (and,
 * when one was declared, verified), so a path in the store always holds exactly the bytes its
 * name promises. Identical content is stored once.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream, promises as fs } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { fsyncDir } from '../storage/durable-json-file.ts';

const HEX64 = /^[0-9a-f]{64}$/;

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

export class BlobStore {
  readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  pathFor(sha256: string): string {
    return path.join(this.root, this.relativePathFor(sha256));
  }

  /** Where a blob lives under the store's root (also the tail of its nginx offload URI). */
  relativePathFor(sha256: string): string {
    const hash = sha256.toLowerCase();
    if (!HEX64.test(hash)) throw new Error(`not a sha256 digest: ${sha256}`);
    return path.join('sha256', hash.slice(0, 2), hash.slice(2, 4), hash);
  }

  async stat(sha256: string): Promise<BlobInfo | null> {
    try {
      const s = await fs.stat(this.pathFor(sha256));
      return { sha256: sha256.toLowerCase(), byteLength: s.size };
    } catch {
      return null;
    }
  }

  /** A fresh staging path inside the store (same file system, so the final move is a rename). */
  async stagingPath(): Promise<string> {
    const dir = path.join(this.root, 'staging');
    await fs.mkdir(dir, { recursive: true });
    return path.join(dir, `${Date.now()}-${randomBytes(8).toString('hex')}`);
  }

  /** Hash a file by streaming it (never read whole into memory). */
  static async hashFile(file: string): Promise<BlobInfo> {
    const hash = createHash('sha256');
    let byteLength = 0;
    for await (const chunk of createReadStream(file, { highWaterMark: 1024 * 1024 })) {
      hash.update(chunk as Buffer);
      byteLength += (chunk as Buffer).length;
    }
    return { sha256: hash.digest('hex'), byteLength };
  }

  /**
   * Move a complete staging file into the store after hashing it; `expected` guards the digest.
   * The staging file is consumed either way (moved, or removed when the content already exists).
   */
  async adoptFile(stagingFile: string, expected?: string): Promise<BlobInfo> {
    const info = await BlobStore.hashFile(stagingFile);
    if (expected && expected.toLowerCase() !== info.sha256) {
      throw new DigestMismatchError(expected.toLowerCase(), info.sha256);
    }
    const target = this.pathFor(info.sha256);
    await fs.mkdir(path.dirname(target), { recursive: true });
    const handle = await fs.open(stagingFile, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
    if (await this.stat(info.sha256)) {
      await fs.unlink(stagingFile);
    } else {
      await fs.rename(stagingFile, target);
      await fsyncDir(path.dirname(target));
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
    await fs.writeFile(staging, bytes, { flag: 'wx' });
    return this.adoptFile(staging, expected);
  }
}
