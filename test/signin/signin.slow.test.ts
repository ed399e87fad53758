/**
 * Reader sign-in and signed-in downloads (docs/reader-sign-in.md), against the real service (`npm start`'s
 * entry, sample catalog, fresh data folder) configured with GitHub OAuth pointing at a local fake
 * of GitHub's OAuth and user endpoints (test/helpers/fake-github-oauth.ts). Over HTTP: the record's
 * protected link, the anonymous 401 problem, sign-in through the fake (state and PKCE checked),
 * a ranged download, sign-out with its CSRF check, and a reader session refused on admin, curator,
 * library and metrics routes. In Chromium: the same journey through the work page, with the
 * provider on another site (localhost vs 127.0.0.1), as GitHub is.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { startService, type Started } from '../helpers/process.ts';
import { startFakeGitHubOAuth, type FakeGitHubOAuth } from '../helpers/fake-github-oauth.ts';
import { launchBrowser, SKIP_BROWSER_TESTS } from '../helpers/browser.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';

const WORK = 'bach-prelude-in-c-bwv-846';
const CLIENT_ID = 'Iv1.fakeclient0001';
const CLIENT_SECRET = 'fake-client-secret-0123456789';
const KEYS = {
  admin: 'editor=admin-key-000001',
  curator: 'curie=curator-key-00001',
  library: 'archivist=library-key-0001',
  metrics: 'prom=metrics-key-000001',
};

interface AssetView {
  id: number;
  access: string;
  accessNote: string;
  sha256: string | null;
  byteLength: number | null;
  links: { download: string | null; signIn?: string };
}

/** Cookies as a browser would keep them for one origin (name -> value), from Set-Cookie lines. */
class Jar {
  readonly cookies = new Map<string, string>();
  readonly lines: string[] = [];
  take(res: Response): void {
    for (const line of res.headers.getSetCookie()) {
      this.lines.push(line);
      const [pair] = line.split(';');
      const eq = pair!.indexOf('=');
      const name = pair!.slice(0, eq).trim();
      const value = pair!.slice(eq + 1).trim();
      if (/max-age=0/i.test(line) || value === '') this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }
  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  }
}

