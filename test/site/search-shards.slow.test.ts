/**
 * The search page over a search index in shards (src/lib/site/search-index.ts): the service is
 * started (`npm start`'s entry, sample catalog) with ARCHIVE_SEARCH_SHARD_WORKS=8, so its 26 works
 * are indexed as four Pagefind indexes; real Chromium searches them as one.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { loadCatalog } from '../../src/domain/catalog.ts';
import { shardOf } from '../../src/lib/site/search-index.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { launchBrowser, openPage, serveSite, SKIP_BROWSER_TESTS, type ServedSite } from '../helpers/browser.ts';

describe.skipIf(SKIP_BROWSER_TESTS)('search over a sharded index', () => {
  let site: ServedSite;
  let browser: Browser;
  const { catalog } = loadCatalog(path.join(PROJECT_ROOT, 'content'));

  beforeAll(async () => {
    [site, browser] = await Promise.all([serveSite(undefined, { ARCHIVE_SEARCH_SHARD_WORKS: '8' }), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await site?.stop();
  });

  it('the primary index names three more shards, each served', async () => {
    const res = await fetch(`${site.url}/pagefind/shards.json`);
    expect(res.status).toBe(200);
    const { shards } = (await res.json()) as { shards: string[] };
    expect(shards).toEqual(['shard-1/', 'shard-2/', 'shard-3/']);
    for (const s of shards) expect((await fetch(`${site.url}/pagefind/${s}pagefind-entry.json`)).status).toBe(200);
  });

  it('finds a work from every shard, and offers every composer as a filter', async () => {
    const probe = await openPage(browser);
    const { page } = probe;
    await page.goto(`${site.url}/search/`);
    await page.locator('#search-form[data-ready="true"]').waitFor();
    const composers = await page
      .getByLabel('Composer', { exact: true })
      .locator('option')
      .evaluateAll((os) => os.map((o) => (o as unknown as { value: string }).value).filter(Boolean));
    expect(new Set(composers)).toEqual(new Set(catalog.works.map((w) => w.content.composer.name)));
    for (let k = 0; k < 4; k++) {
      const work = catalog.works.find((w) => shardOf(w.content.slug, 4) === k)!.content;
      await page.getByLabel('Title, composer, catalog number or instrument').fill(work.title);
      await page.keyboard.press('Enter');
      await page.locator('#search-status', { hasText: 'found' }).waitFor();
      await page.waitForFunction(
        (href) =>
          [...document.querySelectorAll('#search-results a')].some((a) => (a as HTMLAnchorElement).href === href),
        `${site.url}/works/${work.slug}/`,
        { timeout: 30_000 },
      );
    }
    expect(probe.errors).toEqual([]);
    await probe.context.close();
  });
});
