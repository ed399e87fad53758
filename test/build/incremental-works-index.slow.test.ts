/**
 * The works index (/works/, /works/by-title/<n>/, /works/by-composer/<n>/) and the browse values'
 * pages (/browse/<facet>/<value>/<n>/) in incremental builds: a build keeps every page's key
 * (works-index-pages.json, browse-pages.json) and an incremental build renders only the pages 2..
 * whose key changed (src/lib/site/works-index.ts, src/lib/site/browse-pages.ts). With
 * ARCHIVE_WORKS_INDEX_PAGE_SIZE=5 the sample's 26 works are six pages per order, and its larger
 * browse values two or three pages. Each change must leave a folder byte-identical to a full build
 * of the same commit, rendering few pages for a correction, and a removed work must take the page
 * past the new last page with it.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildInfo, IncrementalBuilds, viewFilesUnder } from '../helpers/build-folders.ts';

const BASE_URL = 'https://works-index.example.test';
// In one warm build process, as the server's applies run: the pages' keys of the run before are
// reused where their works' entries are the same objects (src/lib/site/works-index.ts).
const builds = new IncrementalBuilds('pdma-works-index-inc-', BASE_URL, { warm: true });
const { repo } = builds;
const previous = process.env.ARCHIVE_WORKS_INDEX_PAGE_SIZE;

afterAll(() => {
  if (previous === undefined) delete process.env.ARCHIVE_WORKS_INDEX_PAGE_SIZE;
  else process.env.ARCHIVE_WORKS_INDEX_PAGE_SIZE = previous;
  builds.dispose();
});

let baseDir = '';

beforeAll(async () => {
  // The build children inherit it.
  process.env.ARCHIVE_WORKS_INDEX_PAGE_SIZE = '5';
  baseDir = await builds.buildBase();
}, 600_000);

const pagesOf = (dir: string, order: 'by-title' | 'by-composer') =>
  viewFilesUnder(dir, `works/${order}`)
    .map((f) => f.slice(`works/${order}/`.length))
    .filter((f) => /^[0-9]+\/index\.html$/.test(f))
    .map((f) => Number(f.split('/')[0]))
    .sort((a, b) => a - b);

type BrowseKeys = Record<string, string[]>;
const browseKeysOf = (dir: string): BrowseKeys =>
  JSON.parse(readFileSync(path.join(dir, 'browse-pages.json'), 'utf8')) as BrowseKeys;
/** Per browse value, the page numbers 2.. its folder holds in the build's view. */
const browsePagesOf = (dir: string): Record<string, number[]> => {
  const out: Record<string, number[]> = {};
  for (const f of viewFilesUnder(dir, 'browse')) {
    const m = /^browse\/([^/]+\/[^/]+)\/([0-9]+)\/index\.html$/.exec(f);
    if (m) (out[m[1]!] ??= []).push(Number(m[2]));
  }
  for (const pages of Object.values(out)) pages.sort((a, b) => a - b);
  return out;
};
/** The pages 2.. whose key differs between two builds' browse keys (a value new in `after`: all of them). */
const changedBrowsePages = (before: BrowseKeys, after: BrowseKeys): number =>
  Object.entries(after).reduce(
    (n, [id, keys]) => n + keys.slice(1).filter((k, i) => before[id]?.[i + 1] !== k).length,
    0,
  );

