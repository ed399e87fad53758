/**
 * An archive without reader sign-in (no GITHUB_OAUTH_CLIENT_ID/SECRET; the shared sample build is
 * made that way): records, Markdown and pages say "signed-in download is not offered by this
 * archive" instead of promising a 401, the protected route says so as a problem, administrator-only
 * files stay refused, and no signed-in file is published under the public site or nginx.conf.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { openApp, PROJECT_ROOT, type TestApp } from '../helpers/app.ts';
import { launchBrowser, SKIP_BROWSER_TESTS } from '../helpers/browser.ts';
import type { WorkRecord } from '../../src/schemas/work.ts';

const WORK = 'bach-prelude-in-c-bwv-846';
const NOT_OFFERED = 'Signed-in download is not offered by this archive';

let t: TestApp;
let record: WorkRecord;
beforeAll(async () => {
  t = await openApp();
  record = (JSON.parse((await t.request({ url: `/api/v1/works/${WORK}` })).body) as { data: WorkRecord }).data;
});
afterAll(async () => {
  await t?.close();
});

const assetsOf = (r: WorkRecord) => [...r.sourceAssets, ...r.arrangements.flatMap((a) => a.assets)];

describe('without reader sign-in', () => {
  it('the record says signed-in download is not offered, with no link and no promise of a 401', () => {
    const signedIn = assetsOf(record).filter((a) => a.access === 'signed-in');
    expect(signedIn.length).toBeGreaterThan(0);
    for (const a of signedIn) {
      expect(a.links.download).toBeNull();
      expect(a.links.signIn).toBeUndefined();
      expect(a.accessNote).toContain(NOT_OFFERED);
      expect(a.accessNote).not.toContain('401');
    }
    const rule = record.accessRules.find((r) => r.access === 'signed-in')!;
    expect(rule.meaning).toContain(NOT_OFFERED);
    expect(JSON.stringify(record)).not.toContain('answers 401');
  });

  it('the Markdown record says so in its Access section', async () => {
    const md = (await t.request({ url: `/api/v1/works/${WORK}/index.md` })).body;
    const ids = record.accessRules.find((r) => r.access === 'signed-in')!.assetIds;
    expect(md).toContain(`## Access\n\n`);
    expect(md).toContain(`- signed-in (asset${ids.length === 1 ? '' : 's'} ${ids.join(', ')}): ${NOT_OFFERED}`);
    expect(md).not.toContain('answers 401');
  });

  it('the protected route and the sign-in answer a problem saying so', async () => {
    const id = assetsOf(record).find((a) => a.access === 'signed-in')!.id;
    for (const url of [
      `/api/v1/works/${WORK}/assets/${id}/download`,
      '/api/v1/reader/sign-in',
      '/api/v1/reader/session',
      '/api/v1/reader/sign-in/callback?code=x&state=y',
    ]) {
      const res = await t.request({ url });
      expect([url, res.statusCode]).toEqual([url, 404]);
      const body = JSON.parse(res.body) as { type: string; detail: string };
      expect(body.type).toBe(`${t.baseUrl}/problems/signed-in-download-not-offered`);
      expect(body.detail).toContain(NOT_OFFERED);
      expect(body.detail).toContain('GITHUB_OAUTH_CLIENT_ID');
    }
  });

  it('administrator-only files are refused, and public or unknown ids are not served by the protected route', async () => {
    const elise = (
      JSON.parse((await t.request({ url: '/api/v1/works/beethoven-fur-elise' })).body) as { data: WorkRecord }
    ).data;
    const hidden = assetsOf(elise).find((a) => a.access === 'admin-only' && a.sha256 !== null)!;
    const refused = await t.request({ url: `/api/v1/works/beethoven-fur-elise/assets/${hidden.id}/download` });
    expect(refused.statusCode).toBe(403);
    expect(JSON.parse(refused.body).type).toBe(`${t.baseUrl}/problems/administrator-only`);
    const open = assetsOf(record).find((a) => a.access === 'public' && a.links.download !== null)!;
    expect((await t.request({ url: `/api/v1/works/${WORK}/assets/${open.id}/download` })).statusCode).toBe(404);
    expect((await t.request({ url: `/api/v1/works/${WORK}/assets/9999/download` })).statusCode).toBe(404);
    expect((await t.request({ url: `/api/v1/works/${WORK}/assets/0/download` })).statusCode).toBe(400);
  });

  it('no signed-in or administrator-only stored file is published in the site or mapped by nginx.conf', () => {
    const manifest = JSON.parse(readFileSync(path.join(t.buildDir, 'protected-assets.json'), 'utf8')) as Record<
      string,
      { access: string; sha256: string; byteLength: number; file?: string }
    >;
    const restricted = Object.values(manifest).filter((a) => a.file !== undefined);
    expect(restricted.some((a) => a.access === 'signed-in')).toBe(true);
    const bySize = new Map<number, Set<string>>();
    for (const a of restricted) bySize.set(a.byteLength, (bySize.get(a.byteLength) ?? new Set()).add(a.sha256));
    const client = path.join(t.buildDir, 'client');
    const stack = [client];
    while (stack.length > 0) {
      const dir = stack.pop()!;
      for (const name of readdirSync(dir)) {
        const full = path.join(dir, name);
        const st = statSync(full);
        if (st.isDirectory()) stack.push(full);
        else if (bySize.has(st.size)) {
          const sha = createHash('sha256').update(readFileSync(full)).digest('hex');
          expect(bySize.get(st.size)!.has(sha), `${full} holds a restricted file`).toBe(false);
        }
      }
    }
    const nginx = readFileSync(path.join(t.buildDir, 'nginx.conf'), 'utf8');
    // Rooted at the build folder: it serves client/ (and a layered build's base/), never protected/.
    expect(nginx).toContain(`root ${t.buildDir};`);
    expect(nginx).toContain('try_files /client$uri /base$uri =404;');
    expect(nginx).not.toContain('protected');
    // Signed-in stored files are copied beside client/ (protected/), where only the protected route reads them.
    expect(existsSync(path.join(t.buildDir, 'protected', WORK, 'bwv846-piano-bed.mp3'))).toBe(true);
    expect(
      readFileSync(path.join(t.buildDir, 'protected', WORK, 'bwv846-piano-bed.mp3')).equals(
        readFileSync(path.join(PROJECT_ROOT, 'content', 'works', WORK, 'bwv846-piano-bed.mp3')),
      ),
    ).toBe(true);
  });

  describe.skipIf(SKIP_BROWSER_TESTS)('in Chromium', () => {
    let browser: Browser;
    let origin: string;
    beforeAll(async () => {
      browser = await launchBrowser();
      origin = await t.app.listen({ port: 0, host: '127.0.0.1' });
    });
    afterAll(async () => {
      await browser?.close();
    });

    it('the work page says signed-in download is not offered and offers no sign-in', async () => {
      const context = await browser.newContext();
      await context.route(/^(?!https?:\/\/127\.0\.0\.1[:/]).*/, (route) => route.abort());
      const page = await context.newPage();
      await page.goto(`${origin}/works/${WORK}/`);
      const id = assetsOf(record).find((a) => a.access === 'signed-in')!.id;
      const row = page.locator(`[data-asset-id="${id}"]`).first();
      expect(await row.locator('[data-access="signed-in"]').innerText()).toBe('Signed-in users only');
      expect(await row.locator('[data-access-note]').innerText()).toContain(NOT_OFFERED);
      expect(await row.locator('a').count()).toBe(0);
      expect(await page.locator('[data-reader-session], [data-sign-in-link]').count()).toBe(0);
      expect(await page.locator('#access ~ ul').innerText()).toContain(NOT_OFFERED);
      expect(await page.content()).not.toContain('answers 401');
      await context.close();
    });
  });
});
