/**
 * What decides whether a build may start from a base (build.json `siteCode`,
 * build/site-code.ts) and whether the warm renderer's compiled pages may render a run
 * (`warmKey`, build/warm-render.ts): every code file's path and bytes, and the settings a
 * page module reads when loaded, but not the variables each run sets for itself.
 */
import { cpSync, mkdirSync, mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { siteCodeDigest } from '../../build/site-code.ts';
import { warmKey } from '../../build/warm-render.ts';

let root = '';

beforeEach(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'pdma-site-code-'));
  for (const dir of ['src/pages', 'src/layouts', 'scripts', 'api/site'])
    mkdirSync(path.join(root, dir), { recursive: true });
  writeFileSync(path.join(root, 'src/pages/index.astro'), '<h1>Archive</h1>\n');
  writeFileSync(path.join(root, 'src/layouts/Base.astro'), '<slot />\n');
  writeFileSync(path.join(root, 'scripts/build.ts'), 'export {};\n');
  writeFileSync(path.join(root, 'api/site/nginx.ts'), 'export {};\n');
  writeFileSync(path.join(root, 'astro.config.mjs'), 'export default {};\n');
  writeFileSync(path.join(root, 'package-lock.json'), '{"lockfileVersion":3}\n');
});

afterEach(() => rmSync(root, { recursive: true, force: true }));

describe('the site code digest', () => {
  it('is the same for the same tree, wherever it lies', () => {
    const other = `${root}-copy`;
    cpSync(root, other, { recursive: true });
    try {
      expect(siteCodeDigest(root)).toMatch(/^[0-9a-f]{64}$/);
      expect(siteCodeDigest(other)).toBe(siteCodeDigest(root));
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });

  it('changes with a layout’s bytes, a renamed file, a new file, the lockfile or the Astro config', () => {
    const seen = new Set([siteCodeDigest(root)]);
    const step = (change: () => void) => {
      change();
      const digest = siteCodeDigest(root);
      expect(seen.has(digest)).toBe(false);
      seen.add(digest);
    };
    step(() => writeFileSync(path.join(root, 'src/layouts/Base.astro'), '<main><slot /></main>\n'));
    step(() => renameSync(path.join(root, 'src/layouts/Base.astro'), path.join(root, 'src/layouts/Page.astro')));
    step(() => writeFileSync(path.join(root, 'src/pages/about.astro'), ''));
    step(() => writeFileSync(path.join(root, 'package-lock.json'), '{"lockfileVersion":3,"packages":{}}\n'));
    step(() => writeFileSync(path.join(root, 'astro.config.mjs'), 'export default { trailingSlash: "always" };\n'));
    step(() => writeFileSync(path.join(root, 'api/site/nginx.ts'), 'export const x = 1;\n'));
  });

  it('does not count files outside the code (content, tests, docs)', () => {
    const before = siteCodeDigest(root);
    for (const dir of ['content/works', 'test', 'docs']) mkdirSync(path.join(root, dir), { recursive: true });
    writeFileSync(path.join(root, 'content/works/a.md'), 'title: A\n');
    writeFileSync(path.join(root, 'test/a.test.ts'), '');
    writeFileSync(path.join(root, 'docs/a.md'), '');
    expect(siteCodeDigest(root)).toBe(before);
  });
});

describe('the warm renderer’s key', () => {
  const env = {
    PUBLIC_BASE_URL: 'https://archive.example.test',
    ARCHIVE_WORKS_INDEX_PAGE_SIZE: '100',
    ARCHIVE_CONTENT_DIR: '/a',
    ARCHIVE_GENERATED_AT: '2026-11-28T00:00:00.000Z',
    ARCHIVE_BUILD_OUT: '/a/client',
    ARCHIVE_BUILD_CACHE: '/a/.cache',
    ARCHIVE_SCORES_MANIFEST: '/a/.scores/manifest.json',
    ARCHIVE_READER_SIGNIN: 'none',
    ARCHIVE_BUILD_SCOPE: '/a/.scope.json',
    HOME: '/root',
  };

  it('ignores what each run sets for itself and variables outside ARCHIVE_ and PUBLIC_', () => {
    const other = {
      ...env,
      ARCHIVE_CONTENT_DIR: '/b',
      ARCHIVE_GENERATED_AT: '2026-11-29T00:00:00.000Z',
      ARCHIVE_BUILD_OUT: '/b/client',
      ARCHIVE_BUILD_CACHE: '/b/.cache',
      ARCHIVE_SCORES_MANIFEST: '/b/.scores/manifest.json',
      ARCHIVE_READER_SIGNIN: 'github',
      ARCHIVE_BUILD_SCOPE: '/b/.scope.json',
      HOME: '/home/archivist',
    };
    expect(warmKey('c0de', other)).toBe(warmKey('c0de', env));
  });

  it('changes with the site code, the base URL or a setting a page reads when loaded', () => {
    const key = warmKey('c0de', env);
    expect(warmKey('c0df', env)).not.toBe(key);
    expect(warmKey('c0de', { ...env, PUBLIC_BASE_URL: 'https://other.example.test' })).not.toBe(key);
    expect(warmKey('c0de', { ...env, ARCHIVE_WORKS_INDEX_PAGE_SIZE: '50' })).not.toBe(key);
    expect(warmKey('c0de', { ...env, ARCHIVE_SEARCH_SHARD_WORKS: '500' })).not.toBe(key);
  });
});
