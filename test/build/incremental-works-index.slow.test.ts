/**
 * The works index (/works/, /works/by-title/<n>/, /works/by-composer/<n>/) and the browse values'
 * pages (/browse/<facet>/<value>/<n>/) in incremental builds: a build keeps every page's key
 * (works-index-pages.json, browse-pages.json) and an incremental build renders only the pages 2..
 * whose key changed (src/lib/site/works-index.ts, src/lib/site/browse-pages.ts). With
 * ARCHIVE_WORKS_INDEX_PAGE_SIZE=5 the sample's 26 works are about five pages per order (pages are
 * content-defined: src/domain/listing-pages.ts), and its larger browse values two or three pages.
 * Each change must leave a folder byte-identical to a full build of the same commit, rendering few
 * pages for a correction and for a removed work (its page, not every page after it), and a removed
 * work that started a page must take the page past the new last page with it.
 */
import { existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildInfo, IncrementalBuilds, viewFilesUnder } from '../helpers/build-folders.ts';
import { SiteView } from '../../src/lib/site/layers.ts';

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

type WorksKeys = { title: string[]; composer: string[] };
const worksKeysOf = (dir: string): WorksKeys =>
  JSON.parse(readFileSync(path.join(dir, 'works-index-pages.json'), 'utf8')) as WorksKeys;
