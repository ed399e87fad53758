/**
 * The whole review flow on the local forge, through the public surface: a real git content
 * repository in a temp dir (seeded from content/), contributor files on a local HTTPS server
 * whose self-signed certificate is trusted only here (the fetcher's `ca` option and allow-list),
 * the admin API via inject, the tracking API, the served JSON / Markdown / HTML, and git log.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Config } from '../../api/config.ts';
import { git } from '../../api/site/content-repo.ts';
import { PROJECT_ROOT, postJson } from '../helpers/app.ts';
import { contributorFileServer, fetchOptionsTrusting, type HttpsTestServer } from '../helpers/https-server.ts';
import { openWritableApp, type WritableApp } from '../helpers/writable-app.ts';

const ADMIN_KEY = 'admin-secret-key-1';
const LIBRARY_KEY = 'library-secret-key-1';
const WORK = path.join(PROJECT_ROOT, 'content', 'works', 'satie-gymnopedie-1');
const FILES: Record<string, Buffer> = {
  '/arrangement.musicxml': readFileSync(path.join(WORK, 'gymnopedie-1-ambient-piano.musicxml')),
  '/arrangement.mp3': readFileSync(path.join(WORK, 'gymnopedie-1-ambient-piano.mp3')),
};
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');

let server: HttpsTestServer;
let fileBase: string;
let app: FastifyInstance;
let config: Config;
let writable: WritableApp;

const auth = { authorization: `Bearer ${ADMIN_KEY}` };

beforeAll(async () => {
  // A self-signed certificate for localhost, trusted only by this test's fetcher.
  server = await contributorFileServer(FILES);
  fileBase = server.url;

  // The sample build of content/ serves first; the runtime repository is seeded from the same content.
  writable = await openWritableApp({
    prefix: 'pdma-review-',
    env: { ARCHIVE_ADMIN_KEYS: `alice=${ADMIN_KEY}`, ARCHIVE_LIBRARY_KEYS: LIBRARY_KEY },
    review: { fetchOptions: fetchOptionsTrusting(server, 10_000) },
  });
  ({ app, config } = writable);
});

afterAll(async () => {
  await writable?.close();
  await server?.close();
});

const post = (url: string, payload: unknown, headers: Record<string, string> = auth) =>
  postJson(app, url, payload, headers);

async function submitTemplate(key: string) {
  const template =
    (await app.inject({ url: '/api/v1/music/contributions/template' })).json().data ??
    (await app.inject({ url: '/api/v1/music/contributions/template' })).json();
  const t = structuredClone(template);
  t.idempotencyKey = key;
  t.submittedBy = {
    name: 'Ada Tester',
    kind: 'AiAssisted',
    agentName: 'score-bot',
    agentVersion: '1.2.3',
    contact: 'ada@example.org',
  };
  t.channel = null;
  t.rights.territory = 'US, EU, CA';
  t.rights.license = 'CC0-1.0';
  t.rights.attribution = null;
  t.rights.checkedAtUtc = '2026-01-01T00:00:00Z';
  t.rights.evidenceUrls = ['https://en.wikipedia.org/wiki/Gymnop%C3%A9dies'];
  t.assets[0] = {
    ...t.assets[0],
    title: 'Gymnopédie No. 1, contributed piano score',
    downloadUrl: `${fileBase}/arrangement.musicxml`,
    sourcePageUrl: 'https://en.wikipedia.org/wiki/Gymnop%C3%A9dies',
    sha256: sha(FILES['/arrangement.musicxml']!),
    license: 'CC0-1.0',
  };
  t.assets[1] = {
    ...t.assets[1],
    title: 'Gymnopédie No. 1, contributed piano recording',
    downloadUrl: `${fileBase}/arrangement.mp3`,
    sourcePageUrl: 'https://en.wikipedia.org/wiki/Gymnop%C3%A9dies',
    sha256: sha(FILES['/arrangement.mp3']!),
    license: 'CC0-1.0',
    reviewState: 'human-listening-approved',
  };
  t.assets[1].reviewState = 'technical-pass'; // an AiAssisted submitter may not claim listening approval
  t.arrangement = {
    title: 'Gymnopédie No. 1: contributed calm piano',
    style: 'solo piano, calm',
    instrumentation: 'Piano',
    duration: '0:19',
    intendedRole: 'music-bed',
    renderingProfileSlugs: ['warm-grand-piano'],
  };
  t.reproducibility = null;
  t.quality = {
    technicalValidationPassed: true,
    humanListeningApproved: false,
    technicalChecks: 'peak -1 dBFS',
    listeningNotes: null,
  };
  t.changeSummary = 'Adds a calm solo-piano arrangement with score and recording.';
  t.rationale = 'No contributed music-bed arrangement exists yet.';
  const res = await post('/api/v1/music/contributions', t, {});
  expect(res.statusCode, res.body).toBe(202);
  return (res.json().data ?? res.json()).trackingCode as string;
}

describe('review as pull requests on the local forge', () => {
  let code: string;

  it('refuses without an admin key, with the wrong role, and with a bad body', async () => {
    code = await submitTemplate('review-flow-template-1');
    expect((await post(`/api/v1/admin/contributions/${code}/accept`, { reviewer: 'Alice' }, {})).statusCode).toBe(401);
    expect(
      (
        await post(
          `/api/v1/admin/contributions/${code}/accept`,
          { reviewer: 'Alice' },
          { authorization: `Bearer ${LIBRARY_KEY}` },
        )
      ).statusCode,
    ).toBe(403);
    const bad = await post(`/api/v1/admin/contributions/${code}/accept`, { reviewer: '', extra: 1 });
    expect(bad.statusCode).toBe(400);
    expect(bad.headers['content-type']).toContain('application/problem+json');
    expect((await post(`/api/v1/admin/contributions/${code}/merge`, { reviewer: 'Alice' })).statusCode).toBe(404);
    const early = await post(`/api/v1/admin/contributions/${code}/apply`, { reviewer: 'Alice' });
    expect(early.statusCode).toBe(409);
    expect(early.json().detail).toContain('"pending"');
    const queue = await app.inject({ url: '/api/v1/admin/queue', headers: auth });
    expect(queue.json().data.items.map((i: { trackingCode: string }) => i.trackingCode)).toContain(code);
  });

  it('accepts (fetch + verify + checks + branch) and applies a contribution: JSON, Markdown and HTML change together', async () => {
    const accepted = await post(`/api/v1/admin/contributions/${code}/accept`, {
      reviewer: 'Alice Editor',
      note: 'Looks right.',
      assert: { assets: [{ index: 0, reviewState: 'human-reviewed' }] },
    });
    expect(accepted.statusCode, accepted.body).toBe(200);
    const item = accepted.json().data;
    expect(item.status).toBe('accepted');
    expect(item.review.blockers).toEqual([]);
    expect(item.review.verification.map((v: { status: string }) => v.status)).toEqual(['verified', 'verified']);
    expect(item.review.review.branch).toBe(`review/${code}`);
    const branchLog = await git(config.contentRepo, ['log', '-1', '--format=%an%n%B', `review/${code}`]);
    expect(branchLog).toContain('Ada Tester');
    expect(branchLog).toContain(`Tracking-Code: ${code}`);
    expect(branchLog).toContain('score-bot 1.2.3');

    const tracking = await app.inject({ url: `/api/v1/music/contributions/${code}` });
    const tj = tracking.json().data ?? tracking.json();
    expect(tj.status).toBe('accepted');
    expect(tj.review).toMatchObject({ kind: 'branch', branch: `review/${code}`, url: null });

    const applied = await post(`/api/v1/admin/contributions/${code}/apply`, { reviewer: 'Alice Editor' });
    expect(applied.statusCode, applied.body).toBe(200);
    expect(applied.json().data.status).toBe('applied');

    const work = (await app.inject({ url: '/api/v1/works/satie-gymnopedie-1' })).json().data;
    const arr = work.arrangements.find(
      (a: { title: string }) => a.title === 'Gymnopédie No. 1: contributed calm piano',
    );
    expect(arr).toBeTruthy();
    expect(Number.isInteger(arr.id)).toBe(true);
    expect(arr.reviewState).toBe('pending');
    const [score, audio] = arr.assets;
    expect(score.reviewState).toBe('human-reviewed'); // asserted by the named reviewer
    // On purpose: the submitter's claim still decides nothing, but
    // the archive's own checks passed on the verified copy, so the file is technical-pass,
    // recorded as the archive's automated check (never as human review).
    expect(audio.reviewState).toBe('technical-pass');
    expect(audio.technicalChecks).toMatch(/^Archive technical check passed \(automated, not human review\)/);
    expect(typeof audio.reviewStatus).toBe('string');
    expect(score.sha256).toBe(sha(FILES['/arrangement.musicxml']!));
    expect(score.links.rawMusicXml).toMatch(/^https?:\/\/.+\/blobs\//);
    expect(audio.links.download).toMatch(/^https?:\/\//);
    const raw = await app.inject({ url: new URL(score.links.rawMusicXml).pathname, headers: { range: 'bytes=0-9' } });
    expect(raw.statusCode).toBe(206);
    expect(raw.headers.etag).toBeTruthy();
    const md = await app.inject({ url: '/api/v1/works/satie-gymnopedie-1/index.md' });
    expect(md.body).toContain('contributed calm piano');
    const html = await app.inject({ url: '/works/satie-gymnopedie-1/' });
    expect(html.body).toContain('contributed calm piano');

    const after = (await app.inject({ url: `/api/v1/music/contributions/${code}` })).json();
    const aj = after.data ?? after;
    expect(aj.status).toBe('applied');
    expect(aj.changedCanonicalData).toBe(true);
    expect(await git(config.contentRepo, ['log', '--format=%s', 'main'])).toContain(`Apply ${code}`);
    expect((await post(`/api/v1/admin/contributions/${code}/decline`, { reviewer: 'Alice' })).json().detail).toContain(
      '"applied"',
    );
  }, 600_000); // a real rebuild: on a loaded machine longer than the 60 s default, a backstop only

  it('applies a correction report to one field in all three; a declined one changes nothing; a stale one is 409', async () => {
    const report = (fieldName: string, proposedValue: string, currentValue: string | null) => ({
      workSlug: 'satie-gymnopedie-1',
      targetType: 'work',
      fieldName,
      currentValue,
      proposedValue,
      rationale: 'Checked against the first edition.',
      evidenceUrl: 'https://en.wikipedia.org/wiki/Gymnop%C3%A9dies',
      reporterName: 'Bob',
      reporterKind: 'Human',
    });
    const submit = async (body: unknown) => {
      const res = await post('/api/v1/correction-reports', body, {});
      expect(res.statusCode, res.body).toBe(202);
      return (res.json().data ?? res.json()).trackingCode as string;
    };
    const good = await submit(report('year', '1888 (published 1888)', '1888'));
    const declined = await submit(report('genre', 'Dance', null));
    const stale = await submit(report('key', 'E minor', 'C major'));

    expect(
      (
        await post(`/api/v1/admin/correction-reports/${declined}/decline`, {
          reviewer: 'Alice',
          note: 'Not supported by the evidence.',
        })
      ).statusCode,
    ).toBe(200);
    expect(
      (await post(`/api/v1/admin/correction-reports/${stale}/accept`, { reviewer: 'Alice' })).json().data.review
        .blockers[0],
    ).toContain('stale');
    const staleApply = await post(`/api/v1/admin/correction-reports/${stale}/apply`, { reviewer: 'Alice' });
    expect(staleApply.statusCode).toBe(409);
    expect(staleApply.json().detail).toContain('nothing was merged');

    expect((await post(`/api/v1/admin/correction-reports/${good}/accept`, { reviewer: 'Alice' })).statusCode).toBe(200);
    const head = await git(config.contentRepo, ['rev-parse', 'main']);
    // Two applies at once are serialised: the second finds the item applied and gets a 409.
    const [a, b] = await Promise.all([
      post(`/api/v1/admin/correction-reports/${good}/apply`, { reviewer: 'Alice' }),
      post(`/api/v1/admin/correction-reports/${good}/apply`, { reviewer: 'Alice' }),
    ]);
    expect([a.statusCode, b.statusCode].sort()).toEqual([200, 409]);
    expect(await git(config.contentRepo, ['rev-list', '--count', `${head}..main`])).toBe('2'); // one proposal commit + one merge

    const work = (await app.inject({ url: '/api/v1/works/satie-gymnopedie-1' })).json().data;
    expect(work.year).toBe('1888 (published 1888)');
    expect(work.genre).toBe('Piano piece');
    expect((await app.inject({ url: '/api/v1/works/satie-gymnopedie-1/index.md' })).body).toContain(
      '1888 (published 1888)',
    );
    expect((await app.inject({ url: '/works/satie-gymnopedie-1/' })).body).toContain('1888 (published 1888)');
    const diff = await git(config.contentRepo, ['diff', `${head}`, 'main', '--stat']);
    expect(diff).toContain('1 file changed, 1 insertion(+), 1 deletion(-)');
    const log = await git(config.contentRepo, ['log', '--format=%B', 'main']);
    expect(log).toContain(`Tracking-Code: ${good}`);
    expect(log).not.toContain(`Tracking-Code: ${declined}`);
    const t = (await app.inject({ url: `/api/v1/correction-reports/${declined}` })).json();
    expect((t.data ?? t).status).toBe('declined');
  });
});
