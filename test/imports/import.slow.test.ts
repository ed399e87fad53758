/**
 * Bulk import through review (docs/imports.md), on a subset of the real corpora in
 * ../shared/corpora: `npm run import` as a real process against the archive on loopback, the
 * batch in the admin API, accept / decline / apply, the applied song's record and search.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runScript } from '../helpers/process.ts';
import { launchBrowser, openPage, SKIP_BROWSER_TESTS } from '../helpers/browser.ts';
import { PROJECT_ROOT, listenOnLoopback } from '../helpers/app.ts';
import { LABELED_ADMIN_KEY, openReviewHarness, type ReviewHarness } from '../review/harness.ts';
import { expectEach } from '../helpers/expect-each.ts';

const LIEDER = path.join(PROJECT_ROOT, '..', 'shared', 'corpora', 'openscore-lieder');
const QUARTETS = path.join(PROJECT_ROOT, '..', 'shared', 'corpora', 'openscore-string-quartets');
const ERLKOENIG = '6050301'; // Corona Schröter, "Der Erlkönig", words by Goethe
const AVE_MARIA = '6389103'; // Schubert, "Ellens Gesang III, D.839": the sample catalog has D. 839
const ABBOTT = '6583477'; // Jane Bingham Abbott, died 1934
const UNLISTED = '6994174'; // a file scores.tsv does not list
const SONGS = [
  ERLKOENIG,
  '5016466',
  AVE_MARIA,
  '5701612',
  ABBOTT,
  UNLISTED,
  '5001925',
  '5100073',
  '5092612',
  '6019054',
  '6053984',
  '6158825',
  '5001870',
  '5001937',
  '6054943',
  '6019300',
  '6159296',
  '6053913',
  '6045936',
  '5101826',
];
const LATER = ['6051638', '6017264', '5046362', '6051719', '5002015', '6050301'];
/** Mozart's "Haydn" quartets, all "Op. 10": K. 464 as four movement files (7070781 is one of them), the rest one file each. */
const HAYDN_QUARTETS = ['7070781', '7103818', '7294793', '7302710', '7353137', '7471661'];

interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

async function runImport(server: string, args: string[], onStart?: (kill: () => void) => void): Promise<Run> {
  const run = await runScript(
    'import.ts',
    [...args, '--server', server, '--json'],
    { ARCHIVE_ADMIN_KEY: LABELED_ADMIN_KEY },
    { onStart },
  );
  return { code: run.status, stdout: run.stdout, stderr: run.stderr };
}

const git = (repo: string, ...args: string[]) =>
  execFileSync('git', ['-C', repo, ...args], { encoding: 'utf8' }).trim();

const summaryOf = (run: Run) => JSON.parse(run.stdout.trim().split('\n').at(-1)!) as Record<string, any>;

