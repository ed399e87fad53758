/**
 * The submitter's answer over HTTP: the 202 answer of a contribution or report carries a secret response
 * token (the same on an idempotent replay, nowhere public, only its digest stored); with it the
 * submitter answers a request for information (back to pending, the exchange in the history and
 * on the tracking page); a revised contribution replaces the proposal on the review branch; a
 * missing or wrong token, a token in the URL, an invalid revision, or an item not in
 * needs-information is a problem and changes nothing; answers are rate-limited like intake.
 */
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openReviewHarness, sha256, type ReviewHarness } from './harness.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { openIntakeApp, validReport } from '../contributions/helpers.ts';
import { responseTokenSha256 } from '../../src/domain/contributions/response-token.ts';
import type { MusicContributionInput } from '../../src/schemas/contribution.ts';

const CONTRIBUTIONS = '/api/v1/music/contributions';
const REPORTS = '/api/v1/correction-reports';
const TOKEN = /^pdma_rt_[A-Za-z0-9_-]{43}$/;
const WORK = 'works/satie-gymnopedie-1/index.md';

const SCORES = path.join(PROJECT_ROOT, 'content', 'works', 'satie-gymnopedie-1');
const SCORE_A = readFileSync(path.join(SCORES, 'gymnopedie-1-ambient-piano.musicxml'));
const SCORE_B = readFileSync(path.join(SCORES, 'gymnopedie-1-opening.musicxml'));

let h: ReviewHarness;
beforeAll(async () => {
  h = await openReviewHarness({ '/scores/a.musicxml': SCORE_A, '/scores/b.musicxml': SCORE_B });
});
afterAll(() => h.close());

let keys = 0;
/** A metadata revision of the Satie work (no files to fetch), with its own idempotency key. */
const revision = (summary: string, key = `answer-test-${process.pid}-${++keys}`): MusicContributionInput => ({
  schemaVersion: 'archive.music-contribution.v1',
  operation: 'metadata-revision',
  idempotencyKey: key,
  submittedBy: { name: 'Ada Submitter', kind: 'Human', contact: 'ada@example.org' },
  target: { workSlug: 'satie-gymnopedie-1' },
  work: { summary },
  rights: {
    compositionStatus: 'public-domain',
    territory: 'US, EU, CA',
    evidenceUrls: ['https://imslp.org/wiki/Gymnop%C3%A9dies_(Satie%2C_Erik)'],
  },
  assets: [],
  quality: {},
  changeSummary: 'Sharper summary.',
});

const publicPost = (url: string, payload: unknown, headers: Record<string, string> = {}) =>
  h.app.inject({
    method: 'POST',
    url,
    payload: payload as object,
    headers: { 'content-type': 'application/json', ...headers },
  });
const answer = (code: string, payload: unknown, token?: string, kind: 'contribution' | 'report' = 'contribution') =>
  publicPost(
    `${kind === 'contribution' ? CONTRIBUTIONS : REPORTS}/${code}/answers`,
    payload,
    token === undefined ? {} : { 'archive-response-token': token },
  );
const tracking = async (code: string) =>
  (await h.app.inject({ url: `${code.startsWith('R-') ? REPORTS : CONTRIBUTIONS}/${code}` })).json().data;
const admin = (code: string, action: string, note?: string) =>
  h.post(`/api/v1/admin/${code.startsWith('R-') ? 'correction-reports' : 'contributions'}/${code}/${action}`, {
    reviewer: 'Dana Editor',
    ...(note ? { note } : {}),
  });
const git = (...args: string[]) => execFileSync('git', args, { cwd: h.contentRepo, encoding: 'utf8' });
const branchFile = (code: string) => git('show', `review/${code}:${WORK}`);

async function submit(body: MusicContributionInput): Promise<{ code: string; token: string }> {
  const res = await publicPost(CONTRIBUTIONS, body);
  expect(res.statusCode, res.body).toBe(202);
  const data = res.json().data;
  return { code: data.trackingCode, token: data.responseToken };
}

async function askForInformation(code: string, note = 'Please cite the first edition for the summary.') {
  const asked = await admin(code, 'request-information', note);
  expect(asked.statusCode, asked.body).toBe(200);
}

