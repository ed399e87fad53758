/**
 * Contributed text renders inert. A test work carries script and attribute-injection payloads
 * in every text field the pages show (title, composer, summary, narrative Markdown, notes,
 * comments, rights notes, asset titles, the MusicXML title the score image engraves); the real
 * service builds and serves it, and Chromium must run none of it: no dialog, no global set by a
 * payload, no event-handler attribute, no javascript: link, the payload visible as plain text.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync, cpSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import YAML from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser, Page } from 'playwright-core';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { launchBrowser, openPage, serveSite, SKIP_BROWSER_TESTS, type ServedSite } from '../helpers/browser.ts';

const SLUG = 'bach-minuet-in-g';
/** Closes an attribute, opens tags with handlers, and sets a global if anything runs. */
const LONG = `"><script>window.__xss=1</script><img src=x onerror="window.__xss=2;alert(1)">' onmouseover='alert(3)`;
/** For fields of 40 to 100 characters. */
const SHORT = `"><img src=x onerror=alert(1)>`;

function payloadContent(root: string): string {
  const content = path.join(root, 'content');
  cpSync(path.join(PROJECT_ROOT, 'test', 'fixtures', 'mini'), content, { recursive: true });
  const file = path.join(content, 'works', SLUG, 'index.md');
  const text = readFileSync(file, 'utf8');
  const [, front = ''] = /^---\n([\s\S]*?)\n---\n/.exec(text) ?? [];
  const w = YAML.parse(front, { schema: 'core' }) as Record<string, any>;
  w.title = `Minuet ${LONG}`;
  w.originalTitle = `Menuet ${LONG}`;
  // The composer's names are the person record's.
  const personFile = path.join(content, 'people', 'petzold-christian.json');
  const person = JSON.parse(readFileSync(personFile, 'utf8')) as Record<string, any>;
  person.name = `Christian ${SHORT} Petzold`;
  person.sortName = `Petzold ${SHORT}`;
  person.aliases = [LONG];
  person.evidence[0].note = `Evidence ${LONG}`;
  writeFileSync(personFile, `${JSON.stringify(person, null, 2)}\n`);
  w.period = `Baroque ${SHORT}`;
  w.genre = `Minuet ${SHORT}`;
  w.year = SHORT;
  w.workNumber = SHORT;
  w.catalogNumbers = [{ catalog: `<b onclick=alert(1)>`, number: `<i onmouseover=alert(1)>` }];
  w.summary = `Summary ${LONG}`;
  w.key = `"><svg onload=alert(1)>`;
  w.instrumentation = `Keyboard ${LONG}`;
  w.rightsNote = `Rights ${LONG}`;
  w.rights.composition = { note: `Note ${LONG}` };
  for (const layer of ['edition', 'recording']) w.rights[layer].note = `Note ${LONG}`;
  w.firstPublished.evidence[0].note = `Publication ${LONG}`;
  w.rights.license = `CC0 ${LONG}`;
  w.rights.attribution = `Credit ${LONG}`;
  for (const a of w.sourceAssets)
    Object.assign(a, {
      title: `Score ${LONG}`,
      rightsStatus: `pd ${SHORT}`,
      license: `L ${LONG}`,
      attribution: `A ${LONG}`,
      technicalChecks: `Checks ${LONG}`,
    });
  for (const arr of w.arrangements) {
    Object.assign(arr, {
      title: `Bed ${LONG}`,
      style: `calm ${SHORT}`,
      instrumentation: `Piano ${LONG}`,
      moods: [SHORT],
      notes: `Notes ${LONG}`,
    });
    arr.rights.license = `L ${LONG}`;
    arr.rights.attribution = `A ${LONG}`;
    for (const a of arr.assets)
      Object.assign(a, {
        title: `Recording ${LONG}`,
        license: `L ${LONG}`,
        attribution: `A ${LONG}`,
        technicalChecks: `Checks ${LONG}`,
      });
  }
  w.comments = [
    {
      id: 1,
      target: { type: 'work' },
      author: `Reader ${SHORT}`,
      postedAtUtc: '2026-11-01T00:00:00Z',
      approvedAtUtc: '2026-11-02T00:00:00Z',
      body: `Comment ${LONG}`,
    },
    {
      id: 2,
      target: { type: 'source-score', assetId: 1 },
      author: 'Editor',
      postedAtUtc: '2026-11-01T00:00:00Z',
      approvedAtUtc: '2026-11-02T00:00:00Z',
      body: `<a href="javascript:alert(1)">click</a>`,
    },
  ];
  w.videos = [
    {
      id: 1,
      title: `Video ${LONG}`,
      url: 'https://videos.example.org/minuet',
      provider: `Host ${SHORT}`,
      arrangementId: 1,
      license: `L ${SHORT}`,
      reviewState: 'pending',
      access: 'public',
    },
  ];
  const narrative = [
    `Narrative ${LONG}`,
    '',
    '<script>window.__xss = 4</script>',
    '',
    '<img src="x" onerror="window.__xss = 5">',
    '',
    '[a javascript link](javascript:alert(6)) and [a data link](data:text/html,<script>alert(7)</script>)',
    '',
    '<a href="javascript:alert(8)" onclick="alert(9)">raw link</a> <svg onload="alert(10)"></svg> <iframe src="javascript:alert(11)"></iframe>',
    '',
    '<div style="background:url(javascript:alert(12))" onmouseover="alert(13)">styled</div>',
  ].join('\n');
  writeFileSync(file, `---\n${YAML.stringify(w)}---\n${narrative}\n`);
  // The engraved score shows the MusicXML title: put a payload there too.
  const score = path.join(content, 'works', SLUG, 'score.musicxml');
  writeFileSync(
    score,
    readFileSync(score, 'utf8').replace(
      '<score-partwise version="4.0">',
      '<score-partwise version="4.0">\n  <work><work-title>Minuet &lt;script&gt;window.__xss=14&lt;/script&gt;&lt;img src=x onerror=alert(15)&gt;</work-title></work>',
    ),
  );
  return content;
}

