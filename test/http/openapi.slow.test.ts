/**
 * The OpenAPI document: valid OpenAPI 3.1, version labels, and exactly the served paths: every
 * documented operation answers, and every API file in the build maps to a documented path.
 */
import { mkdtempSync, readdirSync, statSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApp, type TestApp } from '../helpers/app.ts';
import { matchTemplate } from '../helpers/openapi.ts';

let t: TestApp;
let doc: { openapi: string; info: { version: string }; paths: Record<string, Record<string, unknown>> };
beforeAll(async () => {
  t = await openApp(undefined, { ARCHIVE_DATA_DIR: mkdtempSync(path.join(os.tmpdir(), 'pdma-openapi-')) });
  doc = (await t.request({ url: '/api/v1/openapi.json' })).json();
});
afterAll(() => t.close());

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const abs = path.join(dir, name);
    return statSync(abs).isDirectory() ? walk(abs) : [abs];
  });
}

describe('OpenAPI document', () => {
  it('is valid OpenAPI 3.1 with version 3.1.1 and description version 1.0.0', async () => {
    expect(doc.openapi).toBe('3.1.1');
    expect(doc.info.version).toBe('1.0.0');
    const validator = new Validator();
    const result = await validator.validate(doc as never);
    expect(result.errors ?? []).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it('every documented operation is served: sample records answer 200, every route is known', async () => {
    const work = (await t.handle.current.catalog.records.all()).find((w) =>
      w.sourceAssets.some((a) => a.links.rawMusicXml),
    )!;
    const file = new URL(work.sourceAssets.find((a) => a.links.rawMusicXml)!.links.rawMusicXml!).pathname
      .split('/')
      .at(-1)!;
    const profile = t.handle.current.catalog.profiles[0]!.slug;
    // The composer's person record, from the link the work's record gives (/api/v1/people/{slug}).
    const person = new URL(work.links.composerRecord!).pathname.split('/').at(-1)!;
    const samples: Record<string, string> = {
      file,
      sha256: '0'.repeat(64),
      trackingCode: 'C-2222-2222-2222-2222',
      id: '00000000-0000-4000-8000-000000000000',
      importId: '00000000-0000-4000-8000-000000000000',
      fileId: '00000000-0000-4000-8000-000000000000',
      stableKey: 'no-such-track',
    };
    for (const [template, methods] of Object.entries(doc.paths)) {
      const url = template.replace(/\{(\w+)\}/g, (_, name: string) =>
        name === 'slug'
          ? template.includes('profiles')
            ? profile
            : template.includes('/people/')
              ? person
              : work.slug
          : (samples[name] ?? 'x'),
      );
      // Protected routes (keys, reader sessions) answer 401/403/404 here; they are checked to be routed, not for 200.
      const concrete =
        !/\{(sha256|trackingCode|id|importId|fileId|stableKey|assetId)\}/.test(template) &&
        !template.includes('/library/') &&
        !template.includes('/admin/') &&
        !template.includes('/reader/');
      for (const method of Object.keys(methods)) {
        const res = await t.app.inject({
          method: method.toUpperCase() as 'GET',
          url,
          ...(method === 'get'
            ? {}
            : {
                payload: method === 'put' ? Buffer.alloc(0) : '{}',
                headers: { 'content-type': method === 'put' ? 'application/octet-stream' : 'application/json' },
              }),
        });
        const label = `${method.toUpperCase()} ${url} -> ${res.statusCode} ${res.body.slice(0, 120)}`;
        // The catch-all answers unknown paths with "Nothing exists at ..." and wrong methods with 405.
        expect(res.statusCode, label).not.toBe(405);
        if (res.statusCode === 404) expect(res.json().detail, label).not.toMatch(/^Nothing exists at/);
        if (method === 'get' && concrete) expect(res.statusCode, label).toBe(200);
      }
    }
  });

  it('every file the build publishes under /api/v1 has a documented path', () => {
    const client = path.join(t.buildDir, 'client');
    const templates = Object.keys(doc.paths);
    const undocumented = walk(path.join(client, 'api', 'v1'))
      .map((abs) => `/${path.relative(client, abs).split(path.sep).join('/')}`)
      .map((p) => (p === '/api/v1/index.json' ? '/api/v1' : p.replace(/\/index\.json$/, '')))
      .filter((url) => !matchTemplate(templates, url));
    expect(undocumented).toEqual([]);
  });

  it('documents the problem schema for 404s and the query limits', () => {
    const get = doc.paths['/api/v1/works']!.get as {
      parameters: { name: string; schema: { maximum?: number; default?: number } }[];
    };
    const pageSize = get.parameters.find((p) => p.name === 'pageSize')!;
    expect(pageSize.schema).toMatchObject({ default: 20, maximum: 100 });
    const work = doc.paths['/api/v1/works/{slug}']!.get as {
      responses: Record<string, { content?: Record<string, unknown> }>;
    };
    expect(Object.keys(work.responses['404']!.content!)).toEqual(['application/problem+json']);
  });
});