/** Every file under the data folder (state records, the content repository's objects unpacked by git below). */
function dataFiles(dir: string): string[] {
  return (readdirSync(dir, { recursive: true }) as string[])
    .map((f) => path.join(dir, f))
    .filter((f) => {
      try {
        return readFileSync(f).length >= 0;
      } catch {
        return false; // folders
      }
    });
}

describe('the response token', () => {
  it('comes with the 202 (the same token on an idempotent replay) and never appears in the tracking record, the tracking page, the admin view, stored records or commits', async () => {
    const body = revision('A summary to revise.');
    const first = await publicPost(CONTRIBUTIONS, body);
    expect(first.statusCode).toBe(202);
    const { trackingCode: code, responseToken: token } = first.json().data;
    expect(token).toMatch(TOKEN);
    const replay = await publicPost(CONTRIBUTIONS, body);
    expect(replay.headers['idempotent-replayed']).toBe('true');
    expect(replay.json().data.responseToken).toBe(token);
    // Another submission gets another token.
    expect((await submit(revision('Another summary.'))).token).not.toBe(token);

    const json = await h.app.inject({ url: `${CONTRIBUTIONS}/${code}` });
    expect(json.statusCode).toBe(200);
    expect(json.body).not.toContain(token);
    expect(json.json().data).not.toHaveProperty('responseToken');
    const page = await h.app.inject({ url: `/track/${code}` });
    expect(page.statusCode).toBe(200);
    expect(page.body).toContain(code);
    expect(page.body).not.toContain(token);
    expect((await h.get(`/api/v1/admin/contributions/${code}`)).body).not.toContain(token);

    // Accepted (a commit on review/<code>): still nowhere on disk but as its SHA-256.
    expect((await admin(code, 'accept')).statusCode).toBe(200);
    expect(git('log', '--all', '-p')).not.toContain(token);
    const dataDir = path.dirname(h.contentRepo);
    const stored = dataFiles(path.join(dataDir, 'state')).map((f) => readFileSync(f, 'utf8'));
    expect(stored.some((text) => text.includes(token))).toBe(false);
    expect(stored.some((text) => text.includes(responseTokenSha256(token)))).toBe(true);
  });

  it("a correction report's 202 carries one too, and only the 202", async () => {
    const res = await publicPost(REPORTS, validReport());
    expect(res.statusCode).toBe(202);
    const { trackingCode, responseToken } = res.json().data;
    expect(responseToken).toMatch(TOKEN);
    const json = await h.app.inject({ url: `${REPORTS}/${trackingCode}` });
    expect(json.body).not.toContain(responseToken);
    expect((await h.app.inject({ url: `/track/${trackingCode}` })).body).not.toContain(responseToken);
  });
});