/** Everything a payload could have done to the live page. */
async function inspect(page: Page) {
  return page.evaluate(() => {
    const handlers: string[] = [];
    const badUrls: string[] = [];
    for (const el of document.querySelectorAll('*')) {
      for (const attr of el.getAttributeNames()) {
        const value = el.getAttribute(attr) ?? '';
        if (/^on/i.test(attr)) handlers.push(`${el.tagName.toLowerCase()}[${attr}]`);
        if (
          /^(href|src|action|formaction|xlink:href|data)$/i.test(attr) &&
          /^\s*(javascript|data|vbscript):/i.test(value)
        )
          badUrls.push(`${el.tagName.toLowerCase()}[${attr}=${value}]`);
      }
    }
    const scripts = [...document.scripts].filter((s) => (s.textContent ?? '').includes('__xss')).length;
    return {
      xss: (window as unknown as { __xss?: unknown }).__xss ?? null,
      handlers,
      badUrls,
      scripts,
      iframes: document.querySelectorAll('iframe, object, embed').length,
      text: document.body?.innerText ?? document.documentElement.textContent ?? '',
    };
  });
}

describe.skipIf(SKIP_BROWSER_TESTS)('contributed text renders inert', () => {
  let root: string;
  let site: ServedSite;
  let browser: Browser;

  beforeAll(async () => {
    root = mkdtempSync(path.join(os.tmpdir(), 'pdma-xss-'));
    const content = payloadContent(root);
    [site, browser] = await Promise.all([serveSite(content), launchBrowser()]);
  });
  afterAll(async () => {
    await browser?.close();
    await site?.stop();
    if (root) rmSync(root, { recursive: true, force: true });
  });

  it('on the work page, the home page, browse pages and the score page', async () => {
    const paths = [
      `/works/${SLUG}/`,
      '/',
      '/browse/',
      '/composers/',
      '/people/',
      '/people/petzold-christian/',
      `/works/${SLUG}/score/1/`,
      `/works/${SLUG}/score/1/page-1.svg`,
    ];
    for (const p of paths) {
      const probe = await openPage(browser);
      const response = await probe.page.goto(`${site.url}${p}`);
      expect(response?.status(), p).toBe(200);
      // Hover and click everything a payload could hang a handler on.
      if (!p.endsWith('.svg')) {
        await probe.page.mouse.move(10, 10);
        for (const text of ['styled', 'raw link']) {
          const target = probe.page.getByText(text, { exact: true });
          if ((await target.count()) > 0) await target.first().hover();
        }
      }
      const found = await inspect(probe.page);
      expect({
        path: p,
        xss: found.xss,
        handlers: found.handlers,
        badUrls: found.badUrls,
        scripts: found.scripts,
        iframes: found.iframes,
      }).toEqual({
        path: p,
        xss: null,
        handlers: [],
        badUrls: [],
        scripts: 0,
        iframes: 0,
      });
      expect(probe.dialogs, p).toEqual([]);
      expect(probe.errors, p).toEqual([]);
      if (p === `/works/${SLUG}/`) {
        // Escaped, not dropped: the reader sees the payload as text.
        expect(found.text).toContain(`Minuet ${LONG}`);
        expect(found.text).toContain(`Comment "><script>`);
        expect(await probe.page.locator('figure.score img').count()).toBe(1);
      }
      await probe.context.close();
    }
  });

  it('in search results', async () => {
    const probe = await openPage(browser);
    await probe.page.goto(`${site.url}/search/?query=minuet`);
    await probe.page.locator('#search-results li').first().waitFor();
    const found = await inspect(probe.page);
    expect({ xss: found.xss, handlers: found.handlers, badUrls: found.badUrls }).toEqual({
      xss: null,
      handlers: [],
      badUrls: [],
    });
    expect(await probe.page.locator('#search-results').innerText()).toContain('<script>window.__xss=1</script>');
    expect(probe.dialogs).toEqual([]);
    await probe.context.close();
  });
});
