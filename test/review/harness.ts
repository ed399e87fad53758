/**
 * A review-capable archive for HTTP journeys: a real git content repository in a temp dir
 * (seeded from content/), contributor files on a local HTTPS server whose self-signed certificate
 * is trusted only by this archive's fetcher, and the app with two admin keys: `alice=<secret>`
 * (an operator-labeled key) and a plain secret (a generated `key-<hex>` label).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { inject } from 'vitest';
import { createApp } from '../../api/app.ts';
import { Rebuilder } from '../../api/site/builds.ts';
import { loadConfig } from '../../api/config.ts';
import { ensureContentRepo } from '../../api/site/content-repo.ts';
import { SiteHandle } from '../../api/site/site-handle.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { contributorFileServer, type HttpsTestServer } from '../helpers/https-server.ts';

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
  close(): Promise<void>;
}

/** Start the harness serving `files` (path -> bytes) over HTTPS. */
export async function openReviewHarness(files: Record<string, Buffer>): Promise<ReviewHarness> {
  const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-journey-'));
  const server = await contributorFileServer(files);
  const { ca, url: fileBase } = server;

  const sampleBuild = inject('sampleBuildDir');
  const baseUrl = JSON.parse(readFileSync(path.join(sampleBuild, 'build.json'), 'utf8')).baseUrl as string;
  const config = loadConfig(
    {
      ARCHIVE_DATA_DIR: root,
      PUBLIC_BASE_URL: baseUrl,
      ARCHIVE_ADMIN_KEYS: `alice=${LABELED_ADMIN_KEY},${UNLABELED_ADMIN_KEY}`,
    },
    PROJECT_ROOT,
  );
  await ensureContentRepo(config.contentRepo, path.join(PROJECT_ROOT, 'content'));
  const handle = await SiteHandle.open(sampleBuild);
  const rebuilder = new Rebuilder(config, handle);
  const app = await createApp({
    config,
    handle,
    rebuilder,
    review: {
      fetchOptions: {
        ca,
        allowHosts: [`localhost:${server.port}`, `127.0.0.1:${server.port}`],
        timeoutMs: 20_000,
        maxBytes: 10 * 1024 * 1024,
      },
    },
  });
  return {
    app,
    contentRepo: config.contentRepo,
    fileUrl: (name) => `${fileBase}${name}`,
    post: (url, payload, key = LABELED_ADMIN_KEY) =>
      app.inject({
        method: 'POST',
        url,
        payload: payload as object,
        headers: { 'content-type': 'application/json', ...(key ? { authorization: `Bearer ${key}` } : {}) },
      }),
    get: (url) => app.inject({ url, headers: { authorization: `Bearer ${LABELED_ADMIN_KEY}` } }),
    close: async () => {
      await app.close();
      await server.close();
      rmSync(root, { recursive: true, force: true });
    },
  };
}
