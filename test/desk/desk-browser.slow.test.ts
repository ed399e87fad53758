/**
 * The review desk in Debian's Chromium (playwright-core) against a real server on
 * loopback: sign in, filter the queue, open an item, request information, the submitter answers
 * over HTTP with its response token, accept, see the diff,
 * the score preview and the audio, apply with a listening assertion and follow it until visible,
 * see the change on the public page, sign out. A forged cross-site POST is refused; XSS payloads
 * of a submission render inert; axe finds no serious violation on the desk's pages; the sign-in
 * form is reachable by keyboard.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenOnLoopback } from '../helpers/app.ts';
import type { Browser, Page } from 'playwright-core';
import {
  launchBrowser,
  openPage,
  screenshot,
  seriousAxeViolations,
  SKIP_BROWSER_TESTS,
  type PageProbe,
} from '../helpers/browser.ts';
import { openReviewHarness, type ReviewHarness } from '../review/harness.ts';
import { ADMIN_KEY, deskContribution, FILES, SLUG, submitContribution } from './helpers.ts';

const XSS = `"><script>window.__xss=1</script><img src=x onerror="window.__xss=2;alert(1)">`;
const TITLE = 'Desk Browser arrangement';

describe.skipIf(SKIP_BROWSER_TESTS)('the review desk in a browser', () => {
  let h: ReviewHarness;
  let browser: Browser;
  let url: string;
  let code: string;
  let responseToken: string;
  let xssCode: string;
  let reportCode: string;
  let evil: http.Server;
  let evilUrl: string;
  let probe: PageProbe;
  let page: Page;

  beforeAll(async () => {
    h = await openReviewHarness(FILES);
    url = await listenOnLoopback(h.app);
    const a = await submitContribution(h, deskContribution(h, 'desk-browser-1', TITLE));
    code = a.trackingCode;
    responseToken = a.responseToken;
    const b = await submitContribution(
      h,
      deskContribution(h, 'desk-browser-xss', `XSS ${XSS}`.slice(0, 150), `Notes ${XSS}`),
    );
    xssCode = b.trackingCode;
    const r = await h.post(
      '/api/v1/correction-reports',
      {
        workSlug: 'bach-minuet-in-g',
        targetType: 'work',
        fieldName: 'summary',
        currentValue: null,
        proposedValue: 'A short minuet.',
        rationale: 'Clearer.',
        evidenceUrl: 'https://en.wikipedia.org/wiki/Minuet_in_G_major',
        reporterName: 'Bob',
        reporterKind: 'Human',
      },
      null,
    );
    expect(r.statusCode, r.body).toBe(202);
    reportCode = r.json().data.trackingCode;
    // Another origin on loopback (same site, other port) whose page posts a form to the desk.
    evil = http.createServer((req, res) => {
      const target = `${url}/admin/contributions/${xssCode}/decline`;
      res
        .writeHead(200, { 'content-type': 'text/html' })
        .end(
          `<!doctype html><title>Win a prize</title><form id="f" method="post" action="${target}"><input name="reviewer" value="Mallory"><input name="note" value="forged"></form><script>document.getElementById('f').submit()</script>`,
        );
    });
    await new Promise<void>((resolve) => evil.listen(0, '127.0.0.1', resolve));
    evilUrl = `http://127.0.0.1:${(evil.address() as AddressInfo).port}/`;
    browser = await launchBrowser();
    probe = await openPage(browser);
    page = probe.page;
  }, 180_000);

  afterAll(async () => {
    await browser?.close();
    evil?.close();
    await h?.close();
  });

  const status = async (c: string, segment = 'contributions') =>
    (await h.get(`/api/v1/admin/${segment}/${c}`)).json().data.status as string;

  it('signs in through the form (keyboard), then filters the queue', async () => {
    await page.goto(`${url}/admin/queue?kind=contribution`);
    expect(new URL(page.url()).pathname).toBe('/admin/');
    // Keyboard: the skip link first, then the key field; Enter submits.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to the content');
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('key');
    await page.keyboard.type(ADMIN_KEY);
    await Promise.all([page.waitForURL(/\/admin\/queue\?kind=contribution$/), page.keyboard.press('Enter')]);
    expect(await page.locator('.sign-out strong').textContent()).toBe('alice');
    // The key is in no URL, page or script.
    expect(page.url()).not.toContain(ADMIN_KEY);
    expect(await page.content()).not.toContain(ADMIN_KEY);
    expect(await page.evaluate(() => document.cookie)).toBe('');

    await page.goto(`${url}/admin/queue`);
    const rows = page.locator('#queue tbody tr');
    expect(await rows.count()).toBe(3);
    await page.selectOption('#f-kind', 'correction-report');
    await Promise.all([page.waitForURL(/kind=correction-report/), page.click('button:has-text("Apply filters")')]);
    expect(await rows.count()).toBe(1);
    expect(await rows.first().textContent()).toContain(reportCode);
    await page.selectOption('#f-kind', 'contribution');
    await page.fill('#f-work', SLUG);
    await page.selectOption('#f-operation', 'arrangement');
    await Promise.all([page.waitForURL(/work=satie-gymnopedie-1/), page.click('button:has-text("Apply filters")')]);
    expect(await rows.count()).toBe(2);
    expect(await page.locator('.counts').textContent()).toMatch(/3\s+pending/);
    await screenshot(page, 'desk-queue.png');
  });

  it('opens an item, requests information, accepts it and shows the diff, score preview and audio', async () => {
    await Promise.all([
      page.waitForURL(new RegExp(`/admin/contributions/${code}$`)),
      page.click(`a:has-text("${code}")`),
    ]);
    expect(await page.locator('h1').textContent()).toContain(code);
    expect(await page.textContent('#diff-h + p')).toContain('No review branch yet');

    await page.fill('#act-request-information-note', 'Please name the engraver of the score.');
    await Promise.all([
      page.waitForURL(/done=request-information/),
      page.click('#act-request-information-h ~ p button'),
    ]);
    expect(await page.getAttribute('#item-status', 'data-status')).toBe('needs-information');
    expect(await page.locator('#history').textContent()).toContain('Please name the engraver of the score.');
    expect(await status(code)).toBe('needs-information');
    // The submitter sees the message on the public tracking page.
    const tracking = await h.app.inject({ url: `/api/v1/music/contributions/${code}` });
    expect(tracking.body).toContain('Please name the engraver of the score.');

    // The submitter answers over HTTP with the response token from the 202; the desk shows the exchange.
    const wrong = await h.app.inject({
      method: 'POST',
      url: `/api/v1/music/contributions/${code}/answers`,
      headers: { 'content-type': 'application/json', 'archive-response-token': `${responseToken}x` },
      payload: JSON.stringify({ message: 'Engraved by E. Tester.' }),
    });
    expect(wrong.statusCode).toBe(401);
    const answer = await h.app.inject({
      method: 'POST',
      url: `/api/v1/music/contributions/${code}/answers`,
      headers: { 'content-type': 'application/json', 'archive-response-token': responseToken },
      payload: JSON.stringify({ message: 'Engraved by E. Tester from the 1888 edition.' }),
    });
    expect(answer.statusCode, answer.body).toBe(200);
    await page.reload();
    expect(await page.getAttribute('#item-status', 'data-status')).toBe('pending');
    const history = await page.locator('#history').textContent();
    expect(history).toContain('answered by the submitter');
    expect(history).toContain('Engraved by E. Tester from the 1888 edition.');
    expect(await status(code)).toBe('pending');

    await page.fill('#act-accept-note', 'Complete now.');
    await Promise.all([page.waitForURL(/done=accept|action=accept-/), page.click('#act-accept-h ~ p button')]);
    if (/action=accept-/.test(page.url())) {
      // Longer than the desk's 5 s wait (a loaded machine): the page follows the action, its
      // script reloading it once the outcome is there.
      await page.waitForSelector('#item-action[data-state="completed"]', { timeout: 600_000 });
      expect(await page.locator('#item-action h2').textContent()).toBe('Done: accept');
    }
    expect(await page.getAttribute('#item-status', 'data-status')).toBe('accepted');
    const diff = page.locator('pre.diff');
    expect(await diff.locator('.dl.add', { hasText: TITLE }).count()).toBeGreaterThan(0);
    expect(await diff.textContent()).toContain(`works/${SLUG}/index.md`);
    // The score preview is an image Chromium decoded; the audio player loads the verified file.
    const img = page.locator('figure.score img');
    await img.scrollIntoViewIfNeeded();
    await page.waitForFunction(() => {
      const i = document.querySelector('figure.score img') as HTMLImageElement | null;
      return i !== null && i.complete && i.naturalWidth > 0;
    });
    const duration = await page.evaluate(async () => {
      const a = document.querySelector('figure.audio audio') as HTMLAudioElement;
      a.load();
      if (a.readyState < 1)
        await new Promise((resolve, reject) => {
          a.onloadedmetadata = resolve;
          a.onerror = reject;
        });
      return a.duration;
    });
    expect(duration).toBeGreaterThan(18);
    expect(duration).toBeLessThan(21);
    expect(await page.locator('.measured').first().textContent()).toMatch(/Integrated loudness\s*-\d+\.\d LUFS/);
    await screenshot(page, 'desk-item-accepted.png');
  });

  it('applies with a listening assertion, follows the progress until visible, and the public page shows the change', async () => {
    await page.selectOption('#act-apply-h ~ fieldset select[name="assert-1"]', 'human-listening-approved');
    await page.selectOption('#act-apply-h ~ fieldset select[name="assert-0"]', 'human-reviewed');
    await Promise.all([page.waitForURL(/done=apply/), page.click('#act-apply-h ~ p button')]);
    // The apply answered at once: the page shows it applying (a build takes seconds) and the
    // page script follows apply.state until the change is visible, then reloads.
    expect(await page.getAttribute('#apply-progress', 'data-state')).toBe('applying');
    expect(await page.locator('#apply-progress').getAttribute('aria-live')).toBe('polite');
    await page.waitForSelector('#apply-progress[data-state="visible"]', { timeout: 240_000 });
    expect(await page.getAttribute('#item-status', 'data-status')).toBe('applied');
    expect(await status(code)).toBe('applied');
    const history = await page.locator('#history').textContent();
    expect(history).toMatch(/applied\s*\S+Z\s*alice/);
    await Promise.all([
      page.waitForURL(new RegExp(`/works/${SLUG}/$`)),
      page.click('a:has-text("See the public page")'),
    ]);
    expect(await page.textContent('main')).toContain(TITLE);
    const admin = (await h.get(`/api/v1/admin/contributions/${code}`)).json().data;
    expect(admin.review.assertions.assets).toEqual({ '0': 'human-reviewed', '1': 'human-listening-approved' });
    expect(admin.review.assertions.actor).toBe('alice');
    await page.goBack();
    expect(await page.textContent('#assertions')).toMatch(
      /File 0: Human reviewed \(not listening-approved\)\s*File 1: Human listening approved/,
    );
  }, 300_000);

  it('refuses a forged cross-site POST and renders XSS payloads inert', async () => {
    const answer = page.waitForResponse((r) => r.url().endsWith(`/admin/contributions/${xssCode}/decline`));
    await page.goto(evilUrl);
    const res = await answer;
    expect(res.status()).toBe(403);
    expect(await status(xssCode)).toBe('pending');

    probe.dialogs.length = 0;
    await page.goto(`${url}/admin/contributions/${xssCode}`);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(probe.dialogs).toEqual([]);
    expect(await page.locator('main img[src="x"]').count()).toBe(0);
    expect(await page.locator('main script').count()).toBe(0);
    expect(await page.textContent('.summary')).toContain('<script>window.__xss=1</script>');
    await page.goto(`${url}/admin/queue`);
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
    expect(await page.textContent('#queue')).toContain('<script>window.__xss=1</script>');
    expect(probe.dialogs).toEqual([]);
    expect(probe.errors).toEqual([]);
    expect(probe.external).toEqual([]);
  });

  it('has no serious axe violations on the sign-in, queue and item pages', async () => {
    // axe is injected as an inline script, which the desk's CSP forbids: this one context bypasses CSP.
    const context = await browser.newContext({ bypassCSP: true, viewport: { width: 1280, height: 900 } });
    try {
      const p = await context.newPage();
      await p.goto(`${url}/admin/`);
      expect(await seriousAxeViolations(p)).toEqual([]);
      await p.fill('#key', ADMIN_KEY);
      await Promise.all([p.waitForURL(/\/admin\/queue$/), p.click('button:has-text("Sign in")')]);
      expect(await seriousAxeViolations(p)).toEqual([]);
      await p.goto(`${url}/admin/contributions/${code}`);
      expect(await seriousAxeViolations(p)).toEqual([]);
      await p.goto(`${url}/admin/contributions/${xssCode}`);
      expect(await seriousAxeViolations(p)).toEqual([]);
    } finally {
      await context.close();
    }
  });

  it('signs out: the session ends and the desk asks to sign in again', async () => {
    await page.goto(`${url}/admin/queue`);
    await Promise.all([page.waitForURL(/\/admin\/\?signed-out=1$/), page.click('button:has-text("Sign out")')]);
    expect(await page.textContent('main')).toContain('You are signed out.');
    await page.goto(`${url}/admin/queue`);
    expect(new URL(page.url()).pathname).toBe('/admin/');
    const api = await page.evaluate(async () => (await fetch('/api/v1/admin/queue')).status);
    expect(api).toBe(401);
  });
});
