/**
 * Sends a stored blob (public /blobs/{sha256}, private library downloads) from either backend,
 * through api/http/send-file.ts (its bytes read from the blob store): the digest as strong ETag,
 * If-None-Match -> 304, one byte range (206, If-Range, 416 problem), exact Content-Type and
 * Content-Disposition.
 * With presigned downloads configured (ARCHIVE_S3_PRESIGN_SECONDS) the answer is instead a 307 to
 * a short-lived URL of the object store, which serves ranges itself and answers with the same
 * Content-Type, Cache-Control and Content-Disposition.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { offloadUri, sendFile } from '../http/send-file.ts';
import type { BlobStore } from './blob-store.ts';

export interface BlobDownload {
  sha256: string;
  size: number;
  contentType: string;
  cacheControl: string;
  downloadName?: string;
}

/** The nginx offload URI for this blob (ARCHIVE_DOWNLOAD_OFFLOAD=nginx, local store only), else undefined. */
export function blobOffload(
  request: FastifyRequest,
  mode: 'none' | 'nginx',
  blobs: BlobStore,
  sha256: string,
): string | undefined {
  const rel = blobs.offloadPath(sha256);
  return rel === null ? undefined : offloadUri(request, mode, rel);
}

/** `offload`: answer with X-Accel-Redirect for a fronting nginx (api/http/send-file.ts) after the checks. */
export async function sendBlob(
  request: FastifyRequest,
  reply: FastifyReply,
  baseUrl: string,
  blobs: BlobStore,
  file: BlobDownload,
  options: { offload?: string } = {},
) {
  const servable = {
    absPath: '',
    size: file.size,
    etag: `"${file.sha256}"`,
    contentType: file.contentType,
    cacheControl: file.cacheControl,
    downloadName: file.downloadName,
  };
  // Offloaded, sendFile never reads the bytes: nginx sends them.
  if (options.offload) return sendFile(request, reply, baseUrl, servable, options);
  const presigned = await blobs.presignedUrl(file.sha256, {
    contentType: file.contentType,
    cacheControl: file.cacheControl,
    downloadName: file.downloadName,
  });
  if (presigned) {
    // The URL expires: neither the redirect nor its target may be stored by a shared cache.
    return reply.code(307).header('Location', presigned).header('Cache-Control', 'private, no-store').send();
  }
  return sendFile(request, reply, baseUrl, servable, { read: (range) => blobs.read(file.sha256, range) });
}
