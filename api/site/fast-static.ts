/**
 * A fast path in front of Fastify for the requests agents make most: a plain GET or HEAD of a
 * static file of the served build. It answers with the same headers the full path would (strong
 * ETag, Cache-Control, exact type, 304 on a matching If-None-Match, and for an engraved page the
 * precompressed form Accept-Encoding asks for) without routing, hooks or reply objects. Two ways through it:
 * - a file already known: a 304 from its ETag, or its bytes from memory, with no await at all;
 * - a file known but whose bytes left memory (the memory cache holds only part of a large
 *   catalog) and at most SYNC_READ_MAX: read again on this thread, as nginx reads a file, since
 *   the immutable file is almost always in the page cache (a few microseconds, where the thread
 *   pool costs four round trips);
 * - any other small file: found and read once (open, fstat, one read, hashed for the ETag),
 *   answered from those bytes, and remembered.
 * Anything else (query strings, ranges, other methods, missing files, redirects, large files)
 * goes to Fastify, which answers it through send-file and the not-found handler.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SiteHandle } from './site-handle.ts';
import { isHtml, PUBLIC_CSP } from '../http/content-security-policy.ts';
import { ifNoneMatchHits } from '../http/conditional.ts';
import { selectEncoding, SMALL_FILE_MAX, SYNC_READ_MAX, type AnswerHeaders, type StaticFile } from './static-site.ts';

/**
 * The header lines of a file's answers, built once per file (the file is immutable) and handed to
 * writeHead as flat arrays: no object, spread or String() per request. Same names, order and values
 * as before (test/http/fast-path-headers.slow.test.ts pins them).
 */
function headersOf(file: StaticFile, length: number): AnswerHeaders {
  let h = file.answerHeaders;
  if (h === undefined || h.length !== length) {
    const h304 = [
      'ETag',
      file.etag,
      'Cache-Control',
      file.cacheControl,
      'Accept-Ranges',
      'bytes',
      'X-Content-Type-Options',
      'nosniff',
    ];
    // An HTML page carries the pages' Content-Security-Policy (api/http/content-security-policy.ts).
    if (isHtml(file.contentType)) h304.push('Content-Security-Policy', PUBLIC_CSP);
    // A file with precompressed forms (an engraved page): which one answers depends on Accept-Encoding.
    if (file.vary) h304.push('Vary', 'Accept-Encoding');
    const h200 = [...h304, 'Content-Type', file.contentType, 'Content-Length', String(length)];
    if (file.contentEncoding) h200.push('Content-Encoding', file.contentEncoding);
    h = { h304, h200, length };
    file.answerHeaders = h;
  }
  return h;
}

function notModified(res: ServerResponse, file: StaticFile): void {
  res.writeHead(304, headersOf(file, file.size).h304);
  res.end();
}

function ok(req: IncomingMessage, res: ServerResponse, file: StaticFile, body: Buffer): void {
  res.writeHead(200, headersOf(file, body.length).h200);
  res.end(req.method === 'HEAD' ? undefined : body);
}

/**
 * Serve the request if it is a plain GET or HEAD of a small static file; otherwise (now or once
 * the file is looked up) call `fallback`, which hands the request to Fastify.
 */
export function serveStatic(req: IncomingMessage, res: ServerResponse, handle: SiteHandle, fallback: () => void): void {
  const method = req.method;
  const url = req.url ?? '/';
  if ((method !== 'GET' && method !== 'HEAD') || req.headers.range !== undefined || url.includes('?'))
    return fallback();
  // /track/{code} is rendered with the code's record (api/site/track-page.ts), not the bare file.
  if (url.startsWith('/track/') && url !== '/track/') return fallback();
  const site = handle.current.site;
  const peeked = site.peek(url);
  const known = peeked?.encodings ? selectEncoding(peeked, req.headers['accept-encoding']) : peeked;
  const inm = req.headers['if-none-match'];
  if (known) {
    if (inm !== undefined && ifNoneMatchHits(inm, known.etag)) return notModified(res, known);
    if (known.body) return ok(req, res, known, known.body);
    if (known.size > SMALL_FILE_MAX) return fallback();
    if (known.size <= SYNC_READ_MAX) {
      let body: Buffer;
      try {
        body = site.bytesOfSync(known);
      } catch {
        return fallback(); // gone (a retired build): the full path answers
      }
      return ok(req, res, known, body);
    }
  }
  const found = known ? Promise.resolve({ kind: 'file' as const, file: known }) : site.resolve(url);
  found
    .then(async (r) => {
      if (r.kind !== 'file') return fallback();
      const file = selectEncoding(r.file, req.headers['accept-encoding']);
      if (file.size > SMALL_FILE_MAX) return fallback();
      if (inm !== undefined && ifNoneMatchHits(inm, file.etag)) return notModified(res, file);
      ok(req, res, file, await site.bytesOf(file));
    })
    .catch(() => {
      // A file that vanished or could not be read: let the full path decide (it answers a problem).
      if (!res.headersSent) fallback();
    });
}
