/**
 * Issue 54's acceptance, through the public surface of a real `npm start` on a fresh data folder:
 * `npm run import -- ../shared/corpora/openscore-lieder --limit 10`, the batch accepted and applied
 * (the songs land held for rights review: no lyricist dates, no first publication); the editor
 * records each person's death year once (one report per person, on the person's record) and
 * "first published no later than" for the batch in ONE batch action, each work citing the IMSLP
 * scan its score was transcribed from; one apply; then at least 8 of the 10 are public domain in
 * the US, the EU and Canada, with engraved SVG pages and a PDF, and resolve asks nothing of them.
 * A later correction of one lyricist's death year to 1990 (a reader's report, accepted, one apply)
 * makes that lyricist's song protected in the EU again. No record says 1970. The time of each
 * editor action is printed at the end.
 *
 * Issue 55's producer acceptance on the same imported songs (the whole funnel: imported -> public
 * -> engraved -> rendered -> approved -> reused): the service renders audio as a deployed one does;
 * the Brahms Op. 3 song of the batch gets a piano bed contributed through the public contribution
 * API (the song's own piano part: its score with the voice part taken out), accepted and applied
 * through the admin review API; its audio renders in the background full build after the apply
 * (docs/audio.md, "After an apply"); a brief "calm piano bed, 60 s" is not `reuse` until an editor
 * approves that audio on the desk's listening page, and then is `reuse` on the bed, offering the
 * whole served render (this song renders within 10 % of 60 s: a native fit, not the 60 s cut).
 *
 * Every date recorded here is one the cited page states (found with the issue's work; none is
 * invented). The first-publication bound is the editor's reading of each song's scan: the songs are
 * by Brahms (Op. 3, published 1854; Op. 59, 1873), Fanny Hensel (Op. 10, published posthumously by
 * Breitkopf & Härtel), Schubert (Op. 59, published 1826), Josephine Lang (d. 1880), Robert Franz
 * (d. 1892), Hugo Wolf (the Eichendorff and Goethe songbooks, 1888–90) and Roger Quilter ("To
 * Julia", Op. 8, an Edwardian cycle), so 1910 is a bound every scan bears out. Clara Schumann's
 * "Lorelei" is left out of it: its source is her 1843 autograph, and its first publication is not
 * known here. Lang's song names a lyricist whose dates no source found gives, so it stays held in
 * the EU and Canada: the missing fact is named. The 1990 death year is the acceptance's
 * deliberately wrong correction, with a test page as its evidence.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dataOf, runScript, ServiceRun, type Started } from '../helpers/process.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { contributorFileServer, type HttpsTestServer } from '../helpers/https-server.ts';
import { corpusScores, LIEDER, pianoPart } from '../helpers/corpus-content.ts';
import { musicXmlFromMxl } from '../../src/domain/mxl.ts';
import path from 'node:path';
import os from 'node:os';
import { createHash } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';

const serviceRun = new ServiceRun('pdma-rights-acceptance-');
const KEY = 'alice-rights-acceptance-1';
const BATCH = 'openscore-lieder';
const CORPUS = path.join(PROJECT_ROOT, '..', 'shared', 'corpora', 'openscore-lieder');
const auth = { authorization: `Bearer ${KEY}` };
const sha256 = (b: Buffer | Uint8Array) => createHash('sha256').update(b).digest('hex');

/**
 * The contributor's files for the funnel's last step (a piano bed of the imported Brahms Op. 3
 * song), on a local HTTPS server the service trusts the way an operator adds a private CA. The
 * service renders audio as a deployed one does (ARCHIVE_AUDIO_RENDER's default, `build`; the test
 * runner's own default is `off`).
 */
const caDir = mkdtempSync(path.join(os.tmpdir(), 'pdma-rights-acceptance-ca-'));
let files: HttpsTestServer;
let ENV: Record<string, string>;
beforeAll(async () => {
  files = await contributorFileServer({});
  writeFileSync(path.join(caDir, 'ca.pem'), files.ca);
  ENV = {
    ARCHIVE_ADMIN_KEYS: `alice=${KEY}`,
    ARCHIVE_AUDIO_RENDER: 'build',
    ARCHIVE_FETCH_ALLOW_HOSTS: `localhost:${files.port}`,
    NODE_EXTRA_CA_CERTS: path.join(caDir, 'ca.pem'),
  };
});
afterAll(async () => {
  await serviceRun.dispose();
  await files?.close();
  rmSync(caDir, { recursive: true, force: true });
});

