/**
 * The review desk over HTTP: sign-in form and session, pages refused without
 * one, strict headers, the queue's filters and counts, an item with its diff, files, score
 * preview and audio, actions as CSRF-protected forms, forged posts refused, contributed text
 * escaped, sign-out. The browser journey is test/desk/desk-browser.slow.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openReviewHarness, type ReviewHarness } from '../review/harness.ts';
import { ADMIN_KEY, cookieOf, csrfOf, deskContribution, FILES, SLUG, submitContribution } from './helpers.ts';

const form = { 'content-type': 'application/x-www-form-urlencoded' };
const XSS = `"><script>window.__xss=1</script><img src=x onerror=alert(1)>`;

let h: ReviewHarness;
let cookie: string;
let csrf: string;
let code: string;
let xssCode: string;

beforeAll(async () => {
  h = await openReviewHarness(FILES);
  const a = await submitContribution(h, deskContribution(h, 'desk-http-1', 'Desk HTTP arrangement'));
  code = a.trackingCode;
  const b = await submitContribution(
    h,
    deskContribution(h, 'desk-http-xss', `Title ${XSS}`.slice(0, 150), `Text ${XSS}`),
  );
  xssCode = b.trackingCode;
});
afterAll(() => h?.close());

async function signIn() {
  const res = await h.app.inject({
    method: 'POST',
    url: '/admin/sign-in',
    headers: form,
    payload: new URLSearchParams({ key: ADMIN_KEY }).toString(),
  });
  expect(res.statusCode, res.body).toBe(303);
  expect(res.headers.location).toBe('/admin/queue');
  cookie = cookieOf(res.headers['set-cookie']);
  const queue = await h.app.inject({ url: '/admin/queue', headers: { cookie } });
  csrf = csrfOf(queue.body);
  return queue;
}

const get = (url: string) => h.app.inject({ url, headers: { cookie } });
const post = (url: string, fields: Record<string, string>, headers: Record<string, string> = {}) =>
  h.app.inject({
    method: 'POST',
    url,
    headers: { ...form, cookie, ...headers },
    payload: new URLSearchParams(fields).toString(),
  });

/** Wait until the item's action has finished (its JSON record, polled). */
async function settleAction(itemCode: string, actionId: string): Promise<void> {
  for (let n = 0; n < 14_400; n++) {
    const a = (await h.get(`/api/v1/admin/contributions/${itemCode}/actions/${actionId}`)).json().data;
    if (a.state !== 'running') return;
    await new Promise((r) => setTimeout(r, 250));
  }
}

