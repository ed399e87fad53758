/**
 * Issue 55's last acceptance point, end to end through a real `npm start` over real sockets: a
 * producer's brief "calm piano bed, 60 s" resolves to `reuse` on a rendered, listening-approved
 * arrangement of an IMPORTED song after an editor approves it on the desk. The whole funnel, each
 * step through the public surface: imported -> facts recorded through review -> public and engraved
 * -> an arrangement contributed, accepted and applied -> its audio rendered in the background ->
 * approved on the desk -> reused, the served MP3 being the bytes resolve names.
 *
 * The song is Brahms's "Liebe und Frühling I" (Op. 3 No. 2, OpenScore `lc4904021`), imported alone
 * with `npm run import -- --only`. The service renders audio as a deployed one does
 * (ARCHIVE_AUDIO_RENDER=build; the test runner's default is `off`). Its content repository starts
 * with the sample's shared files (people, profiles, vocabularies) and no works, so the only scores
 * rendered are the song's and the bed's (the sample's 26 would add about 110 CPU s: docs/audio.md).
 *
 * The facts that make the song public are recorded through the batch `record-facts` action
 * (docs/imports.md, "Clearing a batch"), each with its evidence, none invented: the composer's
 * death year is known already (the archive's person record for Brahms; the corpus's composers.tsv
 * says 1833-1897 too); the lyricist August Heinrich Hoffmann von Fallersleben died on 19 January
 * 1874 (the page cited, the same one issue 54's acceptance cites); the first publication is bounded
 * "no later than 1910" from the IMSLP scan the score was transcribed from (Op. 3 was published in
 * 1854), as issue 54's acceptance records it for the same song.
 *
 * The bed is the song's own piano part (its score with the voice part taken out, the song's tempo
 * marks kept), contributed through the public contribution API from the served template, its file
 * on a local HTTPS server the service trusts the way an operator adds a private CA
 * (NODE_EXTRA_CA_CERTS).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { dataOf, runScript, ServiceRun, type Started } from '../helpers/process.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { contributorFileServer, type HttpsTestServer } from '../helpers/https-server.ts';
import { findScore, LIEDER, makeCorpusContent, pianoPart } from '../helpers/corpus-content.ts';
import { cookieOf, csrfOf } from '../desk/helpers.ts';
import { fillArrangement } from '../helpers/score-contribution.ts';
import { ensureContentRepo } from '../../api/site/content-repo.ts';
import { musicXmlFromMxl } from '../../src/domain/mxl.ts';
import { fitTolerance } from '../../src/domain/audio/arrangement.ts';

const SONG = 'lc4904021';
const BATCH = 'openscore-lieder';
const CORPUS = path.join(PROJECT_ROOT, '..', 'shared', 'corpora', 'openscore-lieder');
const KEY = 'alice-imported-reuse-1';
const auth = { authorization: `Bearer ${KEY}` };
const TARGET = 60;
const LYRICIST_DEATH = {
  name: 'August Heinrich Hoffmann von Fallersleben',
  died: '1874',
  url: 'https://www.wissen-digital.de/August_Heinrich_Hoffmann_von_Fallersleben',
  note: 'Died 19 January 1874 at Corvey.',
};
const sha256 = (b: Buffer | Uint8Array) => createHash('sha256').update(b).digest('hex');
const WAIT_MS = 1_800_000;

const serviceRun = new ServiceRun('pdma-imported-reuse-');
const scratch = mkdtempSync(path.join(os.tmpdir(), 'pdma-imported-reuse-files-'));
let files: HttpsTestServer;
let running: Started;

beforeAll(async () => {
  files = await contributorFileServer({});
  writeFileSync(path.join(scratch, 'ca.pem'), files.ca);
  // The content repository: the sample's shared files, no works (made as the server makes one).
  const seed = path.join(scratch, 'seed');
  makeCorpusContent(seed, [], { sampleWorks: false });
  mkdirSync(path.join(seed, 'works'));
  writeFileSync(path.join(seed, 'works', '.gitkeep'), '');
  await ensureContentRepo(path.join(serviceRun.dataDir, 'content'), seed);
  running = await serviceRun.start(
    {
      ARCHIVE_ADMIN_KEYS: `alice=${KEY}`,
      ARCHIVE_AUDIO_RENDER: 'build',
      ARCHIVE_FETCH_ALLOW_HOSTS: `localhost:${files.port}`,
      NODE_EXTRA_CA_CERTS: path.join(scratch, 'ca.pem'),
    },
    900_000,
  );
}, 900_000);
afterAll(async () => {
  await serviceRun.dispose();
  await files?.close();
  rmSync(scratch, { recursive: true, force: true });
});

async function get(url: string): Promise<Record<string, any>> {
  const res = await fetch(`${running.url}${url}`, { headers: auth });
  expect(res.status, `${url}: ${await res.clone().text()}`).toBe(200);
  return dataOf(res);
}

/** Poll `read` until `done` holds of what it returns (a background build's outcome). */
async function until<T>(what: string, read: () => Promise<T>, done: (v: T) => boolean): Promise<T> {
  const deadline = Date.now() + WAIT_MS;
  for (let v = await read(); ; v = await read()) {
    if (done(v)) return v;
    if (Date.now() > deadline)
      throw new Error(`${what}: never happened (last ${JSON.stringify(v)}):\n${running.output()}`);
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** An admin action answered at once or in the background (202), followed to its end. */
async function admin(url: string, body: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await fetch(`${running.url}${url}`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', prefer: 'respond-async' },
    body: JSON.stringify({ reviewer: 'Alice', ...body }),
  });
  expect([200, 202], await res.clone().text()).toContain(res.status);
  const data = await dataOf(res);
  if (res.status === 202 && data.apply?.state === 'applying')
    return until(
      url,
      () => get(new URL(data.links.admin).pathname),
      (d) => d.apply?.state !== 'applying',
    );
  if (res.status === 202 && typeof data.actionId === 'string') {
    const done = await until(
      url,
      () => get(new URL(data.links.self).pathname),
      (d) => d.state !== 'running',
    );
    expect(done.state, JSON.stringify(done.error ?? null)).toBe('completed');
    return done.links?.item ? get(new URL(done.links.item).pathname) : done;
  }
  return data;
}
const batchAction = (action: string, body: Record<string, unknown>) =>
  admin(`/api/v1/admin/batches/${BATCH}/${action}`, body);

/** The public record of a work (no key). */
async function record(slug: string): Promise<Record<string, any>> {
  const res = await fetch(`${running.url}/api/v1/works/${slug}`);
  expect(res.status, slug).toBe(200);
  return dataOf(res);
}

const masterOf = (audio: Record<string, any>, format: 'flac' | 'mp3') =>
  (audio.files as Array<Record<string, any>>).find((f) => f.role === 'master' && f.format === format)!;

describe("a producer's brief is reuse on an approved, rendered arrangement of an imported song", () => {
  let slug = '';
  let songScore: Record<string, any>;
  let songSeconds = 0;
  let bedId = 0;
  let scoreId = 0;
  let code = '';

  const brief = () => ({
    channel: { channelKey: 'producer-acceptance', intendedRole: 'music-bed' },
    workSlug: slug,
    requirements: { requiredFormats: ['mp3'], targetDurationSeconds: TARGET, mood: 'calm', instrumentation: 'piano' },
  });
  async function resolve(): Promise<Record<string, any>> {
    const res = await fetch(`${running.url}/api/v1/music/resolve`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(brief()),
    });
    expect(res.status, await res.clone().text()).toBe(200);
    return dataOf(res);
  }
  async function bedAudio(): Promise<Record<string, any>> {
    const bed = ((await record(slug)).arrangements as Array<Record<string, any>>).find((a) => a.id === bedId)!;
    return bed.assets.find((a: { id: number }) => a.id === scoreId).renderedAudio;
  }

  it('imports the song and makes it public through recorded facts; its own audio renders', async () => {
    const run = await runScript('import.ts', [CORPUS, '--only', SONG, '--server', running.url, '--json'], {
      ARCHIVE_ADMIN_KEY: KEY,
    });
    expect(run.status, run.out).toBe(0);
    expect(JSON.parse(run.stdout.trim().split('\n').at(-1)!).submitted).toBe(1);
    expect(await batchAction('accept', {})).toMatchObject({ state: 'completed', actedOn: 1, failed: 0 });
    expect(await batchAction('apply', {})).toMatchObject({ state: 'completed', failed: 0 });
    const [item] = (await get(`/api/v1/admin/batches/${BATCH}`)).items as Array<Record<string, any>>;
    expect(item).toMatchObject({ itemKey: SONG });
    slug = item!.workSlug as string;

    // Held: the song is listed, its score admin-only, and resolve names what is missing.
    const held = await record(slug);
    expect(held.composer.name).toBe('Johannes Brahms');
    expect(held.composer.died).toMatch(/^1897\b/);
    expect(held.lyricist.name).toBe(LYRICIST_DEATH.name);
    expect(held.rights.territories.US.missingFacts).toContain('the first publication year');
    expect(held.sourceAssets.find((a: { kind: string }) => a.kind === 'mxl')).toMatchObject({
      reviewState: 'rights-review-required',
      access: 'admin-only',
    });

    // The missing facts, recorded through review with their evidence, then one apply.
    expect(
      await batchAction('record-facts', {
        fact: {
          field: 'died',
          person: held.lyricist.slug,
          value: LYRICIST_DEATH.died,
          evidenceUrl: LYRICIST_DEATH.url,
          note: LYRICIST_DEATH.note,
        },
      }),
    ).toMatchObject({ state: 'completed', actedOn: 1, failed: 0 });
    expect(
      await batchAction('record-facts', {
        items: [SONG],
        fact: {
          field: 'firstPublished',
          value: 'no later than 1910',
          evidenceFromItemScan: true,
          note: 'Transcribed from a printed edition of 1910 or earlier (the IMSLP scan cited; Op. 3 was published in 1854).',
        },
      }),
    ).toMatchObject({ state: 'completed', actedOn: 1, failed: 0 });
    expect(await batchAction('apply', {})).toMatchObject({ state: 'completed', actedOn: 2, failed: 0 });

    const song = await record(slug);
    expect(['US', 'EU', 'CA'].map((t) => song.rights.territories[t].status)).toEqual([
      'public-domain',
      'public-domain',
      'public-domain',
    ]);
    songScore = song.sourceAssets.find((a: { kind: string }) => a.kind === 'mxl');
    expect(songScore).toMatchObject({ access: 'public' });
    expect((await fetch(`${running.url}/works/${slug}/score/${songScore.id}/page-1.svg`)).status).toBe(200);
    expect(song.arrangements ?? []).toEqual([]);

    // The song's own audio renders in the background full build after the apply; the bed's
    // declared length is taken from it (the piano part has the song's bars and tempi).
    const audio = await until(
      "the song's rendered audio",
      async () =>
        (await record(slug)).sourceAssets.find((a: { id: number }) => a.id === songScore.id).renderedAudio ?? null,
      (a) => a?.status === 'rendered',
    );
    songSeconds = Math.round(masterOf(audio, 'flac').durationSeconds as number);

    // No arrangement yet: resolve asks for one.
    const first = await resolve();
    expect(first.verdict, JSON.stringify(first)).toBe('prepare');
    expect(first.missing).toContainEqual(expect.objectContaining({ operation: 'arrangement', workSlug: slug }));
  }, 3_600_000);

  it('a piano bed of it, contributed, accepted and applied, renders in the background and is not reuse before anyone listened', async () => {
    const piano = Buffer.from(pianoPart(musicXmlFromMxl(readFileSync(findScore(LIEDER, `${SONG}.mxl`)))));
    files.routes['/piano-bed.musicxml'] = { body: piano, contentType: 'application/vnd.recordare.musicxml+xml' };
    const templateRes = await fetch(
      `${running.url}/api/v1/music/contributions/template?workSlug=${slug}&operation=arrangement`,
    );
    expect(templateRes.status, await templateRes.clone().text()).toBe(200);
    const template = structuredClone(await dataOf(templateRes));
    expect(template).toMatchObject({ operation: 'arrangement', target: { workSlug: slug } });
    const sourcePage = songScore.links.sourcePage as string;
    const t = fillArrangement(template, {
      idempotencyKey: 'imported-reuse-piano-bed-1',
      submitter: 'Pia Producer',
      target: template.target,
      channel: {
        ...template.channel,
        channelKey: 'producer-acceptance',
        displayName: 'Producer acceptance',
        audioProfile: null,
        intendedRole: 'music-bed',
        narrationPresent: true,
        usageNotes: 'A calm piano bed under narration.',
      },
      rights: {
        editionStatus: 'original-contribution',
        recordingStatus: 'original-generated-recording',
        checkedAtUtc: '2026-12-01T00:00:00Z',
        evidenceUrls: [sourcePage],
      },
      assets: [
        {
          kind: 'musicxml',
          title: 'Piano bed (the song’s piano part, MusicXML)',
          downloadUrl: `${files.url}/piano-bed.musicxml`,
          sourcePageUrl: sourcePage,
          sha256: sha256(piano),
          mediaType: 'application/vnd.recordare.musicxml+xml',
          rightsStatus: 'original-contribution',
        },
      ],
      arrangement: {
        title: 'Piano bed (the song’s piano part)',
        style: 'solo piano, calm',
        instrumentation: 'Piano',
        duration: `${Math.floor(songSeconds / 60)}:${String(songSeconds % 60).padStart(2, '0')}`,
        moods: ['calm'],
        loopable: false,
        trimmable: false,
      },
      changeSummary: 'A piano bed: the piano part of the OpenScore edition (CC0), the voice part removed.',
      rationale: 'Resolve answered prepare: no arrangement of the song.',
    });
    const submitted = await fetch(`${running.url}/api/v1/music/contributions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(t),
    });
    expect(submitted.status, await submitted.clone().text()).toBe(202);
    code = (await dataOf(submitted)).trackingCode as string;

    const accepted = await admin(`/api/v1/admin/contributions/${code}/accept`, {});
    expect(accepted.status, JSON.stringify(accepted.review)).toBe('accepted');
    expect(accepted.review.blockers).toEqual([]);
    const applied = await admin(`/api/v1/admin/contributions/${code}/apply`, {});
    expect(applied.status, JSON.stringify(applied.review?.lastError ?? null)).toBe('applied');

    const bed = ((await record(slug)).arrangements as Array<Record<string, any>>).find((a) =>
      String(a.notes ?? '').includes(code),
    );
    expect(bed, 'the applied arrangement').toMatchObject({ intendedRole: 'music-bed', moods: ['calm'] });
    bedId = bed!.id as number;
    scoreId = (bed!.assets as Array<{ id: number; kind: string }>).find((a) => a.kind === 'musicxml')!.id;

    // The apply's build places no audio it has not rendered; the background full build renders it.
    const audio = await until(
      "the bed's rendered audio",
      () => bedAudio(),
      (a) => a?.status === 'rendered',
    );
    expect(audio.reviewState).toBe('technical-pass');
    expect(audio.statement).toContain('technical-pass');
    // The piano part has the song's bars and tempi: it lasts as long as the song (the declared length).
    expect(Math.abs(masterOf(audio, 'flac').durationSeconds - songSeconds)).toBeLessThanOrEqual(2);

    // Before anyone listened: the fit follows the rule on the measured render, and it is not reuse.
    const before = await resolve();
    const candidate = before.candidates.find((c: { arrangementId: number }) => c.arrangementId === bedId);
    expect(candidate, JSON.stringify(before.candidates)).toBeTruthy();
    const measured = Math.round(masterOf(audio, 'mp3').durationSeconds as number);
    const cut = (audio.cuts as Array<{ seconds: number }>).some((c) => c.seconds === TARGET);
    const kind = Math.abs(measured - TARGET) <= fitTolerance(TARGET) ? 'native' : cut ? 'cut' : 'edit';
    expect(candidate.fit).toMatchObject({ kind, durationSource: 'rendered', targetSeconds: TARGET });
    expect(candidate.renderedAudio).toMatchObject({
      assetId: scoreId,
      reviewState: 'technical-pass',
      fitting: kind === 'cut' ? `cut-${TARGET}` : 'master',
    });
    expect(candidate.ready).toBe(false);
    expect(before.verdict).toBe('prepare');
    expect(before.missing).toContainEqual(expect.objectContaining({ what: 'listening-approval' }));
  }, 3_600_000);

  it('an editor approves the audio on the desk; then the brief is reuse and the served MP3 is the one resolve names', async () => {
    const heard = masterOf(await bedAudio(), 'flac');
    const browser = { origin: running.url, 'sec-fetch-site': 'same-origin' };
    const form = { ...browser, 'content-type': 'application/x-www-form-urlencoded' };
    const signIn = await fetch(`${running.url}/admin/sign-in`, {
      method: 'POST',
      headers: form,
      body: new URLSearchParams({ key: KEY }).toString(),
      redirect: 'manual',
    });
    expect(signIn.status, await signIn.clone().text()).toBe(303);
    const cookie = cookieOf(signIn.headers.getSetCookie());
    const listenPage = await fetch(`${running.url}/admin/works/${slug}/listening`, { headers: { cookie } });
    expect(listenPage.status).toBe(200);
    const page = await listenPage.text();
    expect(page).toContain(`name="audioSha256" value="${heard.sha256}"`);
    const approve = await fetch(`${running.url}/admin/listening`, {
      method: 'POST',
      headers: { ...form, cookie },
      body: new URLSearchParams({
        _csrf: csrfOf(page),
        slug,
        assetId: String(scoreId),
        audioSha256: heard.sha256,
        verdict: 'approved',
        next: `/admin/works/${slug}/listening`,
      }).toString(),
      redirect: 'manual',
    });
    expect(approve.status, await approve.clone().text()).toBe(303);

    // The rebuild the verdict started serves it.
    const approved = await until(
      'the approval served',
      () => bedAudio(),
      (a) => a.reviewState === 'human-listening-approved',
    );
    expect(approved.listening).toMatchObject({ verdict: 'approved', listener: 'alice', audioSha256: heard.sha256 });

    const after = await resolve();
    expect(after.verdict, JSON.stringify(after.candidates[0]?.reasons)).toBe('reuse');
    const chosen = after.candidates[0];
    expect(chosen).toMatchObject({ workSlug: slug, arrangementId: bedId, ready: true });
    expect(
      chosen.reasons.find((r: { requirement: string }) => r.requirement === 'arrangement-review').detail,
    ).toContain('alice listened to exactly that audio');
    const role = chosen.renderedAudio.fitting as string;
    const offered = (approved.files as Array<Record<string, any>>).find((f) => f.role === role && f.format === 'mp3')!;
    expect(chosen.formats).toContainEqual(
      expect.objectContaining({ format: 'mp3', assetId: scoreId, download: offered.url, rendered: true }),
    );
    expect(chosen.renderedAudio.files).toContainEqual(
      expect.objectContaining({ url: offered.url, sha256: offered.sha256 }),
    );
    const served = await fetch(new URL(new URL(offered.url).pathname, running.url));
    expect(served.status).toBe(200);
    expect(sha256(Buffer.from(await served.arrayBuffer()))).toBe(offered.sha256);
    console.log(
      `${slug} (${SONG}, imported): bed ${code} rendered (${(approved.cuts as Array<{ seconds: number }>).map((c) => `${c.seconds} s`).join(', ')} cuts), approved by alice, reuse with ${role} (${offered.durationSeconds} s, ${offered.sha256.slice(0, 12)}…)`,
    );
  }, 3_600_000);
});
