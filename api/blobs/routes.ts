/**
 * GET /blobs/{sha256}: files from the blob store that a public asset of the served build links to
 * (published library packages, applied contributions). Any other blob, including private library
 * files whose digest a caller may know, is a 404: knowing a hash is not permission.
 */
import type { FastifyInstance } from 'fastify';
import type { AppContext } from '../context.ts';
import { sendProblem } from '../http/problem.ts';
import { safeDeclaredType } from '../http/media-types.ts';
import { blobOffload, sendBlob } from './send-blob.ts';

export function registerBlobRoutes(app: FastifyInstance, ctx: AppContext): void {
  // GET and HEAD in one route: Fastify's generated HEAD route would answer Content-Length: 0.
  app.route<{ Params: { sha256: string } }>({
    method: ['GET', 'HEAD'],
    url: '/blobs/:sha256',
    handler: async (request, reply) => {
      const hash = request.params.sha256.toLowerCase();
      const published = /^[0-9a-f]{64}$/.test(hash) ? ctx.handle.current.publishedBlobs.get(hash) : undefined;
      const info = published ? await ctx.blobs.stat(hash) : null;
      if (!published || !info)
        return sendProblem(
          reply,
          request,
          ctx.config.publicBaseUrl,
          'not-found',
          `No published file has the digest ${request.params.sha256}.`,
        );
      return sendBlob(
        request,
        reply,
        ctx.config.publicBaseUrl,
        ctx.blobs,
        {
          sha256: hash,
          size: info.byteLength,
          // The type was declared by a contributor: never served as HTML, SVG or script, so it cannot run
          // in the archive's origin.
          contentType: safeDeclaredType(published.mediaType),
          // Content-addressed: the bytes behind this URL can never change.
          cacheControl: 'public, max-age=31536000, immutable',
          downloadName: published.fileName,
        },
        { offload: blobOffload(request, ctx.config.downloadOffload, ctx.blobs, hash) },
      );
    },
  });
}