/** Pages 2.. of one order whose key differs between two builds. */
const changedWorksPages = (before: string[], after: string[]): number =>
  after.slice(1).filter((k, i) => before[i + 1] !== k).length;
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
    const keys = worksKeysOf(baseDir);
    for (const [sort, order] of [
      ['title', 'by-title'],
      ['composer', 'by-composer'],
    ] as const) {
      // 26 works, 5 a page on average and at most 20.
      expect(keys[sort].length).toBeGreaterThanOrEqual(2);
      expect(new Set(keys[sort]).size).toBe(keys[sort].length);
      expect(pagesOf(baseDir, order)).toEqual(keys[sort].slice(1).map((_, i) => i + 2));
    }
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

  it('a profile page lists the first works that use it, as many as a listing page holds', () => {
    const view = SiteView.open(baseDir);
    const pages = view.filesUnder('profiles').filter((f) => /^profiles\/[^/]+\/index\.html$/.test(f));
    expect(pages.length).toBeGreaterThan(0);
    let cut = 0;
    for (const file of pages) {
      const html = readFileSync(view.locate(file)!, 'utf8');
      const usage = /<section aria-labelledby="usage">([\s\S]*?)<\/section>/.exec(html)![1]!;
      const listed = usage.match(/<li>/g)?.length ?? 0;
      expect(listed, file).toBeLessThanOrEqual(5);
      const more = /The first (\d+) of (\d+) works, by slug; the <a href="([^"]+)">JSON record<\/a>/.exec(usage);
      if (more) {
        cut++;
        expect(Number(more[1])).toBe(listed);
        expect(Number(more[2])).toBeGreaterThan(5);
        expect(more[3]).toBe(`${BASE_URL}/api/v1/profiles/${file.split('/')[1]}`);
      }
    }
    // The sample's most used profiles are used by more than five works.
    expect(cut).toBeGreaterThan(0);
  });

  let corrected = '';
  it('a correction that keeps a work in place renders only the pages that show it', async () => {
    // Appended to the title: the work keeps its place in both orders.
    const file = builds.work('faure-pavane-op-50');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^title: (.*)$/m, 'title: $1 (revised)'));
    const commit = await builds.commitAll('Retitle the Pavane in place');
    const { incremental, differences } = await builds.buildBoth(commit, baseDir, 'correction');
    const info = buildInfo(incremental);
    expect(info.fallbackReason ?? null).toBeNull();
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

  it('a removed work renders its own page, and a page past the new last one goes', async () => {
    expect(corrected).not.toBe('');
    // A work that starts a page of the title order (the last such page whose first work's composer
    // has another work: removing a composer's last work is a full build): with it gone, that page
    // joins the one before it unless the next work is a cut too (src/domain/listing-pages.ts).
    const lastPages = pagesOf(corrected, 'by-title');
    const view = SiteView.open(corrected);
    const items = (n: number) =>
      [
        ...readFileSync(view.locate(n === 1 ? 'works/index.html' : `works/by-title/${n}/index.html`)!, 'utf8').matchAll(
          /<li><a href="\/works\/([a-z0-9-]+)\/">[^<]*<\/a>[^<]*? — ([^<]+?) ?(?:<span|<br|<\/li)/g,
        ),
      ].map((m) => ({ slug: m[1]!, composer: m[2]! }));
    const all = [1, ...lastPages].flatMap(items);
    const worksOf = (composer: string) => all.filter((w) => w.composer === composer).length;
    expect(all.length).toBe(26);
    const starts = lastPages.map((n) => ({ n, work: items(n)[0]! }));
    const chosen = starts
      .reverse()
      .find(({ work }) => work.slug !== 'bach-air-orchestral-suite-3' && worksOf(work.composer) > 1);
    expect(chosen).toBeDefined();
    const first = chosen!.work.slug;
    for (const slug of ['bach-air-orchestral-suite-3', first!])
      rmSync(path.join(repo, 'works', slug), { recursive: true, force: true });
    const commit = await builds.commitAll('Remove one of Bach’s works, and the first work of the last page');
    const { incremental, full, differences } = await builds.buildBoth(commit, corrected, 'removed');
    const info = buildInfo(incremental);
    expect(info.fallbackReason ?? null).toBeNull();
    expect(info.mode).toBe('incremental');
    // It was the sample's only work of its genre: the meaning vocabulary changes, so the resolve
    // catalog is built from the records rather than merged from the base's (still a full build's
    // bytes); the listing stays an overlay over the plain base's files (api/catalog/index-layers.ts),
    // which holds the first change and this one.
    expect(info.catalogIndex.listing).toBe('overlay');
    expect(existsSync(path.join(incremental, 'index', 'works.idx'))).toBe(false);
    expect(info.catalogIndex.resolve).toBe('built');
    expect(info.catalogIndex.resolveBuiltBecause).toContain('genres changed');
    expect(differences).toEqual([]);
    const before = worksKeysOf(corrected);
    const after = worksKeysOf(incremental);
    expect(after).toEqual(worksKeysOf(full));
    for (const [sort, order] of [
      ['title', 'by-title'],
      ['composer', 'by-composer'],
    ] as const) {
      // The view holds exactly the pages 2.. of the new count, as the full build does.
      expect(pagesOf(incremental, order)).toEqual(after[sort].slice(1).map((_, i) => i + 2));
      expect(pagesOf(full, order)).toEqual(pagesOf(incremental, order));
    }
    // Only the pages whose key changed were rendered again: with the page count unchanged, not the
    // pages after the removed works (they do not state the total).
    const rendered = info.incremental.worksIndexPages as { title: number; composer: number };
    expect(rendered.title).toBe(changedWorksPages(before.title, after.title));
    expect(rendered.composer).toBe(changedWorksPages(before.composer, after.composer));
    if (after.composer.length === before.composer.length)
      expect(rendered.composer).toBeLessThan(after.composer.length - 1);
    // The work that started page `chosen.n` is gone: that page joined the one before it (or its
    // next work is a cut and it stayed); a page past the new last one is gone from the view, and
    // the base it was built on still has it.
    expect(after.title.length).toBeLessThanOrEqual(before.title.length);
    if (after.title.length < before.title.length) {
      expect(pagesOf(incremental, 'by-title')).not.toContain(lastPages.at(-1));
      expect(rendered.title).toBeGreaterThanOrEqual(1);
    }
    expect(pagesOf(corrected, 'by-title')).toEqual(lastPages);
    // Browse values: the view holds each value's pages as the full build does.
    expect(browsePagesOf(incremental)).toEqual(browsePagesOf(full));
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
    // No keys to compare with: every page 2.. of both orders.
    const keys = worksKeysOf(incremental);
    expect(info.incremental.worksIndexPages).toEqual({
      title: keys.title.length - 1,
      composer: keys.composer.length - 1,
    });
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
