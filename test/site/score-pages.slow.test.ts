/**
 * Every page of a long score is reachable, light on the wire: the largest string quartet of
 * ../shared/corpora (96 pages) built into a site and read in real Chromium at 1280 and 390 px.
 * The score page's HTML holds the first pages and a link to every page; the script loads the rest
 * as the reader scrolls or pages, and "Page N of M" says where the reader is. The PDF holds all 96
 * pages, checked through the served file.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openApp, PROJECT_ROOT, type TestApp, listenOnLoopback } from '../helpers/app.ts';
import { launchBrowser, openPage, screenshot, SKIP_BROWSER_TESTS, type PageProbe } from '../helpers/browser.ts';
import { corpusContent, CORPUS_WORK, LARGEST_QUARTET, LARGEST_QUARTET_PAGES } from '../helpers/corpus-score.ts';
import { FIRST_PAGES_SHOWN, type ScoreManifest } from '../../src/lib/site/scores.ts';

const SCORE = `/works/${CORPUS_WORK}/score/1/`;
/** The machine is shared: waits are generous, and a miss still fails. */
const POLL = { timeout: 60_000 };
const LONG = 600_000;
const TITLE = 'String Quartet in D minor (MusicXML)';

/** Pages of a PDF: the page objects, and the page tree's own count (they must agree). */
function pdfPageCount(bytes: Buffer): { objects: number; count: number } {
  const text = bytes.toString('latin1');
  const objects = (text.match(/\/Type\s*\/Page(?![s\w])/g) ?? []).length;
  const count = Number(/\/Type\s*\/Pages[\s\S]*?\/Count\s+(\d+)/.exec(text)?.[1] ?? NaN);
  return { objects, count };
}

