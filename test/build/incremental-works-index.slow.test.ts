/**
 * The works index (/works/, /works/by-title/<n>/, /works/by-composer/<n>/) in incremental builds:
 * a build keeps every page's key (works-index-pages.json) and an incremental build renders only
 * the pages 2.. whose key changed (src/lib/site/works-index.ts). With
 * ARCHIVE_WORKS_INDEX_PAGE_SIZE=5 the sample's 26 works are six pages per order. Each change must
 * leave a folder byte-identical to a full build of the same commit, rendering few pages for a
 * correction, and a removed work must take the page past the new last page with it.
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

describe('the works index in incremental builds', () => {
  it('a full build keeps one key per page and order', () => {
    const keys = JSON.parse(readFileSync(path.join(baseDir, 'works-index-pages.json'), 'utf8'));
    expect(keys.title).toHaveLength(6);
    expect(keys.composer).toHaveLength(6);
    expect(new Set(keys.title).size).toBe(6);
    expect(pagesOf(baseDir, 'by-title')).toEqual([2, 3, 4, 5, 6]);
    expect(pagesOf(baseDir, 'by-composer')).toEqual([2, 3, 4, 5, 6]);
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
});
