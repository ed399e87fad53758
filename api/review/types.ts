/**
 * The seams of the review pipeline's verification, fixed first so the fetcher and the technical
 * checks could be built side by side (the forge's seam is api/forge/types.ts):
 *   - fetchContributorFile downloads a contributor's file under the SSRF guard and verifies it;
 *   - runTechnicalChecks inspects a downloaded file (MusicXML in Verovio, audio, MIDI).
 */
import type { AssetKind } from '../../src/schemas/common.ts';
import type { BlobStore } from '../blobs/blob-store.ts';

import type { TechnicalCheckResult } from '../../src/schemas/review.ts';

export type { TechnicalCheckResult };

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
  /** Host names allowed even when they resolve to loopback/private ranges (ARCHIVE_FETCH_ALLOW_HOSTS; empty by default). */
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
