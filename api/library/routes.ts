/**
 * The private production library (spec Part 4.2), protected by key (api/http/auth.ts): library and
 * curator keys for imports, reads and downloads; curator keys only for publication. Handlers
 * parse, call the library services beside this file, and answer; every answer is either the
 * envelope or a problem. The routes live in their own plugin so the raw-stream body parser for
 * uploads (application/octet-stream) applies to them alone.
 */
import { Readable } from 'node:stream';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { AppContext } from '../context.ts';
import type { Config } from '../config.ts';
import { principalOf, requireRole } from '../http/auth.ts';
import { sendProblem } from '../http/problem.ts';
import { sendPrivateJson } from '../http/reply.ts';
import { safeDeclaredType } from '../http/media-types.ts';
import { blobOffload, sendBlob } from '../blobs/send-blob.ts';
import {
  FileIdParams,
  IMPORT_BODY_LIMIT_BYTES,
  ImportFileParams,
  ImportIdParams,
  MusicLibraryImportInput,
  StableKeyParams,
  TRACKS_DEFAULT_PAGE_SIZE,
  TracksQuery,
  UploadQuery,
} from '../../src/schemas/library.ts';
import { baseName } from '../../src/domain/library/publication.ts';
import type { StoredImport } from '../../src/domain/library/model.ts';
import { LibraryStore } from './store.ts';
import { LibraryLocks } from './locks.ts';
import { DEFAULT_MAX_FILE_BYTES, LibraryImports } from './imports.ts';
import { LibraryTracks } from './tracks.ts';
import { failpoints } from './failpoints.ts';
import { LibraryPublisher } from './publish.ts';
import {
  commitView,
  importFileView,
  importView,
  libraryUrls,
  publicationView,
  trackSummaryView,
  trackView,
} from './views.ts';

/** ARCHIVE_LIBRARY_MAX_FILE_BYTES once api/config.ts carries it; the default until then. */
export function maxFileBytes(config: Config): number {
  const configured = (config as Config & { libraryMaxFileBytes?: number }).libraryMaxFileBytes;
  return typeof configured === 'number' && configured >= 0 ? configured : DEFAULT_MAX_FILE_BYTES;
}

/** Library answers are private and change with every upload: never stored by any cache. */

