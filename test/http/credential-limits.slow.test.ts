/**
 * The one credential limiter, over a real socket: it is consulted before any key is compared, on
 * every door (the JSON sign-in, the desk's sign-in form, Bearer and X-Archive-Import-Key on API
 * routes), counts failures per client address across all doors, and counts every request of a
 * key label. While an address is limited, the right key is refused too (429 with Retry-After).
 */
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ADMIN_SECRET,
  KEY_ENV,
  LIBRARY_SECRET,
  openLibraryApp,
  type LibraryTestApp,
} from '../library/library-helpers.ts';

let t: LibraryTestApp | null = null;
afterEach(async () => {
  await t?.close();
  t = null;
});

async function serve(env: Record<string, string>): Promise<string> {
  t = await openLibraryApp({ ...KEY_ENV, ARCHIVE_TRUSTED_PROXIES: '127.0.0.1', ...env });
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  return `http://127.0.0.1:${(t.app.server.address() as AddressInfo).port}`;
}

const TRACKS = '/api/v1/library/tracks';
const SESSION = '/api/v1/admin/session';

/** A request from a given client address (the test's proxy, 127.0.0.1, is trusted to say so). */
function from(address: string, headers: Record<string, string> = {}): Record<string, string> {
  return { 'x-forwarded-for': address, ...headers };
}

describe('the credential limiter', () => {
  it('refuses the right key while an address is limited, on every door, with Retry-After', async () => {
    const url = await serve({ ARCHIVE_CREDENTIAL_FAILURE_LIMIT: '6/60' });
    const a = '203.0.113.7';
    // Six wrong keys spread over three doors: the limit is one allowance per address.
    const wrong: Record<string, string>[] = [
      { 'x-archive-import-key': 'wrong-key-00000001' },
      { authorization: 'Bearer wrong-key-00000002' },
      { authorization: 'Bearer wrong-key-00000003' },
    ];
    for (const headers of wrong) {
      const res = await fetch(`${url}${TRACKS}`, { headers: from(a, headers) });
      expect(res.status).toBe(401);
    }
    for (let i = 0; i < 2; i++) {
      const res = await fetch(`${url}${SESSION}`, {
        method: 'POST',
        headers: from(a, { 'content-type': 'application/json' }),
        body: JSON.stringify({ key: `wrong-admin-key-${i}` }),
      });
      expect(res.status).toBe(401);
    }
    const form = await fetch(`${url}/admin/sign-in`, {
      method: 'POST',
      headers: from(a, { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' }),
      body: 'key=wrong-admin-key-form',
      redirect: 'manual',
    });
    expect(form.status).toBe(401);

    // Limited now: the right key is refused through every door, before it is compared.
    const refusals = [
      await fetch(`${url}${TRACKS}`, { headers: from(a, { 'x-archive-import-key': LIBRARY_SECRET }) }),
      await fetch(`${url}${TRACKS}`, { headers: from(a, { authorization: `Bearer ${LIBRARY_SECRET}` }) }),
      await fetch(`${url}/api/v1/admin/queue`, { headers: from(a, { authorization: `Bearer ${ADMIN_SECRET}` }) }),
      await fetch(`${url}${SESSION}`, {
        method: 'POST',
        headers: from(a, { 'content-type': 'application/json' }),
        body: JSON.stringify({ key: ADMIN_SECRET }),
      }),
    ];
    for (const res of refusals) {
      expect(res.status, res.url).toBe(429);
      expect(res.headers.get('content-type')).toMatch(/^application\/problem\+json/);
      expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(res.headers.get('set-cookie')).toBeNull();
      const body = (await res.json()) as { type: string; detail: string };
      expect(body.type).toMatch(/\/problems\/rate-limited$/);
      expect(JSON.stringify(body)).not.toContain(LIBRARY_SECRET);
    }
    const deskForm = await fetch(`${url}/admin/sign-in`, {
      method: 'POST',
      headers: from(a, { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': 'same-origin' }),
      body: `key=${ADMIN_SECRET}`,
      redirect: 'manual',
    });
    expect(deskForm.status).toBe(429);
    expect(deskForm.headers.get('set-cookie')).toBeNull();
    expect(Number(deskForm.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);

    // Another address keeps its own allowance, and a request without a key is not a failed check.
    const other = await fetch(`${url}${TRACKS}`, {
      headers: from('198.51.100.9', { authorization: `Bearer ${LIBRARY_SECRET}` }),
    });
    expect(other.status).toBe(200);
    const keyless = await fetch(`${url}${TRACKS}`, { headers: from('198.51.100.10') });
    expect(keyless.status).toBe(401);
  });

  it('lets the address try again once its allowance refills', async () => {
    const url = await serve({ ARCHIVE_CREDENTIAL_FAILURE_LIMIT: '2/1' });
    const a = '203.0.113.8';
    for (let i = 0; i < 2; i++)
      expect(
        (await fetch(`${url}${TRACKS}`, { headers: from(a, { authorization: `Bearer wrong-${i}-0000000` }) })).status,
      ).toBe(401);
    const limited = await fetch(`${url}${TRACKS}`, { headers: from(a, { authorization: `Bearer ${LIBRARY_SECRET}` }) });
    expect(limited.status).toBe(429);
    await new Promise((r) => setTimeout(r, Number(limited.headers.get('retry-after')) * 1000 + 100));
    const again = await fetch(`${url}${TRACKS}`, { headers: from(a, { authorization: `Bearer ${LIBRARY_SECRET}` }) });
    expect(again.status).toBe(200);
  });

  it('counts every request of a key label, from any address (ARCHIVE_KEY_RATE_LIMIT)', async () => {
    const url = await serve({ ARCHIVE_KEY_RATE_LIMIT: '5/60' });
    const statuses: number[] = [];
    for (let i = 0; i < 7; i++) {
      const res = await fetch(`${url}${TRACKS}`, {
        headers: from(`192.0.2.${i + 1}`, { authorization: `Bearer ${LIBRARY_SECRET}` }),
      });
      statuses.push(res.status);
      if (res.status === 429) {
        expect(Number(res.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
        expect(((await res.json()) as { detail: string }).detail).toContain('prod-team');
      }
    }
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429, 429]);
  });
});
