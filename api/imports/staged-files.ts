/**
 * Files an operator's import put into the blob store before submitting the works that use them.
 * A bulk import has no contributor HTTPS URL to fetch from; its files are uploaded by the
 * importer (an admin key) and named in the contribution as `https://imports.invalid/sha256/<hex>`
 * (RFC 2606 `.invalid`: the address can never be fetched from the network). Review's fetch step
 * takes such a URL from the blob store only when an import staged exactly that digest here:
 * knowing a digest is not permission, so a public submission naming some other blob (a private
 * library file, say) is refused, never attached.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { FetchRefusedError, type FetchContributorFile } from '../review/types.ts';

const STAGED_URL = /^https:\/\/imports\.invalid\/sha256\/([0-9a-f]{64})$/;

export function isStagedFileUrl(url: string | null | undefined): boolean {
  return STAGED_URL.test(url ?? '');
}

/**
 * The placeholder check refuses `.invalid` hosts (a contributor's URL must resolve); an import
 * item's staged-file addresses are `.invalid` on purpose, so that one finding is dropped for them.
 */
export function withoutStagedUrlFindings<E extends { pointer?: string }>(
  errors: E[],
  contribution: { assets: Array<{ downloadUrl?: string | null }> },
): E[] {
  return errors.filter((e) => {
    const m = /^\/assets\/([0-9]+)\/downloadUrl$/.exec(e.pointer ?? '');
    return !(m && isStagedFileUrl(contribution.assets[Number(m[1])]?.downloadUrl));
  });
}

export function stagedFileUrl(sha256: string): string {
  return `https://imports.invalid/sha256/${sha256.toLowerCase()}`;
}

function markerOf(dataDir: string, sha256: string): string {
  return path.join(dataDir, 'state', 'import-files', sha256.slice(0, 2), sha256);
}

/** Record that an import staged this blob (after the blob itself is durable). */
export async function markStaged(dataDir: string, sha256: string): Promise<void> {
  const file = markerOf(dataDir, sha256);
  await fs.mkdir(path.dirname(file), { recursive: true });
  await fs.writeFile(file, '');
}

export async function isStaged(dataDir: string, sha256: string): Promise<boolean> {
  return fs.access(markerOf(dataDir, sha256)).then(
    () => true,
    () => false,
  );
}

/** The review fetcher, with staged import files taken from the blob store; every other URL goes to `inner`. */
export function withStagedFiles(dataDir: string, inner: FetchContributorFile): FetchContributorFile {
  return async (url, blobs, options) => {
    const m = STAGED_URL.exec(url);
    if (!m) return inner(url, blobs, options);
    const sha256 = m[1]!;
    const expected = options.expectedSha256?.toLowerCase() ?? null;
    if (expected && expected !== sha256)
      throw new FetchRefusedError(
        'digest-mismatch',
        url,
        `the declared SHA-256 is ${expected} but the staged file is ${sha256}`,
      );
    const info = (await isStaged(dataDir, sha256)) ? await blobs.stat(sha256) : null;
    if (!info)
      throw new FetchRefusedError(
        'blocked-address',
        url,
        'no import staged this file on this archive (imports.invalid addresses only name files an operator imported)',
      );
    return { sha256, byteLength: info.byteLength, mediaType: null, finalUrl: url };
  };
}
