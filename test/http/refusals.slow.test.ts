/**
 * Smaller refusals over a real socket: an unknown tracking code's page answers 404 (and still
 * says why); a correction report apply would refuse (a summary over 300 characters, a field no
 * report can change) is refused at intake, naming the field; the desk's sign-in form takes only
 * `Sec-Fetch-Site: same-origin`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listenOnLoopback } from '../helpers/app.ts';
import { ADMIN_SECRET, openLibraryApp, type LibraryTestApp } from '../library/library-helpers.ts';
import { validReport } from '../contributions/helpers.ts';

let t: LibraryTestApp;
let url: string;
beforeAll(async () => {
  t = await openLibraryApp();
  url = await listenOnLoopback(t.app);
});
afterAll(() => t.close());

describe('refusals', () => {
  it('answers 404 for the tracking page of a code no record has, and for a string that is no code', async () => {
    for (const code of ['R-2222-3333-4444-5555', 'C-2222-3333-4444-5555', 'not-a-code']) {
      const res = await fetch(`${url}/track/${code}`);
      expect(res.status, code).toBe(404);
      expect(res.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await res.text()).toContain('class="notice bad"');
    }
    // A known code still answers 200.
    const made = await fetch(`${url}/api/v1/correction-reports`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(validReport()),
    });
    expect(made.status).toBe(202);
    const code = ((await made.json()) as { data: { trackingCode: string } }).data.trackingCode;
    expect((await fetch(`${url}/track/${code}`)).status).toBe(200);
  });

  it('refuses at intake a correction that apply would refuse, with the rule apply uses', async () => {
    const post = (body: unknown) =>
      fetch(`${url}/api/v1/correction-reports`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
    const long = await post({
      ...validReport(),
      fieldName: 'summary',
      currentValue: null,
      proposedValue: 's'.repeat(301),
    });
    expect(long.status).toBe(400);
    expect(long.headers.get('content-type')).toMatch(/^application\/problem\+json/);
    const problem = (await long.json()) as { errors: Array<{ pointer: string; detail: string }> };
    expect(problem.errors).toEqual([
      { pointer: '/proposedValue', detail: 'for "summary" must be at most 300 characters' },
    ]);
    const field = await post({ ...validReport(), fieldName: 'reviewState', proposedValue: 'human-listening-approved' });
    expect(field.status).toBe(400);
    expect(((await field.json()) as { errors: Array<{ pointer: string }> }).errors[0]!.pointer).toBe('/fieldName');
    const date = await post({
      ...validReport(),
      fieldName: 'composer.died',
      currentValue: null,
      proposedValue: '1925-02-30',
    });
    expect(date.status).toBe(400);
    // Exactly 300 passes; a report about a part no report changes (a video) is read by a person.
    expect(
      (await post({ ...validReport(), fieldName: 'summary', currentValue: null, proposedValue: 's'.repeat(300) }))
        .status,
    ).toBe(202);
    expect((await post({ ...validReport(), targetType: 'video', targetId: 1, fieldName: 'title' })).status).toBe(202);
  });

  it("takes the desk's sign-in form only from the same origin", async () => {
    const signIn = (site: string) =>
      fetch(`${url}/admin/sign-in`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'sec-fetch-site': site },
        body: `key=${ADMIN_SECRET}`,
        redirect: 'manual',
      });
    for (const site of ['same-site', 'cross-site', 'none']) {
      const res = await signIn(site);
      expect(res.status, site).toBe(403);
      expect(res.headers.get('set-cookie')).toBeNull();
    }
    const ok = await signIn('same-origin');
    expect(ok.status).toBe(303);
    expect(ok.headers.get('set-cookie')).toMatch(/archive-session=/);
  });
});