/** Each person's death year, with the page that states it. */
const DEATHS: Array<{ name: string; role: 'composer' | 'lyricist'; died: string; url: string; note: string }> = [
  {
    name: 'Roger Quilter',
    role: 'composer',
    died: '1953',
    url: 'https://en.wikipedia.org/wiki/Roger_Quilter',
    note: 'Died 21 September 1953 in London.',
  },
  {
    name: 'Robert Herrick',
    role: 'lyricist',
    died: '1674',
    url: 'https://kids.britannica.com/students/article/Robert-Herrick/274861',
    note: 'Died in Devonshire in October 1674.',
  },
  {
    name: 'August Heinrich Hoffmann von Fallersleben',
    role: 'lyricist',
    died: '1874',
    url: 'https://www.wissen-digital.de/August_Heinrich_Hoffmann_von_Fallersleben',
    note: 'Died 19 January 1874 at Corvey.',
  },
  {
    name: 'Heinrich Heine',
    role: 'lyricist',
    died: '1856',
    url: 'https://www.schumann-portal.de/heinrich-heine.html',
    note: 'Heinrich Heine (1797–1856).',
  },
  {
    name: 'Nikolaus Lenau',
    role: 'lyricist',
    died: '1850',
    url: 'https://geschichtewiki.wien.gv.at/Nikolaus_Lenau',
    note: 'Died 22 August 1850.',
  },
  {
    name: 'Friedrich Rückert',
    role: 'lyricist',
    died: '1866',
    url: 'https://www.wissen.de/lexikon/rueckert-friedrich',
    note: 'Died 31 January 1866.',
  },
  {
    name: 'Georg Friedrich Daumer',
    role: 'lyricist',
    died: '1875',
    url: 'https://wuerzburgwiki.de/wiki/Georg_Friedrich_Daumer',
    note: 'Died 13 December 1875 in Würzburg.',
  },
  {
    name: 'Otto Roquette',
    role: 'lyricist',
    died: '1896',
    url: 'https://www.darmstadt-stadtlexikon.de/de/r/roquette-otto.html',
    note: 'Died 18 March 1896 in Darmstadt.',
  },
  {
    name: 'Joseph von Eichendorff',
    role: 'lyricist',
    died: '1857',
    url: 'https://deutschelyrik.de/eichendorff.html',
    note: 'Died 26 November 1857 in Neisse.',
  },
  {
    name: 'Johann Wolfgang von Goethe',
    role: 'lyricist',
    died: '1832',
    url: 'https://djaco.bildung.hessen.de/termine/gedenktag/maerz/hist_03-22-1832_0073.html',
    note: 'Died 22 March 1832 in Weimar.',
  },
];
const LORELEI = 'lc4919673';

let running: Started;
const timings: Array<[action: string, seconds: number]> = [];
/** The funnel the run measured, printed with the timings. */
const figures: string[] = [];

async function timed<T>(action: string, run: () => Promise<T>): Promise<T> {
  const t0 = Date.now();
  const out = await run();
  timings.push([action, (Date.now() - t0) / 1000]);
  return out;
}

async function get(url: string): Promise<Record<string, any>> {
  const res = await fetch(`${running.url}${url}`, { headers: auth });
  expect(res.status, `${url}: ${await res.clone().text()}`).toBe(200);
  return dataOf(res);
}

/** A batch action, asked to answer at once and followed to its end. */
async function act(action: string, body: Record<string, unknown>): Promise<Record<string, any>> {
  const res = await fetch(`${running.url}/api/v1/admin/batches/${BATCH}/${action}`, {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json', prefer: 'respond-async' },
    body: JSON.stringify({ reviewer: 'Alice', ...body }),
  });
  expect([200, 202], await res.clone().text()).toContain(res.status);
  let data = await dataOf(res);
  const deadline = Date.now() + 1_800_000;
  while (data.state === 'running') {
    if (Date.now() > deadline) throw new Error(`${action} still running:\n${running.output()}`);
    await new Promise((r) => setTimeout(r, 500));
    data = await get(new URL(data.links.self).pathname);
  }
  return data;
}

