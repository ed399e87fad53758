/**
 * The deprecation mechanism, exercised with a test-only deprecation passed to createApp: a
 * deprecated operation answers Deprecation (RFC 9745), Sunset (RFC 8594) and a Link to the
 * changelog; others do not. Also: the policy is stated in /api/v1 and the OpenAPI info, and
 * /changelog.md is served.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createApp } from '../../api/app.ts';
import { loadConfig } from '../../api/config.ts';
import { SiteHandle } from '../../api/site/site-handle.ts';
import type { FastifyInstance } from 'fastify';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { checkDeprecation, DEPRECATIONS, matchesTemplate, type Deprecation } from '../../src/domain/deprecation.ts';

const TEST_DEPRECATIONS: Deprecation[] = [
  {
    method: 'GET',
    path: '/api/v1/profiles',
    deprecatedAtUtc: '2026-11-01T00:00:00Z',
    sunsetAtUtc: '2027-05-01T00:00:00Z',
    replacement: 'GET /api/v1/instruments',
  },
  {
    method: 'GET',
    path: '/api/v1/works/{slug}',
    deprecatedAtUtc: '2026-11-01T00:00:00Z',
    sunsetAtUtc: '2027-05-01T00:00:00Z',
    replacement: 'GET /api/v1/works/{slug}/index.md',
  },
  {
    method: 'GET',
    path: '/api/v1/music/contributions/template',
    deprecatedAtUtc: '2026-11-01T00:00:00Z',
    sunsetAtUtc: '2027-05-01T00:00:00Z',
    replacement: 'none',
  },
];

let app: FastifyInstance;
let baseUrl: string;
beforeAll(async () => {
  const buildDir = inject('sampleBuildDir');
  baseUrl = JSON.parse(readFileSync(path.join(buildDir, 'build.json'), 'utf8')).baseUrl;
  const config = loadConfig(
    { PUBLIC_BASE_URL: baseUrl, ARCHIVE_DATA_DIR: path.join(buildDir, '..', 'data-deprecation') },
    PROJECT_ROOT,
  );
  app = await createApp(
    { config, handle: await SiteHandle.open(buildDir) },
    { logger: false, deprecations: TEST_DEPRECATIONS },
  );
});
afterAll(() => app?.close());

describe('deprecated operations', () => {
  it('answer Deprecation, Sunset and a Link rel="deprecation" to the changelog (dynamic route)', async () => {
    const res = await app.inject({ method: 'GET', url: '/api/v1/profiles?kind=instrument' });
    expect(res.statusCode).toBe(200);
    expect(res.headers.deprecation).toBe('@1793491200'); // 2026-11-01T00:00:00Z
    expect(res.headers.sunset).toBe('Sat, 01 May 2027 00:00:00 GMT');
    expect(res.headers.link).toBe(`<${baseUrl}/changelog.md>; rel="deprecation"; type="text/markdown"`);
  });

  it('also on static records, on HEAD, and next to a Link the route already sets', async () => {
    const work = await app.inject({ method: 'GET', url: '/api/v1/works/satie-gymnopedie-1' });
    expect(work.statusCode).toBe(200);
    expect(work.headers.deprecation).toBe('@1793491200');
    const head = await app.inject({ method: 'HEAD', url: '/api/v1/works/satie-gymnopedie-1' });
    expect(head.headers.sunset).toBe('Sat, 01 May 2027 00:00:00 GMT');
    const template = await app.inject({ method: 'GET', url: '/api/v1/music/contributions/template' });
    const link = String(template.headers.link);
    expect(link).toContain('rel="describedby"');
    expect(link).toContain(`<${baseUrl}/changelog.md>; rel="deprecation"`);
  });

  it('over a real socket too, where static records are otherwise answered from memory before Fastify', async () => {
    await app.listen({ port: 0, host: '127.0.0.1' });
    const { port } = app.server.address() as AddressInfo;
    const work = await fetch(`http://127.0.0.1:${port}/api/v1/works/satie-gymnopedie-1`);
    expect(work.status).toBe(200);
    expect(work.headers.get('deprecation')).toBe('@1793491200');
    expect(work.headers.get('link')).toBe(`<${baseUrl}/changelog.md>; rel="deprecation"; type="text/markdown"`);
    const other = await fetch(`http://127.0.0.1:${port}/api/v1/works/satie-gymnopedie-1/index.md`);
    expect(other.status).toBe(200);
    expect(other.headers.get('deprecation')).toBeNull();
  });

  it('leave every other operation alone', async () => {
    for (const url of ['/api/v1/works', '/api/v1/instruments', '/api/v1/works/satie-gymnopedie-1/index.md']) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers.deprecation, url).toBeUndefined();
      expect(res.headers.sunset, url).toBeUndefined();
    }
  });

  it('entries keep the notice period; templates match one segment per parameter', () => {
    for (const d of [...DEPRECATIONS, ...TEST_DEPRECATIONS]) expect(checkDeprecation(d)).toEqual([]);
    expect(checkDeprecation({ ...TEST_DEPRECATIONS[0]!, sunsetAtUtc: '2026-12-01T00:00:00Z' })).toEqual([
      expect.stringMatching(/at least 180 days/),
    ]);
    expect(matchesTemplate('/api/v1/works/{slug}', '/api/v1/works/a-b')).toBe(true);
    expect(matchesTemplate('/api/v1/works/{slug}', '/api/v1/works/a/index.md')).toBe(false);
  });
});

describe('the policy is published', () => {
  it('in /api/v1, the OpenAPI info and /changelog.md', async () => {
    const index = (await app.inject({ method: 'GET', url: '/api/v1' })).json().data;
    expect(index.conventions.versioning).toMatch(/only by addition/);
    expect(index.conventions.versioning).toMatch(/at least 180 days/);
    expect(index.links.changelog).toBe(`${baseUrl}/changelog.md`);
    const doc = (await app.inject({ method: 'GET', url: '/api/v1/openapi.json' })).json();
    expect(doc.info.description).toMatch(/Deprecation \(RFC 9745\), Sunset \(RFC 8594\)/);
    const changelog = await app.inject({ method: 'GET', url: '/changelog.md' });
    expect(changelog.statusCode).toBe(200);
    expect(changelog.headers['content-type']).toBe('text/markdown; charset=utf-8');
    expect(changelog.body).toBe(readFileSync(path.join(PROJECT_ROOT, 'CHANGELOG.md'), 'utf8'));
    expect(changelog.body).toContain('## Unreleased');
  });
});
