/**
 * Issue 55's producer acceptance, end to end (docs/audio.md, "Listening approval"; docs/resolve.md,
 * "Rendered audio"): a real OpenScore song (Brahms, Op. 3, 64 s) as a work with a piano bed
 * arranged from it (the song's piano part: its score with the voice part taken out). The build
 * renders the bed's audio from that score (FluidSynth, mastered, exact 30 s and 60 s cuts); a
 * producer's brief "calm piano bed, 60 s" then fits the 60 s cut but is not `reuse` while nobody
 * has listened; an editor signs in on the desk, opens the work's listening page and approves
 * the audio the page plays; after the rebuild that verdict starts, the same brief resolves to
 * `reuse` on that arrangement, offering the 60 s cut's MP3 and FLAC (the served bytes) and the
 * provenance page.
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { createApp } from '../../api/app.ts';
import { ensureBuild, Rebuilder } from '../../api/site/builds.ts';
import { loadConfig } from '../../api/config.ts';
import { ensureContentRepo, git } from '../../api/site/content-repo.ts';
import { SiteHandle } from '../../api/site/site-handle.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { findScore, LIEDER, makeCorpusContent, pianoPart } from '../helpers/corpus-content.ts';
import { musicXmlFromMxl } from '../../src/domain/mxl.ts';
import { newWorkFile, parseWorkFile } from '../../src/domain/work-file.ts';
import { LABELED_ADMIN_KEY } from '../review/harness.ts';
import { cookieOf, csrfOf } from './helpers.ts';
import type { RenderedAudio } from '../../src/schemas/audio.ts';

// The builds here render audio (the other tests' builds render none: vitest.config.ts); the build
// child takes the mode from the server's environment.
process.env.ARCHIVE_AUDIO_RENDER = 'build';

const BASE = 'https://listen-accept.example.test';
const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-listen-accept-'));
const seed = path.join(root, 'seed');
const config = loadConfig(
  {
    ARCHIVE_DATA_DIR: path.join(root, 'data'),
    PUBLIC_BASE_URL: BASE,
    ARCHIVE_AUDIO_RENDER: 'build',
    ARCHIVE_ADMIN_KEYS: `editor-ana=${LABELED_ADMIN_KEY}`,
  },
  PROJECT_ROOT,
);
const BED_ID = 1;
const SCORE_ID = 50;
const form = { 'content-type': 'application/x-www-form-urlencoded' };
let slug: string;
let app: FastifyInstance;

beforeAll(async () => {
  [slug] = makeCorpusContent(seed, [findScore(LIEDER, 'lc5004701.mxl')], { sampleWorks: false }) as [string];
  const workDir = path.join(seed, 'works', slug);
  writeFileSync(
    path.join(workDir, 'piano-bed.musicxml'),
    pianoPart(musicXmlFromMxl(readFileSync(path.join(workDir, 'score.mxl'))), { tempi: 'drop' }),
  );
  const file = parseWorkFile(readFileSync(path.join(workDir, 'index.md'), 'utf8'));
  const front = file.data as Record<string, unknown>;
  front.arrangements = [
    {
      id: BED_ID,
      rank: 1,
      title: 'Piano bed (the song’s piano part)',
      style: 'solo piano, calm',
      instrumentation: 'Piano',
      duration: '1:04',
      durationSeconds: 64,
      intendedRole: 'music-bed',
      alsoSuits: [],
      moods: ['calm'],
      loopable: false,
      trimmable: false,
      renderingProfileSlugs: [],
      reviewState: 'technical-pass',
      rights: {
        edition: {
          status: 'original-contribution',
          note: 'The piano part of the OpenScore edition (CC0), the voice part removed.',
        },
        recording: {
          status: 'original-generated-recording',
          note: 'Rendered from the score by the archive (FluidSynth with the Fluid (R3) General MIDI SoundFont).',
        },
        license: 'CC0-1.0',
        attribution: 'Public-Domain Music Archive',
      },
      assets: [
        {
          id: SCORE_ID,
          kind: 'musicxml',
          title: 'Piano bed (MusicXML score)',
          file: 'piano-bed.musicxml',
          sourcePageUrl: 'https://musescore.com/openscore-lieder-corpus/scores/5004701',
          mediaType: 'application/vnd.recordare.musicxml+xml',
          rightsStatus: 'original-contribution',
          license: 'CC0-1.0',
          attribution: 'Public-Domain Music Archive',
          reviewState: 'human-reviewed',
          access: 'public',
          technicalChecks: 'MusicXML partwise; the OpenScore song with its voice part removed.',
        },
      ],
    },
  ];
  writeFileSync(path.join(workDir, 'index.md'), newWorkFile(front, file.body));
  const repo = await ensureContentRepo(config.contentRepo, seed);
  const handle = await SiteHandle.open(await ensureBuild(config, repo.head));
  app = await createApp({ config, handle, rebuilder: new Rebuilder(config, handle) });
}, 900_000);
afterAll(async () => {
  await app?.close();
  rmSync(root, { recursive: true, force: true });
});

async function bedAudio(): Promise<RenderedAudio> {
  const res = await app.inject({ url: `/api/v1/works/${slug}` });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data.arrangements[0].assets.find((a: { id: number }) => a.id === SCORE_ID).renderedAudio;
}

const brief = () => ({
  channel: { channelKey: 'producer-acceptance', intendedRole: 'music-bed' },
  workSlug: slug,
  requirements: { requiredFormats: ['mp3'], targetDurationSeconds: 60, mood: 'calm', instrumentation: 'piano' },
});

async function resolve() {
  const res = await app.inject({ method: 'POST', url: '/api/v1/music/resolve', payload: brief() });
  expect(res.statusCode, res.body).toBe(200);
  return res.json().data;
}

describe('a producer’s brief on a rendered, listening-approved arrangement of a real song', () => {
  it('is not reuse before anyone listened, and is reuse once an editor approved the audio on the desk', async () => {
    const audio = await bedAudio();
    expect(audio.status, audio.reason ?? '').toBe('rendered');
    expect(audio.reviewState).toBe('technical-pass');
    expect(audio.cuts.map((c) => c.seconds)).toEqual([30, 60]);
    const master = audio.files.find((f) => f.role === 'master' && f.format === 'flac')!;

    // Before: the 60 s cut fits, but nobody has listened to it.
    const before = await resolve();
    const bedBefore = before.candidates.find((c: { arrangementId: number }) => c.arrangementId === BED_ID);
    expect(bedBefore.fit).toMatchObject({ kind: 'cut', durationSource: 'rendered' });
    expect(bedBefore.renderedAudio).toMatchObject({ assetId: SCORE_ID, fitting: 'cut-60' });
    expect(bedBefore.ready).toBe(false);
    expect(before.verdict).not.toBe('reuse');

    // The editor signs in, opens the work's listening page and approves the audio it plays.
    const signIn = await app.inject({
      method: 'POST',
      url: '/admin/sign-in',
      headers: form,
      payload: new URLSearchParams({ key: LABELED_ADMIN_KEY }).toString(),
    });
    const cookie = cookieOf(signIn.headers['set-cookie']);
    const listenPage = await app.inject({ url: `/admin/works/${slug}/listening`, headers: { cookie } });
    expect(listenPage.statusCode).toBe(200);
    expect(listenPage.body).toContain(`name="audioSha256" value="${master.sha256}"`);
    const approve = await app.inject({
      method: 'POST',
      url: '/admin/listening',
      headers: { ...form, cookie },
      payload: new URLSearchParams({
        _csrf: csrfOf(listenPage.body),
        slug,
        assetId: String(SCORE_ID),
        audioSha256: master.sha256,
        verdict: 'approved',
        next: `/admin/works/${slug}/listening`,
      }).toString(),
    });
    expect(approve.statusCode, approve.body).toBe(303);
    expect(await git(config.contentRepo, ['log', '-1', '--format=%an'])).toContain('editor-ana');

    // The rebuild the verdict started serves it: the audio is listening-approved by editor-ana.
    const deadline = Date.now() + 600_000;
    while ((await bedAudio()).reviewState !== 'human-listening-approved') {
      if (Date.now() > deadline) throw new Error('the verdict was never served');
      await new Promise((r) => setTimeout(r, 250));
    }
    const approved = await bedAudio();
    expect(approved.listening).toMatchObject({
      verdict: 'approved',
      listener: 'editor-ana',
      audioSha256: master.sha256,
    });
    expect(approved.files.find((f) => f.role === 'master' && f.format === 'flac')!.sha256).toBe(master.sha256);

    // After: the same brief is reuse on the bed, offering the 60 s cut as served.
    const after = await resolve();
    expect(after.verdict).toBe('reuse');
    const bed = after.candidates[0];
    expect(bed.arrangementId).toBe(BED_ID);
    expect(bed.ready).toBe(true);
    expect(bed.reasons.find((r: { requirement: string }) => r.requirement === 'arrangement-review').detail).toContain(
      'editor-ana listened to exactly that audio',
    );
    const cut = approved.files.find((f) => f.role === 'cut-60' && f.format === 'mp3')!;
    expect(bed.formats).toContainEqual(
      expect.objectContaining({ format: 'mp3', assetId: SCORE_ID, download: cut.url, rendered: true }),
    );
    const served = await app.inject({ url: new URL(cut.url).pathname });
    expect(served.statusCode).toBe(200);
    expect(createHash('sha256').update(served.rawPayload).digest('hex')).toBe(cut.sha256);
    expect(cut.durationSeconds).toBe(60);
  }, 900_000);
});
