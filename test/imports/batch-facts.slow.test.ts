/**
 * Facts for a batch (issue 54, point 5), over HTTP in-process: two real songs of the OpenScore Lieder
 * corpus (Hugo Wolf, words by Joseph von Eichendorff) imported, accepted and applied; then the
 * record-facts action records "first published no later than" for both, each with the scan its
 * score was transcribed from as evidence, and the lyricist's death year once (one report, on the
 * person's record), as correction reports accepted by the acting key; the desk shows the facts
 * and a fact's report the works it changes; the batch's apply lands them in one change, and the
 * works' rights, derived again, are decided and their held scores released.
 *
 * The first-publication bound is test data on a temporary repository; the lyricist's death year
 * is the one the cited page states.
 */
import { execFileSync } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openWritableApp, type WritableApp } from '../helpers/writable-app.ts';
import { expectEach } from '../helpers/expect-each.ts';
import { LIEDER, plannedImportItem } from '../helpers/corpus-content.ts';
import { stageImportItem } from '../helpers/import-items.ts';
import { LABELED_ADMIN_KEY } from '../review/harness.ts';
import { cookieOf, csrfOf } from '../desk/helpers.ts';
import type { SiteRebuilder } from '../../api/site/builds.ts';
import { loadCatalog } from '../../src/domain/catalog.ts';

const BATCH = 'openscore-lieder';
const SONGS: Array<[id: string, slug: string]> = [
  ['4928198', 'wolf-eichendorff-song-a'],
  ['4945807', 'wolf-eichendorff-song-b'],
];
const EICHENDORFF_PAGE = 'https://deutschelyrik.de/eichendorff.html';

/** Applies merge onto main; no site is built in the fast tier. */
class NoBuild implements SiteRebuilder {
  builds = 0;
  async rebuildAndSwap() {
    this.builds++;
    return { commit: 'not-built', buildDir: 'not-built', durationMs: 0 };
  }
  requestReconcile() {
    return { state: 'idle' } as never;
  }
  reconcileStatus() {
    return { state: 'idle' } as never;
  }
}

let w: WritableApp<NoBuild>;
const codes: Record<string, string> = {};
const auth = { authorization: `Bearer ${LABELED_ADMIN_KEY}` };
const git = (...args: string[]) => execFileSync('git', ['-C', w.config.contentRepo, ...args], { encoding: 'utf8' });
const get = (url: string) => w.app.inject({ url, headers: auth });

async function act(action: string, body: unknown) {
  const res = await w.app.inject({
    method: 'POST',
    url: `/api/v1/admin/batches/${BATCH}/${action}`,
    payload: body as object,
    headers: { ...auth, 'content-type': 'application/json', prefer: 'respond-async' },
  });
  if (res.statusCode !== 202 && res.statusCode !== 200) return { status: res.statusCode, data: res.json() };
  let data = res.json().data;
  for (let n = 0; data.state === 'running' && n < 2400; n++) {
    await new Promise((r) => setTimeout(r, 250));
    data = (await get(new URL(data.links.self).pathname)).json().data;
  }
  return { status: res.statusCode, data };
}

beforeAll(async () => {
  w = await openWritableApp<NoBuild>({
    prefix: 'pdma-batch-facts-',
    env: { ARCHIVE_ADMIN_KEYS: `alice=${LABELED_ADMIN_KEY}` },
    rebuilder: () => new NoBuild(),
  });
  for (const [id, slug] of SONGS) {
    const { put, res } = await stageImportItem(w.app, auth, plannedImportItem(LIEDER, `lc${id}.mxl`, slug));
    expect(put.statusCode, put.body).toBe(201);
    expect(res.statusCode, res.body).toBe(201);
    codes[id] = res.json().data.trackingCode;
  }
  expect((await act('accept', {})).data).toMatchObject({ state: 'completed', actedOn: 2, failed: 0 });
  expect((await act('apply', {})).data).toMatchObject({ state: 'completed', actedOn: 2, failed: 0 });
}, 300_000);
afterAll(() => w?.close());