describe.skipIf(SKIP_BROWSER_TESTS)('a 96-page quartet on the site (Chromium)', { timeout: LONG }, () => {
  const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-score-pages-'));
  const out = path.join(root, 'build');
  let t: TestApp;
  let browser: Browser;
  let url: string;
  let phonePages: number;

  beforeAll(async () => {
    const content = path.join(root, 'content');
    corpusContent(content, LARGEST_QUARTET, TITLE);
    const build = spawnSync(
      process.execPath,
      ['scripts/build.ts', '--content', content, '--out', out, '--base-url', 'https://scores.example.test', '--quiet'],
      {
        cwd: PROJECT_ROOT,
        encoding: 'utf8',
        // The quartet is the largest score there is: on a loaded 2-core machine its engraving can
        // take longer than the engraving pool's default per-score budget, which is not under test here.
        env: { ...process.env, ARCHIVE_ENGRAVE_TIMEOUT_MS: '3600000' },
      },
    );
    expect(build.status, `${build.stdout}${build.stderr}`).toBe(0);
    const manifest = JSON.parse(readFileSync(path.join(out, 'scores-manifest.json'), 'utf8')) as ScoreManifest;
    const score = manifest.scores[`${CORPUS_WORK}/1`]!;
    expect(score.status).toBe('rendered');
    if (score.status !== 'rendered') return;
    expect(score.pageCount).toBe(LARGEST_QUARTET_PAGES);
    expect(score.pages.length).toBe(LARGEST_QUARTET_PAGES);
    phonePages = score.narrowPages.length;
    expect(phonePages).toBeGreaterThan(LARGEST_QUARTET_PAGES);
    t = await openApp(out, { ARCHIVE_DATA_DIR: path.join(root, 'data') });
    url = await listenOnLoopback(t.app);
    browser = await launchBrowser();
  }, 3_000_000);

  afterAll(async () => {
    await browser?.close();
    await t?.close();
    rmSync(root, { recursive: true, force: true });
  });

  /** Open the score page; records the score images the browser asked for. */
  async function openScore(width: number): Promise<{ probe: PageProbe; asked: string[] }> {
    const probe = await openPage(browser, { width });
    probe.page.setDefaultTimeout(120_000);
    const asked: string[] = [];
    probe.page.on('request', (r) => {
      const m = /\/score\/1\/((?:narrow-)?page-\d+\.svg)$/.exec(r.url());
      if (m) asked.push(m[1]!);
    });
    await probe.page.goto(`${url}${SCORE}`);
    return { probe, asked };
  }

  async function loaded(probe: PageProbe, selector: string): Promise<string> {
    await probe.page.waitForFunction((sel) => {
      const img = document.querySelector(`${sel} img`) as HTMLImageElement | null;
      return img !== null && img.complete && img.naturalWidth > 0;
    }, selector);
    return probe.page.locator(`${selector} img`).evaluate((el) => (el as HTMLImageElement).currentSrc);
  }

  it('the HTML stays small: the first pages as images, every page as a link, no inlined SVG', async () => {
    const res = await fetch(`${url}${SCORE}`);
    const html = await res.text();
    expect(Buffer.byteLength(html)).toBeLessThan(40_000);
    expect(html).not.toContain('<svg');
    expect(html.match(/<figure class="score"/g)?.length).toBe(2 * FIRST_PAGES_SHOWN);
    for (let n = 1; n <= LARGEST_QUARTET_PAGES; n++) expect(html).toContain(`<a href="page-${n}.svg">${n}</a>`);
    expect(html).toContain(`<a href="narrow-page-${phonePages}.svg">${phonePages}</a>`);
    expect(html).toContain(`Page 1 of ${LARGEST_QUARTET_PAGES}`);
    expect(html).not.toMatch(/first \d+ (are )?shown/);
  });

  it(`desktop (1280 px): page ${LARGEST_QUARTET_PAGES} is reachable by paging and by scrolling, and the label says so`, async () => {
    const { probe, asked } = await openScore(1280);
    const status = probe.page.locator('.score-wide [data-score-status]');
    await expect.poll(() => status.innerText(), POLL).toBe(`Page 1 of ${LARGEST_QUARTET_PAGES}`);
    expect(await probe.page.locator('.score-wide figure.score').count()).toBe(LARGEST_QUARTET_PAGES);
    await probe.page.waitForLoadState('networkidle');
    // Lazily: the first pages only, none of the phone layout.
    expect(asked.length).toBeLessThan(10);
    expect(asked.some((f) => f.startsWith('narrow-'))).toBe(false);

    // Paging: the page number field.
    await probe.page.locator('.score-wide [data-score-goto] input').fill(String(LARGEST_QUARTET_PAGES));
    await probe.page.locator('.score-wide [data-score-goto] button').click();
    expect(await loaded(probe, `#page-${LARGEST_QUARTET_PAGES}`)).toMatch(
      new RegExp(`/page-${LARGEST_QUARTET_PAGES}\\.svg$`),
    );
    await expect.poll(() => status.innerText(), POLL).toBe(`Page ${LARGEST_QUARTET_PAGES} of ${LARGEST_QUARTET_PAGES}`);
    expect(await probe.page.locator(`#page-${LARGEST_QUARTET_PAGES} img`).isVisible()).toBe(true);
    // Jumping did not fetch the pages in between.
    expect(asked.length).toBeLessThan(20);
    await screenshot(probe.page, 'quartet-page-96-1280.png');

    // Previous and next, and scrolling by hand moves the label with the reader.
    await probe.page.getByRole('button', { name: 'Previous page' }).first().click();
    await expect
      .poll(() => status.innerText(), POLL)
      .toBe(`Page ${LARGEST_QUARTET_PAGES - 1} of ${LARGEST_QUARTET_PAGES}`);
    await loaded(probe, `#page-${LARGEST_QUARTET_PAGES - 1}`);
    await probe.page.locator('.score-wide [data-score-goto] input').fill('40');
    await probe.page.keyboard.press('Enter');
    await expect.poll(() => status.innerText(), POLL).toBe(`Page 40 of ${LARGEST_QUARTET_PAGES}`);
    await probe.page.mouse.move(600, 500);
    for (let i = 0; i < 4; i++) await probe.page.mouse.wheel(0, 600);
    await probe.page.waitForFunction(() => window.scrollY > 0);
    // The label names the page at the top of the window, below the bar (counted here plainly).
    const atTop = () =>
      probe.page.evaluate(() => {
        const line = document.querySelector('.score-wide [data-score-pager]')!.getBoundingClientRect().bottom + 16;
        const figures = [...document.querySelectorAll('.score-wide figure.score')];
        let n = 1;
        figures.forEach((f, i) => {
          if (f.getBoundingClientRect().top <= line) n = i + 1;
        });
        return `Page ${n} of ${figures.length}`;
      });
    await expect.poll(async () => (await status.innerText()) === (await atTop()), POLL).toBe(true);
    expect(Number(/Page (\d+)/.exec(await status.innerText())![1])).toBeGreaterThan(40);
    // The end of the document: the last page is the one in view.
    await probe.page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await probe.page.mouse.wheel(0, 100);
    await expect.poll(() => status.innerText(), POLL).toBe(`Page ${LARGEST_QUARTET_PAGES} of ${LARGEST_QUARTET_PAGES}`);
    expect(probe.errors).toEqual([]);
    expect(probe.consoleErrors).toEqual([]);
    expect(probe.external).toEqual([]);
    await probe.context.close();
  });

  it('phone (390 px): the last page of the phone engraving is reachable and labeled, and no print page is fetched', async () => {
    const { probe, asked } = await openScore(390);
    const status = probe.page.locator('.score-narrow [data-score-status]');
    await expect.poll(() => status.innerText(), POLL).toBe(`Page 1 of ${phonePages}`);
    expect(await probe.page.locator('.score-narrow [data-score-pager]').innerText()).toContain(
      `(phone layout; ${LARGEST_QUARTET_PAGES} pages in print)`,
    );
    expect(await probe.page.locator('.score-wide').isVisible()).toBe(false);
    await probe.page.waitForLoadState('networkidle');
    expect(asked.some((f) => !f.startsWith('narrow-'))).toBe(false);
    await probe.page.locator('.score-narrow [data-score-goto] input').fill(String(phonePages));
    await probe.page.locator('.score-narrow [data-score-goto] button').click();
    expect(await loaded(probe, `#phone-page-${phonePages}`)).toMatch(new RegExp(`/narrow-page-${phonePages}\\.svg$`));
    await expect.poll(() => status.innerText(), POLL).toBe(`Page ${phonePages} of ${phonePages}`);
    expect(await probe.page.locator(`#phone-page-${phonePages} figcaption`).innerText()).toBe(
      `Page ${phonePages} of ${phonePages} (phone layout)`,
    );
    const box = await probe.page.locator(`#phone-page-${phonePages} img`).boundingBox();
    expect(box && box.width).toBeLessThanOrEqual(390);
    // No sideways scroll.
    expect(await probe.page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(probe.page, 'quartet-last-page-390.png');
    // The work page says which count it shows at this width.
    await probe.page.goto(`${url}/works/${CORPUS_WORK}/`);
    expect(await probe.page.locator('figure.score figcaption').innerText()).toContain(
      `Page 1 of ${phonePages} (phone layout; ${LARGEST_QUARTET_PAGES} pages in print)`,
    );
    expect(probe.errors).toEqual([]);
    expect(probe.consoleErrors).toEqual([]);
    await probe.context.close();
  });

  it('without JavaScript: the first pages show and a link reaches page 96 (at 1280 and 390 px)', async () => {
    for (const width of [1280, 390]) {
      const probe = await openPage(browser, { width, javaScript: false });
      probe.page.setDefaultTimeout(120_000);
      await probe.page.goto(`${url}${SCORE}`);
      const layout = width === 1280 ? '.score-wide' : '.score-narrow';
      expect(await probe.page.locator(`${layout} figure.score`).count()).toBe(FIRST_PAGES_SHOWN);
      expect(await loaded(probe, width === 1280 ? '#page-1' : '#phone-page-1')).toMatch(
        width === 1280 ? /\/score\/1\/page-1\.svg$/ : /\/score\/1\/narrow-page-1\.svg$/,
      );
      await probe.page.locator(`${layout} details.score-index summary`).click();
      const last = width === 1280 ? LARGEST_QUARTET_PAGES : phonePages;
      const link = probe.page.locator(`${layout} [data-score-index] a`).last();
      expect(await link.innerText()).toBe(String(last));
      await link.click();
      await probe.page.waitForURL(/\.svg$/);
      expect(probe.page.url()).toBe(`${url}${SCORE}${width === 1280 ? '' : 'narrow-'}page-${last}.svg`);
      await probe.context.close();
    }
  });

  it(`the PDF's last page is page ${LARGEST_QUARTET_PAGES} (the served file), and the work page says so`, async () => {
    const res = await fetch(`${url}${SCORE}score.pdf`);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/pdf');
    const pdf = Buffer.from(await res.arrayBuffer());
    expect(pdfPageCount(pdf)).toEqual({ objects: LARGEST_QUARTET_PAGES, count: LARGEST_QUARTET_PAGES });
    const work = await (await fetch(`${url}/works/${CORPUS_WORK}/`)).text();
    expect(work).toContain(`PDF for printing (${LARGEST_QUARTET_PAGES} pages)`);
    expect(work).toContain(`Page 1 of ${LARGEST_QUARTET_PAGES}`);
  });
});
