/**
 * The reader's site in a real browser (Chromium through playwright-core) against the real
 * service (`npm start`'s entry, sample catalog, temp data folder): search with and without
 * JavaScript, the work page (score image, rights, review states, audio), the correction form and
 * the tracking page, accessibility (axe-core), keyboard focus and a 360 px wide screen.
 * Screenshots of home and a work page go to test/artifacts/ for review.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import {
  launchBrowser,
  openPage,
  screenshot,
  seriousAxeViolations,
  serveSite,
  SKIP_BROWSER_TESTS,
  type PageProbe,
  type ServedSite,
} from '../helpers/browser.ts';
import { PUBLIC_CSP } from '../../api/http/content-security-policy.ts';

const WORK = 'dvorak-symphony-9-largo';

describe.skipIf(SKIP_BROWSER_TESTS)('the reader site in Chromium', () => {
  let site: ServedSite;
  let browser: Browser;
  const probes: PageProbe[] = [];

  beforeAll(async () => {
    [site, browser] = await Promise.all([serveSite(), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await site?.stop();
  });

  async function open(path: string, options: { width?: number; javaScript?: boolean } = {}): Promise<PageProbe> {
    const probe = await openPage(browser, options);
    probes.push(probe);
    await probe.page.goto(`${site.url}${path}`);
    return probe;
  }
  async function close(probe: PageProbe) {
    expect(probe.errors).toEqual([]);
    // Every page of every test here runs under the site's Content-Security-Policy.
    expect(probe.cspViolations).toEqual([]);
    expect(probe.external).toEqual([]);
    await probe.context.close();
  }

  it('search finds a work by an accented name typed without accents', async () => {
    const probe = await open('/search/');
    const { page } = probe;
    await page.locator('#search-form[data-ready="true"]').waitFor();
    await page.getByLabel('Title, composer, catalog number or instrument').fill('dvorak');
    await page.keyboard.press('Enter');
    await page.locator('#search-status', { hasText: 'works found' }).waitFor();
    const hrefs = await page
      .locator('#search-results a')
      .evaluateAll((as) => as.map((a) => (a as unknown as { href: string }).href));
    expect(hrefs).toContain(`${site.url}/works/${WORK}/`);
    expect(hrefs).toContain(`${site.url}/works/dvorak-humoresque-op-101-no-7/`);
    expect(await page.locator('#search-results').innerText()).toContain('Antonín Dvořák');
    // The composer filter narrows to the same works, and the address keeps the search.
    await page.getByLabel('Composer', { exact: true }).selectOption('Antonín Dvořák');
    await page.locator('#search-status', { hasText: '2 works found' }).waitFor();
    expect(new URL(page.url()).searchParams.get('composer')).toBe('Antonín Dvořák');
    await close(probe);
  });

  it('a catalog-number query finds the same works in Pagefind as in the catalog API; ?q= is ?query=', async () => {
    for (const q of ['Op. 9', 'op 101', 'BWV 1007', 'K. 525']) {
      const api = (await (
        await fetch(`${site.url}/api/v1/works?query=${encodeURIComponent(q)}&pageSize=100`)
      ).json()) as {
        data: { items: Array<{ slug: string }> };
      };
      const want = api.data.items.map((w) => `${site.url}/works/${w.slug}/`).sort();
      expect(want.length, q).toBeGreaterThan(0);
      const probe = await open(`/search/?q=${encodeURIComponent(q)}`);
      const { page } = probe;
      await page.locator('#search-form[data-ready="true"]').waitFor();
      await page.locator('#search-status', { hasText: /found/ }).waitFor();
      const hrefs = await page
        .locator('#search-results a')
        .evaluateAll((as) => as.map((a) => (a as unknown as { href: string }).href));
      expect(hrefs.sort(), q).toEqual(want);
      expect(await page.getByLabel('Title, composer, catalog number or instrument').inputValue()).toBe(q);
      await close(probe);
    }
  });

  it('the home search box goes to the search page with JavaScript and to the catalog API without it', async () => {
    const withJs = await open('/');
    await withJs.page.getByLabel(/Search works/).fill('faure');
    await withJs.page.keyboard.press('Enter');
    await withJs.page.waitForURL(/\/search\/\?query=faure/);
    await withJs.page.locator('#search-status', { hasText: 'works found' }).waitFor();
    expect(await withJs.page.locator('#search-results').innerText()).toContain('Pavane');
    await close(withJs);

    const withoutJs = await open('/', { javaScript: false });
    await withoutJs.page.getByLabel(/Search works/).fill('dvorak');
    await withoutJs.page.keyboard.press('Enter');
    // Without JavaScript the form lands on the search page rendered by the server, not on JSON.
    await withoutJs.page.waitForURL(/\/search\/\?query=dvorak/);
    const found = await withoutJs.page
      .locator('#search-results a')
      .evaluateAll((as) => as.map((a) => (a as unknown as { href: string }).href));
    expect(found).toContain(`${site.url}/works/${WORK}/`);
    expect(await withoutJs.page.locator('#search-status').innerText()).toMatch(/^\d+ works found for “dvorak”/);
    await close(withoutJs);
  });

  it('a work page shows the score SVG with its space reserved, and the rights panel', async () => {
    const probe = await open('/', { width: 1280 });
    const { page } = probe;
    // Hold the score image back to measure the page before and after it arrives.
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let svgType = '';
    await page.route(/\/score\/1\/page-1\.svg$/, async (route) => {
      await held;
      const response = await route.fetch();
      svgType = response.headers()['content-type'] ?? '';
      await route.fulfill({ response });
    });
    await page.goto(`${site.url}/works/${WORK}/`);
    const img = page.locator('figure.score img').first();
    await img.scrollIntoViewIfNeeded();
    const before = await page.locator('#about').boundingBox();
    release();
    await page.waitForFunction(() => {
      const el = document.querySelector('figure.score img') as unknown as {
        complete: boolean;
        naturalWidth: number;
      } | null;
      return el !== null && el.complete && el.naturalWidth > 0;
    });
    const after = await page.locator('#about').boundingBox();
    expect(svgType).toBe('image/svg+xml');
    expect(after?.y).toBe(before?.y);
    expect(await img.getAttribute('alt')).toMatch(/^Score preview, page 1 of 1: Largo, main theme/);

    const rights = page.locator('#rights-panel');
    await expect(rights.locator('caption').first().innerText()).resolves.toMatch(/Three rights layers/);
    const rightsText = await rights.innerText();
    for (const text of [
      'Composition',
      'Edition / file',
      'Recording',
      'United States',
      'European Union',
      'Canada',
      'CC0-1.0',
      'October 5, 2026',
    ]) {
      expect(rightsText).toContain(text);
    }
    expect(await rights.locator('a[href^="https://imslp.org/"]').count()).toBeGreaterThan(0);

    // An administrator-only recording has no player; the public one loads nothing until played.
    const audio = page.locator('audio');
    expect(await audio.count()).toBe(1);
    expect(await audio.getAttribute('preload')).toBe('none');
    expect(await page.locator('[data-arrangement-id="2"]').innerText()).toContain('No player for');
    await expect(page.locator('button[data-midi]').first().isVisible()).resolves.toBe(true);
    await screenshot(page, `work-${WORK}.png`);
    await close(probe);
  });

  it('review badges never read as approval when they are not', async () => {
    const probe = await open('/works/satie-gymnopedie-1/');
    const technical = probe.page.locator('[data-review-state="technical-pass"]').first();
    expect(await technical.innerText()).toBe('Technical pass (not listening-approved)');
    expect(await technical.getAttribute('class')).toContain('caution');
    const approved = probe.page.locator('[data-review-state="human-listening-approved"]').first();
    expect(await approved.getAttribute('class')).toContain('approved');
    const reviewed = probe.page.locator('[data-review-state="human-reviewed"]').first();
    expect(await reviewed.innerText()).toBe('Human reviewed (not listening-approved)');
    expect(await probe.page.locator('[data-access="admin-only"]').first().innerText()).toBe(
      'Administrator-only for now',
    );
    await close(probe);
  });

  it('the correction form submits, shows a tracking code, and the tracking page shows pending', async () => {
    const probe = await open(`/works/${WORK}/`);
    const { page } = probe;
    const form = page.locator('#correction-form');
    await form.locator('button[type="submit"]:enabled').waitFor();
    // Missing required fields are named next to each field before anything is sent.
    await form.locator('button[type="submit"]').click();
    await expect(page.locator('#cr-proposed-error').innerText()).resolves.toBe('Enter the value it should have.');
    expect(await page.locator('#cr-proposed').getAttribute('aria-invalid')).toBe('true');

    await form
      .getByLabel('What is wrong')
      .selectOption({ label: 'The work itself (title, composer, dates, rights, narrative)' });
    await form.getByLabel('Field', { exact: true }).fill('year');
    await form.getByLabel(/Current value/).fill('1893');
    await form.getByLabel('Proposed value').fill('1893 (completed May 24, 1893)');
    await form.getByLabel('Why').fill('The autograph score is dated at its end.');
    await form.getByLabel(/Evidence URL/).fill('https://en.wikipedia.org/wiki/Symphony_No._9_(Dvo%C5%99%C3%A1k)');
    await form.getByLabel('Your name').fill('Browser Test');
    await form.getByLabel('You are').selectOption('AutomatedAgent');
    await form.locator('button[type="submit"]').click();
    const code = (await page.locator('#correction-result .tracking-code').innerText({ timeout: 20_000 })).trim();
    expect(code).toMatch(/^R(-[2-9A-HJKMNP-Z]{4}){4}$/);
    expect(await page.locator('#cr-proposed').getAttribute('aria-invalid')).toBeNull();

    await page.locator('#correction-result a').click();
    await page.waitForURL(`${site.url}/track/${code}`);
    const status = page.locator('#track-result [data-status]');
    await status.waitFor();
    expect(await status.innerText()).toBe('pending');
    expect(await page.locator('#track-result').innerText()).toContain('Nothing in the catalog has changed');
    await close(probe);
  });

  it("shows the server's validation errors next to the fields", async () => {
    const probe = await open(`/works/${WORK}/`);
    const form = probe.page.locator('#correction-form');
    await form.locator('button[type="submit"]:enabled').waitFor();
    await form.getByLabel('Field', { exact: true }).fill('year');
    await form.getByLabel('Proposed value').fill('1894');
    await form.getByLabel('Why').fill('Testing the error display.');
    await form.getByLabel(/Evidence URL/).fill('not a web address');
    await form.getByLabel('Your name').fill('Browser Test');
    await form.locator('button[type="submit"]').click();
    const error = probe.page.locator('#cr-evidence-error');
    await error.waitFor({ state: 'visible', timeout: 20_000 });
    expect((await error.innerText()).length).toBeGreaterThan(0);
    expect(await probe.page.locator('#cr-evidence').getAttribute('aria-invalid')).toBe('true');
    expect(await probe.page.locator('#correction-result .tracking-code').count()).toBe(0);
    await close(probe);
  });

  it('an unknown tracking code says so', async () => {
    const probe = await open('/track/R-2222-3333-4444-5555');
    await probe.page.locator('#track-result .notice').waitFor();
    expect(await probe.page.locator('#track-result').innerText()).toContain(
      'No contribution or correction report has the code R-2222-3333-4444-5555',
    );
    await close(probe);
  });

  it('axe-core finds no serious or critical violations on home, a work page, search and tracking', async () => {
    const found: Record<string, unknown> = {};
    for (const path of ['/', `/works/${WORK}/`, '/search/?query=bach', '/browse/', '/track/R-2222-3333-4444-5555']) {
      const probe = await open(path);
      if (path.startsWith('/search/')) await probe.page.locator('#search-status', { hasText: 'found' }).waitFor();
      if (path.startsWith('/track/')) await probe.page.locator('#track-result .notice').waitFor();
      const violations = await seriousAxeViolations(probe.page);
      if (violations.length > 0) found[path] = violations;
      await close(probe);
    }
    expect(found).toEqual({});
  });

  it('is keyboard reachable with a visible focus ring, and fits a 360 px screen', async () => {
    const probe = await open('/', { width: 360 });
    const { page } = probe;
    await page.keyboard.press('Tab');
    const skip = await page.evaluate(() => {
      const el = document.activeElement as unknown as { textContent: string } | null;
      const style = getComputedStyle(document.activeElement as never);
      return { text: el?.textContent, outline: style.outlineStyle, width: style.outlineWidth };
    });
    expect(skip).toEqual({ text: 'Skip to content', outline: 'solid', width: '3px' });
    await page.keyboard.press('Enter');
    expect(await page.evaluate(() => (document.activeElement as unknown as { id: string }).id)).toBe('main');
    await screenshot(page, 'home-360.png');
    for (const path of ['/', `/works/${WORK}/`, '/search/', '/browse/', '/api-docs/']) {
      await page.goto(`${site.url}${path}`);
      const overflow = await page.evaluate(
        () => document.documentElement.scrollWidth - document.documentElement.clientWidth,
      );
      expect({ path, overflow }).toEqual({ path, overflow: 0 });
    }
    await close(probe);
  });

  it('every page carries the Content-Security-Policy, and search, the MIDI player and forms work under it', async () => {
    for (const path of ['/', '/search/', `/works/${WORK}/`, '/track/', '/browse/', '/track/R-2222-3333-4444-5555']) {
      const res = await fetch(`${site.url}${path}`);
      expect({ path, csp: res.headers.get('content-security-policy') }).toEqual({ path, csp: PUBLIC_CSP });
    }
    // Search from the home page's box (Pagefind's WebAssembly on the search page).
    const home = await open('/');
    await home.page.getByLabel(/Search works/).fill('bach');
    await home.page.keyboard.press('Enter');
    await home.page.waitForURL(/\/search\/\?query=bach/);
    await home.page.locator('#search-status', { hasText: 'found' }).waitFor();
    expect(await home.page.locator('#search-results a').count()).toBeGreaterThan(0);
    await close(home);
    // The MIDI player starts (Web Audio) and the correction form reacts.
    const work = await open(`/works/${WORK}/`);
    const play = work.page.locator('button[data-midi]').first();
    await play.click();
    await work.page.waitForTimeout(500);
    const form = work.page.locator('#correction-form');
    await form.locator('button[type="submit"]:enabled').waitFor();
    await form.locator('button[type="submit"]').click();
    await expect(work.page.locator('#cr-proposed-error').innerText()).resolves.toBe('Enter the value it should have.');
    expect(work.consoleErrors).toEqual([]);
    await close(work);
    // The listener is live: an inline script injected into a page is blocked and reported.
    const probe = await open('/browse/');
    await probe.page.evaluate(() => {
      const s = document.createElement('script');
      s.textContent = 'window.__ran = true';
      document.body.append(s);
    });
    await probe.page.waitForTimeout(200);
    expect(await probe.page.evaluate(() => (window as unknown as { __ran?: boolean }).__ran ?? false)).toBe(false);
    expect(probe.cspViolations.join('\n')).toMatch(/script-src/);
    await probe.context.close();
  });

  it('home: saves a screenshot; pages that need no script carry none', async () => {
    const probe = await open('/');
    await screenshot(probe.page, 'home.png');
    expect(await probe.page.locator('h1').innerText()).toContain('Public-domain music');
    await close(probe);
    for (const path of [
      '/browse/',
      '/composers/',
      '/people/',
      '/instruments/',
      '/profiles/',
      '/api-docs/',
      `/works/${WORK}/score/1/`,
    ]) {
      const html = await (await fetch(`${site.url}${path}`)).text();
      expect({ path, scripts: html.includes('<script') }).toEqual({ path, scripts: false });
    }
  });
});