describe('facts for a batch', () => {
  it('imported songs land held for rights review: no conclusion stored, the missing facts derived', () => {
    const { catalog, messages } = loadCatalog(w.config.contentRepo, { asOfYear: 2026 });
    expect(messages).toEqual([]);
    for (const [, slug] of SONGS) {
      const work = catalog.works.find((x) => x.content.slug === slug)!.content;
      expect(work.lyricist?.slug).toBe('eichendorff-joseph-von');
      expect(work.rights.composition.status).toBe('unknown');
      expect(work.rights.territories.US.missingFacts).toEqual(['the first publication year']);
      expect(work.rights.territories.EU.missingFacts).toEqual(["the lyricist's death year (Joseph von Eichendorff)"]);
      // Never 1970: the rights were checked when the editor accepted them.
      expect(work.rights.checkedAtUtc.startsWith('1970')).toBe(false);
      expect(work.sourceAssets.find((a) => a.kind === 'mxl')).toMatchObject({
        reviewState: 'rights-review-required',
        access: 'admin-only',
      });
    }
    const file = git('show', `main:works/${SONGS[0]![1]}/index.md`);
    expect(file).toContain('composer: wolf-hugo');
    expect(file).toContain('lyricist: eichendorff-joseph-von');
    expect(file).not.toContain('territories:');
    expect(file).toContain('heldForRights: true');
  });

  it('refuses a fact without evidence, or a person fact that names nobody, and starts nothing', async () => {
    const noEvidence = await act('record-facts', {
      fact: { field: 'firstPublished', value: 'no later than 1900', note: 'n' },
    });
    expect(noEvidence.status).toBe(400);
    expect(noEvidence.data.errors).toEqual([
      { pointer: '/fact/evidenceUrl', detail: expect.stringMatching(/a fact without evidence is refused/) },
    ]);
    const nobody = await act('record-facts', {
      fact: { field: 'died', value: '1857', person: 'no-such-person', evidenceUrl: EICHENDORFF_PAGE, note: 'n' },
    });
    expect(nobody.status).toBe(400);
    expect(nobody.data.errors[0].pointer).toBe('/fact/person');
    const badValue = await act('record-facts', {
      fact: { field: 'firstPublished', value: 'around 1900', evidenceFromItemScan: true, note: 'n' },
    });
    expect(badValue.status).toBe(400);
    expect(badValue.data.errors[0].pointer).toBe('/fact/value');
  });

  it('records the facts as accepted reports, shows their impact in the desk, and lands them with one apply', async () => {
    const published = await act('record-facts', {
      reviewer: 'Alice',
      fact: {
        field: 'firstPublished',
        value: 'no later than 1900',
        evidenceFromItemScan: true,
        note: 'Each score was transcribed from an edition printed by 1900 (test data).',
      },
    });
    expect(published.data).toMatchObject({ action: 'record-facts', state: 'completed', actedOn: 2, failed: 0 });
    const reports = published.data.items.map((i: { report: string }) => i.report);
    expectEach(reports, (r: string) => /^R-/.test(r));
    const died = await act('record-facts', {
      reviewer: 'Alice',
      fact: {
        field: 'died',
        person: 'eichendorff-joseph-von',
        value: '1857',
        evidenceUrl: EICHENDORFF_PAGE,
        note: 'Died 26 November 1857 in Neisse.',
      },
    });
    // A person's fact once: one report, on the first work that names them.
    expect(died.data).toMatchObject({ state: 'completed', total: 1, actedOn: 1 });
    const diedReport = died.data.items[0].report as string;

    const batch = (await get(`/api/v1/admin/batches/${BATCH}`)).json().data;
    expect(batch.facts).toHaveLength(3);
    expectEach(batch.facts, (f: { status: string }) => f.status === 'accepted');
    const report = (await get(`/api/v1/admin/correction-reports/${reports[0]}`)).json().data;
    expect(report.submission).toMatchObject({
      targetType: 'work',
      fieldName: 'firstPublished',
      proposedValue: 'no later than 1900',
      evidenceUrl: expect.stringMatching(/^https:\/\/imslp\.org\/wiki\/Special:ReverseLookup\/[0-9]+$/),
    });

    // The desk: the batch page lists the facts; the person fact's page the works it changes.
    const signIn = await w.app.inject({
      method: 'POST',
      url: '/admin/sign-in',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      payload: new URLSearchParams({ key: LABELED_ADMIN_KEY }).toString(),
    });
    const cookie = cookieOf(signIn.headers['set-cookie']);
    const page = await w.app.inject({ url: `/admin/batches/${BATCH}`, headers: { cookie } });
    expect(page.body).toContain('id="batch-facts"');
    expect(page.body).toContain(`data-fact="${diedReport}"`);
    expect(csrfOf(page.body)).toBeTruthy();
    const impact = await w.app.inject({ url: `/admin/correction-reports/${diedReport}`, headers: { cookie } });
    expect(impact.body).toContain('id="fact-impact"');
    expect(impact.body).toContain('people/eichendorff-joseph-von.json: /died');
    expect(impact.body).toMatch(/unknown<\/code>|unknown → <strong>1857<\/strong>/);
    expect(impact.body).toMatch(/data-work="wolf-eichendorff-song-a" data-changes="yes"/);

    // One apply lands every recorded fact.
    const applied = await act('apply', {});
    expect(applied.data).toMatchObject({ state: 'completed', actedOn: 3, failed: 0 });
    expect(git('show', '--stat', '--format=%s', 'main').match(/people\/eichendorff-joseph-von\.json/)).toBeTruthy();
    const person = JSON.parse(git('show', 'main:people/eichendorff-joseph-von.json'));
    expect(person.died).toBe('1857');
    expect(person.evidence.at(-1)).toMatchObject({
      url: EICHENDORFF_PAGE,
      facts: ['died'],
      acceptedBy: 'alice',
      via: diedReport,
    });

    // Derived again: the facts decide, the scores are released with their technical state.
    const { catalog } = loadCatalog(w.config.contentRepo, { asOfYear: 2026 });
    for (const [, slug] of SONGS) {
      const work = catalog.works.find((x) => x.content.slug === slug)!.content;
      expect([
        work.rights.territories.US.status,
        work.rights.territories.EU.status,
        work.rights.territories.CA.status,
      ]).toEqual(['public-domain', 'public-domain', 'public-domain']);
      expect(work.rights.composition.status).toBe('public-domain');
      expect(work.rights.decidedBy?.map((f) => f.fact)).toEqual([
        'Hugo Wolf (composer) died in 1903',
        'Joseph von Eichendorff (lyricist) died in 1857',
        'first published no later than 1900',
      ]);
      expect(work.rights.decidedBy?.[1]).toMatchObject({ acceptedBy: 'alice', evidenceUrl: EICHENDORFF_PAGE });
      const score = work.sourceAssets.find((a) => a.kind === 'mxl')!;
      expect(score.access).toBe('public');
      expect(score.reviewState).not.toBe('rights-review-required');
    }
  });
});
