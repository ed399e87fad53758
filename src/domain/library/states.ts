/**
 * The import and file state machines (docs/library.md, "States and transitions"; the spec leaves them "not shown"):
 *
 *   import: open -> committed | failed            (committed and failed are final)
 *   file:   pending -> partial -> uploaded -> verified | mismatch;  mismatch -> partial | uploaded
 *
 * A file's received bytes live in its staging file, so status is derived from that length plus
 * what the last commit recorded, never stored separately (it cannot drift from the bytes).
 */
import type { FileStatus, ImportStatus } from '../../schemas/library.ts';
import type { StoredFile } from './model.ts';

export const IMPORT_TRANSITIONS: Record<ImportStatus, readonly ImportStatus[]> = {
  open: ['committed', 'failed'],
  committed: [],
  failed: [],
};

export const FILE_TRANSITIONS: Record<FileStatus, readonly FileStatus[]> = {
  pending: ['partial', 'uploaded'],
  partial: ['partial', 'uploaded'],
  uploaded: ['verified', 'mismatch'],
  verified: [],
  mismatch: ['partial', 'uploaded'],
};

export function canMoveImport(from: ImportStatus, to: ImportStatus): boolean {
  return IMPORT_TRANSITIONS[from].includes(to);
}

/** A file's status from what the server holds for it. */
export function fileStatus(
  file: Pick<StoredFile, 'byteLength' | 'verified' | 'lastMismatch'>,
  receivedBytes: number,
): FileStatus {
  if (file.verified) return 'verified';
  if (file.lastMismatch && receivedBytes === 0) return 'mismatch';
  if (receivedBytes >= file.byteLength) return 'uploaded';
  return receivedBytes > 0 ? 'partial' : 'pending';
}

export type UploadDecision =
  | { ok: true; remaining: number }
  | { ok: false; problem: 'conflict'; detail: string }
  | { ok: false; problem: 'offset-mismatch'; detail: string; expectedOffset: number; providedOffset: number }
  | { ok: false; problem: 'payload-too-large'; detail: string };

/**
 * May these bytes be appended? The offset must equal what the server holds (as the IETF
 * resumable-upload draft's mismatching-upload-offset), and the file may not grow past its
 * declared length.
 */
export function planUpload(input: {
  importStatus: ImportStatus;
  file: Pick<StoredFile, 'byteLength' | 'verified'>;
  receivedBytes: number;
  offset: number;
  /** Content-Length of the request, when the client sent one. */
  contentLength: number | null;
}): UploadDecision {
  const { importStatus, file, receivedBytes, offset, contentLength } = input;
  if (importStatus !== 'open') {
    return { ok: false, problem: 'conflict', detail: `The import is ${importStatus}; it accepts no more bytes.` };
  }
  if (file.verified) {
    return {
      ok: false,
      problem: 'conflict',
      detail: 'This file was already verified by a commit attempt; it accepts no more bytes.',
    };
  }
  if (offset !== receivedBytes) {
    return {
      ok: false,
      problem: 'offset-mismatch',
      detail: `The server holds ${receivedBytes} bytes of this file, so the upload must continue at offset ${receivedBytes} (got ${offset}).`,
      expectedOffset: receivedBytes,
      providedOffset: offset,
    };
  }
  const remaining = file.byteLength - receivedBytes;
  if (contentLength !== null && contentLength > remaining) {
    return {
      ok: false,
      problem: 'payload-too-large',
      detail: `The file was declared as ${file.byteLength} bytes; ${receivedBytes} are here, so at most ${remaining} more are accepted (the request has ${contentLength}).`,
    };
  }
  return { ok: true, remaining };
}

export interface CommitPlan<F> {
  /** Files whose bytes are not all here yet: commit must wait. */
  incomplete: F[];
  /** Complete files to rehash now. */
  toVerify: F[];
  /** Files an earlier attempt already verified and stored. */
  alreadyVerified: F[];
}

/** Sort the files of a commit attempt. */
export function planCommit<F extends { file: Pick<StoredFile, 'byteLength' | 'verified'>; receivedBytes: number }>(
  files: F[],
): CommitPlan<F> {
  const plan: CommitPlan<F> = { incomplete: [], toVerify: [], alreadyVerified: [] };
  for (const f of files) {
    if (f.file.verified) plan.alreadyVerified.push(f);
    else if (f.receivedBytes < f.file.byteLength) plan.incomplete.push(f);
    // Longer than declared cannot happen through the upload route; if it does, the length check fails it.
    else plan.toVerify.push(f);
  }
  return plan;
}
