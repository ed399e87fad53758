/**
 * Where the private library keeps its state under ARCHIVE_DATA_DIR:
 *
 *   state/library/imports/<shard>/<importId>.json      the import (source of truth for files)
 *   state/library/tracks/<shard>/<stableKey>.json      stableKey -> import, visibility, publication
 *   state/library/files/<shard>/<fileId>.json          committed file -> import (downloads)
 *   state/library/idempotency/<shard>/<hash>.json      sha256(idempotencyKey) -> import
 *   blobs/staging/library/<importId>/<fileId>          bytes received so far (resumable)
 *   blobs/sha256/ab/cd/<sha256>                        committed bytes (local BlobStore; or in the S3 bucket)
 *
 * Staging lives under the blob store's local staging root (for the local backend inside its
 * folder, so the commit's move into the store is a rename on one file system; for S3 the commit
 * uploads it with a multipart upload). Staging names are server-made UUIDs: a client's fileName or
 * originalRelativePath never becomes a path.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { RecordStore } from '../storage/record-store.ts';
import type { BlobStore } from '../blobs/blob-store.ts';
import type { StoredFileIndex, StoredIdempotency, StoredImport, StoredTrack } from '../../src/domain/library/model.ts';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/**
 * A RecordStore with the most recently used records kept parsed in memory. An import of thousands
 * of files is a record of megabytes, read on every upload; parsing it each time would make an
 * import quadratic in its file count. This process is the only writer, so writes through here keep
 * the cache exact; a read that raced a write never caches what it read.
 */
export class CachedRecordStore<T extends object> {
  private readonly inner: RecordStore<T>;
  private readonly cache = new Map<string, T>();
  private readonly generation = new Map<string, number>();
  private readonly max: number;

  constructor(inner: RecordStore<T>, max = 64) {
    this.inner = inner;
    this.max = max;
  }

  private remember(id: string, value: T): void {
    this.cache.delete(id);
    this.cache.set(id, value);
    if (this.cache.size > this.max) this.cache.delete(this.cache.keys().next().value!);
  }

  private bump(id: string): void {
    this.generation.set(id, (this.generation.get(id) ?? 0) + 1);
  }

  async get(id: string): Promise<T | null> {
    const hit = this.cache.get(id);
    if (hit) {
      this.remember(id, hit);
      return hit;
    }
    const before = this.generation.get(id) ?? 0;
    const value = await this.inner.get(id);
    if (value && (this.generation.get(id) ?? 0) === before) this.remember(id, value);
    return value;
  }

  async create(id: string, value: T): Promise<void> {
    await this.inner.create(id, value);
    this.bump(id);
    this.remember(id, value);
  }

  async update(id: string, change: (current: T) => T | undefined | Promise<T | undefined>): Promise<T | null> {
    this.bump(id);
    try {
      const value = await this.inner.update(id, change);
      if (value) this.remember(id, value);
      else this.cache.delete(id);
      return value;
    } catch (err) {
      this.cache.delete(id);
      throw err;
    } finally {
      this.bump(id);
    }
  }

  all(): AsyncGenerator<T> {
    return this.inner.all();
  }
}

export class LibraryStore {
  readonly imports: CachedRecordStore<StoredImport>;
  readonly tracks: RecordStore<StoredTrack>;
  readonly files: RecordStore<StoredFileIndex>;
  readonly idempotency: RecordStore<StoredIdempotency>;
  readonly blobs: BlobStore;
  private readonly stagingRoot: string;

  constructor(dataDir: string, blobs: BlobStore) {
    const state = path.join(dataDir, 'state', 'library');
    this.imports = new CachedRecordStore(new RecordStore<StoredImport>(path.join(state, 'imports')));
    this.tracks = new RecordStore(path.join(state, 'tracks'));
    this.files = new RecordStore(path.join(state, 'files'));
    this.idempotency = new RecordStore(path.join(state, 'idempotency'));
    this.blobs = blobs;
    this.stagingRoot = path.join(blobs.stagingRoot, 'library');
  }

  /** The staging file of one declared file; ids are checked so nothing escapes the folder. */
  stagingFile(importId: string, fileId: string): string {
    if (!UUID.test(importId) || !UUID.test(fileId)) throw new Error('staging paths take server-made UUIDs only');
    return path.join(this.stagingRoot, importId, fileId);
  }

  /** Bytes held for a file so far (0 when nothing arrived). */
  async receivedBytes(importId: string, fileId: string): Promise<number> {
    try {
      return (await fs.stat(this.stagingFile(importId, fileId))).size;
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return 0;
      throw err;
    }
  }

  /** Remove an import's staging folder (after commit, or when it failed). */
  async removeStaging(importId: string): Promise<void> {
    if (!UUID.test(importId)) return;
    await fs.rm(path.join(this.stagingRoot, importId), { recursive: true, force: true });
  }
}
