/**
 * The OpenAPI document: valid OpenAPI 3.1, version labels, and exactly the served paths: every
 * documented operation answers, and every API file in the build maps to a documented path.
 */
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { Validator } from '@seriousme/openapi-schema-validator';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApp, type TestApp } from '../helpers/app.ts';
import { matchTemplate } from '../helpers/openapi.ts';

let t: TestApp;
let doc: { openapi: string; info: { version: string }; paths: Record<string, Record<string, unknown>> };
beforeAll(async () => {
  t = await openApp();
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

  it('every documented operation is served', async () => {
    const work = [...t.handle.current.catalog.records.values()].find((w) => w.sourceAssets.some((a) => a.links.rawMusicXml))!;
    const file = new URL(work.sourceAssets.find((a) => a.links.rawMusicXml)!.links.rawMusicXml!).pathname.split('/').at(-1)!;
    const profile = t.handle.current.catalog.profiles[0]!.slug;
    for (const [template, methods] of Object.entries(doc.paths)) {
      const url = template.replace('{slug}', template.includes('profiles') ? profile : work.slug).replace('{file}', file);
      for (const method of Object.keys(methods)) {
        if (method !== 'get') continue; // writes are exercised by their own suites
        const res = await t.request({ url });
        expect(res.statusCode, `${method.toUpperCase()} ${url}`).toBe(200);
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
    const get = doc.paths['/api/v1/works']!.get as { parameters: { name: string; schema: { maximum?: number; default?: number } }[] };
    const pageSize = get.parameters.find((p) => p.name === 'pageSize')!;
    expect(pageSize.schema).toMatchObject({ default: 20, maximum: 100 });
    const work = doc.paths['/api/v1/works/{slug}']!.get as { responses: Record<string, { content?: Record<string, unknown> }> };
    expect(Object.keys(work.responses['404']!.content!)).toEqual(['application/problem+json']);
  });
});
