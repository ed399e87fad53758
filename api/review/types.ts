/**
 * The seams of the review pipeline (DESIGN.md 2.6, 2.10), fixed first so the forge, the fetcher
 * and the technical checks can be built side by side:
 *   - a Forge proposes a change as a branch / pull request, labels its status, merges or closes it;
 *   - fetchContributorFile downloads a contributor's file under the SSRF guard and verifies it;
 *   - runTechnicalChecks inspects a downloaded file (MusicXML in Verovio, audio, MIDI).
 */
import type { AssetKind } from '../../src/schemas/common.ts';
import type { BlobStore } from '../blobs/blob-store.ts';

/** Where a submission's review lives. */
import type { ReviewRef, TechnicalCheckResult } from '../../src/schemas/review.ts';

export type { ReviewRef, TechnicalCheckResult };

/** One file of a proposal, relative to the content repository root; null content deletes it. */
import type { ProposalInput } from '../../src/domain/review/proposal-input.ts';

export type { ProposalChange, ProposalInput } from '../../src/domain/review/proposal-input.ts';

export interface Forge {
  readonly name: 'local' | 'github';
  /** Commit the changes on branch review/<code> (from the content repository's main) and open the review. */
  open(input: ProposalInput): Promise<ReviewRef>;
  /** Show the submission status on the review (labels on GitHub; a no-op locally). */
  setStatus(ref: ReviewRef, status: string): Promise<void>;
  /** Merge the review into main of the local content repository (and on GitHub); returns the new main commit. */
  merge(ref: ReviewRef, message: string): Promise<{ commit: string }>;
  /** Close the review without merging (branch kept for the record locally). */
  close(ref: ReviewRef, note: string): Promise<void>;
}

export type FetchRefusal =
  | 'not-https'
  | 'not-allowed-host'
  | 'blocked-address'
  | 'redirect-limit'
  | 'too-large'
  | 'timeout'
  | 'http-status'
  | 'digest-mismatch'
  | 'network';

export class FetchRefusedError extends Error {
  readonly reason: FetchRefusal;
  readonly url: string;
  constructor(reason: FetchRefusal, url: string, message: string) {
    super(message);
    this.reason = reason;
    this.url = url;
  }
}

export interface FetchOptions {
  /** Declared SHA-256 (hex); the file is refused when it differs. */
  expectedSha256?: string | null;
  maxBytes: number;
  timeoutMs: number;
  /** `host` (port 443) or `host:port` entries allowed even on loopback/private ranges (ARCHIVE_FETCH_ALLOW_HOSTS; empty by default). */
  allowHosts: string[];
  /** Extra trusted CA certificates (tests trust their self-signed server this way only). */
  ca?: string | Buffer;
  maxRedirects?: number;
}

export interface FetchedFile {
  /** The verified bytes, already in the blob store. */
  sha256: string;
  byteLength: number;
  /** Content-Type the server sent, if any. */
  mediaType: string | null;
  /** URL after redirects. */
  finalUrl: string;
}

export type FetchContributorFile = (url: string, blobs: BlobStore, options: FetchOptions) => Promise<FetchedFile>;

export type RunTechnicalChecks = (kind: AssetKind, file: string) => Promise<TechnicalCheckResult>;