describe('the works index in incremental builds', () => {
  it('a full build keeps one key per page and order', () => {
    const keys = JSON.parse(readFileSync(path.join(baseDir, 'works-index-pages.json'), 'utf8'));
    expect(keys.title).toHaveLength(6);
    expect(keys.composer).toHaveLength(6);
    expect(new Set(keys.title).size).toBe(6);
    expect(pagesOf(baseDir, 'by-title')).toEqual([2, 3, 4, 5, 6]);
    expect(pagesOf(baseDir, 'by-composer')).toEqual([2, 3, 4, 5, 6]);
  });

  it('a full build pages every browse value and keeps one key per page', () => {
    const keys = browseKeysOf(baseDir);
    const paged = Object.entries(keys).filter(([, k]) => k.length > 1);
    expect(paged.length).toBeGreaterThan(0);
    // Each value's folder holds its pages 2..n, and page 1 names the others.
    const expected = Object.fromEntries(paged.map(([id, k]) => [id, k.slice(1).map((_, i) => i + 2)]));
    expect(browsePagesOf(baseDir)).toEqual(expected);
    const [id, k] = paged[0]!;
    const first = readFileSync(path.join(baseDir, 'client', 'browse', id, 'index.html'), 'utf8');
    expect(first).toContain(`href="/browse/${id}/2/"`);
    expect(first).toContain(`(page 1 of ${k.length})`);
  });

  let corrected = '';
  it('a correction that keeps a work in place renders only the pages that show it', async () => {
    // Appended to the title: the work keeps its place in both orders.
    const file = builds.work('faure-pavane-op-50');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^title: (.*)$/m, 'title: $1 (revised)'));
    const commit = await builds.commitAll('Retitle the Pavane in place');
    const { incremental, differences } = await builds.buildBoth(commit, baseDir, 'correction');
    const info = buildInfo(incremental);
    expect(info.mode).toBe('incremental');
    expect(info.incremental.renderer).toMatchObject({ kind: 'warm' });
    expect(differences).toEqual([]);
    // One page per order shows the work; page 1 (/works/, /works/by-composer/) is always rendered.
    const rendered = info.incremental.worksIndexPages as { title: number; composer: number };
    expect(rendered.title + rendered.composer).toBeGreaterThanOrEqual(1);
    expect(rendered.title).toBeLessThanOrEqual(1);
    expect(rendered.composer).toBeLessThanOrEqual(1);
    // Browse values: pages 2.. only where the key changed (the page that shows the work).
    const changed = changedBrowsePages(browseKeysOf(baseDir), browseKeysOf(incremental));
    expect(info.incremental.browsePages).toBe(changed);
    const inScope = Object.values(browseKeysOf(incremental)).reduce((n, k) => n + k.length - 1, 0);
    expect(changed).toBeLessThan(inScope);
    corrected = incremental;
  }, 600_000);

  it('a removed work renders the pages that shift and takes the page past the last one away', async () => {
    expect(corrected).not.toBe('');
    rmSync(path.join(repo, 'works', 'bach-air-orchestral-suite-3'), { recursive: true });
    const commit = await builds.commitAll('Remove one of Bach’s works');
    const { incremental, full, differences } = await builds.buildBoth(commit, corrected, 'removed');
    const info = buildInfo(incremental);
    expect(info.mode).toBe('incremental');
    // It was the sample's only work of its genre: the meaning vocabulary changes, so the resolve
    // catalog is built from the records rather than merged from the base's (still a full build's
    // bytes); the listing index is merged.
    expect(info.catalogIndex.listing).toBe('merged');
    expect(info.catalogIndex.resolve).toBe('built');
    expect(info.catalogIndex.resolveBuiltBecause).toContain('genres changed');
    expect(differences).toEqual([]);
    // 25 works: five pages; the sixth is gone from both orders.
    expect(pagesOf(full, 'by-title')).toEqual([2, 3, 4, 5]);
    expect(pagesOf(incremental, 'by-title')).toEqual([2, 3, 4, 5]);
    expect(pagesOf(incremental, 'by-composer')).toEqual([2, 3, 4, 5]);
    // Every page states the total, so every page 2.. was rendered again.
    expect(info.incremental.worksIndexPages).toEqual({ title: 4, composer: 4 });
    // The base it was built on still has its six pages.
    expect(pagesOf(corrected, 'by-title')).toEqual([2, 3, 4, 5, 6]);
    // A browse value that lost a page lost its folder too, in the view as in the full build.
    const before = browseKeysOf(corrected);
    const after = browseKeysOf(incremental);
    const shrunk = Object.keys(after).filter((id) => after[id]!.length < (before[id]?.length ?? 0));
    expect(shrunk.length).toBeGreaterThan(0);
    expect(browsePagesOf(incremental)).toEqual(browsePagesOf(full));
    for (const id of shrunk) expect(browsePagesOf(incremental)[id] ?? []).toHaveLength(after[id]!.length - 1);
  }, 600_000);

  it('a base without keys renders every page', async () => {
    rmSync(path.join(baseDir, 'works-index-pages.json'));
    const file = builds.work('satie-gymnopedie-1');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^title: (.*)$/m, 'title: $1 (revised)'));
    const commit = await builds.commitAll('Retitle the Gymnopédie');
    // Built from the first full build: the change since it is the retitle, the removal and this.
    const { incremental, differences } = await builds.buildBoth(commit, baseDir, 'no-keys');
    const info = buildInfo(incremental);
    expect(info.mode).toBe('incremental');
    expect(differences).toEqual([]);
    expect(info.incremental.worksIndexPages).toEqual({ title: 4, composer: 4 });
  }, 600_000);

  it('a base without browse keys renders every page of the values in scope', async () => {
    rmSync(path.join(baseDir, 'browse-pages.json'));
    const file = builds.work('satie-gymnopedie-1');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^title: (.*)$/m, 'title: $1 (again)'));
    const commit = await builds.commitAll('Retitle the Gymnopédie again');
    const { incremental, differences } = await builds.buildBoth(commit, baseDir, 'no-browse-keys');
    const info = buildInfo(incremental);
    expect(info.mode).toBe('incremental');
    expect(differences).toEqual([]);
    expect(info.incremental.browsePages).toBeGreaterThan(0);
  }, 600_000);
});
