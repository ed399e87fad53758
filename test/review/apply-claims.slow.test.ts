/**
 * An apply never overwrites what it did not propose to change (docs/review.md, "An apply is built
 * on what is there when it runs"): two new works that claim one slug, both accepted, both
 * applied, over HTTP in-process with real builds and real OpenScore songs. The second accept is
 * flagged with the first's code; the first apply creates the work, the second is refused with a
 * problem naming the slug and writes nothing; every tracking record says what happened. Once
 * through single applies with the slug each proposal derives (composer and title, no target),
 * once through one review batch apply (one pass, one merge line) with the slug named.
 */
import { execFileSync } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { LIEDER, plannedImportItem } from '../helpers/corpus-content.ts';
import { openReviewHarness, sha256, type ReviewHarness } from './harness.ts';
import type { MusicContributionInput } from '../../src/schemas/contribution.ts';

// Two different Schubert songs, given one title (as the same song would arrive twice).
const FIRST = '6180725'; // An die Musik, D.547
const SECOND = '5946872'; // Das Rosenband, D.280

let h: ReviewHarness | null = null;
afterEach(async () => {
  await h?.close();
  h = null;
});

const git = (repo: string, ...args: string[]) => execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' });

async function submit(
  harness: ReviewHarness,
  id: string,
  change: (body: MusicContributionInput) => void,
): Promise<{ code: string; sha: string }> {
  const { body, bytes } = plannedImportItem(LIEDER, `lc${id}.mxl`, 'unused');
  change(body);
  const put = await harness.app.inject({
    method: 'PUT',
    url: `/api/v1/admin/imports/files/${sha256(bytes)}`,
    headers: { authorization: `Bearer alice-admin-secret-1`, 'content-type': 'application/octet-stream' },
    payload: bytes,
  });
  expect(put.statusCode, put.body).toBe(201);
  const res = await harness.post('/api/v1/admin/imports/items', { contribution: body });
  expect(res.statusCode, res.body).toBe(201);
  return { code: res.json().data.trackingCode as string, sha: sha256(bytes) };
}

async function item(harness: ReviewHarness, code: string) {
  const res = await harness.get(`/api/v1/admin/contributions/${code}`);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

/** What main holds of the work, and every tracking record's last word, checked to be true. */
async function expectFirstKeptSecondRefused(
  harness: ReviewHarness,
  slug: string,
  first: { code: string; sha: string },
  second: { code: string; sha: string },
) {
  const file = git(harness.contentRepo, 'show', `main:works/${slug}/index.md`);
  expect(file).toContain(first.code);
  expect(file).toContain(first.sha);
  expect(file).not.toContain(second.code);
  expect(file).not.toContain(second.sha);
  const a = await item(harness, first.code);
  expect(a.status).toBe('applied');
  expect(a.apply).toMatchObject({ state: 'visible' });
  const b = await item(harness, second.code);
  // Back in review: accepted, not applied, the refusal recorded as a blocker with the slug named.
  expect(b.status).toBe('accepted');
  expect(b.apply).toMatchObject({ state: 'failed' });
  expect(b.history.map((x: { status: string }) => x.status)).not.toContain('applied');
  expect(b.review.blockers.join(' ')).toContain(`A work with the slug "${slug}" already exists`);
  expect(b.review.actions.at(-1).outcome).toMatch(/^refused: A work with the slug/);
  // The public tracking record says the same.
  const tracked = await harness.app.inject({ url: `/api/v1/music/contributions/${second.code}` });
  expect(tracked.json().data.status).toBe('accepted');
  expect(tracked.json().data.apply.state).toBe('failed');
  // The site serves the first work's record.
  const served = await harness.app.inject({ url: `/api/v1/works/${slug}` });
  expect(served.statusCode).toBe(200);
  expect(served.body).toContain(first.sha);
  expect(served.body).not.toContain(second.sha);
}

describe('an apply never overwrites a work it did not propose to change', () => {
  it('two single applies of new works with one derived slug: the first lands, the second is refused', async () => {
    h = await openReviewHarness({});
    const sameWork = (body: MusicContributionInput) => {
      body.work!.title = 'An die Musik';
      body.work!.workNumber = null;
      body.work!.catalogNumbers = [];
      delete body.target;
    };
    const first = await submit(h, FIRST, sameWork);
    const second = await submit(h, SECOND, sameWork);
    const slug = 'franz-schubert-an-die-musik';

    const acceptA = await h.post(`/api/v1/admin/contributions/${first.code}/accept`, { reviewer: 'Alice' });
    expect(acceptA.statusCode, acceptA.body).toBe(200);
    const acceptB = await h.post(`/api/v1/admin/contributions/${second.code}/accept`, { reviewer: 'Alice' });
    expect(acceptB.statusCode, acceptB.body).toBe(200);
    // Flagged at accept: both items would create one work.
    const warned = acceptB.json().data.review.warnings.join(' ');
    expect(warned).toContain(`also proposes the new work "${slug}"`);
    expect(warned).toContain(`${first.code} (accepted)`);

    const applyA = await h.post(`/api/v1/admin/contributions/${first.code}/apply`, { reviewer: 'Alice' });
    expect(applyA.statusCode, applyA.body).toBe(200);
    const applyB = await h.post(`/api/v1/admin/contributions/${second.code}/apply`, { reviewer: 'Alice' });
    expect(applyB.statusCode, applyB.body).toBe(409);
    expect(applyB.headers['content-type']).toContain('application/problem+json');
    expect(applyB.json().detail).toContain(`A work with the slug "${slug}" already exists`);
    await expectFirstKeptSecondRefused(h, slug, first, second);
  }, 600_000);

  it('two works of one review batch claiming one slug, applied in one pass: the first lands, the second is refused', async () => {
    h = await openReviewHarness({});
    const slug = 'schubert-one-slug-twice';
    const named = (body: MusicContributionInput) => {
      body.target = { workSlug: slug };
    };
    const first = await submit(h, FIRST, named);
    const second = await submit(h, SECOND, named);

    const accepted = await h.actOnBatch('openscore-lieder', 'accept', { reviewer: 'Alice' });
    expect(accepted.data, accepted.body).toMatchObject({ state: 'completed', actedOn: 2, failed: 0 });
    expect((await item(h, second.code)).review.warnings.join(' ')).toContain(first.code);

    const applied = await h.actOnBatch('openscore-lieder', 'apply', { reviewer: 'Alice' });
    expect(applied.data, applied.body).toMatchObject({ state: 'completed', failed: 1 });
    // The batch applies its items in its own order (by item key): whichever came first is kept whole.
    const [kept, refused] = (await item(h, first.code)).status === 'applied' ? [first, second] : [second, first];
    await expectFirstKeptSecondRefused(h, slug, kept, refused);
    // One change on main: the batch's merge commit holds the first work only.
    expect(git(h.contentRepo, 'log', '-1', '--format=%s', 'main').trim()).toBe(
      'Apply 1 works of the review batch openscore-lieder',
    );
  }, 600_000);
});