describe('answering a request for information', () => {
  it("with the right token: back to pending, the editor's request and the submitter's answer in the history and on the tracking page", async () => {
    const { code, token } = await submit(revision('First summary.'));
    await askForInformation(code, 'Which edition is the summary based on?');
    const res = await answer(
      code,
      { message: 'The 1888 first edition (Dupré); evidence linked in the rights.' },
      token,
    );
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['cache-control']).toBe('no-store');
    expect(res.json().data.status).toBe('pending');

    const t = await tracking(code);
    expect(t.status).toBe('pending');
    const [, asked, answered] = t.history;
    expect(asked).toMatchObject({
      status: 'needs-information',
      action: 'request-information',
      actor: 'alice',
      note: 'Which edition is the summary based on?',
    });
    expect(answered).toMatchObject({
      status: 'pending',
      action: 'answer',
      actor: 'submitter',
      note: 'The 1888 first edition (Dupré); evidence linked in the rights.',
      revisedSubmission: false,
    });
    expect(Date.parse(answered.atUtc)).toBeGreaterThanOrEqual(Date.parse(asked.atUtc));
    expect(answered.atUtc).toMatch(/Z$/);
    expect(t.updatedAtUtc).toBe(answered.atUtc);

    const page = (await h.app.inject({ url: `/track/${code}` })).body;
    expect(page).toContain('Which edition is the summary based on?');
    expect(page).toContain('The 1888 first edition (Dupré); evidence linked in the rights.');
    expect(page).toContain('answered by the submitter');
    // The reviewers' queue sees it pending again.
    const queue = (await h.get('/api/v1/admin/queue?status=pending')).json().data;
    expect(queue.items.map((i: { trackingCode: string }) => i.trackingCode)).toContain(code);
  });

  it('a revised contribution replaces the proposal: the review branch now holds the new change', async () => {
    const original = revision('Summary as first proposed.');
    const { code, token } = await submit(original);
    expect((await admin(code, 'accept')).statusCode).toBe(200);
    expect(branchFile(code)).toContain('Summary as first proposed.');
    await askForInformation(code, 'The summary should name the 1888 publication.');

    const revised = {
      ...original,
      work: { summary: 'Published in 1888; the first of three.' },
      changeSummary: 'Summary naming the 1888 publication.',
    };
    const res = await answer(code, { message: 'Revised the summary as asked.', submission: revised }, token);
    expect(res.statusCode, res.body).toBe(200);
    const branch = branchFile(code);
    expect(branch).toContain('Published in 1888; the first of three.');
    expect(branch).not.toContain('Summary as first proposed.');
    const diff = git('diff', 'main', `review/${code}`, '--', WORK);
    expect(diff).toContain('+summary: "Published in 1888; the first of three."');
    expect(diff).not.toContain('Summary as first proposed.');
    expect(git('log', '-1', '--format=%B', `review/${code}`)).toContain(code);

    const t = await tracking(code);
    expect(t.history.at(-1)).toMatchObject({
      action: 'answer',
      actor: 'submitter',
      revisedSubmission: true,
      note: 'Revised the summary as asked.',
    });
    const item = (await h.get(`/api/v1/admin/contributions/${code}`)).json().data;
    expect(item.submission.work.summary).toBe('Published in 1888; the first of three.');
    expect(item.submission.changeSummary).toBe('Summary naming the 1888 publication.');
    // A retry of the original POST still answers this code (its key and content are unchanged).
    const replay = await publicPost(CONTRIBUTIONS, original);
    expect(replay.statusCode).toBe(202);
    expect(replay.json().data).toMatchObject({ trackingCode: code, responseToken: token, status: 'pending' });
  });

  it('a revised file: the branch points at the new file at once, its verification waits for the next accept, which verifies it', async () => {
    const score = (name: 'a' | 'b', bytes: Buffer): MusicContributionInput['assets'][number] => ({
      kind: 'musicxml',
      title: `Source score ${name}`,
      downloadUrl: h.fileUrl(`/scores/${name}.musicxml`),
      sourcePageUrl: 'https://imslp.org/wiki/Gymnop%C3%A9dies_(Satie%2C_Erik)',
      sha256: sha256(bytes),
      mediaType: 'application/vnd.recordare.musicxml+xml',
      rightsStatus: 'public-domain',
      reviewState: 'pending',
    });
    const original: MusicContributionInput = {
      ...revision('unused'),
      operation: 'source-score',
      work: null,
      assets: [score('a', SCORE_A)],
      changeSummary: 'Adds a source score.',
    };
    const { code, token } = await submit(original);
    expect((await admin(code, 'accept')).statusCode).toBe(200);
    const view = async () => (await h.get(`/api/v1/admin/contributions/${code}`)).json().data.review;
    expect((await view()).verification[0]).toMatchObject({ status: 'verified', sha256: sha256(SCORE_A) });
    expect(branchFile(code)).toContain(sha256(SCORE_A));
    await askForInformation(code, "This is the arrangement's score, not the source; send the source score.");

    const answered = await answer(
      code,
      { message: 'Replaced with the source score.', submission: { ...original, assets: [score('b', SCORE_B)] } },
      token,
    );
    expect(answered.statusCode, answered.body).toBe(200);
    const after = await view();
    expect(after.verification[0]).toMatchObject({
      status: 'not-fetched',
      url: h.fileUrl('/scores/b.musicxml'),
      sha256: null,
    });
    expect(after.verification[0].reason).toContain('revised by the submitter');
    const branch = branchFile(code);
    expect(branch).toContain(sha256(SCORE_B));
    expect(branch).toContain(h.fileUrl('/scores/b.musicxml'));
    expect(branch).not.toContain(sha256(SCORE_A));

    // The item is pending: it cannot be applied before an editor accepts it again, which verifies the new file.
    expect((await admin(code, 'apply')).statusCode).toBe(409);
    expect((await admin(code, 'accept')).statusCode).toBe(200);
    expect((await view()).verification[0]).toMatchObject({ status: 'verified', sha256: sha256(SCORE_B) });
    expect(branchFile(code)).toContain(`blob: ${sha256(SCORE_B)}`);
  });

  it('a revised body is validated exactly like a new contribution (pointers under /submission, placeholders refused, the same key); nothing changes', async () => {
    const original = revision('Summary kept on refusal.');
    const { code, token } = await submit(original);
    expect((await admin(code, 'accept')).statusCode).toBe(200);
    await askForInformation(code);
    const before = await tracking(code);
    const branchBefore = branchFile(code);

    const broken = {
      ...original,
      work: { summary: 'REPLACE: one sentence' },
      rights: { ...original.rights, evidenceUrls: ['http://imslp.org/plain-http'] },
      assets: [
        {
          kind: 'mp3',
          title: 'x',
          sourcePageUrl: 'https://example.org/p',
          rightsStatus: 'public-domain',
          reviewState: 'pending',
          extra: 1,
        },
      ],
    };
    const res = await answer(code, { message: 'Here it is.', submission: broken }, token);
    expect(res.statusCode).toBe(400);
    expect(res.headers['content-type']).toContain('application/problem+json');
    const pointers = res.json().errors.map((e: { pointer: string }) => e.pointer);
    expect(pointers).toEqual(
      expect.arrayContaining([
        '/submission/work/summary',
        '/submission/rights/evidenceUrls/0',
        '/submission/assets/0/extra',
      ]),
    );

    const otherKey = await answer(
      code,
      { message: 'Here it is.', submission: { ...original, idempotencyKey: 'a-completely-new-key-1' } },
      token,
    );
    expect(otherKey.statusCode).toBe(400);
    expect(otherKey.json().errors).toEqual([expect.objectContaining({ pointer: '/submission/idempotencyKey' })]);

    const tooLong = await answer(code, { message: 'x'.repeat(2001) }, token);
    expect(tooLong.statusCode).toBe(400);
    expect(tooLong.json().errors[0].pointer).toBe('/message');
    const empty = await answer(code, {}, token);
    expect(empty.json().errors[0]).toMatchObject({ pointer: '/message', detail: 'is required' });

    expect(await tracking(code)).toEqual(before);
    expect(branchFile(code)).toBe(branchBefore);
  });

  it("a missing or wrong token (or another submission's), or a token in the URL: a problem naming the header, nothing changed", async () => {
    const { code, token } = await submit(revision('Summary guarded by a token.'));
    const other = await submit(revision("Someone else's summary."));
    await askForInformation(code);
    const before = await tracking(code);

    const missing = await answer(code, { message: 'No token.' });
    expect(missing.statusCode).toBe(401);
    expect(missing.headers['content-type']).toContain('application/problem+json');
    expect(missing.headers['www-authenticate']).toBe('Archive-Response-Token');
    expect(missing.json()).toMatchObject({
      type: expect.stringMatching(/\/problems\/invalid-response-token$/),
      errors: [{ parameter: 'Archive-Response-Token', detail: 'is required' }],
    });

    for (const wrong of [other.token, `${token.slice(0, -1)}${token.endsWith('A') ? 'B' : 'A'}`, 'not-a-token']) {
      const res = await answer(code, { message: 'Wrong token.' }, wrong);
      expect(res.statusCode).toBe(401);
      expect(res.json().errors[0]).toMatchObject({
        parameter: 'Archive-Response-Token',
        detail: 'is not the response token of this submission',
      });
    }

    const inUrl = await publicPost(
      `${CONTRIBUTIONS}/${code}/answers?token=${token}`,
      { message: 'Token in the URL.' },
      { 'archive-response-token': token },
    );
    expect(inUrl.statusCode).toBe(400);
    expect(inUrl.json().type).toMatch(/\/problems\/key-in-url$/);
    expect(inUrl.body).not.toContain(token);

    const unknown = await answer('C-2222-3333-4444-5555', { message: 'Unknown code.' }, token);
    expect(unknown.statusCode).toBe(404);

    expect(await tracking(code)).toEqual(before);
  });

  it('an item not in needs-information: 409 naming its status, nothing changed', async () => {
    const { code, token } = await submit(revision('Summary still pending.'));
    const before = await tracking(code);
    const res = await answer(code, { message: 'Nobody asked.' }, token);
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({
      type: expect.stringMatching(/\/problems\/conflict$/),
      currentStatus: 'pending',
    });
    expect(res.json().detail).toContain('needs-information');
    expect(await tracking(code)).toEqual(before);

    // Answered once, the item is pending: a second answer is refused the same way.
    await askForInformation(code);
    expect((await answer(code, { message: 'First answer.' }, token)).statusCode).toBe(200);
    const again = await answer(code, { message: 'Second answer.' }, token);
    expect(again.statusCode).toBe(409);
    expect((await tracking(code)).history.filter((e: { action?: string }) => e.action === 'answer')).toHaveLength(1);

    // A declined item stays declined.
    expect((await admin(code, 'decline', 'Not needed.')).statusCode).toBe(200);
    expect((await answer(code, { message: 'Too late.' }, token)).json()).toMatchObject({
      status: 409,
      currentStatus: 'declined',
    });
  });

  it("a correction reporter answers with a message (a revised body is not part of a report's answer)", async () => {
    const res = await publicPost(REPORTS, validReport());
    const { trackingCode: code, responseToken: token } = res.json().data;
    await askForInformation(code, 'Where is the 1888 date printed?');
    const withBody = await answer(code, { message: 'On the title page.', submission: revision('x') }, token, 'report');
    expect(withBody.statusCode).toBe(400);
    expect(withBody.json().errors[0].pointer).toBe('/submission');
    const ok = await answer(code, { message: 'On the title page of the Dupré edition.' }, token, 'report');
    expect(ok.statusCode, ok.body).toBe(200);
    const t = await tracking(code);
    expect(t.status).toBe('pending');
    expect(t.history.at(-1)).toMatchObject({
      status: 'pending',
      action: 'answer',
      actor: 'submitter',
      note: 'On the title page of the Dupré edition.',
    });
    expect(t.history.at(-1)).not.toHaveProperty('revisedSubmission');
  });
});

