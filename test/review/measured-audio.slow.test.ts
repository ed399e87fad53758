/**
 * Measured, not only declared (docs/audio.md), through the public surface: a contribution declares a
 * 1:30 arrangement and -23 LUFS for its MP3, whose file (the sample's rendered, mastered Satie loop) measures about 19 s and -14 LUFS. Accept
 * measures it and flags both to the reviewer (review warnings in the admin view; apply is not
 * blocked); apply lands the measurement beside the declared values in the JSON record, the
 * Markdown record and the HTML page; resolve then judges the arrangement on its measured
 * duration (fit with delta), and offers its MP3 as the listen link.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { contributorFileServer, fetchOptionsTrusting, type HttpsTestServer } from '../helpers/https-server.ts';
import { openWritableApp, type WritableApp } from '../helpers/writable-app.ts';
import { followItemAction } from '../helpers/app.ts';
import { fillArrangement } from '../helpers/score-contribution.ts';

const ADMIN_KEY = 'admin-secret-key-measured';
const WORK = path.join(PROJECT_ROOT, 'content', 'works', 'satie-gymnopedie-1');
const MP3 = readFileSync(path.join(WORK, 'gymnopedie-1-ambient-piano.mp3'));
const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex');
const TITLE = 'Gymnopédie No. 1: declared long, measured short';

let server: HttpsTestServer;
let writable: WritableApp;
let app: FastifyInstance;
let code = '';
const auth = { authorization: `Bearer ${ADMIN_KEY}`, 'content-type': 'application/json' };

beforeAll(async () => {
  server = await contributorFileServer({ '/bed.mp3': MP3 });
  const fileBase = server.url;
  writable = await openWritableApp({
    prefix: 'pdma-measured-',
    env: { ARCHIVE_ADMIN_KEYS: `dana=${ADMIN_KEY}` },
    review: { fetchOptions: fetchOptionsTrusting(server, 10_000) },
  });
  app = writable.app;

  const template = (await app.inject({ url: '/api/v1/music/contributions/template' })).json();
  const t = fillArrangement(structuredClone(template.data ?? template), {
    idempotencyKey: 'measured-audio-1',
    submitter: 'Mia Measure',
    contact: 'mia@example.org',
    rights: {
      editionStatus: 'original-contribution',
      recordingStatus: 'original-human-recording',
      evidenceUrls: ['https://en.wikipedia.org/wiki/Gymnop%C3%A9dies'],
    },
    assets: [
      {
        kind: 'mp3',
        title: 'Gymnopédie No. 1, piano bed recording',
        downloadUrl: `${fileBase}/bed.mp3`,
        sourcePageUrl: 'https://en.wikipedia.org/wiki/Gymnop%C3%A9dies',
        sha256: sha(MP3),
        mediaType: 'audio/mpeg',
        rightsStatus: 'public-domain',
        loudnessLufs: -23,
      },
    ],
    // Declared: 1:30 (and -23 LUFS above); the file measures about 19 s (and -14 LUFS).
    arrangement: { title: TITLE, style: 'solo piano, calm', instrumentation: 'Piano', duration: '1:30' },
    changeSummary: 'Adds a calm piano bed.',
    rationale: 'A bed for narrated channels.',
  });
  const res = await app.inject({
    method: 'POST',
    url: '/api/v1/music/contributions',
    payload: t,
    headers: { 'content-type': 'application/json' },
  });
  expect(res.statusCode, res.body).toBe(202);
  code = (res.json().data ?? res.json()).trackingCode;
}, 180_000);

afterAll(async () => {
  await writable?.close();
  await server?.close();
});

describe('declared against measured audio', () => {
  it('accept measures the MP3 and flags the declared duration and loudness to the reviewer, without blocking apply', async () => {
    const res = await followItemAction(
      app,
      await app.inject({
        method: 'POST',
        url: `/api/v1/admin/contributions/${code}/accept`,
        payload: { reviewer: 'Dana Editor' },
        headers: auth,
      }),
      auth,
    );
    expect(res.statusCode, res.body).toBe(200);
    const review = res.json().data.review;
    expect(review.blockers).toEqual([]);
    const [entry] = review.verification;
    expect(entry.status).toBe('verified');
    expect(entry.checks.audio.durationSeconds).toBeGreaterThan(18);
    expect(entry.checks.audio.durationSeconds).toBeLessThan(21);
    expect(entry.checks.audio.integratedLufs).toBeCloseTo(-14.4, 0);
    expect(entry.declared).toEqual({ durationSeconds: 90, integratedLufs: -23 });
    expect(entry.disagreements.map((d: { field: string }) => d.field)).toEqual(['duration', 'loudness']);
    expect(review.warnings).toHaveLength(2);
    expect(review.warnings[0]).toMatch(/Declared duration 1:30 \(90 s\) but the file measures 19\.\d s/);
    expect(review.warnings[1]).toMatch(/Declared integrated loudness -23 LUFS but the file measures -14\.\d LUFS/);
    // The admin view of the item says it again.
    const view = (await app.inject({ url: `/api/v1/admin/contributions/${code}`, headers: auth })).json().data;
    expect(view.review.warnings).toEqual(review.warnings);
    expect(view.review.actions.at(-1).outcome).toMatch(/2 warning\(s\)/);
  }, 120_000);

  it('apply lands measured and declared values apart in JSON, Markdown and HTML', async () => {
    const res = await followItemAction(
      app,
      await app.inject({
        method: 'POST',
        url: `/api/v1/admin/contributions/${code}/apply`,
        payload: { reviewer: 'Dana Editor' },
        headers: auth,
      }),
      auth,
    );
    expect(res.statusCode, res.body).toBe(200);
    const work = (await app.inject({ url: '/api/v1/works/satie-gymnopedie-1' })).json().data;
    const arr = work.arrangements.find((a: { title: string }) => a.title === TITLE);
    expect(arr.durationSeconds).toBe(90); // declared, kept
    expect(arr.measuredDurationSeconds).toBeGreaterThan(18);
    expect(arr.measuredDurationSeconds).toBeLessThan(21);
    const m = arr.assets[0].measured;
    expect(m.declared).toEqual({ durationSeconds: 90, integratedLufs: -23 });
    expect(m.disagreements.map((d: { field: string }) => d.field)).toEqual(['duration', 'loudness']);
    expect(m.integratedLufs).toBeCloseTo(-14.4, 0);
    expect(m.truePeakDbtp).toBeLessThan(0);
    expect(m.sections.length).toBeGreaterThan(0);
    expect(m.narrationBed.rule).toMatch(/EBU R128.*WCAG/);
    // The sample's own recording is measured too (scripts/render-sample-audio.ts), like a contributed one.
    const sampleArrangement = work.arrangements.find((a: { title: string }) => a.title !== TITLE);
    expect(sampleArrangement.measuredDurationSeconds).toBeGreaterThan(0);
    expect(sampleArrangement.assets.find((a: { measured?: unknown }) => a.measured)?.measured.integratedLufs).toEqual(
      expect.any(Number),
    );

    const md = (await app.inject({ url: '/api/v1/works/satie-gymnopedie-1/index.md' })).body;
    expect(md).toMatch(/Asset \d+ Measured: 19\.\d s \(0:19\), -14\.\d LUFS integrated/);
    expect(md).toContain('Declared: duration 1:30 (90 s), loudness -23 LUFS. Disagrees: Declared duration 1:30');
    const html = (await app.inject({ url: '/works/satie-gymnopedie-1/' })).body;
    expect(html).toContain('data-disagrees');
    expect(html).toMatch(/data-measured-duration>19\.\d s measured/);
  }, 300_000);

  it('resolve judges the measured duration, reports the fit with its delta, and links the MP3 to listen to', async () => {
    const res = await app.inject({
      method: 'POST',
      url: '/api/v1/music/resolve',
      payload: {
        workSlug: 'satie-gymnopedie-1',
        channel: { channelKey: 'measured', intendedRole: 'music-bed' },
        requirements: { requiredFormats: ['mp3'], targetDurationSeconds: 90 },
      },
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode, res.body).toBe(200);
    const c = res.json().data.candidates.find((x: { arrangementTitle: string }) => x.arrangementTitle === TITLE);
    expect(c.durationSeconds).toBe(90);
    expect(c.measuredDurationSeconds).toBeGreaterThan(18);
    expect(c.fit).toMatchObject({ kind: 'edit', targetSeconds: 90, durationSource: 'measured', toleranceSeconds: 9 });
    expect(c.fit.deltaSeconds).toBeCloseTo(c.fit.durationSeconds - 90, 5);
    expect(c.fit.deltaSeconds).toBeLessThan(-60);
    const duration = c.reasons.find((r: { requirement: string }) => r.requirement === 'duration');
    expect(duration.passed).toBe(false); // declared 90 s would have passed; the measured 19 s does not
    expect(duration.detail).toMatch(/^19 s measured \(asset \d+; declared 90 s\) against a target of 90 s/);
    expect(c.listen).toMatchObject({
      format: 'mp3',
      assetId: c.assets[0].id,
      url: c.assets[0].links.download,
      reason: null,
    });
    // The measurement travels with the asset: sections, quiet stretches and the bed gain for a narrated mix.
    expect(c.assets[0].measured.narrationBed.gainDb).toBeLessThan(0);
    expect(c.assets[0].measured.declared).toEqual({ durationSeconds: 90, integratedLufs: -23 });
    expect(Array.isArray(c.assets[0].measured.quietStretches)).toBe(true);
  }, 60_000);
});
