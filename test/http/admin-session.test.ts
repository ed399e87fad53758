/**
 * The desk's session machinery over HTTP (api/session/): sign in with an admin key, the cookie's
 * attributes, the session admitting the admin API, the CSRF rule on state-changing requests, a
 * reader of another site refused, sign-out, and what a session never grants.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openApp, testClock, type TestApp, type TestClock } from '../helpers/app.ts';
import { expectEach } from '../helpers/expect-each.ts';

const ADMIN = 'desk-admin-secret-1';
const LIBRARY = 'desk-library-secret-1';
const SESSION = '/api/v1/admin/session';
const QUEUE = '/api/v1/admin/queue';
const json = { 'content-type': 'application/json' };

let t: TestApp;
let dataDir: string;
// The credential limits' clock: still unless moved, so a slow run refills no failed check.
let clock: TestClock;

beforeEach(async () => {
  dataDir = mkdtempSync(path.join(os.tmpdir(), 'archive-session-'));
  clock = testClock();
  t = await openApp(
    undefined,
    {
      ARCHIVE_DATA_DIR: dataDir,
      ARCHIVE_ADMIN_KEYS: `desk-editor=${ADMIN}`,
      ARCHIVE_LIBRARY_KEYS: `lib=${LIBRARY}`,
      ARCHIVE_CURATOR_KEYS: `cur=${LIBRARY}-cur`,
    },
    { clock },
  );
});
afterEach(async () => {
  await t.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function signIn(key = ADMIN) {
  const res = await t.request({ method: 'POST', url: SESSION, headers: json, payload: JSON.stringify({ key }) });
  const setCookie = res.headers['set-cookie'];
  const line = Array.isArray(setCookie) ? setCookie[0] : setCookie;
  const cookie = line ? line.split(';')[0]! : '';
  return { res, cookie, line: line ?? '' };
}

describe('desk session', () => {
  it('signs in with an admin key: an HttpOnly SameSite=Strict cookie, the label and a CSRF token, never the key', async () => {
    const { res, line, cookie } = await signIn();
    expect(res.statusCode, res.body).toBe(201);
    // The sample build's public origin is https: the cookie is Secure and __Host- prefixed.
    expect(t.baseUrl).toMatch(/^https:/);
    expect(line).toMatch(/^__Host-archive-session=[A-Za-z0-9_-]{43};/);
    expect(line).toMatch(/Secure/);
    expect(line).toMatch(/HttpOnly/i);
    expect(line).toMatch(/SameSite=Strict/i);
    expect(line).toMatch(/Path=\//);
    expect(line).toMatch(/Max-Age=43200/);
    expect(res.headers['cache-control']).toBe('no-store');
    const body = res.json().data;
    expect(body).toMatchObject({ kind: 'admin', label: 'desk-editor', roles: ['admin'] });
    expect(body.csrfToken).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(res.body).not.toContain(ADMIN);
    expect(res.body).not.toContain(cookie.split('=')[1]);
    const me = await t.request({ url: SESSION, headers: { cookie } });
    expect(me.statusCode).toBe(200);
    expect(me.json().data.csrfToken).toBe(body.csrfToken);
  });

  it('is neither Secure nor __Host- prefixed on a plain-http origin (loopback development)', async () => {
    await t.close();
    t = await openApp(undefined, {
      ARCHIVE_DATA_DIR: dataDir,
      ARCHIVE_ADMIN_KEYS: `desk-editor=${ADMIN}`,
      PUBLIC_BASE_URL: 'http://localhost:4321',
    });
    const res = await t.app.inject({
      method: 'POST',
      url: SESSION,
      headers: json,
      payload: JSON.stringify({ key: ADMIN }),
    });
    expect(res.statusCode).toBe(201);
    const line = String(res.headers['set-cookie']);
    expect(line).toMatch(/^archive-session=[^;]+;/);
    expect(line).not.toMatch(/Secure/i);
  });

  it('refuses a wrong key (401 naming /key), a key of another role (403), and no configured key (401 saying how)', async () => {
    const wrong = await signIn('not-a-key-at-all');
    expect(wrong.res.statusCode).toBe(401);
    expect(wrong.res.headers['content-type']).toMatch(/application\/problem\+json/);
    expect(wrong.res.json().errors).toEqual([{ pointer: '/key', detail: expect.any(String) }]);
    expect(wrong.line).toBe('');
    const library = await signIn(LIBRARY);
    expect(library.res.statusCode).toBe(403);
    expect(library.line).toBe('');
    const missing = await t.request({ method: 'POST', url: SESSION, headers: json, payload: JSON.stringify({}) });
    expect(missing.statusCode).toBe(400);
    await t.close();
    t = await openApp(undefined, { ARCHIVE_DATA_DIR: dataDir });
    const none = await signIn('anything-at-all');
    expect(none.res.statusCode).toBe(401);
    expect(none.res.json().detail).toContain('ARCHIVE_ADMIN_KEYS');
  });

  it('limits failed sign-ins per address (429 with Retry-After)', async () => {
    const codes: number[] = [];
    for (let i = 0; i < 11; i++) codes.push((await signIn(`wrong-key-${i}`)).res.statusCode);
    expectEach(codes.slice(0, 10), (c) => c === 401);
    expect(codes[10]).toBe(429);
    const last = await signIn('wrong-key-again');
    // 10 a minute: the next failed check is allowed in 6 s, and is once the clock has moved.
    expect(last.res.headers['retry-after']).toBe('6');
    clock.advance(6_000);
    expect((await signIn('wrong-key-after-the-wait')).res.statusCode).toBe(401);
  });

  it('admits the admin API with the cookie; a state change needs the CSRF token and the same origin', async () => {
    const { res, cookie } = await signIn();
    const csrf = res.json().data.csrfToken as string;
    const queue = await t.request({ url: QUEUE, headers: { cookie } });
    expect(queue.statusCode, queue.body).toBe(200);
    const action = `/api/v1/admin/correction-reports/R-7KQM-T4XH-R2PZ-9WNB/decline`;
    const payload = JSON.stringify({ reviewer: 'desk-editor' });
    const noToken = await t.app.inject({ method: 'POST', url: action, headers: { ...json, cookie }, payload });
    expect(noToken.statusCode).toBe(403);
    expect(noToken.json().detail).toContain('CSRF');
    const badToken = await t.app.inject({
      method: 'POST',
      url: action,
      headers: { ...json, cookie, 'x-csrf-token': `${csrf.slice(0, -1)}${csrf.endsWith('A') ? 'B' : 'A'}` },
      payload,
    });
    expect(badToken.statusCode).toBe(403);
    const crossSite = await t.app.inject({
      method: 'POST',
      url: action,
      headers: { ...json, cookie, 'x-csrf-token': csrf, 'sec-fetch-site': 'cross-site' },
      payload,
    });
    expect(crossSite.statusCode).toBe(403);
    const otherOrigin = await t.app.inject({
      method: 'POST',
      url: action,
      headers: { ...json, cookie, 'x-csrf-token': csrf, origin: 'https://evil.example' },
      payload,
    });
    expect(otherOrigin.statusCode).toBe(403);
    expect(otherOrigin.json().detail).toContain('evil.example');
    // With the token, the request passes authentication and reaches the review service (no such report: 404).
    const ok = await t.app.inject({
      method: 'POST',
      url: action,
      headers: { ...json, cookie, 'x-csrf-token': csrf, origin: t.baseUrl },
      payload,
    });
    expect(ok.statusCode).toBe(404);
  });

  it('grants the admin role only: library and curator routes still need their key', async () => {
    const { cookie } = await signIn();
    const library = await t.app.inject({ url: '/api/v1/library/tracks', headers: { cookie } });
    expect(library.statusCode).toBe(403);
    expect(library.json().detail).toContain('admin role only');
  });

  it('signs out: the session ends, the cookie expires, the old cookie no longer admits', async () => {
    const { res, cookie } = await signIn();
    const csrf = res.json().data.csrfToken as string;
    const refused = await t.app.inject({ method: 'DELETE', url: SESSION, headers: { cookie } });
    expect(refused.statusCode).toBe(403);
    const out = await t.app.inject({ method: 'DELETE', url: SESSION, headers: { cookie, 'x-csrf-token': csrf } });
    expect(out.statusCode).toBe(204);
    expect(String(out.headers['set-cookie'])).toMatch(/^__Host-archive-session=;.*Max-Age=0/);
    expect((await t.request({ url: SESSION, headers: { cookie } })).statusCode).toBe(401);
    expect((await t.app.inject({ url: QUEUE, headers: { cookie } })).statusCode).toBe(401);
  });

  it('ignores forged and malformed cookies', async () => {
    for (const value of ['x', 'A'.repeat(43), `${'B'.repeat(42)}!`]) {
      const res = await t.app.inject({ url: QUEUE, headers: { cookie: `__Host-archive-session=${value}` } });
      expect(res.statusCode).toBe(401);
    }
  });
});