describe('answers are rate-limited like intake', () => {
  it('answers its own bucket at the intake rate: 429 with Retry-After beyond it, RateLimit headers on every answer', async () => {
    const t = await openIntakeApp({ contributions: '2/60' });
    try {
      const send = () => t.post(`${CONTRIBUTIONS}/C-2222-3333-4444-5555/answers`, { message: 'Hello.' });
      const [a, b, c] = [await send(), await send(), await send()];
      expect([a.statusCode, b.statusCode, c.statusCode]).toEqual([404, 404, 429]);
      expect(a.headers['ratelimit-limit']).toBe('2');
      expect(c.headers['retry-after']).toBeDefined();
      // Intake has its own allowance: answering did not use it up.
      expect((await t.post(CONTRIBUTIONS, {})).statusCode).toBe(400);
    } finally {
      await t.close();
    }
  });
});

describe('the MCP tool answer_information_request', () => {
  it('answers over the HTTP endpoint with the token in its header; a wrong token is a tool refusal carrying the problem', async () => {
    const { TOOLS, ToolRefusal } = await import('../../api/mcp/tools.ts');
    const { inProcessArchive } = await import('../../api/mcp/archive-http.ts');
    const tool = TOOLS.find((t) => t.name === 'answer_information_request')!;
    expect(tool.inputSchema).toMatchObject({ required: ['trackingCode', 'responseToken', 'message'] });
    const http = inProcessArchive(h.app, '127.0.0.9');
    const { code, token } = await submit(revision('Summary answered through MCP.'));
    await askForInformation(code);
    const refused = await tool
      .run({ trackingCode: code, responseToken: `${token}x`, message: 'Wrong.' }, http)
      .catch((err: unknown) => err);
    expect(refused).toBeInstanceOf(ToolRefusal);
    expect((refused as InstanceType<typeof ToolRefusal>).problem).toMatchObject({ status: 401 });
    const done = await tool
      .run(
        {
          trackingCode: code.toLowerCase(),
          responseToken: token,
          message: 'Answered through MCP.',
          submission: revision('Revised through MCP.'),
        },
        http,
      )
      .catch((err: unknown) => err);
    // A revision must keep the original key: the HTTP endpoint's refusal comes back whole.
    expect((done as InstanceType<typeof ToolRefusal>).problem?.errors).toEqual([
      expect.objectContaining({ pointer: '/submission/idempotencyKey' }),
    ]);
    const ok = await tool.run({ trackingCode: code, responseToken: token, message: 'Answered through MCP.' }, http);
    expect(ok.structured).toMatchObject({ kind: 'contribution', tracking: { data: { status: 'pending' } } });
    expect((await tracking(code)).history.at(-1)).toMatchObject({
      action: 'answer',
      actor: 'submitter',
      note: 'Answered through MCP.',
    });
  });
});

