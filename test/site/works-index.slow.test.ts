/**
 * The works index for people (/works/, the "Works" link): every work, paged, in title and in
 * composer order, with the catalog's facets. Checked on the sample build, and on a generated
 * catalog of 230 works built in batches of 100 (so the index spans pages and is rendered by the
 * listings run): every work exactly once per order, in order, no page over the bound, and pages
 * 2.. free of the catalog's total (src/domain/listing-pages.ts: a new work changes its own page).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateCatalog } from '../../scripts/generate-catalog.ts';
import { openApp, PROJECT_ROOT, type TestApp } from '../helpers/app.ts';
import { pageWindow, WORKS_INDEX_PAGE_SIZE } from '../../src/lib/site/works-index.ts';
import { maxPageWorks, minPageWorks } from '../../src/domain/listing-pages.ts';
import { fold } from '../../src/domain/text.ts';

const run = promisify(execFile);
const BROWSER = 'text/html,*/*;q=0.8';
/** The fixed bound a works index page stays under, whatever the catalog's size. */
const MAX_PAGE_BYTES = 96 * 1024;

const workLinks = (html: string) =>
  [...html.matchAll(/<ul class="works">([\s\S]*?)<\/ul>/g)].flatMap((m) =>
    [...m[1]!.matchAll(/<a href="\/works\/([a-z0-9-]+)\/">([^<]*)<\/a>/g)].map((l) => ({ slug: l[1]!, title: l[2]! })),
  );

describe('the works index on the sample', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await openApp();
  });
  afterAll(() => t?.close());

  it('the Works link leads to /works/, which lists every work with facets, in both orders', async () => {
    const home = await t.app.inject({ url: '/', headers: { accept: BROWSER } });
    expect(home.body).toMatch(/<a href="\/works\/"[^>]*>Works<\/a>/);
    const listing = (await t.request({ url: '/api/v1/works?pageSize=100' })).json().data;
    const all = (listing.items as Array<{ slug: string }>).map((w) => w.slug).sort();
    for (const url of ['/works/', '/works/by-composer/']) {
      const res = await t.app.inject({ url, headers: { accept: BROWSER } });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(
        workLinks(res.body)
          .map((l) => l.slug)
          .sort(),
      ).toEqual(all);
      expect(res.body).toContain(`${all.length} works`);
      for (const facet of ['Periods', 'Genres', 'Instruments', 'Music roles'])
        expect(res.body).toContain(`<h3>${facet}</h3>`);
      expect(res.body).toContain('href="/browse/period/');
    }
    const titles = workLinks((await t.app.inject({ url: '/works/' })).body).map((l) => fold(l.title));
    expect(titles).toEqual([...titles].sort((a, b) => a.localeCompare(b)));
    // 26 works fit one page: there is no second.
    expect((await t.app.inject({ url: '/works/by-title/2/' })).statusCode).toBe(404);
  });

  it('work pages keep a space on both sides of every "·" separator', async () => {
    for (const slug of ['satie-gymnopedie-1', 'bach-cello-suite-1-prelude']) {
      const html = (await t.app.inject({ url: `/works/${slug}/` })).body;
      expect(html).toContain('Download all public files');
      expect(html).not.toMatch(/·<a|<\/a>·/);
    }
  });

  it('page links: first, last, three either side, gaps marked', () => {
    expect(pageWindow(1, 1)).toEqual([1]);
    expect(pageWindow(1, 3)).toEqual([1, 2, 3]);
    expect(pageWindow(10, 1000)).toEqual([1, null, 7, 8, 9, 10, 11, 12, 13, null, 1000]);
    expect(pageWindow(1000, 1000)).toEqual([1, null, 997, 998, 999, 1000]);
  });
});

describe('the works index over pages (230 generated works, built in batches)', () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-works-index-'));
  let client: string;
  let slugs: string[];
  beforeAll(async () => {
    const generated = await generateCatalog({ works: 230, outDir: path.join(root, 'content'), seed: 7 });
    slugs = generated.slugs;
    await run(
      process.execPath,
      [
        path.join(PROJECT_ROOT, 'scripts', 'build.ts'),
        ...['--content', path.join(root, 'content'), '--out', path.join(root, 'build')],
        ...['--base-url', 'https://works-index.example.test', '--batch-works', '100', '--quiet'],
      ],
      { cwd: PROJECT_ROOT, maxBuffer: 64 * 1024 * 1024 },
    );
    client = path.join(root, 'build', 'client');
  }, 900_000);
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const pageFile = (sort: 'title' | 'composer', n: number) =>
    path.join(
      client,
      'works',
      ...(sort === 'title'
        ? n === 1
          ? []
          : ['by-title', String(n)]
        : n === 1
          ? ['by-composer']
          : ['by-composer', String(n)]),
      'index.html',
    );

  /** The pages of one order, from page 1 to the last one its folder holds. */
  const pagesOf = (sort: 'title' | 'composer'): string[] => {
    const out: string[] = [];
    for (let n = 1; n <= 230; n++) {
      try {
        out.push(readFileSync(pageFile(sort, n), 'utf8'));
      } catch {
        break;
      }
    }
    return out;
  };

  it.each(['title', 'composer'] as const)('by %s: every work once, pages within the bounds', (sort) => {
    const pages = pagesOf(sort);
    // 230 works, 100 a page on average: two pages at least, and no page over four times the size.
    expect(pages.length).toBeGreaterThanOrEqual(Math.ceil(230 / maxPageWorks(WORKS_INDEX_PAGE_SIZE)));
    expect(pages.length).toBeGreaterThan(1);
    const seen: string[] = [];
    for (const [i, html] of pages.entries()) {
      const n = i + 1;
      expect(Buffer.byteLength(html)).toBeLessThan(MAX_PAGE_BYTES);
      const links = workLinks(html);
      expect(links.length).toBeLessThanOrEqual(maxPageWorks(WORKS_INDEX_PAGE_SIZE));
      if (n < pages.length) expect(links.length).toBeGreaterThanOrEqual(minPageWorks(WORKS_INDEX_PAGE_SIZE));
      seen.push(...links.map((l) => l.slug));
      expect(html).toContain(`page ${n} of ${pages.length}`);
      if (n < pages.length) expect(html).toContain(`rel="next"`);
      // Only page 1 states the catalog's total and facet counts: a new work elsewhere leaves pages 2.. alone.
      if (n === 1) expect(html).toContain('230 works');
      else {
        expect(html).not.toContain('230 works');
        expect(html).not.toContain('<h3>Periods</h3>');
        expect(html).toContain(`${links.length} work`);
      }
    }
    expect([...seen].sort()).toEqual([...slugs].sort());
    expect(new Set(seen).size).toBe(slugs.length);
  });

  it('title order runs on across pages', () => {
    const titles = pagesOf('title').flatMap((html) => workLinks(html).map((l) => fold(l.title)));
    expect(titles).toHaveLength(230);
    expect(titles).toEqual([...titles].sort((a, b) => a.localeCompare(b)));
  });
});
