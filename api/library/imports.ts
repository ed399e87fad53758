/**
 * Imports: create (idempotent), read with per-file offsets, resumable uploads into staging files,
 * and the commit that rehashes every file and makes the package exist.
 *
 * Commit is built so that a SIGKILL at any moment leaves the old state or the new one:
 *   1. one write marks the files about to be verified (`adopting`);
 *   2. each staging file is hashed and, if it matches, renamed into the content-addressed blob
 *      store (harmless if the process then dies: blobs are immutable and deduplicated);
 *   3. one write records what was verified or mismatched; mismatched staging bytes go only after;
 *   4. the stableKey is claimed (exclusive create) and the file index written;
 *   5. one atomic write flips the import to `committed`. Readers treat a package as existing only
 *      from this write on, so until then nothing is visible; after a crash the import is still
 *      `open` and a new commit finishes the job (step 2 is recognized by the blob being there).
 */
import { createHash, randomUUID } from 'node:crypto';
import { createWriteStream, promises as fs } from 'node:fs';
import { once } from 'node:events';
import path from 'node:path';
import { Readable, Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { MusicLibraryImportInput } from '../../src/schemas/library.ts';
import type { StoredFile, StoredImport, StoredTrack } from '../../src/domain/library/model.ts';
import { byteLengthOf, checkImportInput, importContentHash } from '../../src/domain/library/import-input.ts';
import { planCommit, planUpload } from '../../src/domain/library/states.ts';
import { DigestMismatchError, hashFile } from '../blobs/blob-store.ts';
import { RecordExistsError } from '../storage/record-store.ts';
import type { LibraryStore } from './store.ts';
import type { LibraryLocks } from './locks.ts';
import type { Failpoint } from './failpoints.ts';
import { ProblemError } from '../http/problem.ts';

/** Default largest file the library accepts (4 GiB); ARCHIVE_LIBRARY_MAX_FILE_BYTES overrides. */
export const DEFAULT_MAX_FILE_BYTES = 4 * 1024 ** 3;

/** An upload that sends nothing for this long is ended (its bytes so far are kept). */
export const UPLOAD_IDLE_MS = 120_000;

class TooManyBytes extends Error {}

const now = () => new Date().toISOString();
const sha256Hex = (s: string) => createHash('sha256').update(s).digest('hex');

/**
 * The import id of an idempotency key: a UUID (version 8, RFC 9562) from a hash of the key. The
 * id is a function of the key so that concurrent identical requests race on one exclusive create
 * and exactly one import record is ever written (a random id per request left one orphan record
 * per loser); a crash between the import and its key record is recovered the same way.
 */
export function importIdFor(idempotencyKey: string): string {
  const h = sha256Hex(`library-import:${idempotencyKey}`);
  const variant = ((parseInt(h[16]!, 16) & 0x3) | 0x8).toString(16);
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-8${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** The key was used for `importId` with other content: nothing is stored. */
function idempotencyConflict(importId: string): ProblemError {
  return new ProblemError(
    'idempotency-conflict',
    `This idempotencyKey was used for import ${importId} with different content. Retry with identical content, or send the changed import with a new idempotencyKey.`,
    { importId },
  );
}

export class LibraryImports {
  private readonly store: LibraryStore;
  private readonly locks: LibraryLocks;
  private readonly maxFileBytes: number;
  private readonly failpoint: Failpoint;

  constructor(store: LibraryStore, locks: LibraryLocks, maxFileBytes: number, failpoint: Failpoint) {
    this.store = store;
    this.locks = locks;
    this.maxFileBytes = maxFileBytes;
    this.failpoint = failpoint;
  }

  /** Bytes held per file of an import (from the staging files). */
  async received(rec: StoredImport): Promise<Map<string, number>> {
    const out = new Map<string, number>();
    if (rec.status === 'committed') return out;
    await Promise.all(rec.files.map(async (f) => out.set(f.id, await this.store.receivedBytes(rec.id, f.id))));
    return out;
  }

  async get(id: string): Promise<StoredImport | null> {
    return this.store.imports.get(id);
  }

  /** The track record, when it exists and its import is committed (otherwise it does not exist yet). */
  async committedTrack(stableKey: string): Promise<{ track: StoredTrack; rec: StoredImport } | null> {
    const track = await this.store.tracks.get(stableKey);
    if (!track) return null;
    const rec = await this.store.imports.get(track.importId);
    return rec && rec.status === 'committed' ? { track, rec } : null;
  }

  async create(input: MusicLibraryImportInput): Promise<StoredImport> {
    const errors = checkImportInput(input, { maxFileBytes: this.maxFileBytes });
    if (errors.length > 0) {
      throw new ProblemError(
        'invalid-body',
        `The request has ${errors.length} invalid field(s): ${errors.map((e) => `${e.pointer} ${e.detail}`).join('; ')}`,
        { errors },
      );
    }
    const contentHash = importContentHash(input);
    const idemId = sha256Hex(input.idempotencyKey);
    const replay = await this.replay(idemId, contentHash);
    if (replay) return replay;

    const existing = await this.committedTrack(input.track.stableKey);
    if (existing) {
      throw new ProblemError(
        'conflict',
        `The stableKey "${input.track.stableKey}" already belongs to a committed package (import ${existing.rec.id}); a package is imported once.`,
      );
    }
    const at = now();
    const rec: StoredImport = {
      id: importIdFor(input.idempotencyKey),
      idempotencyKey: input.idempotencyKey,
      contentHash,
      status: 'open',
      createdAtUtc: at,
      updatedAtUtc: at,
      committedAtUtc: null,
      failureReason: null,
      track: input.track,
      files: input.files.map((f): StoredFile => ({
        id: randomUUID(),
        kind: f.kind,
        fileName: f.fileName,
        originalRelativePath: f.originalRelativePath,
        contentType: f.contentType,
        byteLength: byteLengthOf(f.byteLength),
        sha256: f.sha256.toLowerCase(),
        downloadPolicy: f.downloadPolicy,
        metadata: f.metadata,
        verified: null,
        lastMismatch: null,
        adopting: false,
      })),
    };
    // The import first, then the key: a key always points at an import that exists. Both creates
    // are exclusive and the import id is a function of the key, so of many identical requests
    // racing exactly one writes the import; the others find it and answer it.
    try {
      await this.store.imports.create(rec.id, rec);
    } catch (err) {
      if (!(err instanceof RecordExistsError)) throw err;
      const winner = await this.store.imports.get(rec.id);
      if (!winner) throw err;
      if (winner.contentHash !== contentHash) throw idempotencyConflict(winner.id);
      await this.claimKey(idemId, input.idempotencyKey, winner.id, contentHash);
      return winner;
    }
    await this.claimKey(idemId, input.idempotencyKey, rec.id, contentHash);
    return rec;
  }

  /** Record that the key names this import; a record already there (the racing winner's) is the same. */
  private async claimKey(idemId: string, idempotencyKey: string, importId: string, contentHash: string): Promise<void> {
    try {
      await this.store.idempotency.create(idemId, { idempotencyKey, importId, contentHash });
    } catch (err) {
      if (!(err instanceof RecordExistsError)) throw err;
    }
  }

  private async replay(idemId: string, contentHash: string): Promise<StoredImport | null> {
    const seen = await this.store.idempotency.get(idemId);
    if (!seen) return null;
    if (seen.contentHash !== contentHash) throw idempotencyConflict(seen.importId);
    const rec = await this.store.imports.get(seen.importId);
    return rec ? rec : null;
  }

  /**
   * Append a request body to a file's staging bytes at `offset`. Streams to disk (never buffered
   * whole); a body that would pass the declared length is refused with 413 and leaves the file
   * as it was; a dropped connection keeps what arrived, so the client resumes from there.
   */
  async upload(
    importId: string,
    fileId: string,
    offset: number,
    contentLength: number | null,
    body: Readable | null,
  ): Promise<{ rec: StoredImport; file: StoredFile; receivedBytes: number }> {
    const known = await this.store.imports.get(importId);
    if (!known?.files.some((f) => f.id === fileId))
      throw new ProblemError(
        'not-found',
        known ? `Import ${importId} has no file ${fileId}.` : `No import has the id ${importId}.`,
      );
    const release = this.locks.tryUpload(importId, fileId);
    if (release === 'file-busy')
      throw new ProblemError(
        'conflict',
        'Another upload to this file is still in progress; wait for it to end, read the import for the offset, and resume from there.',
      );
    if (release === 'commit-busy')
      throw new ProblemError('conflict', 'A commit of this import is in progress; it accepts no bytes meanwhile.');
    try {
      // Read again under the lock: a commit may have finished since the first read.
      const rec = (await this.store.imports.get(importId))!;
      const file = rec.files.find((f) => f.id === fileId)!;
      const received = await this.store.receivedBytes(importId, fileId);
      const decision = planUpload({ importStatus: rec.status, file, receivedBytes: received, offset, contentLength });
      if (!decision.ok) {
        if (decision.problem === 'offset-mismatch') {
          throw new ProblemError('offset-mismatch', decision.detail, {
            expectedOffset: decision.expectedOffset,
            providedOffset: decision.providedOffset,
            headers: { 'Upload-Offset': String(decision.expectedOffset) },
          });
        }
        throw new ProblemError(
          decision.problem,
          decision.detail,
          decision.problem === 'payload-too-large' ? { receivedBytes: received, byteLength: file.byteLength } : {},
        );
      }
      if (file.lastMismatch) {
        // New bytes after a mismatch: the old finding no longer describes what is here.
        await this.store.imports.update(importId, (r) => ({
          ...r,
          updatedAtUtc: now(),
          files: r.files.map((f) => (f.id === fileId ? { ...f, lastMismatch: null } : f)),
        }));
      }
      const staging = this.store.stagingFile(importId, fileId);
      await fs.mkdir(path.dirname(staging), { recursive: true });
      let written = 0;
      const limit = decision.remaining;
      const source = body ?? Readable.from([]);
      // A client that stops sending without closing would hold this file's lock indefinitely:
      // end its request (the bytes so far stay) so it can resume.
      const idle = setTimeout(
        () => source.destroy(new Error(`no bytes for ${UPLOAD_IDLE_MS / 1000} s`)),
        UPLOAD_IDLE_MS,
      );
      const limiter = new Transform({
        transform(chunk: Buffer, _enc, done) {
          idle.refresh();
          written += chunk.length;
          if (written > limit) done(new TooManyBytes());
          else done(null, chunk);
        },
      });
      // flush: fsync before close, so the offset the answer reports survives a crash.
      const out = createWriteStream(staging, { flags: 'a', highWaterMark: 1024 * 1024, flush: true });
      // The body is piped by hand rather than through pipeline(): when it runs past the declared
      // length the request must stay intact (not destroyed), so the client gets its 413 answer.
      const abort = (err?: Error) => {
        if (!source.readableEnded) limiter.destroy(err ?? new Error('the request body ended early'));
      };
      source.on('error', abort);
      source.on('close', abort);
      if (source.destroyed) abort(); // the client left before we got here
      source.pipe(limiter);
      try {
        await pipeline(limiter, out);
      } catch (err) {
        if (!out.closed) await once(out, 'close').catch(() => undefined);
        if (err instanceof TooManyBytes) {
          await fs.truncate(staging, received);
          throw new ProblemError(
            'payload-too-large',
            `The file was declared as ${file.byteLength} bytes; ${received} were here and this request sends more than the ${limit} still missing. Nothing from this request was kept.`,
            {
              receivedBytes: received,
              byteLength: file.byteLength,
            },
          );
        }
        // The connection dropped (or the disk failed): what arrived stays, and the client resumes.
        throw err;
      } finally {
        clearTimeout(idle);
        source.unpipe(limiter);
        source.off('error', abort);
        source.off('close', abort);
      }
      const after = await this.store.receivedBytes(importId, fileId);
      const latest = (await this.store.imports.get(importId)) ?? rec;
      return { rec: latest, file: latest.files.find((f) => f.id === fileId) ?? file, receivedBytes: after };
    } finally {
      release();
    }
  }

  /** Rehash, verify and commit; see the file comment for the crash-safe order. */
  async commit(importId: string): Promise<StoredImport> {
    const first = await this.store.imports.get(importId);
    if (!first) throw new ProblemError('not-found', `No import has the id ${importId}.`);
    if (first.status === 'committed') return first;
    if (first.status === 'failed')
      throw new ProblemError(
        'conflict',
        `The import failed and can never be committed: ${first.failureReason ?? 'no reason recorded'}.`,
      );
    const release = this.locks.tryCommit(importId);
    if (release === 'uploads-busy')
      throw new ProblemError(
        'conflict',
        'Uploads to this import are still in progress; commit once they have finished.',
      );
    if (release === 'commit-busy')
      throw new ProblemError(
        'conflict',
        'A commit of this import is already in progress; read the import in a moment to see its outcome.',
      );
    try {
      return await this.commitLocked(importId);
    } finally {
      release();
    }
  }

  private async commitLocked(importId: string): Promise<StoredImport> {
    let rec = (await this.store.imports.get(importId))!;
    if (rec.status === 'committed') return rec;
    rec = await this.recoverAdopted(rec);

    const sized = await Promise.all(
      rec.files.map(async (file) => ({ file, receivedBytes: await this.store.receivedBytes(rec.id, file.id) })),
    );
    const plan = planCommit(sized);
    if (plan.incomplete.length > 0) {
      throw new ProblemError(
        'conflict',
        `${plan.incomplete.length} file(s) are not completely uploaded yet; upload the rest (from each file's receivedBytes) and commit again. Nothing was committed.`,
        {
          files: plan.incomplete.map(({ file, receivedBytes }) => ({
            id: file.id,
            fileName: file.fileName,
            originalRelativePath: file.originalRelativePath,
            byteLength: file.byteLength,
            receivedBytes,
          })),
        },
      );
    }

    if (plan.toVerify.length > 0) {
      const ids = new Set(plan.toVerify.map((f) => f.file.id));
      await this.store.imports.update(importId, (r) => ({
        ...r,
        files: r.files.map((f) => (ids.has(f.id) ? { ...f, adopting: true } : f)),
      }));
      this.failpoint('commit-after-mark');
      const verified = new Map<string, { byteLength: number; sha256: string }>();
      const mismatched = new Map<string, { actualByteLength: number; actualSha256: string }>();
      for (const { file, receivedBytes } of plan.toVerify) {
        const staging = this.store.stagingFile(importId, file.id);
        // A zero-length file may never have been PUT; its (empty) staging file is made here.
        if (file.byteLength === 0) {
          await fs.mkdir(path.dirname(staging), { recursive: true });
          await fs.writeFile(staging, Buffer.alloc(0), { flag: 'a' });
        }
        if (receivedBytes !== file.byteLength) {
          mismatched.set(file.id, { actualByteLength: receivedBytes, actualSha256: (await hashFile(staging)).sha256 });
          continue;
        }
        try {
          const info = await this.store.blobs.adoptFile(staging, file.sha256);
          verified.set(file.id, info);
          this.failpoint('commit-after-adopt');
        } catch (err) {
          if (!(err instanceof DigestMismatchError)) throw err;
          mismatched.set(file.id, { actualByteLength: receivedBytes, actualSha256: err.actual });
        }
      }
      const at = now();
      rec = (await this.store.imports.update(importId, (r) => ({
        ...r,
        updatedAtUtc: at,
        files: r.files.map((f) => {
          const v = verified.get(f.id);
          if (v)
            return {
              ...f,
              adopting: false,
              lastMismatch: null,
              verified: { byteLength: v.byteLength, sha256: v.sha256, atUtc: at },
            };
          const m = mismatched.get(f.id);
          if (m) return { ...f, adopting: false, lastMismatch: { ...m, atUtc: at } };
          return f;
        }),
      })))!;
      if (mismatched.size > 0) {
        // Only now that the finding is on record: discard the wrong bytes so the client re-sends.
        await Promise.all(
          [...mismatched.keys()].map((id) => fs.rm(this.store.stagingFile(importId, id), { force: true })),
        );
        const files = rec.files
          .filter((f) => mismatched.has(f.id))
          .map((f) => ({
            id: f.id,
            fileName: f.fileName,
            originalRelativePath: f.originalRelativePath,
            expectedByteLength: f.byteLength,
            actualByteLength: f.lastMismatch!.actualByteLength,
            expectedSha256: f.sha256,
            actualSha256: f.lastMismatch!.actualSha256,
          }));
        throw new ProblemError(
          'digest-mismatch',
          `${files.length} file(s) on the server do not match their declared length or SHA-256. Nothing was committed; upload those files again from offset 0 and commit again.`,
          { files },
        );
      }
    }

    await this.claim(rec);
    this.failpoint('commit-after-claim');
    await this.indexFiles(rec);
    this.failpoint('commit-before-flip');
    const at = now();
    const committed = await this.store.imports.update(importId, (r) =>
      r.status === 'open' ? { ...r, status: 'committed', committedAtUtc: at, updatedAtUtc: at } : undefined,
    );
    await this.store.removeStaging(importId).catch(() => undefined);
    return committed!;
  }

  /**
   * A file marked `adopting` whose staging bytes are gone was moved into the blob store by a
   * commit that died before recording it (the digest is checked before the move), so it counts
   * as verified when the blob with its declared digest and length is there.
   */
  private async recoverAdopted(rec: StoredImport): Promise<StoredImport> {
    const found = new Map<string, { byteLength: number; sha256: string }>();
    for (const f of rec.files) {
      if (!f.adopting || f.verified) continue;
      const staged = await fs.stat(this.store.stagingFile(rec.id, f.id)).catch(() => null);
      if (staged) continue;
      const blob = await this.store.blobs.stat(f.sha256);
      if (blob && blob.byteLength === f.byteLength) found.set(f.id, blob);
    }
    if (found.size === 0) return rec;
    const at = now();
    return (await this.store.imports.update(rec.id, (r) => ({
      ...r,
      updatedAtUtc: at,
      files: r.files.map((f) => {
        const b = found.get(f.id);
        return b ? { ...f, adopting: false, verified: { byteLength: b.byteLength, sha256: b.sha256, atUtc: at } } : f;
      }),
    })))!;
  }

  /** Claim the stableKey for this import (exactly one import ever holds it). */
  private async claim(rec: StoredImport): Promise<true> {
    const key = rec.track.stableKey;
    try {
      await this.store.tracks.create(key, {
        stableKey: key,
        importId: rec.id,
        claimedAtUtc: now(),
        visibility: 'private',
        publication: null,
        pendingPublication: null,
      });
      return true;
    } catch (err) {
      if (!(err instanceof RecordExistsError)) throw err;
    }
    const holder = await this.store.tracks.get(key);
    if (holder?.importId === rec.id) return true; // claimed by an earlier attempt of this commit
    const reason = `the stableKey "${key}" was committed by import ${holder?.importId ?? 'another import'} first`;
    await this.store.imports.update(rec.id, (r) =>
      r.status === 'open' ? { ...r, status: 'failed', failureReason: reason, updatedAtUtc: now() } : undefined,
    );
    await this.store.removeStaging(rec.id).catch(() => undefined);
    throw new ProblemError(
      'conflict',
      `This import can never be committed: ${reason}. Its files stay unpublished; import them under another stableKey.`,
    );
  }

  private async indexFiles(rec: StoredImport): Promise<void> {
    const queue = [...rec.files];
    const worker = async () => {
      for (let f = queue.shift(); f; f = queue.shift()) {
        await this.store.files.create(f.id, { fileId: f.id, importId: rec.id }).catch((err: unknown) => {
          if (!(err instanceof RecordExistsError)) throw err;
        });
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
  }
}