describe('the token stays out of the logs, and the answers match the OpenAPI document', () => {
  it('logs every request at trace level without the token (even one sent in a URL); every answer is as documented', async () => {
    const { mkdtempSync, rmSync } = await import('node:fs');
    const os = await import('node:os');
    const { inject } = await import('vitest');
    const { createApp } = await import('../../api/app.ts');
    const { loadConfig } = await import('../../api/config.ts');
    const { SiteHandle } = await import('../../api/site/site-handle.ts');
    const { PROJECT_ROOT } = await import('../helpers/app.ts');
    const { assertMatchesOpenApi } = await import('../helpers/openapi.ts');
    const buildDir = inject('sampleBuildDir');
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'pdma-answer-log-'));
    const lines: string[] = [];
    const baseUrl = JSON.parse(readFileSync(path.join(buildDir, 'build.json'), 'utf8')).baseUrl as string;
    const config = loadConfig(
      { PUBLIC_BASE_URL: baseUrl, ARCHIVE_DATA_DIR: dataDir, ARCHIVE_ADMIN_KEYS: 'dana=log-test-admin-secret' },
      PROJECT_ROOT,
    );
    const app = await createApp(
      { config, handle: await SiteHandle.open(buildDir) },
      { logger: { level: 'trace', stream: { write: (line) => void lines.push(line) } } },
    );
    const openapi = JSON.parse(
      readFileSync(path.join(buildDir, 'client', 'api', 'v1', 'openapi.json'), 'utf8'),
    ) as Record<string, unknown>;
    const send = async (
      method: 'GET' | 'POST',
      url: string,
      payload?: unknown,
      headers: Record<string, string> = {},
    ) => {
      const res = await app.inject({
        method,
        url,
        headers: { ...(payload !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
        ...(payload !== undefined ? { payload: JSON.stringify(payload) } : {}),
      });
      assertMatchesOpenApi(openapi, method, url, res);
      return res;
    };
    try {
      const submitted = await send('POST', CONTRIBUTIONS, revision('Summary for the log test.'));
      expect(submitted.statusCode).toBe(202);
      const { trackingCode: code, responseToken: token } = submitted.json().data;
      const report = await send('POST', REPORTS, validReport());
      expect(report.json().data.responseToken).toMatch(TOKEN);
      const asked = await app.inject({
        method: 'POST',
        url: `/api/v1/admin/contributions/${code}/request-information`,
        headers: { authorization: 'Bearer log-test-admin-secret', 'content-type': 'application/json' },
        payload: { reviewer: 'Dana', note: 'Which edition?' },
      });
      expect(asked.statusCode).toBe(200);
      const url = `${CONTRIBUTIONS}/${code}/answers`;
      expect((await send('POST', url, { message: 'No token.' })).statusCode).toBe(401);
      expect((await send('POST', `${url}?responseToken=${token}`, { message: 'In the URL.' })).statusCode).toBe(400);
      expect(
        (await send('POST', url, { message: 'x'.repeat(2001) }, { 'archive-response-token': token })).statusCode,
      ).toBe(400);
      const ok = await send('POST', url, { message: 'The 1888 edition.' }, { 'archive-response-token': token });
      expect(ok.statusCode).toBe(200);
      expect((await send('POST', url, { message: 'Again.' }, { 'archive-response-token': token })).statusCode).toBe(
        409,
      );
      expect((await send('GET', `${CONTRIBUTIONS}/${code}`)).body).not.toContain(token);
      const log = lines.join('');
      expect(log).toContain(`/answers`);
      expect(lines.length).toBeGreaterThan(10);
      expect(log).not.toContain(token);
      expect(log).not.toContain(report.json().data.responseToken);
    } finally {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
