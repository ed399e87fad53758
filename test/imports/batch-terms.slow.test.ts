/**
 * New vocabulary terms at review (docs/imports.md, "New vocabulary terms"), over HTTP in-process:
 * the importer's plan of a real string quartet proposes the genre "String quartet", which the
 * published vocabulary lacks. Accepted without approval, the proposal does not pass the content
 * lint (and says why); accepted with `approveTerms`, the proposal adds the term to genres.json and
 * passes, the approval recorded with the key's label. Old bodies (no newTerms) stay valid.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QUARTETS, plannedImportItem } from '../helpers/corpus-content.ts';
import { openReviewHarness, LABELED_ADMIN_KEY, type ReviewHarness } from '../review/harness.ts';
import { validate } from '../../src/domain/validation.ts';
import { ImportItemInput } from '../../src/schemas/imports.ts';

const BATCH = 'openscore-string-quartets';
const SLUG = 'mozart-string-quartet-no-18-k-464';

let h: ReviewHarness;
let code: string;
const git = (...args: string[]) => execFileSync('git', ['-C', h.contentRepo, ...args], { encoding: 'utf8' });

beforeAll(async () => {
  h = await openReviewHarness({});
  const { body, bytes, sha256 } = plannedImportItem(QUARTETS, 'sq7070781.mxl', SLUG);
  expect(body.work?.genre).toBe('String quartet');
  expect(body.work?.newTerms?.genre).toMatchObject({ name: 'String quartet', broader: 'Chamber music' });
  const put = await h.app.inject({
    method: 'PUT',
    url: `/api/v1/admin/imports/files/${sha256}`,
    headers: { authorization: `Bearer ${LABELED_ADMIN_KEY}`, 'content-type': 'application/octet-stream' },
    payload: bytes,
  });
  expect(put.statusCode, put.body).toBe(201);
  const res = await h.post('/api/v1/admin/imports/items', { contribution: body });
  expect(res.statusCode, res.body).toBe(201);
  code = res.json().data.trackingCode;
}, 120_000);
afterAll(() => h?.close());

describe('a new genre proposed by an import lands only with an editor approval', () => {
  it('the batch shows the proposed term to the editor', async () => {
    const item = (await h.get(`/api/v1/admin/batches/${BATCH}`)).json().data.items[0];
    expect(item).toMatchObject({
      newTerms: ['genre "String quartet" (under Chamber music)'],
      termsApproved: false,
    });
    const admin = (await h.get(`/api/v1/admin/contributions/${code}`)).json().data;
    expect(admin.submission.work.newTerms.genre.name).toBe('String quartet');
  });

  it('accepted without approval: the content lint refuses the proposal and the blockers say why', async () => {
    const acc = await h.actOnBatch(BATCH, 'accept', {});
    expect(acc.data, acc.body).toMatchObject({ state: 'completed', actedOn: 1, failed: 0 });
    const review = (await h.get(`/api/v1/admin/contributions/${code}`)).json().data.review;
    expect(review.termsApproval).toBeNull();
    expect(review.blockers.join('\n')).toContain('"String quartet" is not a term of genres.json');
    expect(review.blockers.join('\n')).toContain('they land only when an editor approves them');
    // Nothing was proposed: no review branch passed the lint.
    expect(review.review).toBeNull();
  });

  it('accepted again with approveTerms: genres.json gains the term in the proposal, which passes the lint', async () => {
    const acc = await h.actOnBatch(BATCH, 'accept', { approveTerms: true });
    expect(acc.data, acc.body).toMatchObject({ state: 'completed', actedOn: 1, failed: 0 });
    const data = (await h.get(`/api/v1/admin/contributions/${code}`)).json().data;
    expect(data.status).toBe('accepted');
    expect(data.review.blockers).toEqual([]);
    expect(data.review.termsApproval).toMatchObject({
      terms: ['genre "String quartet" (under Chamber music)'],
      actor: 'alice',
    });
    const branch = data.review.review.branch as string;
    expect(git('diff', '--name-only', 'main', branch).trim().split('\n').sort()).toEqual([
      'genres.json',
      `works/${SLUG}/index.md`,
    ]);
    const genres = JSON.parse(git('show', `${branch}:genres.json`)) as Array<{ name: string; broader: string }>;
    const before = JSON.parse(git('show', 'main:genres.json')) as unknown[];
    expect(genres).toHaveLength(before.length + 1);
    expect(genres.at(-1)).toMatchObject({ name: 'String quartet', broader: 'Chamber music' });
    expect(git('show', `${branch}:works/${SLUG}/index.md`)).toContain('genre: String quartet');
    const batch = (await h.get(`/api/v1/admin/batches/${BATCH}`)).json().data.items[0];
    expect(batch.termsApproved).toBe(true);
  });

  it('a body without newTerms stays valid (the field is additive)', () => {
    const { body } = plannedImportItem(QUARTETS, 'sq7070781.mxl', SLUG);
    delete body.work!.newTerms;
    body.work!.genre = 'Chamber piece';
    expect(validate(ImportItemInput, { contribution: body })).toEqual([]);
  });

  it('a malformed proposed term is refused naming the field', async () => {
    const { body } = plannedImportItem(QUARTETS, 'sq7070781.mxl', SLUG);
    body.idempotencyKey = `${body.idempotencyKey}-bad`;
    (body.work!.newTerms as Record<string, unknown>).genre = { name: 'String quartet' };
    const res = await h.post('/api/v1/admin/imports/items', { contribution: body });
    expect(res.statusCode).toBe(400);
    expect(JSON.stringify(res.json().errors)).toContain('/contribution/work/newTerms/genre');
  });
});
