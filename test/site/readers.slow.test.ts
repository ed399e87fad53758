/**
 * The reader's pages in a real browser (Debian Chromium through playwright-core), against the sample
 * catalog built once for the whole run (test/setup/global-build.ts) under the base URL
 * https://archive.example.test:8443 and served here at http://127.0.0.1:<port>: so every page
 * in this file is a build made for one host, opened at another. Requests that leave loopback
 * are blocked and fail the test, so a page that still loaded anything from its build-time host
 * would fail here.
 *
 * Covered: every page type at 1280 and 390 px with no console errors and no sideways scroll;
 * search and tracking at the second host (and tracking without JavaScript); the score at
 * 390 px with a staff of at least MIN_STAFF_PX; the PDF link (application/pdf, one page per
 * engraved SVG page); the zip with its SHA256SUMS; the print stylesheet; the API page.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { unzipSync } from 'fflate';
import { launchBrowser, openPage, SKIP_BROWSER_TESTS, type PageProbe } from '../helpers/browser.ts';
import { openApp, type TestApp } from '../helpers/app.ts';
import { MIN_STAFF_PX, NARROW_PAGE_PX } from '../../src/lib/site/scores.ts';
import { renderScores } from '../../src/lib/site/render-scores.ts';
import type { Catalog } from '../../src/domain/catalog.ts';
import { svgPagesToPdf } from '../../src/lib/site/score-pdf.ts';
import { expectEach } from '../helpers/expect-each.ts';

const WORK = 'satie-gymnopedie-1';

/** Pages of a PDF: the page objects, and the page tree's own count (they must agree). */
function pdfPageCount(bytes: Buffer): { objects: number; count: number } {
  const text = bytes.toString('latin1');
  const objects = (text.match(/\/Type\s*\/Page(?![s\w])/g) ?? []).length;
  const count = Number(/\/Type\s*\/Pages[\s\S]*?\/Count\s+(\d+)/.exec(text)?.[1] ?? NaN);
  return { objects, count };
}

/**
 * Staff height of a Verovio SVG in CSS px when the image is drawn `shownWidth` px wide: the
 * distance between the outer lines of the first five-line staff, through the inner viewBox
 * (Verovio units) and the outer width (px).
 */
function staffHeightPx(svg: string, shownWidth: number): number {
  const outer = Number(/<svg[^>]*\swidth="([\d.]+)px"/.exec(svg)?.[1]);
  const viewBoxWidth = Number(/class="definition-scale"[^>]*viewBox="[\d.]+ [\d.]+ ([\d.]+) [\d.]+"/.exec(svg)?.[1]);
  const staff = /class="staff">([\s\S]*?)<g /.exec(svg)?.[1] ?? '';
  const ys = [...staff.matchAll(/<path d="M[\d.]+ ([\d.]+) L[\d.]+ ([\d.]+)"/g)]
    .filter((m) => m[1] === m[2])
    .map((m) => Number(m[1]));
  expect(ys.length, 'five staff lines').toBeGreaterThanOrEqual(5);
  const span = Math.max(...ys.slice(0, 5)) - Math.min(...ys.slice(0, 5));
  return span * (outer / viewBoxWidth) * (shownWidth / outer);
}

describe('score PDFs have one page per engraved page', () => {
  it('renders three SVG pages into a three-page PDF', async () => {
    const page = (n: number) =>
      `<svg width="840px" height="200px" xmlns="http://www.w3.org/2000/svg"><svg class="definition-scale" viewBox="0 0 21000 5000"><text x="100" y="1000" font-size="400px">Page ${n}</text><path d="M100 2000 L20000 2000" stroke="#000" stroke-width="13"/></svg></svg>`;
    const { bytes } = await svgPagesToPdf([page(1), page(2), page(3)], {
      title: 't',
      author: 'a',
      subject: 's',
      createdAt: new Date('2026-11-23T00:00:00Z'),
    });
    expect(bytes.subarray(0, 5).toString('latin1')).toBe('%PDF-');
    expect(pdfPageCount(bytes)).toEqual({ objects: 3, count: 3 });
  });
});

