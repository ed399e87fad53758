/**
 * Sends a stored blob (public /blobs/{sha256}, private library downloads) from either backend,
 * with the same semantics as api/http/send-file.ts: the digest as strong ETag, If-None-Match ->
 * 304, one byte range (206, If-Range, 416 problem), exact Content-Type and Content-Disposition.
 * With presigned downloads configured (ARCHIVE_S3_PRESIGN_SECONDS) the answer is instead a 307 to
 * a short-lived URL of the object store, which serves ranges itself and answers with the same
 * Content-Type, Cache-Control and Content-Disposition.
 */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ifNoneMatchHits, parseRange } from '../http/conditional.ts';
import { sendProblem } from '../http/problem.ts';
import { offloadUri, sendFile } from '../http/send-file.ts';
import type { BlobStore } from './blob-store.ts';

export interface BlobDownload {
  sha256: string;
  size: number;
  contentType: string;
  cacheControl: string;
  downloadName?: string;
}

function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
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
  const etag = `"${file.sha256}"`;
  if (options.offload) {
    // sendFile never reads the file when it offloads: nginx sends the bytes.
    return sendFile(
      request,
      reply,
      baseUrl,
      {
        absPath: '',
        size: file.size,
        etag,
        contentType: file.contentType,
        cacheControl: file.cacheControl,
        downloadName: file.downloadName,
      },
      options,
    );
  }
  const presigned = await blobs.presignedUrl(file.sha256, {
    contentType: file.contentType,
    cacheControl: file.cacheControl,
    downloadName: file.downloadName,
  });
  if (presigned) {
    // The URL expires: neither the redirect nor its target may be stored by a shared cache.
    return reply.code(307).header('Location', presigned).header('Cache-Control', 'private, no-store').send();
  }
  reply.header('ETag', etag).header('Cache-Control', file.cacheControl).header('Accept-Ranges', 'bytes');
  if (file.downloadName) reply.header('Content-Disposition', contentDisposition(file.downloadName));
  if (ifNoneMatchHits(request.headers['if-none-match'], etag)) return reply.code(304).send();
  const range = parseRange(request.headers.range, file.size, request.headers['if-range'] as string | undefined, etag);
  if (range.kind === 'unsatisfiable') {
    return sendProblem(
      reply,
      request,
      baseUrl,
      'range-not-satisfiable',
      `The range "${request.headers.range}" is outside the ${file.size} bytes of this file.`,
      {
        headers: { 'Content-Range': `bytes */${file.size}` },
      },
    );
  }
  reply.type(file.contentType);
  if (range.kind === 'partial') {
    reply
      .code(206)
      .header('Content-Range', `bytes ${range.start}-${range.end}/${file.size}`)
      .header('Content-Length', String(range.end - range.start + 1));
    if (request.method === 'HEAD') return reply.send();
    return reply.send(await blobs.read(file.sha256, { start: range.start, end: range.end }));
  }
  reply.header('Content-Length', String(file.size));
  if (request.method === 'HEAD') return reply.send();
  return reply.send(file.size === 0 ? Buffer.alloc(0) : await blobs.read(file.sha256));
}