/** The public record of a work (no key). */
async function record(slug: string): Promise<Record<string, any>> {
  const res = await fetch(`${running.url}/api/v1/works/${slug}`);
  expect(res.status, slug).toBe(200);
  return dataOf(res);
}

/** What resolve says is missing for a music bed from the work (the `what` of each item). */
async function missingFor(slug: string): Promise<string[]> {
  const res = await fetch(`${running.url}/api/v1/music/resolve`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({
      workSlug: slug,
      channel: { channelKey: 'acceptance', intendedRole: 'music-bed' },
      requirements: { requiredFormats: ['mp3'] },
    }),
  });
  expect(res.status, await res.clone().text()).toBe(200);
  const answer = await dataOf(res);
  expect(Array.isArray(answer.missing), JSON.stringify(answer)).toBe(true);
  return (answer.missing as Array<{ what: string }>).map((m) => m.what);
}

const statuses = (r: Record<string, any>) => ['US', 'EU', 'CA'].map((t) => r.rights.territories[t].status);
const publicEverywhere = (r: Record<string, any>) => statuses(r).every((s) => s === 'public-domain');

describe('real music reaches people: facts recorded once, through review, derived everywhere', () => {
  let items: Array<Record<string, any>> = [];
  const slugs = () => items.map((i) => i.workSlug as string);

  it('imports ten songs; accepted and applied, they are listed but held for rights review', async () => {
    running = await serviceRun.start(ENV, 900_000);
    const run = await timed('import --limit 10', () =>
      runScript('import.ts', [CORPUS, '--limit', '10', '--server', running.url, '--json'], {
        ARCHIVE_ADMIN_KEY: KEY,
      }),
    );
    expect(run.status, run.out).toBe(0);
    expect(JSON.parse(run.stdout.trim().split('\n').at(-1)!).submitted).toBe(10);

    expect(await timed('accept the batch', () => act('accept', {}))).toMatchObject({
      state: 'completed',
      actedOn: 10,
      failed: 0,
    });
    expect(await timed('apply the batch', () => act('apply', {}))).toMatchObject({ state: 'completed', failed: 0 });
    items = (await get(`/api/v1/admin/batches/${BATCH}`)).items;
    expect(items).toHaveLength(10);
    for (const slug of slugs()) {
      const r = await record(slug);
      expect(r.rights.composition.status, slug).toBe('unknown');
      expect(r.rights.checkedAtUtc.startsWith('1970'), slug).toBe(false);
      const score = r.sourceAssets.find((a: { kind: string }) => a.kind === 'mxl');
      expect(score, slug).toMatchObject({ reviewState: 'rights-review-required', access: 'admin-only' });
      expect(r.rights.territories.US.missingFacts, slug).toContain('the first publication year');
    }
  }, 3_600_000);

  it('records each death year once and the first publications in one batch action; one apply decides', async () => {
    // The person records the batch's works name.
    const people = new Map<string, string>();
    for (const slug of slugs()) {
      const r = await record(slug);
      people.set(r.composer.name, r.composer.slug);
      if (r.lyricist) people.set(r.lyricist.name, r.lyricist.slug);
    }
    for (const d of DEATHS) {
      const person = people.get(d.name);
      expect(person, `${d.name} among ${[...people.keys()].join(', ')}`).toBeTruthy();
      const done = await timed(`record ${d.name} died ${d.died}`, () =>
        act('record-facts', {
          fact: { field: 'died', person, value: d.died, evidenceUrl: d.url, note: d.note },
        }),
      );
      expect(done, d.name).toMatchObject({ state: 'completed', total: 1, actedOn: 1, failed: 0 });
    }
    const chosen = items.filter((i) => i.itemKey !== LORELEI).map((i) => i.itemKey as string);
    const published = await timed('record "first published no later than 1910" for 9 songs', () =>
      act('record-facts', {
        items: chosen,
        fact: {
          field: 'firstPublished',
          value: 'no later than 1910',
          evidenceFromItemScan: true,
          note: 'Each score was transcribed from a printed edition of 1910 or earlier (the IMSLP scan cited).',
        },
      }),
    );
    expect(published).toMatchObject({ state: 'completed', total: 9, actedOn: 9, failed: 0 });

    const batch = await get(`/api/v1/admin/batches/${BATCH}`);
    expect(batch.facts).toHaveLength(DEATHS.length + 9);
    const applied = await timed('apply the recorded facts (one apply)', () => act('apply', {}));
    expect(applied).toMatchObject({ state: 'completed', actedOn: DEATHS.length + 9, failed: 0 });

    const records = await Promise.all(slugs().map(record));
    const cleared = records.filter(publicEverywhere);
    expect(
      cleared.length,
      records
        .map((r) => `${r.slug}: ${statuses(r).join('/')} ${JSON.stringify(r.rights.missingFacts ?? null)}`)
        .join('\n'),
    ).toBeGreaterThanOrEqual(8);
    const inUs = records.filter((r) => r.rights.territories.US.status === 'public-domain').length;
    const inEu = records.filter((r) => r.rights.territories.EU.status === 'public-domain').length;
    const inCa = records.filter((r) => r.rights.territories.CA.status === 'public-domain').length;
    figures.push(
      `after the recorded facts: ${cleared.length} of ${records.length} public domain in the US, the EU and Canada (US ${inUs}, EU ${inEu}, CA ${inCa}); still held: ${records
        .filter((r) => !publicEverywhere(r))
        .map(
          (r) =>
            `${r.slug} (${[...new Set((['US', 'EU', 'CA'] as const).flatMap((t) => r.rights.territories[t].missingFacts ?? []))].join('; ')})`,
        )
        .join(', ')}`,
    );
    for (const r of cleared) {
      expect(r.rights.composition.status).toBe('public-domain');
      expect(r.rights.decidedBy.length).toBeGreaterThan(0);
      expect(r.rights.decidedBy.some((f: { acceptedBy?: string }) => f.acceptedBy === 'alice')).toBe(true);
      const score = r.sourceAssets.find((a: { kind: string }) => a.kind === 'mxl');
      expect(score.access, r.slug).toBe('public');
      expect(score.reviewState).not.toBe('rights-review-required');
      expect(score.links.pdf, r.slug).toBeTruthy();
      const pdf = await fetch(new URL(new URL(score.links.pdf).pathname, running.url));
      expect(pdf.status, r.slug).toBe(200);
      expect(pdf.headers.get('content-type')).toBe('application/pdf');
      const svg = await fetch(`${running.url}/works/${r.slug}/score/${score.id}/page-1.svg`);
      expect(svg.status, r.slug).toBe(200);
      expect((await svg.text()).includes('<svg')).toBe(true);
      // Resolve asks nothing about a cleared work's composition or its score.
      const whats = await missingFor(r.slug);
      expect(whats, r.slug).not.toContain('composition-rights');
      expect(whats, r.slug).not.toContain('source-score');
    }
    // A work still held is named as held, with its missing fact, and resolve never asks for its score.
    for (const r of records.filter((x) => !publicEverywhere(x))) {
      const score = r.sourceAssets.find((a: { kind: string }) => a.kind === 'mxl');
      const whats = await missingFor(r.slug);
      if (score.access !== 'public') {
        expect(whats, r.slug).not.toContain('source-score');
        expect(whats, r.slug).toContain('composition-rights');
      }
    }
  }, 3_600_000);

  it("a later correction of one lyricist's death year to 1990 makes their song protected in the EU, after one apply", async () => {
    const wolf = (await Promise.all(slugs().map(record))).find((r) => r.lyricist?.name === 'Joseph von Eichendorff')!;
    expect(wolf.rights.territories.EU.status).toBe('public-domain');
    const filed = await fetch(`${running.url}/api/v1/correction-reports`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        workSlug: wolf.slug,
        targetType: 'lyricist',
        fieldName: 'died',
        currentValue: '1857',
        proposedValue: '1990',
        rationale: "The acceptance's deliberately wrong correction (test data).",
        evidenceUrl: 'https://example.org/acceptance/a-wrong-death-year',
        reporterName: 'Cleo',
        reporterKind: 'Human',
      }),
    });
    expect(filed.status, await filed.clone().text()).toBe(202);
    const code = (await dataOf(filed)).trackingCode as string;
    await timed('accept the 1990 correction', async () => {
      const res = await fetch(`${running.url}/api/v1/admin/correction-reports/${code}/accept`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ reviewer: 'Alice' }),
      });
      expect(res.status, await res.clone().text()).toBe(200);
    });
    await timed('apply the 1990 correction', async () => {
      const res = await fetch(`${running.url}/api/v1/admin/correction-reports/${code}/apply`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ reviewer: 'Alice' }),
      });
      expect(res.status, await res.clone().text()).toBe(200);
    });
    const after = await record(wolf.slug);
    expect(after.rights.territories.EU.status).toBe('not-public-domain');
    expect(after.rights.territories.US.status).toBe('public-domain');
    const person = await fetch(`${running.url}/api/v1/people/${wolf.lyricist.slug}`);
    expect(person.status).toBe(200);
    expect((await dataOf(person)).died).toBe('1990');
  }, 3_600_000);

  it('the content lint refuses a file whose stored conclusion contradicts its facts', async () => {
    // A checkout of the archive's content repository as the editor's CI sees it, with the
    // Eichendorff song's EU status written in as "public-domain": its lyricist died in 1990 now.
    const checkout = path.join(serviceRun.dataDir, 'lint-checkout');
    execFileSync('git', ['clone', '-q', '--branch', 'main', path.join(serviceRun.dataDir, 'content'), checkout]);
    const wolf = (await Promise.all(slugs().map(record))).find((r) => r.lyricist?.name === 'Joseph von Eichendorff')!;
    const file = path.join(checkout, 'works', wolf.slug, 'index.md');
    const text = readFileSync(file, 'utf8');
    expect(text).not.toMatch(/territories:/);
    writeFileSync(
      file,
      text.replace(
        /^rights:\n/m,
        'rights:\n  territories:\n    EU: { status: public-domain, note: "Free in the EU." }\n',
      ),
    );
    const lint = await runScript('lint-content.ts', [checkout]);
    expect(lint.status, lint.out).toBe(1);
    expect(lint.out).toContain(`works/${wolf.slug}/index.md`);
    expect(lint.out).toMatch(
      /\/rights\/territories\/EU\/status: says "public-domain", but the recorded facts decide "not-public-domain"/,
    );
  }, 600_000);

  it("the imported Brahms Op. 3 song's piano part, contributed as a bed, rendered and approved on the desk, is reuse for a producer's brief", async () => {
    // The imported song: one of Brahms's Op. 3 among the batch, now public and engraved.
    const op3 = new Map(
      corpusScores(LIEDER)
        .filter((p) => p.includes(`${path.sep}6_Songs,_Op.3${path.sep}`))
        .map((p) => [path.basename(p, '.mxl'), p]),
    );
    const item = items.find((i) => op3.has(i.itemKey as string));
    expect(item, `a Brahms Op. 3 song among ${items.map((i) => i.itemKey).join(', ')}`).toBeTruthy();
    const slug = item!.workSlug as string;
    const song = await record(slug);
    expect(song.composer.name).toBe('Johannes Brahms');
    expect(publicEverywhere(song), statuses(song).join('/')).toBe(true);
    const songScore = song.sourceAssets.find((a: { kind: string }) => a.kind === 'mxl');
    expect(songScore).toMatchObject({ access: 'public' });
    expect((await fetch(`${running.url}/works/${slug}/score/${songScore.id}/page-1.svg`)).status).toBe(200);
    expect(song.arrangements ?? []).toEqual([]);

    // The song's own audio renders too (the background full build after the facts' apply): the
    // producer takes the bed's length from it (the piano part has the song's bars and tempi).
    const songAudio = async () =>
      (await record(slug)).sourceAssets.find((a: { id: number }) => a.id === songScore.id).renderedAudio;
    await timed("wait for the song's own rendered audio", async () => {
      const deadline = Date.now() + 1_800_000;
      for (let audio = await songAudio(); audio?.status !== 'rendered'; audio = await songAudio()) {
        expect(['pending', undefined], JSON.stringify(audio)).toContain(audio?.status);
        if (Date.now() > deadline) throw new Error(`the song's audio never rendered:\n${running.output()}`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    });
    const songMaster = (await songAudio()).files.find(
      (f: { role: string; format: string }) => f.role === 'master' && f.format === 'flac',
    );
    const songSeconds = Math.round(songMaster.durationSeconds as number);
    expect(songSeconds).toBeGreaterThan(60);

    const brief = {
      channel: { channelKey: 'producer-acceptance', intendedRole: 'music-bed' },
      workSlug: slug,
      requirements: { requiredFormats: ['mp3'], targetDurationSeconds: 60, mood: 'calm', instrumentation: 'piano' },
    };
    const resolve = async () => {
      const res = await fetch(`${running.url}/api/v1/music/resolve`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(brief),
      });
      expect(res.status, await res.clone().text()).toBe(200);
      return dataOf(res);
    };
    const first = await resolve();
    expect(first.verdict, JSON.stringify(first)).toBe('prepare');
    const step = (first.missing as Array<Record<string, any>>).find((m) => m.operation === 'arrangement');
    expect(step, JSON.stringify(first.missing)).toMatchObject({ workSlug: slug });

    // The piano part (the song's score with the voice part taken out), served for the contribution.
    const piano = Buffer.from(pianoPart(musicXmlFromMxl(readFileSync(op3.get(item!.itemKey as string)!))));
    files.routes['/brahms-op3-piano-bed.musicxml'] = {
      body: piano,
      contentType: 'application/vnd.recordare.musicxml+xml',
    };
    const templateRes = await fetch(
      `${running.url}/api/v1/music/contributions/template?workSlug=${slug}&operation=arrangement`,
    );
    expect(templateRes.status, await templateRes.clone().text()).toBe(200);
    const t = structuredClone(await dataOf(templateRes));
    expect(t).toMatchObject({ operation: 'arrangement', target: { workSlug: slug } });
    const sourcePage = songScore.links.sourcePage as string;
    t.idempotencyKey = 'rights-acceptance-brahms-piano-bed-1';
    t.submittedBy = { name: 'Pia Producer', kind: 'Human', agentName: null, agentVersion: null, contact: null };
    t.channel = {
      ...t.channel,
      channelKey: brief.channel.channelKey,
      displayName: 'Producer acceptance',
      audioProfile: null,
      intendedRole: 'music-bed',
      narrationPresent: true,
      usageNotes: 'A calm piano bed under narration.',
    };
    t.rights = {
      ...t.rights,
      compositionStatus: 'public-domain',
      editionStatus: 'original-contribution',
      recordingStatus: 'original-generated-recording',
      territory: 'US, EU, CA',
      license: 'CC0-1.0',
      attribution: null,
      checkedAtUtc: '2026-12-01T00:00:00Z',
      evidenceUrls: [sourcePage],
    };
    t.assets = [
      {
        kind: 'musicxml',
        title: 'Piano bed (the song’s piano part, MusicXML)',
        downloadUrl: `${files.url}/brahms-op3-piano-bed.musicxml`,
        sourcePageUrl: sourcePage,
        sha256: sha256(piano),
        mediaType: 'application/vnd.recordare.musicxml+xml',
        rightsStatus: 'original-contribution',
        license: 'CC0-1.0',
        attribution: null,
        reviewState: 'pending',
      },
    ];
    t.arrangement = {
      title: 'Piano bed (the song’s piano part)',
      style: 'solo piano, calm',
      instrumentation: 'Piano',
      duration: `${Math.floor(songSeconds / 60)}:${String(songSeconds % 60).padStart(2, '0')}`,
      intendedRole: 'music-bed',
      renderingProfileSlugs: [],
      moods: ['calm'],
      loopable: false,
      trimmable: false,
    };
    t.reproducibility = null;
    t.quality = {
      technicalValidationPassed: true,
      humanListeningApproved: false,
      technicalChecks: null,
      listeningNotes: null,
    };
    t.changeSummary = 'A piano bed: the piano part of the OpenScore edition (CC0), the voice part removed.';
    t.rationale = `Resolve answered prepare: ${(first.missing as Array<{ what: string }>).map((m) => m.what).join(', ')}.`;
    const submitted = await fetch(`${running.url}/api/v1/music/contributions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(t),
    });
    expect(submitted.status, await submitted.clone().text()).toBe(202);
    const code = (await dataOf(submitted)).trackingCode as string;

    // Accepted (the file fetched, hashed and checked) and applied through the admin review API,
    // each followed to its outcome as a client does (docs/review.md, "Actions").
    const itemAction = async (action: 'accept' | 'apply') => {
      const res = await fetch(`${running.url}/api/v1/admin/contributions/${code}/${action}`, {
        method: 'POST',
        headers: { ...auth, 'content-type': 'application/json' },
        body: JSON.stringify({ reviewer: 'Alice' }),
      });
      expect([200, 202], await res.clone().text()).toContain(res.status);
      let data = await dataOf(res);
      const deadline = Date.now() + 1_800_000;
      const wait = async () => {
        if (Date.now() > deadline) throw new Error(`${action} still running:\n${running.output()}`);
        await new Promise((r) => setTimeout(r, 500));
      };
      if (res.status === 202 && data.apply?.state === 'applying') {
        while (data.apply?.state === 'applying') {
          await wait();
          data = await get(new URL(data.links.admin).pathname);
        }
        return data;
      }
      if (res.status === 202 && typeof data.actionId === 'string') {
        while (data.state === 'running') {
          await wait();
          data = await get(new URL(data.links.self).pathname);
        }
        expect(data.state, JSON.stringify(data.error ?? null)).toBe('completed');
        data = await get(new URL(data.links.item).pathname);
      }
      return data;
    };
    const accepted = await timed('accept the piano-bed contribution', () => itemAction('accept'));
    expect(accepted.status, JSON.stringify(accepted.review)).toBe('accepted');
    expect(accepted.review.blockers).toEqual([]);
    const applied = await timed('apply the piano-bed contribution', () => itemAction('apply'));
    expect(applied.status, JSON.stringify(applied.review?.lastError ?? null)).toBe('applied');

    // Its audio renders in the background full build the apply started.
    const bed = async () => {
      const r = await record(slug);
      const arrangement = (r.arrangements as Array<Record<string, any>>).find((a) =>
        String(a.notes ?? '').includes(code),
      );
      expect(arrangement, JSON.stringify(r.arrangements)).toBeTruthy();
      return arrangement!;
    };
    const landed = await bed();
    expect(landed).toMatchObject({ intendedRole: 'music-bed', moods: ['calm'] });
    const scoreId = (landed.assets as Array<{ id: number; kind: string }>).find((a) => a.kind === 'musicxml')!.id;
    const audioOf = async () => (await bed()).assets.find((a: { id: number }) => a.id === scoreId).renderedAudio;
    await timed('wait for the rendered audio of the bed (background full build)', async () => {
      const deadline = Date.now() + 1_800_000;
      for (let audio = await audioOf(); audio?.status !== 'rendered'; audio = await audioOf()) {
        expect(['pending', undefined], JSON.stringify(audio)).toContain(audio?.status);
        if (Date.now() > deadline) throw new Error(`the bed's audio never rendered:\n${running.output()}`);
        await new Promise((r) => setTimeout(r, 1000));
      }
    });
    const audio = await audioOf();
    expect(audio.reviewState).toBe('technical-pass');
    expect(audio.cuts.map((c: { seconds: number }) => c.seconds)).toContain(60);
    const master = audio.files.find(
      (f: { role: string; format: string }) => f.role === 'master' && f.format === 'flac',
    );

    // Before anyone listened: the rendered audio fits the 60 s brief, but the brief is not reuse.
    // This song's render is within max(3 s, 10 %) of 60 s, so resolve offers the whole render (a
    // native fit, the master) rather than the exact 60 s cut, which is rendered too.
    const masterMp3 = audio.files.find(
      (f: { role: string; format: string }) => f.role === 'master' && f.format === 'mp3',
    );
    expect(Math.abs(masterMp3.durationSeconds - 60)).toBeLessThanOrEqual(6);
    const before = await resolve();
    const bedBefore = before.candidates.find((c: { arrangementId: number }) => c.arrangementId === landed.id);
    expect(bedBefore, JSON.stringify(before.candidates)).toBeTruthy();
    expect(bedBefore.fit).toMatchObject({ kind: 'native', durationSource: 'rendered' });
    expect(bedBefore.renderedAudio).toMatchObject({ assetId: scoreId, fitting: 'master' });
    expect(bedBefore.ready).toBe(false);
    expect(before.verdict).not.toBe('reuse');

    // The editor signs in on the desk, opens the work's listening page and approves what it plays.
    const browser = { origin: running.url, 'sec-fetch-site': 'same-origin' };
    const form = { ...browser, 'content-type': 'application/x-www-form-urlencoded' };
    const signIn = await fetch(`${running.url}/admin/sign-in`, {
      method: 'POST',
      headers: form,
      body: new URLSearchParams({ key: KEY }).toString(),
      redirect: 'manual',
    });
    expect(signIn.status, await signIn.clone().text()).toBe(303);
    const cookie = signIn.headers.getSetCookie()[0]!.split(';')[0]!;
    const listenPage = await fetch(`${running.url}/admin/works/${slug}/listening`, { headers: { cookie } });
    expect(listenPage.status).toBe(200);
    const page = await listenPage.text();
    expect(page).toContain(`name="audioSha256" value="${master.sha256}"`);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
    const approve = await timed('approve the bed on the listening page', () =>
      fetch(`${running.url}/admin/listening`, {
        method: 'POST',
        headers: { ...form, cookie },
        body: new URLSearchParams({
          _csrf: csrf,
          slug,
          assetId: String(scoreId),
          audioSha256: master.sha256,
          verdict: 'approved',
          next: `/admin/works/${slug}/listening`,
        }).toString(),
        redirect: 'manual',
      }),
    );
    expect(approve.status, await approve.clone().text()).toBe(303);

    // The rebuild the verdict started serves it.
    await timed('the approval served (rebuild)', async () => {
      const deadline = Date.now() + 1_800_000;
      while ((await audioOf()).reviewState !== 'human-listening-approved') {
        if (Date.now() > deadline) throw new Error(`the verdict was never served:\n${running.output()}`);
        await new Promise((r) => setTimeout(r, 500));
      }
    });
    const approved = await audioOf();
    expect(approved.listening).toMatchObject({ verdict: 'approved', listener: 'alice', audioSha256: master.sha256 });

    // After: the same brief is reuse on the bed, offering the served render.
    const after = await resolve();
    expect(after.verdict, JSON.stringify(after.candidates[0]?.reasons)).toBe('reuse');
    const chosenBed = after.candidates[0];
    expect(chosenBed).toMatchObject({ workSlug: slug, arrangementId: landed.id, ready: true });
    expect(
      chosenBed.reasons.find((r: { requirement: string }) => r.requirement === 'arrangement-review').detail,
    ).toContain('alice listened to exactly that audio');
    const offered = approved.files.find(
      (f: { role: string; format: string }) => f.role === 'master' && f.format === 'mp3',
    );
    expect(offered.sha256).toBe(masterMp3.sha256);
    expect(chosenBed.formats).toContainEqual(
      expect.objectContaining({ format: 'mp3', assetId: scoreId, download: offered.url, rendered: true }),
    );
    const served = await fetch(new URL(new URL(offered.url).pathname, running.url));
    expect(served.status).toBe(200);
    expect(sha256(Buffer.from(await served.arrayBuffer()))).toBe(offered.sha256);
    figures.push(
      `the funnel on ${slug} (Brahms Op. 3, imported): public, engraved, a piano bed contributed (${code}), rendered (${audio.cuts.map((c: { seconds: number }) => `${c.seconds} s`).join(', ')} cuts), approved by alice, reuse with the whole render (${offered.durationSeconds} s, ${offered.sha256.slice(0, 12)}…)`,
    );
  }, 3_600_000);

  it('no record, person or batch shows a 1970 date', async () => {
    for (const slug of slugs()) {
      const text = await (await fetch(`${running.url}/api/v1/works/${slug}`)).text();
      expect(text.includes('1970-01-01'), slug).toBe(false);
    }
    const people = await (await fetch(`${running.url}/api/v1/people`)).text();
    expect(people.includes('1970-01-01')).toBe(false);
    const batch = await (await fetch(`${running.url}/api/v1/admin/batches/${BATCH}`, { headers: auth })).text();
    expect(batch.includes('1970-01-01')).toBe(false);
    // The editor's actions and their times, for the report.
    console.log([...timings.map(([a, s]) => `${s.toFixed(1).padStart(8)} s  ${a}`), ...figures].join('\n'));
  });
});