describe('a long score: as many PDF pages as engraved SVG pages, and a phone engraving', () => {
  it('engraves 120 bars to several pages and the PDF has exactly that many', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'pdma-long-score-'));
    try {
      const steps = ['C', 'D', 'E', 'F', 'G', 'A', 'B'];
      const measures = Array.from({ length: 120 }, (_, i) => {
        const notes = [0, 1, 2, 3]
          .map(
            (k) =>
              `<note><pitch><step>${steps[(i + k) % 7]}</step><octave>4</octave></pitch><duration>1</duration><type>quarter</type></note>`,
          )
          .join('');
        const attributes =
          i === 0
            ? '<attributes><divisions>1</divisions><key><fifths>0</fifths></key><time><beats>4</beats><beat-type>4</beat-type></time><clef><sign>G</sign><line>2</line></clef></attributes>'
            : '';
        return `<measure number="${i + 1}">${attributes}${notes}</measure>`;
      });
      const xml = `<?xml version="1.0" encoding="UTF-8"?><score-partwise version="4.0"><part-list><score-part id="P1"><part-name>Piano</part-name></score-part></part-list><part id="P1">${measures.join('')}</part></score-partwise>`;
      const file = path.join(dir, 'long.musicxml');
      writeFileSync(file, xml);
      const work = {
        content: {
          slug: 'long-work',
          title: 'Long work',
          composer: { name: 'Test' },
          sourceAssets: [{ id: 1, kind: 'musicxml', access: 'public', file: 'long.musicxml', title: 'Long score' }],
        },
        files: new Map([['long.musicxml', { name: 'long.musicxml', absolutePath: file, sha256: '', byteLength: 0 }]]),
      };
      const { manifest } = await renderScores(
        { works: [work], profiles: [], instruments: [], genres: null } as unknown as Catalog,
        path.join(dir, 'out'),
        { generatedAtUtc: '2026-11-23T00:00:00Z' },
      );
      const score = manifest.scores['long-work/1']!;
      expect(score.status).toBe('rendered');
      if (score.status !== 'rendered') return;
      expect(score.pages.length).toBeGreaterThan(1);
      expect(score.narrowPages.length).toBeGreaterThan(score.pages.length);
      expectEach(score.narrowPages, (p) => p.width === NARROW_PAGE_PX);
      const pdf = readFileSync(path.join(dir, 'out', 'files', 'works', 'long-work', 'score', '1', 'score.pdf'));
      expect(pdfPageCount(pdf)).toEqual({ objects: score.pages.length, count: score.pages.length });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(SKIP_BROWSER_TESTS)('readers: any address, phones, print, PDF and zip (Chromium)', () => {
  let t: TestApp;
  let browser: Browser;
  let url: string;
  let dataDir: string;
  const baseUrl = inject('testBaseUrl');

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'pdma-readers-'));
    t = await openApp(inject('sampleBuildDir'), { ARCHIVE_DATA_DIR: dataDir });
    const [address] = await Promise.all([
      t.app.listen({ port: 0, host: '127.0.0.1' }),
      (async () => (browser = await launchBrowser()))(),
    ]);
    url = address;
    expect(new URL(url).host).not.toBe(new URL(baseUrl).host);
  });
  afterAll(async () => {
    await browser?.close();
    await t?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  async function open(p: string, options: { width?: number; javaScript?: boolean } = {}): Promise<PageProbe> {
    const probe = await openPage(browser, options);
    await probe.page.goto(`${url}${p}`, { waitUntil: 'load' });
    return probe;
  }
  async function done(probe: PageProbe) {
    expect({ errors: probe.errors, console: probe.consoleErrors, external: probe.external }).toEqual({
      errors: [],
      console: [],
      external: [],
    });
    await probe.context.close();
  }
  const overflow = (page: Page) =>
    page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);

  it(
    'every page type, at 1280 and 390 px: no console errors, nothing scrolls sideways',
    { timeout: 180_000 },
    async () => {
      const profile = readdirSync(path.join(t.buildDir, 'client', 'profiles')).find((name) => name !== 'index.html')!;
      const pages = [
        '/',
        '/browse/',
        '/browse/genre/keyboard-music/',
        '/browse/period/baroque/',
        '/browse/instrument/piano/',
        '/browse/role/music-bed/',
        '/composers/',
        '/people/',
        '/people/satie-erik/',
        '/search/?query=bach',
        `/works/${WORK}/`,
        '/works/dvorak-symphony-9-largo/',
        `/works/${WORK}/score/1/`,
        '/track/',
        '/track/R-2222-3333-4444-5555',
        '/instruments/',
        '/profiles/',
        `/profiles/${profile}/`,
        '/api-docs/',
        '/problems/not-found/',
      ];
      const found: Array<{ path: string; width: number; overflow: number }> = [];
      for (const width of [1280, 390]) {
        const probe = await openPage(browser, { width });
        for (const p of pages) {
          const res = await probe.page.goto(`${url}${p}`, { waitUntil: 'load' });
          // A tracking code no record has is a page that says so, with the status 404.
          const expected = p.startsWith('/track/R-') ? 404 : 200;
          expect({ p, status: res?.status() }).toEqual({ p, status: expected });
          if (p.startsWith('/search/')) await probe.page.locator('#search-status', { hasText: 'found' }).waitFor();
          // Everything shown on the page loaded, lazy images included (hidden ones never load).
          await probe.page.evaluate(async () => {
            window.scrollTo(0, document.body.scrollHeight);
            await new Promise((r) => setTimeout(r, 50));
            const shown = [...document.images].filter((img) => img.getClientRects().length > 0 && !img.complete);
            const loaded = Promise.all(
              shown.map(
                (img) =>
                  new Promise((r) => {
                    img.addEventListener('load', r, { once: true });
                    img.addEventListener('error', r, { once: true });
                  }),
              ),
            );
            await Promise.race([loaded, new Promise((r) => setTimeout(r, 5000))]);
          });
          found.push({ path: p, width, overflow: await overflow(probe.page) });
        }
        // The API page stays readable with every operation and schema opened.
        await probe.page.goto(`${url}/api-docs/`);
        await probe.page.evaluate(() =>
          document.querySelectorAll('details').forEach((d) => d.setAttribute('open', '')),
        );
        found.push({ path: '/api-docs/ (all open)', width, overflow: await overflow(probe.page) });
        // The one expected message: Chromium logs the unknown tracking code's 404 document.
        const expected404 = /status of 404 .*\/track\/R-2222-3333-4444-5555\)$/;
        expect(probe.consoleErrors.filter((e) => expected404.test(e)).length).toBeLessThanOrEqual(1);
        probe.consoleErrors = probe.consoleErrors.filter((e) => !expected404.test(e));
        expect(probe.consoleErrors, `console errors at ${width} px`).toEqual([]);
        await done(probe);
      }
      expect(found.filter((f) => f.overflow > 0)).toEqual([]);
    },
  );

  it('search works at an address the build was not made for', async () => {
    const probe = await open('/search/');
    await probe.page.locator('#search-form[data-ready="true"]').waitFor();
    await probe.page.getByLabel('Title, composer, catalog number or instrument').fill('gymnopedie');
    await probe.page.keyboard.press('Enter');
    await probe.page.locator('#search-status', { hasText: 'found' }).waitFor();
    const hrefs = await probe.page
      .locator('#search-results a')
      .evaluateAll((as) => as.map((a) => (a as unknown as { href: string }).href));
    expect(hrefs).toContain(`${url}/works/${WORK}/`);
    // The genre filter offers the vocabulary's broader terms, not one value per work.
    const genres = await probe.page
      .locator('#search-genre option')
      .evaluateAll((os) => os.map((o) => (o as unknown as { value: string }).value).filter(Boolean));
    expect(genres).toContain('Keyboard music');
    expect(genres.length).toBeLessThanOrEqual(6);
    await done(probe);
  });

  it('tracking works at the second address, with JavaScript, from the static page, and without JavaScript', async () => {
    const res = await fetch(`${url}/api/v1/correction-reports`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify({
        workSlug: WORK,
        targetType: 'work',
        targetId: null,
        fieldName: 'year',
        currentValue: '1888',
        proposedValue: '1888 (published 1888)',
        rationale: 'Checked against the first edition.',
        evidenceUrl: 'https://en.wikipedia.org/wiki/Gymnop%C3%A9dies',
        reporterName: 'Reader test',
        reporterKind: 'AiAssisted',
      }),
    });
    expect(res.status).toBe(202);
    const code = ((await res.json()) as { data: { trackingCode: string } }).data.trackingCode;

    // Without JavaScript: the server put the record on the page, in words.
    const plain = await open(`/track/${code}`, { javaScript: false });
    const text = await plain.page.locator('#track-result').innerText();
    expect(await plain.page.locator('#track-result [data-status]').innerText()).toBe('pending');
    expect(text).toContain('Nothing in the catalog has changed');
    expect(text).toContain('The work itself');
    expect(text).not.toMatch(/\bwork\b\s*$|targetType|AiAssisted/m);
    // The page's own form without JavaScript goes to the shareable address.
    await plain.page.goto(`${url}/track/`);
    await plain.page.getByLabel('Tracking code').fill(code.toLowerCase());
    await plain.page.getByRole('button', { name: 'Show' }).click();
    await plain.page.waitForURL(`${url}/track/${code}`);
    expect(await plain.page.locator('#track-result [data-status]').innerText()).toBe('pending');
    await done(plain);

    // With JavaScript on the bare static page (as nginx serves it): the script asks its own origin.
    const staticPage = await (await fetch(`${url}/track/`)).text();
    const probe = await openPage(browser);
    const asked: string[] = [];
    probe.page.on('request', (r) => asked.push(r.url()));
    await probe.page.route(/\/track\/R-[^/]+$/, (route) =>
      route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: staticPage }),
    );
    await probe.page.goto(`${url}/track/${code}`);
    await probe.page.locator('#track-result [data-status]').waitFor();
    expect(await probe.page.locator('#track-result').innerText()).toContain('The work itself');
    expect(asked).toContain(`${url}/api/v1/correction-reports/${code}`);
    await done(probe);
  });

  it('the score reads on a 390 px phone: the staff is at least MIN_STAFF_PX tall (and the wide page there would not be)', async () => {
    expect(MIN_STAFF_PX).toBe(24);
    for (const p of [`/works/${WORK}/`, `/works/${WORK}/score/1/`]) {
      const probe = await open(p, { width: 390 });
      const img = probe.page
        .locator(p.includes('/score/') ? '.score-narrow figure.score img' : 'figure.score img')
        .first();
      await img.scrollIntoViewIfNeeded();
      await probe.page.waitForFunction(
        (sel) => {
          const el = document.querySelector(sel) as HTMLImageElement | null;
          return el !== null && el.complete && el.naturalWidth > 0;
        },
        p.includes('/score/') ? '.score-narrow figure.score img' : 'figure.score img',
      );
      const shown = await img.evaluate((el) => ({
        src: (el as HTMLImageElement).currentSrc,
        width: el.getBoundingClientRect().width,
      }));
      expect(shown.src).toMatch(/\/narrow-page-1\.svg$/);
      const svg = await (await fetch(shown.src)).text();
      const staff = staffHeightPx(svg, shown.width);
      expect({ p, staff: Math.round(staff * 10) / 10 }).toEqual({ p, staff: expect.any(Number) });
      expect(staff).toBeGreaterThanOrEqual(MIN_STAFF_PX);
      // The 840 px page squeezed into the same width would fall far below the promise.
      const wide = await (await fetch(`${url}/works/${WORK}/score/1/page-1.svg`)).text();
      expect(staffHeightPx(wide, shown.width)).toBeLessThan(MIN_STAFF_PX);
      if (p.includes('/score/')) expect(await probe.page.locator('.score-wide').isVisible()).toBe(false);
      await done(probe);
    }
    // On a desktop the wide page is shown, at the same staff size.
    const desk = await open(`/works/${WORK}/`, { width: 1280 });
    const img = desk.page.locator('figure.score img').first();
    await img.scrollIntoViewIfNeeded();
    await desk.page.waitForFunction(
      () => (document.querySelector('figure.score img') as HTMLImageElement | null)?.complete === true,
    );
    const shown = await img.evaluate((el) => ({
      src: (el as HTMLImageElement).currentSrc,
      width: el.getBoundingClientRect().width,
    }));
    expect(shown.src).toMatch(/\/page-1\.svg$/);
    expect(staffHeightPx(await (await fetch(shown.src)).text(), shown.width)).toBeGreaterThanOrEqual(MIN_STAFF_PX);
    await done(desk);
  });

  it('the PDF link answers application/pdf with one page per engraved SVG page, and the record lists it', async () => {
    const probe = await open(`/works/${WORK}/score/1/`);
    const href = await probe.page
      .locator('a[type="application/pdf"]')
      .first()
      .evaluate((a) => (a as HTMLAnchorElement).href);
    const svgPages = await probe.page.locator('.score-wide figure.score').count();
    expect(svgPages).toBeGreaterThan(0);
    const res = await fetch(href);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const bytes = Buffer.from(await res.arrayBuffer());
    expect(pdfPageCount(bytes)).toEqual({ objects: svgPages, count: svgPages });
    await done(probe);
    const work = (await (await fetch(`${url}/api/v1/works/${WORK}`)).json()) as {
      data: { sourceAssets: Array<{ id: number; links: { pdf?: string } }>; links: { filesZip: string } };
    };
    expect(work.data.sourceAssets.find((a) => a.id === 1)?.links.pdf).toBe(
      `${baseUrl}/works/${WORK}/score/1/score.pdf`,
    );
    expect(work.data.links.filesZip).toBe(`${baseUrl}/works/${WORK}/${WORK}.zip`);
  });

  it.each([WORK, 'dvorak-symphony-9-largo'])(
    'the zip of %s lists its public files with their SHA-256, and holds nothing that is not public',
    async (WORK) => {
      const probe = await open(`/works/${WORK}/`);
      const href = await probe.page
        .locator('a[type="application/zip"]')
        .first()
        .evaluate((a) => (a as HTMLAnchorElement).href);
      await done(probe);
      expect(href).toBe(`${url}/works/${WORK}/${WORK}.zip`);
      const res = await fetch(href);
      expect(res.headers.get('content-type')).toBe('application/zip');
      const files = unzipSync(new Uint8Array(await res.arrayBuffer()));
      const names = Object.keys(files).sort();
      const sums = new Map(
        Buffer.from(files[`${WORK}/SHA256SUMS`]!)
          .toString('utf8')
          .trim()
          .split('\n')
          .map((line) => {
            const [digest, name] = line.split(/ {2}/);
            return [`${WORK}/${name}`, digest!] as const;
          }),
      );
      expect([...sums.keys()].sort()).toEqual(names.filter((n) => n !== `${WORK}/SHA256SUMS`));
      for (const [name, digest] of sums)
        expect({ name, digest }).toEqual({ name, digest: createHash('sha256').update(files[name]!).digest('hex') });
      for (const want of ['record.json', 'record.md', 'README.txt', 'score/1/score.pdf', 'score/1/score.mid'])
        expect(names).toContain(`${WORK}/${want}`);
      expect(names.some((n) => n.endsWith('.mp3'))).toBe(true);
      // The records in the zip are the records as served, byte for byte.
      const served = Buffer.from(await (await fetch(`${url}/api/v1/works/${WORK}`)).arrayBuffer());
      expect(Buffer.from(files[`${WORK}/record.json`]!).equals(served)).toBe(true);
      // Nothing that is not public: every stored file in the zip is a public asset of the record.
      const record = JSON.parse(served.toString('utf8')).data as {
        sourceAssets: Array<{ access: string; links: { download: string | null } }>;
        arrangements: Array<{ assets: Array<{ access: string; links: { download: string | null } }> }>;
      };
      const assets = [...record.sourceAssets, ...record.arrangements.flatMap((a) => a.assets)];
      for (const name of names.filter((n) => n.startsWith(`${WORK}/files/`))) {
        const file = name.slice(`${WORK}/files/`.length);
        const asset = assets.find((a) => a.links.download?.endsWith(`/files/${encodeURIComponent(file)}`));
        expect({ file, access: asset?.access }).toEqual({ file, access: 'public' });
      }
      // Every public stored file is there; the Dvořák work's administrator-only recording is not.
      const publicStored = assets.filter(
        (a) => a.access === 'public' && a.links.download?.includes(`/works/${WORK}/files/`),
      );
      expect(names.filter((n) => n.startsWith(`${WORK}/files/`))).toHaveLength(publicStored.length);
      if (WORK.startsWith('dvorak')) expect(assets.some((a) => a.access === 'admin-only')).toBe(true);
    },
  );

  it('prints the work page without navigation, forms or players', async () => {
    const probe = await open(`/works/${WORK}/`);
    await probe.page.emulateMedia({ media: 'print' });
    for (const sel of ['.site-header nav', '#correction-form', 'audio', '.site-footer']) {
      expect({ sel, visible: await probe.page.locator(sel).first().isVisible() }).toEqual({ sel, visible: false });
    }
    expect(await probe.page.locator('figure.score img').first().isVisible()).toBe(true);
    expect(await probe.page.locator('#rights-panel').isVisible()).toBe(true);
    await done(probe);
  });

  it('the rights panel says in words what linked pages are, and scores say they are excerpts', async () => {
    const probe = await open('/works/bach-cello-suite-1-prelude/');
    const pages = await probe.page.locator('#linked-page-rights').innerText();
    expect(pages).toContain('is a Wikipedia article: its text is licensed CC BY-SA 4.0');
    expect(pages).toContain('is an IMSLP work page: a catalog page');
    await done(probe);
    const work = await open(`/works/${WORK}/`);
    expect(await work.page.locator('figure.score [data-excerpt]').innerText()).toBe(
      'Excerpt: bars 1–9 (9 of 78 bars).',
    );
    await done(work);
  });

  it('the API page: contents, collapsed operations with the example first, no 429 on reads, no literal backticks', async () => {
    const probe = await open('/api-docs/', { width: 390 });
    const { page } = probe;
    expect(await page.locator('nav.api-contents a').count()).toBeGreaterThan(30);
    const ops = page.locator('details.op[id]:not([id^="schema-"])');
    const n = await ops.count();
    expect(n).toBeGreaterThan(30);
    expect(await page.locator('details.op[open]').count()).toBe(0);
    const height = await page.evaluate(() => document.documentElement.scrollHeight);
    expect(height).toBeLessThan(20_000);
    const summary = await page.evaluate(() =>
      [...document.querySelectorAll('details.op[id]:not([id^="schema-"])')].map((d) => ({
        method: d.querySelector('summary .method')?.textContent,
        firstLabel: d.querySelector('p.label')?.textContent ?? '',
        statuses: [...d.querySelectorAll('tr[data-status]')].map((tr) => tr.getAttribute('data-status')),
      })),
    );
    expectEach(summary, (s) => s.firstLabel === 'Example request');
    // Public reads are not rate-limited; a read that takes a key passes the credential limiter.
    expect(
      summary.filter((s) => s.method === 'GET' && !s.statuses.includes('401') && s.statuses.includes('429')),
    ).toEqual([]);
    expect(summary.some((s) => s.method === 'POST' && s.statuses.includes('429'))).toBe(true);
    expect(await page.locator('main').innerText()).not.toContain('`');
    // A contents link goes to its operation, whose summary opens it.
    await page.locator('nav.api-contents a[href="#getWork"]').click();
    await page.waitForURL(/#getWork$/);
    expect(await page.locator('details#getWork').evaluate((d) => Math.abs(d.getBoundingClientRect().top) < 50)).toBe(
      true,
    );
    await page.locator('details#getWork > summary').click();
    expect(await page.locator('details#getWork').getAttribute('open')).not.toBeNull();
    expect(await page.locator('details#getWork pre').first().isVisible()).toBe(true);
    await done(probe);
  });
});