describe('the desk over HTTP', () => {
  it('shows the sign-in form with strict headers; pages and files need a session', async () => {
    const res = await h.app.inject({ url: '/admin/' });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/html/);
    expect(res.headers['content-security-policy']).toMatch(/default-src 'self'/);
    expect(res.headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
    expect(res.headers['content-security-policy']).not.toMatch(/unsafe-inline/);
    expect(res.headers['x-frame-options']).toBe('DENY');
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.body).toMatch(/<form method="post" action="\/admin\/sign-in"/);
    expect(res.body).toMatch(/type="password"/);
    expect(res.body).not.toMatch(/<script>/);
    const queue = await h.app.inject({ url: '/admin/queue?kind=contribution' });
    expect(queue.statusCode).toBe(303);
    expect(queue.headers.location).toBe(`/admin/?next=${encodeURIComponent('/admin/queue?kind=contribution')}`);
    const item = await h.app.inject({ url: `/admin/contributions/${code}` });
    expect(item.statusCode).toBe(303);
    const file = await h.app.inject({ url: `/admin/files/${code}/1` });
    expect(file.statusCode).toBe(401);
    expect(file.headers['content-type']).toMatch(/problem\+json/);
  });

  it('refuses a wrong key (401, no cookie) and a sign-in posted from another site (403)', async () => {
    const wrong = await h.app.inject({
      method: 'POST',
      url: '/admin/sign-in',
      headers: form,
      payload: 'key=not-the-key-at-all',
    });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.headers['set-cookie']).toBeUndefined();
    expect(wrong.body).toContain('not valid');
    expect(wrong.body).not.toContain('not-the-key-at-all');
    const forged = await h.app.inject({
      method: 'POST',
      url: '/admin/sign-in',
      headers: { ...form, origin: 'https://evil.example' },
      payload: new URLSearchParams({ key: ADMIN_KEY }).toString(),
    });
    expect(forged.statusCode).toBe(403);
    expect(forged.headers['set-cookie']).toBeUndefined();
  });

  it('signs in with the form and lists the queue with counts and filters', async () => {
    const queue = await signIn();
    expect(queue.statusCode).toBe(200);
    expect(queue.body).toContain('Signed in as <strong>alice</strong>');
    expect(queue.body).not.toContain(ADMIN_KEY);
    expect(queue.body).toContain(code);
    expect(queue.body).toContain(xssCode);
    expect(queue.body).toMatch(/<span class="count">2<\/span> pending/);
    const corrections = await get('/admin/queue?kind=correction-report');
    expect(corrections.body).not.toContain(code);
    expect(corrections.body).toContain('No item matches these filters.');
    const byWork = await get(`/admin/queue?work=${SLUG}&operation=arrangement&status=pending&age=new-1d`);
    expect(byWork.body).toContain(code);
    const old = await get('/admin/queue?age=old-7d');
    expect(old.body).not.toContain(code);
    const other = await get('/admin/queue?work=bach-minuet-in-g');
    expect(other.body).not.toContain(code);
    const bad = await get('/admin/queue?kind=bogus');
    expect(bad.statusCode).toBe(400);
    expect(bad.body).toContain('Unknown kind');
    const paged = await get('/admin/queue?page=2');
    expect(paged.body).toContain('Page 2 of 1');
    expect(paged.body).not.toContain(code);
  });

  it('shows a correction report with its field, current and proposed value', async () => {
    const r = await h.post(
      '/api/v1/correction-reports',
      {
        workSlug: 'bach-minuet-in-g',
        targetType: 'work',
        fieldName: 'summary',
        currentValue: null,
        proposedValue: `A short minuet ${XSS}`,
        rationale: 'Clearer.',
        evidenceUrl: 'https://en.wikipedia.org/wiki/Minuet_in_G_major',
        reporterName: 'Bob',
        reporterKind: 'Human',
      },
      null,
    );
    expect(r.statusCode, r.body).toBe(202);
    const report = r.json().data.trackingCode as string;
    const list = await get('/admin/queue?kind=correction-report');
    expect(list.body).toContain(report);
    expect(list.body).not.toContain(code);
    const page = await get(`/admin/correction-reports/${report}`);
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain('<dd class="text" id="proposed-value">A short minuet &quot;&gt;&lt;script&gt;');
    expect(page.body).toContain(`action="/admin/correction-reports/${report}/accept"`);
    // A report has no files: no assertion fields.
    expect(page.body).not.toContain('assert-0');
    expect((await get(`/admin/correction-reports/${code}`)).statusCode).toBe(404);
  });

  it('renders contributed text inert on the queue and the item page', async () => {
    for (const url of ['/admin/queue', `/admin/contributions/${xssCode}`]) {
      const res = await get(url);
      expect(res.statusCode).toBe(200);
      expect(res.body).not.toContain('<script>window.__xss');
      expect(res.body).not.toMatch(/<img src=x/i);
      expect(res.body).toContain('&lt;script&gt;window.__xss=1&lt;/script&gt;');
    }
  });

  it('refuses a desk action without the CSRF token or from another origin, and changes nothing', async () => {
    const url = `/admin/contributions/${code}/decline`;
    const noToken = await post(url, { reviewer: 'Mallory' });
    expect(noToken.statusCode).toBe(403);
    expect(noToken.body).toContain('CSRF');
    const crossSite = await post(url, { reviewer: 'Mallory', _csrf: csrf }, { 'sec-fetch-site': 'cross-site' });
    expect(crossSite.statusCode).toBe(403);
    // A sibling subdomain is another party: same-site is refused too, and so is a user-typed navigation.
    for (const site of ['same-site', 'none']) {
      const refused = await post(url, { reviewer: 'Mallory', _csrf: csrf }, { 'sec-fetch-site': site });
      expect(refused.statusCode, site).toBe(403);
      expect(refused.body).toContain('same-origin');
    }
    const otherOrigin = await post(url, { reviewer: 'Mallory', _csrf: csrf }, { origin: 'https://evil.example' });
    expect(otherOrigin.statusCode).toBe(403);
    const noSession = await h.app.inject({
      method: 'POST',
      url,
      headers: form,
      payload: new URLSearchParams({ reviewer: 'Mallory', _csrf: csrf }).toString(),
    });
    expect(noSession.statusCode).toBe(401);
    const item = (await h.get(`/api/v1/admin/contributions/${code}`)).json().data;
    expect(item.status).toBe('pending');
  });

  it('accepts from the desk; the item shows the diff, files with checks and measurements, score preview and audio', async () => {
    const res = await post(
      `/admin/contributions/${code}/accept`,
      { _csrf: csrf, reviewer: 'Alice Editor', note: 'Looks complete.' },
      { origin: 'http://localhost:80' },
    );
    // That Origin is the origin the request was addressed to (inject's Host: localhost:80), so it passes.
    expect(res.statusCode, res.body).toBe(303);
    // Done within the desk's wait: "Done"; else (a loaded machine) the page follows the action to its outcome.
    const location = res.headers.location!;
    const following = new RegExp(`^/admin/contributions/${code}\\?action=(accept-[0-9TZ]+-[a-z0-9]+)$`).exec(location);
    if (following) await settleAction(code, following[1]!);
    else expect(location).toBe(`/admin/contributions/${code}?done=accept`);
    const page = await get(location);
    expect(page.statusCode).toBe(200);
    expect(page.body).toMatch(following ? /<h2>Done: accept<\/h2>/ : /Done: accept\./);
    expect(page.body).toContain('data-status="accepted"');
    // The diff: the review branch adds the arrangement to the work's front matter.
    expect(page.body).toMatch(/<pre class="diff"/);
    expect(page.body).toContain(`works/${SLUG}/index.md`);
    expect(page.body).toMatch(/<span class="dl add">\+.*Desk HTTP arrangement/);
    // Files: verification, digest, checks, measured loudness, preview and player.
    expect(page.body).toContain('Verified: fetched, the declared SHA-256 matches');
    expect(page.body).toMatch(/Integrated loudness<\/dt><dd>-\d+\.\d LUFS/);
    expect(page.body).toContain(`src="/admin/files/${code}/0/score.svg"`);
    expect(page.body).toMatch(new RegExp(`<audio controls preload="metadata" src="/admin/files/${code}/1"`));
    // History with the key label as actor; actions offered for an accepted item.
    expect(page.body).toMatch(/<td>alice<\/td><td class="text">Looks complete\.<\/td>/);
    expect(page.body).toContain(`action="/admin/contributions/${code}/apply"`);
    expect(page.body).toContain('Human listening approved — An accountable, named person listened');
    expect(page.body).toContain(`/track/${code}`);
    expect(page.body).toContain(`review/${code}`);

    const svg = await get(`/admin/files/${code}/0/score.svg`);
    expect(svg.statusCode, svg.body.slice(0, 300)).toBe(200);
    expect(svg.headers['content-type']).toMatch(/^image\/svg\+xml/);
    expect(svg.body).toMatch(/<svg[\s>]/);
    expect(svg.headers['content-security-policy']).toMatch(/sandbox/);
    const mp3 = await h.app.inject({ url: `/admin/files/${code}/1`, headers: { cookie, range: 'bytes=0-99' } });
    expect(mp3.statusCode).toBe(206);
    expect(mp3.headers['content-type']).toBe('audio/mpeg');
    expect(mp3.rawPayload.equals(FILES['/desk/arrangement.mp3']!.subarray(0, 100))).toBe(true);
    expect((await get(`/admin/files/${code}/7`)).statusCode).toBe(404);

    // The admin JSON item carries the same diff.
    const json = (await h.get(`/api/v1/admin/contributions/${code}`)).json().data;
    expect(json.review.diff.text).toContain('Desk HTTP arrangement');
    expect(json.review.diff.files).toEqual([
      { path: `works/${SLUG}/index.md`, added: expect.any(Number), deleted: expect.any(Number) },
    ]);
    expect(json.review.diff.truncated).toBe(false);
  });

  it('shows a refused action or an invalid form on the item page with its reason', async () => {
    const res = await post(`/admin/contributions/${code}/accept`, { _csrf: csrf, reviewer: 'Alice Editor' });
    expect(res.statusCode).toBe(409);
    expect(res.body).toContain('Not done:');
    expect(res.body).toContain('already accepted');
    const empty = await post(`/admin/contributions/${code}/request-information`, { _csrf: csrf, reviewer: '' });
    expect(empty.statusCode).toBe(400);
    expect(empty.body).toContain('reviewer');
  });

  it('signs out: the session ends and pages send to the form again', async () => {
    const out = await post('/admin/sign-out', { _csrf: csrf });
    expect(out.statusCode).toBe(303);
    expect(out.headers.location).toBe('/admin/?signed-out=1');
    expect(String(out.headers['set-cookie'])).toMatch(/Max-Age=0/);
    const queue = await get('/admin/queue');
    expect(queue.statusCode).toBe(303);
    const api = await get('/api/v1/admin/queue');
    expect(api.statusCode).toBe(401);
  });
});