export async function registerLibraryRoutes(app: FastifyInstance, ctx: AppContext): Promise<void> {
  const base = ctx.config.publicBaseUrl;
  const store = new LibraryStore(ctx.config.dataDir, ctx.blobs);
  const failpoint = failpoints(ctx.config.libraryFailpoints);
  const imports = new LibraryImports(store, new LibraryLocks(), maxFileBytes(ctx.config), failpoint);
  const publisher = new LibraryPublisher(ctx, store, imports, app.log, failpoint);
  const tracks = new LibraryTracks(store, imports, publisher);
  const u = libraryUrls(base);
  const readers = requireRole(ctx, ['library', 'curator']);
  const curators = requireRole(ctx, ['curator']);

  async function visibilityOf(rec: StoredImport): Promise<'private' | 'public'> {
    if (rec.status !== 'committed') return 'private';
    return (await store.tracks.get(rec.track.stableKey))?.visibility ?? 'private';
  }

  async function renderImport(rec: StoredImport) {
    return importView(base, rec, await imports.received(rec), await visibilityOf(rec));
  }

  await app.register(async (scope) => {
    // Upload bodies reach the handler as the raw request stream: never buffered, no bodyLimit.
    scope.addContentTypeParser('application/octet-stream', (_request, payload, done) => done(null, payload));

    scope.post<{ Body: MusicLibraryImportInput }>(
      '/api/v1/library/imports',
      { onRequest: readers, bodyLimit: IMPORT_BODY_LIMIT_BYTES, schema: { body: MusicLibraryImportInput } },
      async (request, reply) => {
        const rec = await imports.create(request.body);
        return sendPrivateJson(reply.header('Location', u.import(rec.id)), await renderImport(rec));
      },
    );

    scope.get<{ Params: { id: string } }>(
      '/api/v1/library/imports/:id',
      { onRequest: readers, schema: { params: ImportIdParams } },
      async (request, reply) => {
        const rec = await imports.get(request.params.id.toLowerCase());
        if (!rec) return sendProblem(reply, request, base, 'not-found', `No import has the id ${request.params.id}.`);
        return sendPrivateJson(reply, await renderImport(rec));
      },
    );

    scope.put<{ Params: { importId: string; fileId: string }; Querystring: UploadQuery }>(
      '/api/v1/library/imports/:importId/files/:fileId',
      { onRequest: readers, schema: { params: ImportFileParams, querystring: UploadQuery } },
      async (request, reply) => {
        const body = request.body as unknown;
        if (body !== undefined && !(body instanceof Readable)) {
          return sendProblem(
            reply,
            request,
            base,
            'unsupported-media-type',
            `Upload file bytes as application/octet-stream (got "${request.headers['content-type'] ?? ''}").`,
          );
        }
        const declared = request.headers['content-length'];
        const contentLength = declared !== undefined && /^[0-9]+$/.test(declared) ? Number(declared) : null;
        const importId = request.params.importId.toLowerCase();
        const fileId = request.params.fileId.toLowerCase();
        let uploaded;
        try {
          uploaded = await imports.upload(
            importId,
            fileId,
            request.query.offset ?? 0,
            contentLength,
            (body as Readable | undefined) ?? null,
          );
        } catch (err) {
          if (request.raw.destroyed || request.raw.readableAborted) {
            request.log.info('upload interrupted by the client; it can resume from the reported offset');
            return reply.send();
          }
          throw err;
        }
        const { rec, file, receivedBytes } = uploaded;
        ctx.metrics.uploadBytes.inc(Math.max(0, receivedBytes - (request.query.offset ?? 0)));
        reply.header('Upload-Offset', String(receivedBytes));
        return sendPrivateJson(reply, importFileView(base, rec, file, receivedBytes));
      },
    );

    scope.post<{ Params: { id: string } }>(
      '/api/v1/library/imports/:id/commit',
      { onRequest: readers, schema: { params: ImportIdParams } },
      async (request, reply) => {
        const rec = await imports.commit(request.params.id.toLowerCase());
        return sendPrivateJson(reply, commitView(base, rec, await visibilityOf(rec)));
      },
    );

    scope.get<{ Querystring: TracksQuery }>(
      '/api/v1/library/tracks',
      { onRequest: readers, schema: { querystring: TracksQuery } },
      async (request, reply) => {
        const q = request.query;
        const slice = await tracks.list(q);
        const page = q.page ?? 1;
        const pageSize = q.pageSize ?? TRACKS_DEFAULT_PAGE_SIZE;
        const last = Math.max(1, slice.totalPages);
        const params = {
          query: q.query,
          collection: q.collection,
          genre: q.genre,
          sourceType: q.sourceType,
          intendedUse: q.intendedUse,
          channel: q.channel,
          pageSize,
        };
        const link = (p: number) => {
          const search = new URLSearchParams();
          for (const [k, v] of Object.entries({ ...params, page: p }))
            if (v !== undefined && String(v) !== '') search.set(k, String(v));
          return `${u.tracks}?${search.toString()}`;
        };
        return sendPrivateJson(reply, {
          items: slice.items.map((p) => trackSummaryView(base, p.track, p.rec)),
          page,
          pageSize,
          total: slice.total,
          totalPages: slice.totalPages,
          links: {
            self: link(page),
            first: link(1),
            last: link(last),
            next: page < slice.totalPages ? link(page + 1) : null,
            prev: page > 1 ? link(Math.min(page - 1, last)) : null,
          },
        });
      },
    );

    scope.get<{ Params: { stableKey: string } }>(
      '/api/v1/library/tracks/:stableKey',
      { onRequest: readers, schema: { params: StableKeyParams } },
      async (request, reply) => {
        const pkg = await tracks.get(request.params.stableKey);
        if (!pkg)
          return sendProblem(
            reply,
            request,
            base,
            'not-found',
            `No library package has the stableKey "${request.params.stableKey}".`,
          );
        return sendPrivateJson(reply, trackView(base, pkg.track, pkg.rec));
      },
    );

    scope.post<{ Params: { stableKey: string } }>(
      '/api/v1/library/tracks/:stableKey/publish',
      { onRequest: curators, schema: { params: StableKeyParams } },
      async (request, reply) => {
        const t = await publisher.publish(request.params.stableKey, principalOf(request));
        return sendPrivateJson(reply, {
          stableKey: t.stableKey,
          visibility: 'public',
          publication: publicationView(base, t.publication),
          links: { track: u.track(t.stableKey) },
        });
      },
    );

    // GET and HEAD in one route: Fastify's generated HEAD route would answer Content-Length: 0.
    scope.route<{ Params: { id: string } }>({
      method: ['GET', 'HEAD'],
      url: '/api/v1/library/files/:id',
      onRequest: readers,
      schema: { params: FileIdParams },
      handler: async (request, reply) => {
        const found = await tracks.file(request.params.id.toLowerCase());
        if (!found)
          return sendProblem(
            reply,
            request,
            base,
            'not-found',
            `No committed library file has the id ${request.params.id}.`,
          );
        const { file } = found;
        if (file.downloadPolicy === 'curator-only' && !principalOf(request).roles.includes('curator')) {
          return sendProblem(
            reply,
            request,
            base,
            'forbidden',
            'This file\'s downloadPolicy is "curator-only"; download it with a curator key.',
          );
        }
        const sha = file.verified!.sha256;
        const info = await ctx.blobs.stat(sha);
        if (!info) {
          request.log.error({ fileId: file.id }, 'committed library file missing from the blob store');
          return sendProblem(
            reply,
            request,
            base,
            'not-found',
            `The bytes of file ${file.id} are missing from the store; an operator must restore them.`,
          );
        }
        return sendBlob(
          request,
          reply,
          base,
          ctx.blobs,
          {
            sha256: sha,
            size: info.byteLength,
            contentType: safeDeclaredType(file.contentType),
            // Private: no shared cache may keep it; a client may, but revalidates (with its key) each time.
            cacheControl: 'private, no-cache',
            downloadName: baseName(file.fileName),
          },
          { offload: blobOffload(request, ctx.config.downloadOffload, ctx.blobs, sha) },
        );
      },
    });
  });
}
