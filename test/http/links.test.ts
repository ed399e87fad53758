/**
 * Under a non-default PUBLIC_BASE_URL every link the build publishes is absolute and built from
 * that base, and nothing mentions the default base.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { inject, describe, expect, it } from 'vitest';

const buildDir = inject('sampleBuildDir');
const base = inject('testBaseUrl');
const client = path.join(buildDir, 'client');

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const abs = path.join(dir, name);
    return statSync(abs).isDirectory() ? walk(abs) : [abs];
  });
}

/** Every `links` member anywhere in a JSON value, with its path. */
function collectLinks(value: unknown, at: string, out: Array<[string, unknown]>): void {
  if (Array.isArray(value)) value.forEach((v, i) => collectLinks(v, `${at}/${i}`, out));
  else if (value && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (k === 'links' && v && typeof v === 'object' && !Array.isArray(v)) {
        for (const [name, href] of Object.entries(v)) out.push([`${at}/links/${name}`, href]);
      }
      collectLinks(v, `${at}/${k}`, out);
    }
  }
}

describe('links under a non-default base URL', () => {
  const files = walk(client);

  it('the test build really uses a non-default base', () => {
    expect(base).not.toBe('http://localhost:4321');
  });

  it('no published file mentions the default base', () => {
    const offenders = files.filter(
      (f) => /\.(json|md|txt|html)$/.test(f) && readFileSync(f, 'utf8').includes('localhost:4321'),
    );
    expect(offenders).toEqual([]);
  });

  it('every link in every JSON record is absolute; our own links start with the base', () => {
    const jsonFiles = files.filter(
      (f) => f.endsWith('.json') && !f.includes(`${path.sep}definition${path.sep}`) && !f.endsWith('openapi.json'),
    );
    expect(jsonFiles.length).toBeGreaterThan(3);
    const bad: string[] = [];
    for (const f of jsonFiles) {
      const links: Array<[string, unknown]> = [];
      collectLinks(JSON.parse(readFileSync(f, 'utf8')), '', links);
      for (const [where, href] of links) {
        if (href === null) continue;
        if (typeof href !== 'string' || !/^https?:\/\//.test(href))
          bad.push(`${path.relative(client, f)}${where}: ${String(href)}`);
        else if (!href.startsWith('https://') && !href.startsWith(base))
          bad.push(`${path.relative(client, f)}${where}: ${href}`);
      }
    }
    expect(bad).toEqual([]);
  });

  it('own links in work records point at the base, and the OpenAPI server is the base', () => {
    const openapi = JSON.parse(readFileSync(path.join(client, 'api', 'v1', 'openapi.json'), 'utf8'));
    expect(openapi.servers[0].url).toBe(base);
    const workDir = path.join(client, 'api', 'v1', 'works');
    for (const slug of readdirSync(workDir)) {
      const { data } = JSON.parse(readFileSync(path.join(workDir, slug, 'index.json'), 'utf8'));
      for (const key of ['self', 'markdown', 'html', 'collection', 'composer', 'corrections', 'resolve']) {
        expect(data.links[key].startsWith(`${base}/`), `${slug} links.${key}`).toBe(true);
      }
    }
  });
});
