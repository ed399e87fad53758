/**
 * A review-capable archive for HTTP journeys: a real git content repository in a temp dir
 * (seeded from content/), contributor files on a local HTTPS server whose self-signed certificate
 * is trusted only by this archive's fetcher, and the app with two admin keys: `alice=<secret>`
 * (an operator-labeled key) and a plain secret (a generated `key-<hex>` label).
 */
import { createHash } from 'node:crypto';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { contributorFileServer, fetchOptionsTrusting } from '../helpers/https-server.ts';
import { openWritableApp } from '../helpers/writable-app.ts';
import { followItemAction } from '../helpers/app.ts';

export const LABELED_ADMIN_KEY = 'alice-admin-secret-1';
export const UNLABELED_ADMIN_KEY = 'unlabeled-admin-secret-2';
export const sha256 = (b: Buffer) => createHash('sha256').update(b).digest('hex');

export interface ReviewHarness {
  app: FastifyInstance;
  contentRepo: string;
  /** Absolute HTTPS URL of a served file. */
  fileUrl(name: string): string;
  post(url: string, payload: unknown, key?: string | null): Promise<LightMyRequestResponse>;
  get(url: string): Promise<LightMyRequestResponse>;
  /**
   * A batch action as a client runs one (docs/imports.md): asked with `Prefer: respond-async`
   * (202 and its tracking resource), then the tracking resource polled until it is no longer
   * running. Resolves with the finished action; a refusal (400, 404, 409) resolves with its answer.
   */
  actOnBatch(batchId: string, action: string, body: unknown): Promise<BatchActionRun>;
  close(): Promise<void>;
}

export interface BatchActionRun {
  /** The POST's status (202, or 200 when it had finished already; else the refusal's). */
  status: number;
  /** The finished action (BatchActionView), or the refusal's problem detail. */
  data: Record<string, any>;
  body: string;
}

/** Start the harness serving `files` (path -> bytes) over HTTPS. */
export async function openReviewHarness(files: Record<string, Buffer>): Promise<ReviewHarness> {
  const server = await contributorFileServer(files);
  const w = await openWritableApp({
    prefix: 'pdma-journey-',
    env: { ARCHIVE_ADMIN_KEYS: `alice=${LABELED_ADMIN_KEY},${UNLABELED_ADMIN_KEY}` },
    review: { fetchOptions: fetchOptionsTrusting(server) },
  });
  const { app } = w;
  return {
    app,
    contentRepo: w.config.contentRepo,
    fileUrl: (name) => `${server.url}${name}`,
    post: async (url, payload, key = LABELED_ADMIN_KEY) =>
      followItemAction(
        app,
        await app.inject({
          method: 'POST',
          url,
          payload: payload as object,
          headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
        }),
        key ? { authorization: `Bearer ${key}` } : {},
      ),
    get: (url) => app.inject({ url, headers: { authorization: `Bearer ${LABELED_ADMIN_KEY}` } }),
    actOnBatch: async (batchId, action, body) => {
      const headers = { authorization: `Bearer ${LABELED_ADMIN_KEY}` };
      const res = await app.inject({
        method: 'POST',
        url: `/api/v1/admin/batches/${batchId}/${action}`,
        payload: body as object,
        headers: { ...headers, 'content-type': 'application/json', prefer: 'respond-async' },
      });
      if (res.statusCode !== 202 && res.statusCode !== 200)
        return { status: res.statusCode, data: res.json(), body: res.body };
      let data = res.json().data as Record<string, any>;
      const url = new URL(data.links.self as string).pathname;
      // Bounded: an hour of polls four times a second.
      for (let n = 0; data.state === 'running' && n < 14_400; n++) {
        await new Promise((r) => setTimeout(r, 250));
        data = (await app.inject({ url, headers })).json().data;
      }
      return { status: res.statusCode, data, body: JSON.stringify(data) };
    },
    close: async () => {
      await w.close();
      await server.close();
    },
  };
}
