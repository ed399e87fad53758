/**
 * Merging a batch's probable duplicate into the existing work (docs/imports.md, "Batches in
 * review"), over HTTP in-process: two real songs of the OpenScore Lieder corpus submitted as
 * import items (one flagged as a duplicate of the sample catalog's Ave Maria, D. 839), the merge
 * action through the admin API and the desk's button, recorded with the key's label; the
 * proposal adds the song's score as another source score of the existing work (its own license,
 * attribution and source pages), no second work, and the other item is untouched.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LIEDER, plannedImportItem } from '../helpers/corpus-content.ts';
import { openReviewHarness, sha256, LABELED_ADMIN_KEY, type ReviewHarness } from '../review/harness.ts';
import { cookieOf, csrfOf } from '../desk/helpers.ts';

const AVE_MARIA = '6389103'; // Schubert, "Ellens Gesang III, D.839": the sample catalog has D. 839
const OTHER = '5016466';
const EXACT = '5701612'; // submitted as an exact duplicate (the importer's finding is what the server keeps)
const EXISTING = 'schubert-ave-maria-d-839';
const BATCH = 'openscore-lieder';

let h: ReviewHarness;
const codes: Record<string, string> = {};

const git = (...args: string[]) => execFileSync('git', ['-C', h.contentRepo, ...args], { encoding: 'utf8' });

async function submit(
  id: string,
  slug: string,
  duplicateOf: string | null,
  duplicateMatch?: { matched: string[]; exact: boolean },
) {
  const { body, bytes } = plannedImportItem(LIEDER, `lc${id}.mxl`, slug);
  const put = await h.app.inject({
    method: 'PUT',
    url: `/api/v1/admin/imports/files/${sha256(bytes)}`,
    headers: { authorization: `Bearer ${LABELED_ADMIN_KEY}`, 'content-type': 'application/octet-stream' },
    payload: bytes,
  });
  expect(put.statusCode, put.body).toBe(201);
  const res = await h.post('/api/v1/admin/imports/items', {
    contribution: body,
    duplicateOf,
    ...(duplicateMatch ? { duplicateMatch } : {}),
  });
  expect(res.statusCode, res.body).toBe(201);
  codes[id] = res.json().data.trackingCode;
}

beforeAll(async () => {
  h = await openReviewHarness({});
  await submit(AVE_MARIA, 'franz-schubert-ellens-gesang-iii-d-839', EXISTING, {
    matched: ['composer', 'catalog number D. 839'],
    exact: false,
  });
  await submit(OTHER, 'song-other', null);
}, 120_000);
afterAll(() => h?.close());

describe('merging a probable duplicate into the existing work', () => {
  it('refuses an item that is not flagged, naming it, and merges nothing', async () => {
    const res = await h.post(`/api/v1/admin/batches/${BATCH}/merge`, { items: [codes[OTHER]] });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    expect(res.json().errors).toEqual([
      { pointer: '/items', detail: `"lc${OTHER}" is not flagged as a probable duplicate` },
    ]);
    const batch = (await h.get(`/api/v1/admin/batches/${BATCH}`)).json().data;
    expect(batch.items.map((i: { status: string }) => i.status)).toEqual(['pending', 'pending']);
  });

  it('a merge that names no items merges only the exact duplicates; the batch says what matched', async () => {
    await submit(EXACT, 'song-exact', EXISTING, {
      matched: ['composer', 'catalog number D. 839', 'title'],
      exact: true,
    });
    const before = (await h.get(`/api/v1/admin/batches/${BATCH}`)).json().data.items as Array<Record<string, any>>;
    expect(before.find((i) => i.itemKey === `lc${AVE_MARIA}`)!.duplicateMatch).toEqual({
      matched: ['composer', 'catalog number D. 839'],
      exact: false,
    });
    const acted = await h.actOnBatch(BATCH, 'merge', {});
    expect(acted.data, acted.body).toMatchObject({ state: 'completed', total: 1, actedOn: 1, failed: 0 });
    const after = (await h.get(`/api/v1/admin/batches/${BATCH}`)).json().data.items as Array<Record<string, any>>;
    const status = (id: string) => after.find((i) => i.itemKey === `lc${id}`)!.status;
    expect([status(EXACT), status(AVE_MARIA), status(OTHER)]).toEqual(['accepted', 'pending', 'pending']);
  });

  it('the desk offers the merge; the admin API merges: accepted as a source score of the existing work, recorded with the key label', async () => {
    // The desk's batch page shows the button beside the flag.
    const signIn = await h.app.inject({
      method: 'POST',
      url: '/admin/sign-in',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ key: LABELED_ADMIN_KEY }).toString(),
    });
    const cookie = cookieOf(signIn.headers['set-cookie']);
    const page = await h.app.inject({ url: `/admin/batches/${BATCH}`, headers: { cookie } });
    expect(page.body).toContain('data-duplicate-of="schubert-ave-maria-d-839"');
    expect(page.body).toContain('name="action" value="merge"');
    // Before a merge the desk shows the pair side by side, with what matched.
    expect(page.body).toContain(`/admin/batches/${BATCH}/compare/lc${AVE_MARIA}`);
    const compare = await h.app.inject({ url: `/admin/batches/${BATCH}/compare/lc${AVE_MARIA}`, headers: { cookie } });
    expect(compare.statusCode, compare.body).toBe(200);
    expect(compare.body).toContain('Partial match: composer, catalog number D. 839.');
    const row = (fact: string) =>
      new RegExp(`<tr data-fact="${fact}" data-same="(true|false)">(.*?)</tr>`, 's').exec(compare.body);
    expect(row('title')?.[1], compare.body).toBe('false');
    expect(row('title')?.[2]).toContain('Ellens Gesang III');
    expect(row('title')?.[2]).toContain('Ave Maria');
    expect(row('composer')?.[2]).toContain('Franz Schubert');
    expect(row('catalog')?.[2]).toMatch(/D\. 839.*D\. 839/s);
    expect(compare.body).toContain('name="action" value="merge"');
    const acted = await h.app.inject({
      method: 'POST',
      url: `/admin/batches/${BATCH}/act`,
      headers: { 'content-type': 'application/x-www-form-urlencoded', cookie },
      payload: new URLSearchParams({
        _csrf: csrfOf(page.body),
        item: codes[AVE_MARIA]!,
        reviewer: 'Alice',
        note: 'The same song as D. 839: another source.',
        action: 'merge',
      }).toString(),
    });
    expect(acted.statusCode, acted.body).toBe(303);
    // The merge runs in the background: the form waits a few seconds for it (then the count), else
    // the batch page follows the running action.
    expect([`/admin/batches/${BATCH}?done=1%20merged`, `/admin/batches/${BATCH}#batch-action`]).toContain(
      acted.headers.location,
    );
    let latest = (await h.get(`/api/v1/admin/batches/${BATCH}`)).json().data.latestAction;
    for (let n = 0; latest.state === 'running' && n < 1200; n++) {
      await new Promise((r) => setTimeout(r, 250));
      latest = (await h.get(`/api/v1/admin/batches/${BATCH}`)).json().data.latestAction;
    }
    expect(latest).toMatchObject({ action: 'merge', state: 'completed', actedOn: 1, failed: 0, actor: 'alice' });
    const shown = await h.app.inject({ url: `/admin/batches/${BATCH}`, headers: { cookie } });
    expect(shown.body).toContain('data-state="completed" data-action="merge"');
    expect(shown.body).toContain('merge openscore-lieder: 1 of 1 done, completed');

    const item = (await h.get(`/api/v1/admin/contributions/${codes[AVE_MARIA]}`)).json().data;
    expect(item.status).toBe('accepted');
    expect(item.review.mergeInto).toMatchObject({ workSlug: EXISTING, actor: 'alice' });
    expect(item.review.actions.at(-1)).toMatchObject({
      action: 'merge',
      actor: 'alice',
      reviewer: 'Alice',
      outcome: expect.stringMatching(/^merged into schubert-ave-maria-d-839 as another source score; accepted/),
    });
    expect(item.review.blockers).toEqual([]);
    expect(item.history.at(-1)).toMatchObject({ status: 'accepted' });

    // The proposal changes the existing work only: no second work folder.
    const branch = item.review.review.branch as string;
    expect(git('diff', '--name-only', 'main', branch).trim().split('\n')).toEqual([`works/${EXISTING}/index.md`]);
    const before = git('show', `main:works/${EXISTING}/index.md`);
    const after = git('show', `${branch}:works/${EXISTING}/index.md`);
    expect(after.split('\n').slice(0, 3)).toEqual(before.split('\n').slice(0, 3));
    expect(after).toContain('license: CC0-1.0');
    expect(after).toMatch(/attribution: .*OpenScore Lieder corpus/);
    expect(after).toContain('musescore.com/openscore-lieder-corpus/scores/6389103');
    expect(after).toContain('imslp.org');
    expect(after.match(/^ {2}- id: /gm)?.length ?? 0).toBeGreaterThan(before.match(/^ {2}- id: /gm)?.length ?? 0);
    expect(git('log', '-1', '--format=%B', branch)).toContain('source-score for schubert-ave-maria-d-839');

    // The rest of the batch is unaffected.
    const batch = (await h.get(`/api/v1/admin/batches/${BATCH}`)).json().data;
    expect(batch.items.find((i: { itemKey: string }) => i.itemKey === `lc${OTHER}`).status).toBe('pending');
  });

  it('a merged item is not merged twice', async () => {
    const res = await h.post(`/api/v1/admin/batches/${BATCH}/merge`, { items: [codes[AVE_MARIA]] });
    expect(res.statusCode, res.body).toBe(400);
    expect(res.json().errors[0].detail).toBe(`"lc${AVE_MARIA}" is accepted; only a pending item can be merged`);
  });
});
