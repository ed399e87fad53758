/**
 * What the library stores (one record per import, per track, per committed file and per
 * idempotency key; see api/library/store.ts). The import record is the source of truth for a
 * package's files: a track exists for readers only once its import is `committed`, which is a
 * single atomic write, so a crash never leaves a half-committed package.
 */
import type { FileStatus, ImportStatus, MusicLibraryTrackInput } from '../../schemas/library.ts';
import type { LibraryDownloadPolicy, LibraryVisibility } from './vocabulary.ts';

export interface StoredVerification {
  byteLength: number;
  sha256: string;
  atUtc: string;
}

export interface StoredMismatch {
  actualByteLength: number;
  actualSha256: string;
  atUtc: string;
}

export interface StoredFile {
  id: string;
  kind: string;
  fileName: string;
  originalRelativePath: string;
  contentType: string;
  /** Declared length, normalized from an integer or a digit string. */
  byteLength: number;
  /** Declared digest, lower case. */
  sha256: string;
  downloadPolicy: LibraryDownloadPolicy;
  metadata: unknown;
  /** Set when a commit rehashed the bytes, found them equal and moved them into the blob store. */
  verified: StoredVerification | null;
  /** Set when a commit found other bytes; the staging bytes were discarded. */
  lastMismatch: StoredMismatch | null;
  /**
   * A commit started moving this file into the blob store. If the process dies after the move
   * and before `verified` is written, the staging file is gone but the blob is there, and the
   * digest was checked before the move: the file counts as verified (see commit.ts).
   */
  adopting: boolean;
}

export interface StoredImport {
  id: string;
  idempotencyKey: string;
  /** Canonical hash of the request content (idempotency.ts). */
  contentHash: string;
  status: ImportStatus;
  createdAtUtc: string;
  updatedAtUtc: string;
  committedAtUtc: string | null;
  failureReason: string | null;
  track: MusicLibraryTrackInput;
  files: StoredFile[];
}

export interface StoredPublication {
  publishedAtUtc: string;
  /** Label of the curator key. */
  publishedBy: string;
  workSlug: string;
  arrangementId: number;
  assetIds: number[];
  commit: string;
}

export interface StoredTrack {
  stableKey: string;
  /** The import that claimed this stableKey; the package exists once that import is committed. */
  importId: string;
  claimedAtUtc: string;
  visibility: LibraryVisibility;
  publication: StoredPublication | null;
  /**
   * A publication whose commit was made but not yet confirmed public. If the process died, the
   * next read or publish checks whether the commit reached the content repository's branch.
   */
  pendingPublication: StoredPublication | null;
}

/** Maps a committed file id to its import, for downloads. */
export interface StoredFileIndex {
  fileId: string;
  importId: string;
}

export interface StoredIdempotency {
  idempotencyKey: string;
  importId: string;
  contentHash: string;
}

export type { FileStatus, ImportStatus };
