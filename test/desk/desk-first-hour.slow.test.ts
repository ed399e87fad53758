/**
 * What an editor meets in the first hour, through the public surface: accept refuses a correction
 * that changes nothing (409 with the reason; the item stays pending); and in Chromium at 1280 and
 * 390 px, before accept, the desk shows the declared digests and the proposed change, labels in
 * words (no raw field names), and no page scrolls sideways.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenOnLoopback } from '../helpers/app.ts';
import type { Browser } from 'playwright-core';
import { launchBrowser, openPage, SKIP_BROWSER_TESTS } from '../helpers/browser.ts';
import { openReviewHarness, sha256, type ReviewHarness } from '../review/harness.ts';
import { labelOf } from '../../api/desk/pages.ts';
import { ADMIN_KEY, deskContribution, FILES, SLUG, submitContribution } from './helpers.ts';

let h: ReviewHarness;
let url: string;
let contribution: string;
let report: string;

const correction = (proposedValue: string, currentValue: string | null) => ({
  workSlug: SLUG,
  targetType: 'work',
  fieldName: 'year',
  currentValue,
  proposedValue,
  rationale: 'Checked against the first edition.',
  evidenceUrl: 'https://en.wikipedia.org/wiki/Gymnop%C3%A9dies',
  reporterName: 'Bob',
  reporterKind: 'Human',
});

beforeAll(async () => {
  h = await openReviewHarness(FILES);
  url = await listenOnLoopback(h.app);
  const c = await submitContribution(h, deskContribution(h, 'first-hour-1', 'First hour arrangement'));
  contribution = c.trackingCode;
  const r = await h.post('/api/v1/correction-reports', correction('1887', '1888'), null);
  expect(r.statusCode, r.body).toBe(202);
  report = r.json().data.trackingCode;
}, 180_000);
afterAll(() => h?.close());

describe('accept', () => {
  it('refuses a correction that changes nothing, with the reason; the item stays pending', async () => {
    const r = await h.post('/api/v1/correction-reports', correction('1888', '1888'), null);
    expect(r.statusCode, r.body).toBe(202);
    const code = r.json().data.trackingCode as string;
    const res = await h.post(`/api/v1/admin/correction-reports/${code}/accept`, { reviewer: 'Alice' });
    expect(res.statusCode, res.body).toBe(409);
    expect(res.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(res.json().detail).toContain('/year already reads "1888"; the report changes nothing.');
    expect(res.json().reasons).toEqual(['/year already reads "1888"; the report changes nothing.']);
    expect((await h.get(`/api/v1/admin/correction-reports/${code}`)).json().data.status).toBe('pending');
    // A correction that does change something is still accepted.
    expect((await h.post(`/api/v1/admin/correction-reports/${report}/accept`, { reviewer: 'Alice' })).statusCode).toBe(
      200,
    );
  }, 120_000);
});

describe('labels in words', () => {
  it.each([
    ['downloadUrl', 'Download URL'],
    ['sha256', 'SHA-256'],
    ['receivedAtUtc', 'Received at (UTC)'],
    ['integratedLufs', 'Integrated (LUFS)'],
    ['workSlug', 'Work slug'],
    ['arrangement', 'Arrangement'],
  ])('%s reads "%s"', (key, words) => expect(labelOf(key)).toBe(words));
});

describe.skipIf(SKIP_BROWSER_TESTS)('the desk before accept, in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchBrowser();
  });
  afterAll(() => browser?.close());

  it.each([1280, 390])(
    'at %i px: declared digests, the proposed change, words for labels, no sideways scroll',
    async (width) => {
      const probe = await openPage(browser, { width });
      const { page } = probe;
      await page.goto(`${url}/admin/`);
      await page.fill('#key', ADMIN_KEY);
      await Promise.all([page.waitForURL(/\/admin\/queue/), page.keyboard.press('Enter')]);
      // Nothing sticks out past the viewport (named, so a failure says what does).
      const noSidewaysScroll = async () => {
        const wide = await page.evaluate(() => {
          const w = document.documentElement.clientWidth;
          if (document.documentElement.scrollWidth <= w) return [];
          return [...document.querySelectorAll('body *')]
            .filter((e) => e.getBoundingClientRect().right > w + 1 && !e.closest('.table-wrap, pre'))
            .slice(0, 8)
            .map((e) => `${e.tagName.toLowerCase()}${e.id ? `#${e.id}` : ''}.${[...e.classList].join('.')}`);
        });
        expect(wide).toEqual([]);
        return true;
      };
      expect(await noSidewaysScroll()).toBe(true);

      await page.goto(`${url}/admin/contributions/${contribution}`);
      expect(await page.locator('#item-status').textContent()).toBe('pending');
      const text = await page.locator('main').innerText();
      // Declared digests, before anything was fetched.
      for (const file of ['/desk/arrangement.musicxml', '/desk/arrangement.mp3'])
        expect(text).toContain(sha256(FILES[file]!));
      expect(text).not.toMatch(/SHA-256 \(declared by the contributor\)\s*none/);
      // The proposed change, before accept.
      const proposed = await page.locator('#proposed-change').innerText();
      expect(proposed).toContain('First hour arrangement');
      expect(proposed).toContain(sha256(FILES['/desk/arrangement.mp3']!));
      // Labels are words: no term of a definition list is a raw camelCase field name.
      const terms = await page.locator('dt').allInnerTexts();
      expect(terms.length).toBeGreaterThan(10);
      expect(terms.filter((t) => /[a-z][A-Z]|^[a-z]/.test(t.trim()))).toEqual([]);
      expect(await noSidewaysScroll()).toBe(true);

      await page.goto(`${url}/admin/correction-reports/${report}`);
      expect(await noSidewaysScroll()).toBe(true);
      expect(probe.errors).toEqual([]);
      await probe.context.close();
    },
    120_000,
  );

  it('a correction report shows from and to before accept', async () => {
    const r = await h.post('/api/v1/correction-reports', correction('1886', '1888'), null);
    const code = r.json().data.trackingCode as string;
    const probe = await openPage(browser, { width: 390 });
    await probe.page.goto(`${url}/admin/`);
    await probe.page.fill('#key', ADMIN_KEY);
    await Promise.all([probe.page.waitForURL(/\/admin\/queue/), probe.page.keyboard.press('Enter')]);
    await probe.page.goto(`${url}/admin/correction-reports/${code}`);
    const proposed = await probe.page.locator('#proposed-change').innerText();
    expect(proposed).toMatch(/Year[\s\S]*from[\s\S]*1888[\s\S]*to[\s\S]*1886/);
    await probe.context.close();
  }, 120_000);
});
