/** A fresh front server over a build folder, exercised through `inject` (no socket). */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect, inject } from 'vitest';
import { createApp } from '../../api/app.ts';
import { loadConfig } from '../../api/config.ts';
import { SiteHandle } from '../../api/site/site-handle.ts';
import { assertMatchesOpenApi } from './openapi.ts';

export const PROJECT_ROOT = path.resolve(import.meta.dirname, '..', '..');

export interface TestApp {
  app: FastifyInstance;
  handle: SiteHandle;
  baseUrl: string;
  buildDir: string;
  /** GET (or another method) and check the answer against the OpenAPI document. */
  request(options: {
    method?: string;
    url: string;
    headers?: Record<string, string>;
    payload?: unknown;
  }): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

/** A clock a test moves by hand (ms since the epoch), for rate limits and Retry-After. */
export interface TestClock {
  now: () => number;
  advance(ms: number): void;
}

export function testClock(startMs = Date.UTC(2026, 0, 1)): TestClock {
  let ms = startMs;
  return { now: () => ms, advance: (by) => void (ms += by) };
}

export async function openApp(
  buildDir = inject('sampleBuildDir'),
  env: Record<string, string> = {},
  options: { clock?: TestClock } = {},
): Promise<TestApp> {
  const baseUrl = JSON.parse(readFileSync(path.join(buildDir, 'build.json'), 'utf8')).baseUrl as string;
  const config = loadConfig(
    { PUBLIC_BASE_URL: baseUrl, ARCHIVE_DATA_DIR: path.join(buildDir, '..', 'data'), ...env },
    PROJECT_ROOT,
  );
  const handle = await SiteHandle.open(buildDir, { budgets: config.cacheBudgets });
  const app = await createApp(
    { config, handle, ...(options.clock ? { clock: options.clock.now } : {}) },
    { logger: false },
  );
  return testAppOver(app, handle, baseUrl, buildDir);
}

/**
 * `app` (serving `handle`) as a TestApp: `request` checks every answer against the OpenAPI
 * document of the build in `buildDir`.
 */
export function testAppOver(
  app: FastifyInstance,
  handle: SiteHandle,
  baseUrl: string,
  buildDir = handle.current.dir,
): TestApp {
  const openapi = JSON.parse(
    readFileSync(path.join(buildDir, 'client', 'api', 'v1', 'openapi.json'), 'utf8'),
  ) as Record<string, unknown>;
  return {
    app,
    handle,
    baseUrl,
    buildDir,
    async request(options) {
      const res = await app.inject({
        method: (options.method ?? 'GET') as 'GET',
        url: options.url,
        headers: options.headers,
        ...(options.payload !== undefined ? { payload: options.payload as string } : {}),
      });
      assertMatchesOpenApi(openapi, options.method ?? 'GET', options.url, res);
      return res;
    },
    close: () => app.close(),
  };
}

/**
 * HEAD of the file at `url` (with `headers`) answers 200 with GET's headers (ETag, Accept-Ranges:
 * bytes, Content-Type, Cache-Control, Content-Disposition; Content-Length `length`, the file's)
 * and no body. Returns the HEAD answer.
 */
export async function expectHeadAsGet(
  t: TestApp,
  url: string,
  length: number,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  const get = await t.request({ url, headers });
  const head = await t.app.inject({ method: 'HEAD', url, headers });
  expect(head.statusCode).toBe(200);
  expect(head.headers['content-length']).toBe(String(length));
  expect(head.rawPayload.length).toBe(0);
  for (const name of [
    'etag',
    'accept-ranges',
    'content-type',
    'cache-control',
    'content-disposition',
    'content-length',
  ])
    expect(head.headers[name], name).toBe(get.headers[name]);
  expect(head.headers['accept-ranges']).toBe('bytes');
  return head;
}

/** Open a loopback socket on a free port for `app`; returns its `http://127.0.0.1:<port>` origin. */
export async function listenOnLoopback(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
}

/**
 * POST `payload` as JSON to `app` through `inject`, with `headers` (a key, usually). A review
 * action that answers 202 with its action record is followed to its outcome (followItemAction).
 */
export async function postJson(
  app: FastifyInstance,
  url: string,
  payload: unknown,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  return followItemAction(
    app,
    await app.inject({
      method: 'POST',
      url,
      payload: payload as object,
      headers: { ...headers, 'content-type': 'application/json' },
    }),
    headers,
  );
}

/**
 * A review action (or an apply) that ran longer than the POST waits answers 202, with its action
 * record (or the item, applying): a loaded machine can take that long even for a small score. A
 * client that did not ask for that (no `Prefer`) follows it to its outcome; so do the test
 * helpers, answering as the POST would have had it finished in time: the item (200), or the
 * action's problem with its status (an apply's 409 with its error). Any other answer is returned
 * as it is.
 */
export async function followItemAction(
  app: FastifyInstance,
  res: LightMyRequestResponse,
  headers: Record<string, string> = {},
): Promise<LightMyRequestResponse> {
  if (res.statusCode !== 202 || !/json/.test(String(res.headers['content-type'])) || headers.prefer !== undefined)
    return res;
  const data = (res.json() as { data?: Record<string, any> }).data;
  const auth = headers.authorization ? { authorization: headers.authorization } : {};
  // An apply still running after the wait: the item until it is visible (200) or failed (409).
  if (data?.apply?.state === 'applying' && typeof data.links?.admin === 'string') {
    let item = res;
    for (let n = 0; n < 14_400; n++) {
      await new Promise((r) => setTimeout(r, 250));
      item = await app.inject({ url: new URL(data.links.admin as string).pathname, headers: auth });
      if (item.json().data.apply?.state !== 'applying') break;
    }
    if (item.json().data.apply?.state !== 'failed') return item;
    const failed = JSON.stringify({
      status: 409,
      detail: String(item.json().data.review?.lastError?.message ?? 'the apply failed'),
    });
    return {
      ...item,
      statusCode: 409,
      headers: { ...item.headers, 'content-type': 'application/problem+json' },
      body: failed,
      payload: failed,
      json: () => JSON.parse(failed),
    } as LightMyRequestResponse;
  }
  if (!data || typeof data.actionId !== 'string') return res;
  let action = data;
  // Bounded: an hour of polls four times a second.
  for (let n = 0; action.state === 'running' && n < 14_400; n++) {
    await new Promise((r) => setTimeout(r, 250));
    action = (await app.inject({ url: new URL(action.links.self as string).pathname, headers: auth })).json().data;
  }
  if (action.state === 'completed')
    return app.inject({ url: new URL(action.links.item as string).pathname, headers: auth });
  const problem = JSON.stringify(action.error);
  return {
    ...res,
    statusCode: Number(action.error?.status) || 409,
    headers: { ...res.headers, 'content-type': 'application/problem+json' },
    body: problem,
    payload: problem,
    json: () => JSON.parse(problem),
  } as LightMyRequestResponse;
}
