/**
 * Sends one file with the archive's HTTP semantics: strong ETag, If-None-Match -> 304, a single
 * byte range (206, If-Range, 416 problem), exact Content-Type, optional Content-Disposition.
 * Static records, public blobs and protected library downloads all answer through here.
 */
import { isHtml, PUBLIC_CSP } from './content-security-policy.ts';
import { createReadStream } from 'node:fs';
import path from 'node:path';
import type { Readable } from 'node:stream';
import { NGINX_BLOBS_LOCATION } from '../site/nginx.ts';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { ifNoneMatchHits, parseRange } from './conditional.ts';
import type { ServableFile } from '../site/static-site.ts';

export type { ServableFile };
import { sendProblem } from './problem.ts';

function contentDisposition(name: string): string {
  const ascii = name.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(name)}`;
}

/**
 * `offload`: the internal URI a fronting nginx serves these bytes from (ARCHIVE_DOWNLOAD_OFFLOAD=nginx,
 * api/site/nginx.ts). The checks stay here -- key and policy before the call, then 304 and 416 --
 * and the answer is an empty 200 with X-Accel-Redirect; nginx sends the file (ranges included)
 * with the headers set here and the archive's ETag from X-Archive-ETag.
 */
/** The internal URI for a blob's bytes when this request may be offloaded to nginx, else undefined. */
export function offloadUri(request: FastifyRequest, mode: 'none' | 'nginx', relativePath: string): string | undefined {
  // Only for requests that came through the build's nginx.conf, which marks them: a client that
  // reaches Node directly always gets the bytes, never an empty X-Accel-Redirect answer.
  if (mode !== 'nginx' || request.headers['x-archive-download-offload'] !== 'nginx') return undefined;
  return `${NGINX_BLOBS_LOCATION}${relativePath.split(path.sep).map(encodeURIComponent).join('/')}`;
}

export interface SendFileOptions {
  offload?: string;
  /**
   * Where the bytes come from when they are not the file at `absPath` (a stored blob,
   * api/blobs/send-blob.ts): `range` inclusive, or the whole file without it.
   */
  read?: (range?: { start: number; end: number }) => Promise<Readable>;
}

export function sendFile(
  request: FastifyRequest,
  reply: FastifyReply,
  baseUrl: string,
  file: ServableFile,
  options: SendFileOptions = {},
) {
  reply.header('ETag', file.etag).header('Cache-Control', file.cacheControl).header('Accept-Ranges', 'bytes');
  if (isHtml(file.contentType)) reply.header('Content-Security-Policy', PUBLIC_CSP);
  // A precompressed form (static-site.ts, selectEncoding): ranges, 304 and HEAD apply to its bytes.
  if (file.vary) reply.header('Vary', 'Accept-Encoding');
  if (file.downloadName) reply.header('Content-Disposition', contentDisposition(file.downloadName));
  if (ifNoneMatchHits(request.headers['if-none-match'], file.etag)) return reply.code(304).send();
  const range = parseRange(
    request.headers.range,
    file.size,
    request.headers['if-range'] as string | undefined,
    file.etag,
  );
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
  if (file.contentEncoding) reply.header('Content-Encoding', file.contentEncoding);
  if (options.offload) {
    return reply
      .header('X-Accel-Redirect', options.offload)
      .header('X-Archive-ETag', file.etag)
      .header('Content-Length', '0')
      .code(200)
      .send();
  }
  if (range.kind === 'partial') {
    const length = range.end - range.start + 1;
    reply
      .code(206)
      .header('Content-Range', `bytes ${range.start}-${range.end}/${file.size}`)
      .header('Content-Length', String(length));
    if (request.method === 'HEAD') return reply.send();
    if (options.read) return options.read({ start: range.start, end: range.end }).then((bytes) => reply.send(bytes));
    return reply.send(
      file.body ? file.body.subarray(range.start, range.end + 1) : streamOf(file.absPath, range.start, range.end),
    );
  }
  reply.header('Content-Length', String(file.size));
  if (request.method === 'HEAD') return reply.send();
  if (options.read && file.size > 0) return options.read().then((bytes) => reply.send(bytes));
  return reply.send(file.body ?? (file.size === 0 ? Buffer.alloc(0) : streamOf(file.absPath, 0, file.size - 1)));
}

const STREAM_CHUNK = 1024 * 1024;

/**
 * Bytes `start`..`end` of a file as a stream. The end is always given: without it a read stream
 * allocates a whole chunk (1 MiB) for every read, even of a 5 KB record, and copies the bytes out,
 * so each such answer left 1 MiB of garbage and 100,000 record GETs took about five times as long
 * (docs/operations.md, "Memory"). With it, each read allocates what is left of the range.
 */
function streamOf(absPath: string, start: number, end: number) {
  return createReadStream(absPath, { start, end, highWaterMark: Math.min(STREAM_CHUNK, end - start + 1) });
}
