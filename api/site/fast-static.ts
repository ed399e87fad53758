/**
 * A fast path in front of Fastify for the requests agents make most: a plain GET or HEAD of a
 * record that is already in memory. It answers with the same headers the full path would (strong
 * ETag, Cache-Control, exact type, 304 on a matching If-None-Match) without routing, hooks or
 * reply objects; anything else (query strings, ranges, misses, other methods) goes to Fastify.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { SiteHandle } from './site-handle.ts';
import { ifNoneMatchHits } from './static-site.ts';

export function serveFromMemory(req: IncomingMessage, res: ServerResponse, handle: SiteHandle): boolean {
  const method = req.method;
  if ((method !== 'GET' && method !== 'HEAD') || req.headers.range !== undefined) return false;
  const url = req.url ?? '/';
  if (url.includes('?')) return false;
  // /track/{code} is rendered with the code's record (api/site/track-page.ts), not the bare file.
  if (url.startsWith('/track/') && url !== '/track/') return false;
  const file = handle.current.site.peek(url);
  if (!file?.body) return false;
  const common = { ETag: file.etag, 'Cache-Control': file.cacheControl, 'Accept-Ranges': 'bytes', 'X-Content-Type-Options': 'nosniff' };
  if (ifNoneMatchHits(req.headers['if-none-match'], file.etag)) {
    res.writeHead(304, common);
    res.end();
    return true;
  }
  res.writeHead(200, { ...common, 'Content-Type': file.contentType, 'Content-Length': file.body.length });
  res.end(method === 'HEAD' ? undefined : file.body);
  return true;
}
