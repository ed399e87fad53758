/**
 * A full build of a catalog larger than the batch size renders in several Astro runs (one per
 * batch of works, then one for the composer, browse and profile pages; scripts/build.ts
 * `renderAllPages`) and writes exactly the bytes of the same build in one run: every record,
 * Markdown file, HTML page, listing, score page and file, zip, the Pagefind index, the server's
 * index files, published-blobs.json and the score manifest (docs/decisions/0028-full-builds-render-in-batches.md). The sample catalog
 * has scores, stored files and signed-in files, so every work-scoped route is covered.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchWorksFrom, DEFAULT_BATCH_WORKS } from '../../build/command.ts';
import { loadCatalog } from '../../src/domain/catalog.ts';
import { buildSearchIndex } from '../../src/lib/site/search-index.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { filesUnder, digests } from '../helpers/build-folders.ts';

const run = promisify(execFile);
const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-full-build-batches-'));
const GENERATED_AT = '2026-01-02T03:04:05.000Z';

afterAll(() => rmSync(root, { recursive: true, force: true }));

async function build(
  name: string,
  extra: string[],
): Promise<{ dir: string; info: { works: number; astroRuns: number; warmRuns: number } }> {
  const dir = path.join(root, name);
  await run(
    process.execPath,
    [
      path.join(PROJECT_ROOT, 'scripts', 'build.ts'),
      '--content',
      path.join(PROJECT_ROOT, 'content'),
      '--out',
      dir,
      '--base-url',
      'https://batches.example.test',
      '--generated-at',
      GENERATED_AT,
      '--quiet',
      ...extra,
    ],
    { cwd: PROJECT_ROOT, maxBuffer: 64 * 1024 * 1024 },
  );
  return {
    dir,
    info: JSON.parse(readFileSync(path.join(dir, 'build.json'), 'utf8')) as {
      works: number;
      astroRuns: number;
      warmRuns: number;
    },
  };
}

let single: Awaited<ReturnType<typeof build>>;
let batched: Awaited<ReturnType<typeof build>>;

beforeAll(async () => {
  single = await build('single', []);
  batched = await build('batched', ['--batch-works', '10']);
}, 600_000);

describe('a full build in batches', () => {
  it('renders in one Astro run per batch of works plus one for the listings', () => {
    expect(single.info.astroRuns).toBe(1);
    // The sample has 26 works: batches of 10, 10 and 6, then the listings.
    expect(batched.info.works).toBe(26);
    expect(batched.info.astroRuns).toBe(4);
    // Vite compiles the pages once: the runs after the first render through the warm renderer.
    expect(single.info.warmRuns).toBe(0);
    expect(batched.info.warmRuns).toBe(3);
  });

  it('writes the same files with the same bytes as one run', () => {
    const a = digests(single.dir);
    const b = digests(batched.dir);
    const differences: string[] = [];
    for (const [rel, d] of a)
      if (!b.has(rel)) differences.push(`only in the single run: ${rel}`);
      else if (b.get(rel) !== d) differences.push(`differs: ${rel}`);
    for (const rel of b.keys()) if (!a.has(rel)) differences.push(`only in the batched build: ${rel}`);
    expect(differences).toEqual([]);
    // Every kind of page a work owns is there (HTML, JSON, Markdown, score page, zip), and the listings.
    for (const rel of [
      'client/works/beethoven-fur-elise/index.html',
      'client/api/v1/works/beethoven-fur-elise/index.json',
      'client/api/v1/works/beethoven-fur-elise/index.md',
      'client/browse/index.html',
      'client/index.html',
      'client/pagefind/pagefind-entry.json',
    ]) {
      expect(a.has(rel), rel).toBe(true);
    }
    expect([...a.keys()].some((rel) => /^client\/works\/[^/]+\/score\/\d+\/index\.html$/.test(rel))).toBe(true);
    expect([...a.keys()].some((rel) => /^client\/composers\/[^/]+\/index\.html$/.test(rel))).toBe(true);
    expect([...a.keys()].some((rel) => /^client\/browse\/period\/[^/]+\/index\.html$/.test(rel))).toBe(true);
    // No scratch folders or scope files are left behind.
    expect([...b.keys()].filter((rel) => rel.startsWith('.batch'))).toEqual([]);
  });
});

describe('the batch size', () => {
  it('defaults to 10,000 works and refuses what is not a whole number >= 1', () => {
    expect(batchWorksFrom(undefined)).toBe(DEFAULT_BATCH_WORKS);
    expect(DEFAULT_BATCH_WORKS).toBe(10_000);
    expect(batchWorksFrom('250')).toBe(250);
    for (const bad of ['0', '-3', '2.5', 'many']) expect(() => batchWorksFrom(bad)).toThrow(/whole number/);
  });

  it('is refused by the build CLI with exit code 2 and a message naming the option', async () => {
    const failed = await run(
      process.execPath,
      [path.join(PROJECT_ROOT, 'scripts', 'build.ts'), '--batch-works', '0', '--out', path.join(root, 'refused')],
      { cwd: PROJECT_ROOT },
    ).then(
      () => null,
      (err: { code: number; stderr: string }) => err,
    );
    expect(failed?.code).toBe(2);
    expect(failed?.stderr).toMatch(/--batch-works .*whole number of works >= 1 \(got "0"\)/);
  });
});

describe('the build CLI', () => {
  const cli = (args: string[]) =>
    run(process.execPath, [path.join(PROJECT_ROOT, 'scripts', 'build.ts'), ...args], { cwd: PROJECT_ROOT }).then(
      ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
      (err: { code: number; stdout: string; stderr: string }) => err,
    );

  it('answers --help with its options, and an unknown option with exit code 2, the option and the usage', async () => {
    const help = await cli(['--help']);
    expect(help.code).toBe(0);
    expect(help.stdout).toMatch(/^usage: npm run build -- .*--incremental-from BUILD-DIR/s);
    const unknown = await cli(['--out-dir', path.join(root, 'never')]);
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toMatch(/^Unknown option '--out-dir'.*\nusage: npm run build -- /s);
    expect(unknown.stderr).not.toMatch(/\bat .*\.ts:\d+/);
  });
});

describe('the Pagefind index of a full build', () => {
  it('is the same bytes whether the records go to Pagefind in slices or all at once', async () => {
    const { catalog } = loadCatalog(path.join(PROJECT_ROOT, 'content'));
    const sliced = path.join(root, 'pagefind-sliced');
    const whole = path.join(root, 'pagefind-whole');
    expect((await buildSearchIndex(sliced, catalog, { recordsInFlight: 4 })).pages).toBe(catalog.works.length);
    expect((await buildSearchIndex(whole, catalog, { recordsInFlight: catalog.works.length })).pages).toBe(
      catalog.works.length,
    );
    expect(digests(sliced)).toEqual(digests(whole));
    expect(digests(sliced).size).toBeGreaterThan(5);
  });
});