describe('bulk import of a corpus through review', () => {
  let h: ReviewHarness;
  let server: string;

  beforeAll(async () => {
    h = await openReviewHarness({});
    server = await listenOnLoopback(h.app);
  }, 120_000);
  afterAll(async () => h?.close());

  const batch = async (query = '') => {
    const res = await h.get(`/api/v1/admin/batches/openscore-lieder${query}`);
    expect(res.statusCode, res.body).toBe(200);
    return res.json().data as { total: number; items: Array<Record<string, any>> };
  };

  it('submits every song of the subset into one batch, flags the duplicate and enters review (nothing applied)', async () => {
    const run = await runImport(server, [LIEDER, '--only', SONGS.join(',')]);
    expect(run.code, run.stderr + run.stdout).toBe(0);
    const s = summaryOf(run);
    expect(s.submitted).toBe(SONGS.length);
    expect(s.alreadySubmitted).toBe(0);
    expect(s.skipped).toEqual([]);
    const b = await batch();
    expect(b.total).toBe(SONGS.length);
    expect(new Set(b.items.map((i) => i.trackingCode)).size).toBe(SONGS.length);
    expectEach(b.items, (i) => i.status === 'pending');
    // The file scores.tsv does not list is found by its file name and folder.
    const unlisted = b.items.find((i) => i.itemKey === `lc${UNLISTED}`)!;
    expect(unlisted.composer).toBe('Erik Satie');
    // Same composer and catalog number as the sample catalog's Ave Maria (D. 839).
    const dup = await batch('?duplicates=true');
    expect(dup.items.map((i) => [i.itemKey, i.duplicateOf])).toContainEqual([
      `lc${AVE_MARIA}`,
      'schubert-ave-maria-d-839',
    ]);
    const listed = await h.get('/api/v1/admin/batches');
    expect(listed.json().data.items[0]).toMatchObject({ batchId: 'openscore-lieder', items: SONGS.length });
  }, 300_000);

  it('re-importing submits nothing new', async () => {
    const run = await runImport(server, [LIEDER, '--only', SONGS.join(',')]);
    expect(run.code, run.stderr + run.stdout).toBe(0);
    const s = summaryOf(run);
    expect(s.submitted).toBe(0);
    expect(s.alreadySubmitted).toBe(SONGS.length);
    expect((await batch()).total).toBe(SONGS.length);
  }, 300_000);

  it('a run killed with SIGKILL mid-import completes on the next run with no duplicate', async () => {
    const fresh = LATER.filter((id) => !SONGS.includes(id));
    let killedEarly = false;
    await runImport(server, [LIEDER, '--only', LATER.join(',')], (kill) => {
      const poll = setInterval(() => {
        void batch().then((b) => {
          if (b.total >= SONGS.length + 1) {
            clearInterval(poll);
            killedEarly = b.total < SONGS.length + fresh.length;
            kill();
          }
        });
      }, 50);
    });
    expect(killedEarly).toBe(true);
    const run = await runImport(server, [LIEDER, '--only', LATER.join(',')]);
    expect(run.code, run.stderr + run.stdout).toBe(0);
    const b = await batch();
    expect(b.total).toBe(SONGS.length + fresh.length);
    expect(new Set(b.items.map((i) => i.trackingCode)).size).toBe(b.total);
    // Exactly one stored contribution per item: nothing was submitted twice.
    const stored = readdirSync(path.join(h.contentRepo, '..', 'state', 'contributions'), { recursive: true }).filter(
      (f) => String(f).endsWith('.json'),
    );
    expect(stored.length).toBe(b.total);
  }, 300_000);

  it('a song whose composer died in 1934 is skipped with that reason when that year is not yet free', async () => {
    const run = await runImport(server, [LIEDER, '--only', ABBOTT, '--as-of', '2004', '--dry-run']);
    expect(run.code, run.stderr).toBe(0);
    expect(summaryOf(run).skipped).toEqual([
      expect.objectContaining({
        itemKey: `lc${ABBOTT}`,
        reason: 'composer died in 1934: not public domain in the EU until 2005',
      }),
    ]);
  }, 120_000);

  it('imports K. 464 (four movement files) as one work with four movements, and K. 387/421/428/458/465 as five works, none a duplicate; again, nothing new', async () => {
    const run = await runImport(server, [QUARTETS, '--only', HAYDN_QUARTETS.join(',')]);
    expect(run.code, run.stderr + run.stdout).toBe(0);
    const s = summaryOf(run);
    expect(s).toMatchObject({ submitted: 6, duplicates: 0, considered: 9 });
    const res = await h.get('/api/v1/admin/batches/openscore-string-quartets');
    const items = res.json().data.items as Array<Record<string, any>>;
    expect(items.map((i) => i.itemKey).sort()).toEqual(
      ['sq7103818', 'sq7294793', 'sq7302710', 'sq7353137', 'sq7471661', 'sqset5108515'].sort(),
    );
    expectEach(items, (i) => i.composer === 'Wolfgang Amadeus Mozart' && i.duplicateOf === null);
    const k464 = items.find((i) => i.itemKey === 'sqset5108515')!;
    const body = (await h.get(`/api/v1/admin/contributions/${k464.trackingCode}`)).json().data.submission;
    expect(body.work.movements.map((m: { title: string }) => m.title)).toEqual([
      'Allegro',
      'Menuetto and Trio',
      'Andante',
      'Allegro',
    ]);
    expect(body.assets.filter((a: { kind: string }) => a.kind === 'mxl')).toHaveLength(4);
    const again = summaryOf(await runImport(server, [QUARTETS, '--only', HAYDN_QUARTETS.join(',')]));
    expect(again).toMatchObject({ submitted: 0, alreadySubmitted: 6 });
  }, 300_000);

  it.skipIf(SKIP_BROWSER_TESTS)(
    'the batch in the desk (Chromium): filtered, a work inspected, one declined, one accepted',
    async () => {
      const all = (await batch()).items;
      const erl = all.find((i) => i.itemKey === `lc${ERLKOENIG}`)!;
      const ave = all.find((i) => i.itemKey === `lc${AVE_MARIA}`)!;
      const browser = await launchBrowser();
      try {
        const { page } = await openPage(browser);
        page.setDefaultTimeout(120_000);
        await page.goto(`${server}/admin/batches`);
        await page.fill('#key', LABELED_ADMIN_KEY);
        await Promise.all([page.waitForURL(/\/admin\/batches$/), page.click('button:has-text("Sign in")')]);
        await Promise.all([
          page.waitForURL(/\/admin\/batches\/openscore-lieder$/),
          page.click('a:has-text("OpenScore Lieder")'),
        ]);
        expect(await page.locator('#batch-items tbody tr').count()).toBe(all.length);
        // Filter: the probable duplicates only.
        await page.check('input[name="duplicates"]');
        await Promise.all([page.waitForURL(/duplicates=true/), page.click('button:has-text("Apply filters")')]);
        const dupRow = page.locator(`tr[data-item="lc${AVE_MARIA}"]`);
        expect(await dupRow.locator('[data-duplicate-of]').getAttribute('data-duplicate-of')).toBe(
          'schubert-ave-maria-d-839',
        );
        await page.check(`#pick-${ave.trackingCode}`);
        await page.fill('#b-note', 'Already in the catalog as D. 839.');
        // The action runs in the background: the batch page shows it until it has finished
        // (the form waits a few seconds first, so a quick one lands with its count at once).
        await page.click('button[value="decline"]');
        await page.waitForSelector('#batch-action[data-action="decline"][data-state="completed"]');
        expect(await page.locator('#batch-action-text').textContent()).toContain('1 of 1 done');
        // Words: the song, by its transliterated title.
        await page.goto(`${server}/admin/batches/openscore-lieder?q=erlkoenig`);
        expect(await page.locator('#batch-items tbody tr').count()).toBe(1);
        await page.check(`#pick-${erl.trackingCode}`);
        await page.click('button[value="accept"]');
        await page.waitForSelector('#batch-action[data-action="accept"][data-state="completed"]');
        expect(await page.locator('#batch-action-text').textContent()).toContain('1 of 1 done');
        // Inspect the accepted work: its review page shows the diff (the new work file) and the facts.
        await page.goto(`${server}/admin/contributions/${erl.trackingCode}`);
        const text = await page.locator('main').textContent();
        expect(text).toContain('Der Erlkönig');
        expect(text).toContain('Johann Wolfgang');
        expect(text).toMatch(/works\/[a-z0-9-]+\/index\.md/);
      } finally {
        await browser.close();
      }
      const after = await batch();
      expect(after.items.find((i) => i.itemKey === `lc${AVE_MARIA}`)!.status).toBe('declined');
      expect(after.items.find((i) => i.itemKey === `lc${ERLKOENIG}`)!.status).toBe('accepted');
    },
    600_000,
  );

  it('accepts, declines one and applies: the song shows composer, lyricist, original title and rights with missing facts, and is found', async () => {
    const all = (await batch()).items;
    const erl = all.find((i) => i.itemKey === `lc${ERLKOENIG}`)!;
    const declined = all.find((i) => i.itemKey === `lc${AVE_MARIA}`)!;
    if (declined.status === 'pending') {
      const dec = await h.post('/api/v1/admin/batches/openscore-lieder/decline', {
        items: [declined.trackingCode],
        note: 'Already in the catalog (D. 839).',
      });
      expect(dec.statusCode, dec.body).toBe(200);
      expect(dec.json().data).toMatchObject({ actedOn: 1, actor: 'alice' });
    }
    // Accept the rest of the batch (every pending work) at once.
    const pending = (await batch()).items.filter((i) => i.status === 'pending');
    if (pending.length > 0) {
      // In the background: 202 at once, then the tracking resource polled to its end.
      const acc = await h.actOnBatch('openscore-lieder', 'accept', {});
      expect(acc.status, acc.body).toBe(202);
      expect(acc.data, acc.body).toMatchObject({
        state: 'completed',
        total: pending.length,
        actedOn: pending.length,
        failed: 0,
        actor: 'alice',
      });
    }
    const rest = (await batch()).items.filter((i) => i.status === 'accepted');
    expect(rest.length).toBe(SONGS.length + LATER.length - 1 - 1); // LATER repeats Erlkönig; Ave Maria declined
    // Apply the rest in one change: one commit on main, one rebuild.
    const root = path.join(h.contentRepo, '..');
    const mainBefore = git(h.contentRepo, 'rev-parse', 'main');
    const builds = () => (existsSync(path.join(root, 'builds')) ? readdirSync(path.join(root, 'builds')) : []);
    const buildsBefore = builds();
    const app = await h.actOnBatch('openscore-lieder', 'apply', {});
    expect(app.data, app.body).toMatchObject({ state: 'completed', actedOn: rest.length, failed: 0 });
    const after = await batch();
    expect(after.items.find((i) => i.itemKey === `lc${AVE_MARIA}`)!.status).toBe('declined');
    expect(after.items.find((i) => i.itemKey === `lc${ERLKOENIG}`)!.status).toBe('applied');
    expect(after.items.filter((i) => i.status === 'applied').length).toBe(rest.length);
    const landed = git(h.contentRepo, 'rev-list', '--first-parent', `${mainBefore}..main`).split('\n');
    expect(landed).toHaveLength(1);
    // One tree change: a commit with main before it as its only parent, naming every work's code.
    expect(git(h.contentRepo, 'rev-list', '--parents', '-n', '1', 'main').trim().split(' ')).toEqual([
      landed[0],
      mainBefore,
    ]);
    for (const i of rest)
      expect(git(h.contentRepo, 'log', '-1', '--format=%B', 'main')).toContain(`Tracking-Code: ${i.trackingCode}`);
    expect(git(h.contentRepo, 'log', '-1', '--format=%B', 'main')).toContain(
      `Apply ${rest.length} works of the review batch openscore-lieder`,
    );
    const newBuilds = builds().filter((b) => !buildsBefore.includes(b));
    expect(newBuilds.filter((b) => !b.startsWith('.'))).toHaveLength(1);
    for (const i of rest) {
      const review = (await h.get(`/api/v1/admin/contributions/${i.trackingCode}`)).json().data.review;
      expect(review.actions.at(-1).outcome).toContain(`one build for ${rest.length} applies`);
    }

    const item = await h.get(`/api/v1/admin/contributions/${erl.trackingCode}`);
    const history = item.json().data.history as Array<{ actor?: string; action?: string }>;
    expectEach(
      history.filter((x) => x.action),
      (x) => x.actor === 'alice',
    );

    const found = await h.get('/api/v1/works?query=erlkoenig');
    expect(found.statusCode, found.body).toBe(200);
    const slug = (found.json().data.items as Array<{ slug: string; composer: string }>).find(
      (w) => w.composer === 'Corona Schröter',
    )?.slug;
    expect(slug, found.body).toBeDefined();
    const byPoet = await h.get('/api/v1/works?query=goethe');
    expect((byPoet.json().data.items as Array<{ slug: string }>).map((w) => w.slug)).toContain(slug);
    const rec = (await h.get(`/api/v1/works/${slug}`)).json().data;
    expect(rec.composer).toMatchObject({ name: 'Corona Schröter', born: '1751', died: '1802' });
    expect(rec.lyricist.name).toMatch(/Goethe/);
    expect(rec.originalTitle).toBe('Der Erlkönig');
    expect(rec.rights.edition).toMatchObject({ status: 'public-domain' });
    expect(rec.rights.license).toBe('CC0-1.0');
    expect(rec.rights.attribution).toMatch(/OpenScore Lieder corpus \(CC0\).*musescore\.com.*imslp\.org/);
    expect(rec.rights.territories.US).toMatchObject({
      status: 'unknown',
      missingFacts: ['the first publication year'],
    });
    expect(rec.rights.territories.EU.missingFacts[0]).toMatch(/lyricist's death year/);
    expect(rec.rights.composition.status).toBe('unknown');
    const score = rec.sourceAssets.find((a: { kind: string }) => a.kind === 'mxl');
    expect(score).toMatchObject({ license: 'CC0-1.0' });
    expect(JSON.stringify(score)).toMatch(/musescore\.com\/openscore-lieder-corpus\/scores\/6050301/);
    const page = await h.get(`/works/${slug}/`);
    expect(page.body).toContain('data-lyricist');
    expect(page.body).toContain('Der Erlkönig');
    expect(page.body).toContain('data-missing-facts');
  }, 600_000);
});