describe('reader sign-in with GitHub (fake provider) and signed-in downloads', () => {
  let service: Started;
  let github: FakeGitHubOAuth;
  let dataDir: string;
  let base: string;
  let signedIn: AssetView;
  let adminOnly: AssetView;
  let fileBytes: Buffer;

  beforeAll(async () => {
    github = await startFakeGitHubOAuth({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET });
    dataDir = mkdtempSync(path.join(os.tmpdir(), 'pdma-signin-'));
    service = await startService(
      {
        ARCHIVE_DATA_DIR: dataDir,
        GITHUB_OAUTH_CLIENT_ID: CLIENT_ID,
        GITHUB_OAUTH_CLIENT_SECRET: CLIENT_SECRET,
        GITHUB_OAUTH_BASE_URL: github.url,
        GITHUB_API_URL: github.url,
        ARCHIVE_ADMIN_KEYS: KEYS.admin,
        ARCHIVE_CURATOR_KEYS: KEYS.curator,
        ARCHIVE_LIBRARY_KEYS: KEYS.library,
        ARCHIVE_METRICS_KEYS: KEYS.metrics,
      },
      240_000,
    );
    base = service.url;
    const record = (await (await fetch(`${base}/api/v1/works/${WORK}`)).json()) as {
      data: { sourceAssets: AssetView[]; arrangements: Array<{ assets: AssetView[] }> };
    };
    const assets = [...record.data.sourceAssets, ...record.data.arrangements.flatMap((a) => a.assets)];
    signedIn = assets.find((a) => a.access === 'signed-in' && a.sha256 !== null)!;
    const elise = (await (await fetch(`${base}/api/v1/works/beethoven-fur-elise`)).json()) as {
      data: { sourceAssets: AssetView[]; arrangements: Array<{ assets: AssetView[] }> };
    };
    adminOnly = [...elise.data.sourceAssets, ...elise.data.arrangements.flatMap((a) => a.assets)].find(
      (a) => a.access === 'admin-only' && a.sha256 !== null,
    )!;
    fileBytes = readFileSync(path.join(PROJECT_ROOT, 'content', 'works', WORK, 'bwv846-piano-bed.mp3'));
  }, 300_000);

  afterAll(async () => {
    await service?.stop();
    await github?.close();
    if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  });

  /** The sign-in dance over HTTP, as a browser without JavaScript would do it. */
  async function signIn(jar: Jar, returnPath = `/works/${WORK}/`): Promise<Response> {
    const start = await fetch(`${base}/api/v1/reader/sign-in?return=${encodeURIComponent(returnPath)}`, {
      redirect: 'manual',
    });
    expect(start.status).toBe(302);
    jar.take(start);
    const authorize = await fetch(start.headers.get('location')!, { redirect: 'manual' });
    expect(authorize.status).toBe(302);
    const callback = await fetch(authorize.headers.get('location')!, {
      redirect: 'manual',
      headers: { cookie: jar.header() },
    });
    jar.take(callback);
    return callback;
  }

  it('the record carries the protected link, the sign-in link and words that match', async () => {
    expect(signedIn.links.download).toBe(`${base}/api/v1/works/${WORK}/assets/${signedIn.id}/download`);
    expect(signedIn.links.signIn).toBe(`${base}/api/v1/reader/sign-in?return=${encodeURIComponent(`/works/${WORK}/`)}`);
    expect(signedIn.accessNote).toContain(
      'Requires a reader signed in with GitHub: the link answers 401 without a session',
    );
    expect(signedIn.accessNote).not.toContain('not offered');
    expect(signedIn.sha256).toBe(createHash('sha256').update(fileBytes).digest('hex'));
    const md = await (await fetch(`${base}/api/v1/works/${WORK}/index.md`)).text();
    expect(md).toContain(`/api/v1/works/${WORK}/assets/${signedIn.id}/download`);
    expect(md).toMatch(/## Access[\s\S]*signed-in \(asset[^)]*\): Requires a reader signed in with GitHub/);
    // Not published in the public site: neither as a work file nor anywhere under its name.
    expect((await fetch(`${base}/works/${WORK}/files/bwv846-piano-bed.mp3`)).status).toBe(404);
    expect((await fetch(`${base}/protected/${WORK}/bwv846-piano-bed.mp3`)).status).toBe(404);
  });

  it('without a session the download answers a 401 problem that says how to sign in', async () => {
    const res = await fetch(signedIn.links.download!);
    expect(res.status).toBe(401);
    expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const body = (await res.json()) as { type: string; detail: string; signIn: string };
    expect(body.type).toBe(`${base}/problems/sign-in-required`);
    expect(body.signIn).toBe(signedIn.links.signIn);
    expect(body.detail).toContain(`Sign in with GitHub at ${signedIn.links.signIn}`);
  });

  it('signs in through the fake provider with state and PKCE, then downloads with a range and ETag', async () => {
    const jar = new Jar();
    const start = await fetch(`${base}/api/v1/reader/sign-in?return=${encodeURIComponent(`/works/${WORK}/`)}`, {
      redirect: 'manual',
    });
    expect(start.status).toBe(302);
    const to = new URL(start.headers.get('location')!);
    expect(`${to.origin}${to.pathname}`).toBe(`${github.url}/login/oauth/authorize`);
    expect(to.searchParams.get('client_id')).toBe(CLIENT_ID);
    expect(to.searchParams.get('redirect_uri')).toBe(`${base}/api/v1/reader/sign-in/callback`);
    expect(to.searchParams.get('code_challenge_method')).toBe('S256');
    expect(to.searchParams.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    const state = to.searchParams.get('state')!;
    expect(state.length).toBeGreaterThanOrEqual(20);
    const pending = start.headers.getSetCookie().find((l) => l.startsWith('archive-sign-in='))!;
    expect(pending).toMatch(/HttpOnly/i);
    expect(pending).toMatch(/SameSite=Lax/i);
    jar.take(start);

    const authorize = await fetch(to.href, { redirect: 'manual' });
    const callback = await fetch(authorize.headers.get('location')!, {
      redirect: 'manual',
      headers: { cookie: jar.header() },
    });
    expect(callback.status).toBe(200);
    jar.take(callback);
    const session = callback.headers.getSetCookie().find((l) => l.startsWith('archive-session='))!;
    expect(session).toMatch(/HttpOnly/i);
    expect(session).toMatch(/SameSite=Strict/i);
    expect(jar.cookies.has('archive-sign-in')).toBe(false);
    const page = await callback.text();
    expect(page).toContain('Signed in as <strong>octocat</strong>');
    expect(page).toContain(`<meta http-equiv="refresh" content="0; url=/works/${WORK}/">`);
    // The token exchange sent the PKCE verifier and the client credentials; GitHub's token never reached the browser.
    const exchange = github.calls.find((c) => c.path === '/login/oauth/access_token')!;
    expect(createHash('sha256').update(exchange.form.code_verifier!).digest('base64url')).toBe(
      to.searchParams.get('code_challenge'),
    );
    expect(exchange.authorization).toMatch(/^Basic /);
    for (const token of github.tokens.keys()) expect(page + jar.lines.join('\n')).not.toContain(token);

    const who = await fetch(`${base}/api/v1/reader/session`, { headers: { cookie: jar.header() } });
    expect(who.status).toBe(200);
    const view = (
      (await who.json()) as { data: { login: string; userId: string; grants: string[]; csrfToken: string } }
    ).data;
    expect(view).toMatchObject({ login: 'octocat', userId: '583231', grants: ['signed-in-downloads'] });

    const ranged = await fetch(signedIn.links.download!, {
      headers: { cookie: jar.header(), range: 'bytes=100-1099' },
    });
    expect(ranged.status).toBe(206);
    expect(ranged.headers.get('content-range')).toBe(`bytes 100-1099/${fileBytes.length}`);
    expect(ranged.headers.get('etag')).toBe(`"${signedIn.sha256}"`);
    expect(ranged.headers.get('content-type')).toBe('audio/mpeg');
    expect(ranged.headers.get('cache-control')).toBe('private, no-cache');
    expect(Buffer.from(await ranged.arrayBuffer()).equals(fileBytes.subarray(100, 1100))).toBe(true);
    const whole = await fetch(signedIn.links.download!, { headers: { cookie: jar.header() } });
    expect(whole.status).toBe(200);
    expect(Buffer.from(await whole.arrayBuffer()).equals(fileBytes)).toBe(true);
    const head = await fetch(signedIn.links.download!, { method: 'HEAD', headers: { cookie: jar.header() } });
    expect(head.status).toBe(200);
    expect(head.headers.get('content-length')).toBe(String(fileBytes.length));
    expect(head.headers.get('content-disposition')).toContain('attachment; filename="bwv846-piano-bed.mp3"');
    expect(head.headers.get('vary')).toMatch(/cookie/i);
    const unsatisfiable = await fetch(signedIn.links.download!, {
      headers: { cookie: jar.header(), range: `bytes=${fileBytes.length}-` },
    });
    expect(unsatisfiable.status).toBe(416);
    await unsatisfiable.arrayBuffer();
    const again = await fetch(signedIn.links.download!, {
      headers: { cookie: jar.header(), 'if-none-match': `"${signedIn.sha256}"` },
    });
    expect(again.status).toBe(304);
    const stale = await fetch(signedIn.links.download!, {
      headers: { cookie: jar.header(), range: 'bytes=0-9', 'if-range': '"0000"' },
    });
    expect(stale.status).toBe(200);
    await stale.arrayBuffer();
  });

  it('administrator-only files stay refused to a signed-in reader', async () => {
    const jar = new Jar();
    expect((await signIn(jar)).status).toBe(200);
    expect(adminOnly.links.download).toBeNull();
    const res = await fetch(`${base}/api/v1/works/beethoven-fur-elise/assets/${adminOnly.id}/download`, {
      headers: { cookie: jar.header() },
    });
    expect(res.status).toBe(403);
    expect(((await res.json()) as { type: string }).type).toBe(`${base}/problems/administrator-only`);
  });

  it('a reader session is refused on admin, curator, library and metrics routes', async () => {
    const jar = new Jar();
    expect((await signIn(jar)).status).toBe(200);
    const cookie = jar.header();
    const tries: Array<[string, string, Record<string, string>?]> = [
      ['GET', '/api/v1/admin/queue'],
      ['GET', '/api/v1/admin/session'],
      ['GET', '/api/v1/library/tracks'],
      ['POST', '/api/v1/library/tracks/some-track/publish', { 'content-type': 'application/json' }],
      ['POST', '/api/v1/library/imports', { 'content-type': 'application/json' }],
      ['GET', '/metrics'],
    ];
    for (const [method, url, headers] of tries) {
      const res = await fetch(`${base}${url}`, {
        method,
        headers: { cookie, ...(headers ?? {}) },
        ...(method === 'POST' ? { body: '{}' } : {}),
      });
      const body = (await res.json()) as { detail: string };
      // GET /api/v1/admin/session answers 401 "no desk session"; every key-protected route 403.
      expect([url, res.status]).toEqual([url, url === '/api/v1/admin/session' ? 401 : 403]);
      if (url !== '/api/v1/admin/session')
        expect(body.detail).toContain('A reader sign-in (github user "octocat") does not grant this route');
    }
    // The same routes with their keys still work: the refusal is the session's, not the route's.
    expect(
      (await fetch(`${base}/api/v1/admin/queue`, { headers: { authorization: `Bearer ${KEYS.admin.split('=')[1]}` } }))
        .status,
    ).toBe(200);
    expect(
      (
        await fetch(`${base}/api/v1/library/tracks`, {
          headers: { authorization: `Bearer ${KEYS.library.split('=')[1]}` },
        })
      ).status,
    ).toBe(200);
  });

  it('signs out only with the CSRF token; the download is 401 again afterwards', async () => {
    const jar = new Jar();
    expect((await signIn(jar)).status).toBe(200);
    const view = (
      (await (await fetch(`${base}/api/v1/reader/session`, { headers: { cookie: jar.header() } })).json()) as {
        data: { csrfToken: string };
      }
    ).data;
    const forged = await fetch(`${base}/api/v1/reader/session`, {
      method: 'DELETE',
      headers: { cookie: jar.header() },
    });
    expect(forged.status).toBe(403);
    const crossSite = await fetch(`${base}/api/v1/reader/session`, {
      method: 'DELETE',
      headers: { cookie: jar.header(), 'x-csrf-token': view.csrfToken, 'sec-fetch-site': 'cross-site' },
    });
    expect(crossSite.status).toBe(403);
    expect(
      (await fetch(signedIn.links.download!, { headers: { cookie: jar.header(), range: 'bytes=0-0' } })).status,
    ).toBe(206);
    const out = await fetch(`${base}/api/v1/reader/session`, {
      method: 'DELETE',
      headers: { cookie: jar.header(), 'x-csrf-token': view.csrfToken },
    });
    expect(out.status).toBe(204);
    const oldCookie = jar.header();
    jar.take(out);
    expect(jar.cookies.has('archive-session')).toBe(false);
    // The old cookie is dead on the server too, not only expired in the browser.
    expect((await fetch(signedIn.links.download!, { headers: { cookie: oldCookie } })).status).toBe(401);
    expect((await fetch(`${base}/api/v1/reader/session`, { headers: { cookie: oldCookie } })).status).toBe(401);
  });

  it('refuses a callback whose state does not match, without the sign-in cookie, or with a wrong PKCE verifier', async () => {
    const jar = new Jar();
    const start = await fetch(`${base}/api/v1/reader/sign-in`, { redirect: 'manual' });
    jar.take(start);
    const authorize = await fetch(start.headers.get('location')!, { redirect: 'manual' });
    const back = new URL(authorize.headers.get('location')!);

    const wrongState = new URL(back);
    wrongState.searchParams.set('state', 'x'.repeat(32));
    const r1 = await fetch(wrongState, { headers: { cookie: jar.header() } });
    expect(r1.status).toBe(400);
    expect(((await r1.json()) as { type: string; errors: Array<{ parameter: string }> }).errors[0]!.parameter).toBe(
      'state',
    );

    const r2 = await fetch(back);
    expect(r2.status).toBe(400);
    expect(((await r2.json()) as { detail: string }).detail).toContain('No sign-in is in progress in this browser');

    // The cookie's verifier replaced: GitHub (the fake) refuses the code, so no session starts.
    const [stateValue, , returnPart] = jar.cookies.get('archive-sign-in')!.split('.');
    const tampered = `archive-sign-in=${stateValue}.${'A'.repeat(43)}.${returnPart}`;
    const r3 = await fetch(back, { headers: { cookie: tampered } });
    expect(r3.status).toBe(400);
    expect(((await r3.json()) as { detail: string }).detail).toContain(
      'GitHub refused the sign-in code (bad_verification_code',
    );
    expect(r3.headers.getSetCookie().some((l) => l.startsWith('archive-session=') && !/max-age=0/i.test(l))).toBe(
      false,
    );

    // Declined on GitHub.
    github.deny = true;
    const jar2 = new Jar();
    const start2 = await fetch(`${base}/api/v1/reader/sign-in`, { redirect: 'manual' });
    jar2.take(start2);
    const denied = await fetch(
      (await fetch(start2.headers.get('location')!, { redirect: 'manual' })).headers.get('location')!,
      { headers: { cookie: jar2.header() } },
    );
    expect(denied.status).toBe(400);
    expect(((await denied.json()) as { detail: string }).detail).toContain('GitHub did not sign you in (access_denied');
  });

  it('refuses a return path on another site', async () => {
    for (const bad of ['//evil.example/', 'https://evil.example/', '/\\evil.example']) {
      const res = await fetch(`${base}/api/v1/reader/sign-in?return=${encodeURIComponent(bad)}`, {
        redirect: 'manual',
      });
      expect(res.status).toBe(400);
      expect(((await res.json()) as { errors: Array<{ parameter: string }> }).errors[0]!.parameter).toBe('return');
    }
  });

  describe.skipIf(SKIP_BROWSER_TESTS)('in Chromium', () => {
    let browser: Browser;
    beforeAll(async () => {
      browser = await launchBrowser();
    });
    afterAll(async () => {
      await browser?.close();
    });

    it('signs in from the work page through the provider on another site, downloads with a range, signs out', async () => {
      const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
      const external: string[] = [];
      // Loopback only: the archive at 127.0.0.1, the fake GitHub at localhost (another site).
      await context.route(/^(?!https?:\/\/(127\.0\.0\.1|localhost)[:/]).*/, (route) => {
        external.push(route.request().url());
        return route.abort();
      });
      const errors: string[] = [];
      const page = await context.newPage();
      page.on('pageerror', (e) => errors.push(e.message));
      await page.goto(`${base}/works/${WORK}/`);
      const strip = page.locator('[data-reader-session]');
      await expect.poll(() => strip.locator('[data-sign-in]').isVisible()).toBe(true);
      const row = page.locator(`[data-asset-id="${signedIn.id}"]`).first();
      expect(await row.locator('[data-access-note]').innerText()).toContain('Requires a reader signed in with GitHub');

      // Anonymous: the link the page shows answers the 401 problem.
      const anonymous = await page.evaluate(async (url) => {
        const r = await fetch(url);
        return { status: r.status, type: ((await r.json()) as { type: string }).type };
      }, new URL(signedIn.links.download!).pathname);
      expect(anonymous).toEqual({ status: 401, type: `${base}/problems/sign-in-required` });

      await strip.locator('[data-sign-in]').click();
      // Callback page, then its same-site move back to the work page, where the session shows.
      await page.waitForURL(`${base}/works/${WORK}/`);
      await expect.poll(() => strip.locator('[data-reader-status]').innerText()).toContain('Signed in as octocat');
      expect(
        github.calls.some((c) => c.path === '/login/oauth/authorize' && c.query.code_challenge_method === 'S256'),
      ).toBe(true);

      const ranged = await page.evaluate(async (url) => {
        const r = await fetch(url, { headers: { Range: 'bytes=0-511' } });
        return { status: r.status, range: r.headers.get('content-range'), length: (await r.arrayBuffer()).byteLength };
      }, new URL(signedIn.links.download!).pathname);
      expect(ranged).toEqual({ status: 206, range: `bytes 0-511/${fileBytes.length}`, length: 512 });
      // The page's own download link works in a plain navigation too (same site: the Strict cookie goes along).
      const link = row.locator('a', { hasText: /MP3/ }).first();
      const [download] = await Promise.all([page.waitForEvent('download'), link.click()]);
      expect(readFileSync((await download.path())!).equals(fileBytes)).toBe(true);

      await strip.locator('[data-sign-out]').click();
      await expect.poll(() => strip.locator('[data-reader-status]').innerText()).toContain('Signed out');
      const after = await page.evaluate(
        async (url) => (await fetch(url)).status,
        new URL(signedIn.links.download!).pathname,
      );
      expect(after).toBe(401);
      expect(errors).toEqual([]);
      expect(external).toEqual([]);
      await context.close();
    });

    it('a sign-in that returns straight to a signed-in download gets the file (the Strict session cookie is sent on the way back)', async () => {
      const context = await browser.newContext();
      await context.route(/^(?!https?:\/\/(127\.0\.0\.1|localhost)[:/]).*/, (route) => route.abort());
      const page = await context.newPage();
      const target = new URL(signedIn.links.download!).pathname;
      const downloaded = page.waitForEvent('download');
      // The navigation ends in a download, which Chromium reports as an aborted navigation.
      await page.goto(`${base}/api/v1/reader/sign-in?return=${encodeURIComponent(target)}`).catch(() => undefined);
      const download = await downloaded;
      expect(readFileSync((await download.path())!).equals(fileBytes)).toBe(true);
      await context.close();
    });
  });
});
