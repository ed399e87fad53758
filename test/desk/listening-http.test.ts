/**
 * Listening verdicts over HTTP (docs/audio.md, "Listening approval"): the admin API and the desk's
 * listening page record a verdict as a commit to the content repository, naming the audio heard
 * and the listener's key label; nothing is recorded for a key without an operator-given label,
 * a verdict that names no audio or other audio than the served master, or an asset that is not a
 * rendered score. The served build here is the fast tier's catalog with one score's rendering
 * added to its record (the records' own function, src/lib/site/audio-record.ts); the rebuild
 * after a verdict is held by the gated rebuilder (the real rebuild and the record it shows are
 * test/desk/listening-acceptance.slow.test.ts). The batch page's players: batchListenCell.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeCatalogFixture } from '../setup/catalog-fixture.ts';
import { openWritableApp, type WritableApp } from '../helpers/writable-app.ts';
import { GatedRebuilder } from '../helpers/gated-rebuilder.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { hex, renderedEntry } from '../helpers/rendered-entry.ts';
import { git } from '../../api/site/content-repo.ts';
import { renderedAudioRecord } from '../../src/lib/site/audio-record.ts';
import { parseWorkFile } from '../../src/domain/work-file.ts';
import { batchListenCell, batchListenRows, RecentVerdicts } from '../../api/desk/listening.ts';
import type { AppContext } from '../../api/context.ts';
import type { BatchItemView } from '../../src/schemas/imports.ts';
import { LABELED_ADMIN_KEY, UNLABELED_ADMIN_KEY } from '../review/harness.ts';
import { cookieOf, csrfOf } from './helpers.ts';

const BASE = 'https://listen.example.test';
const SLUG = 'satie-gymnopedie-1';
const SCORE = 1; // the source score (MusicXML)
const MASTER = hex('a'); // master.flac of the rendering
const form = { 'content-type': 'application/x-www-form-urlencoded' };

let root: string;
let w: WritableApp<GatedRebuilder>;
let cookie: string;
let csrf: string;

beforeAll(async () => {
  root = mkdtempSync(path.join(os.tmpdir(), 'pdma-listening-'));
  const build = path.join(root, 'build');
  await writeCatalogFixture(build, path.join(PROJECT_ROOT, 'content'), BASE);
  // The source score's rendered audio, as a build with audio publishes it.
  const file = path.join(build, 'client', 'api', 'v1', 'works', SLUG, 'index.json');
  const doc = JSON.parse(readFileSync(file, 'utf8'));
  doc.data.sourceAssets[0].renderedAudio = renderedAudioRecord(renderedEntry(95), BASE, SLUG, SCORE, null);
  writeFileSync(file, JSON.stringify(doc));
  w = await openWritableApp({
    prefix: 'pdma-listening-app-',
    buildDir: build,
    env: { ARCHIVE_ADMIN_KEYS: `alice=${LABELED_ADMIN_KEY},${UNLABELED_ADMIN_KEY}` },
    rebuilder: (real) => new GatedRebuilder(real),
  });
  const res = await w.app.inject({
    method: 'POST',
    url: '/admin/sign-in',
    headers: form,
    payload: new URLSearchParams({ key: LABELED_ADMIN_KEY }).toString(),
  });
  cookie = cookieOf(res.headers['set-cookie']);
  csrf = csrfOf((await w.app.inject({ url: '/admin/queue', headers: { cookie } })).body);
});
afterAll(async () => {
  // Rebuilds the verdicts asked for fail here rather than build (this tier builds nothing).
  w.rebuilder.fail = true;
  w.rebuilder.open();
  await w.close();
  rmSync(root, { recursive: true, force: true });
});

const api = (assetId: number, body: unknown, key: string | null = LABELED_ADMIN_KEY) =>
  w.app.inject({
    method: 'POST',
    url: `/api/v1/admin/works/${SLUG}/assets/${assetId}/listening`,
    payload: body as object,
    headers: {
      'content-type': 'application/json',
      prefer: 'respond-async',
      ...(key ? { authorization: `Bearer ${key}` } : {}),
    },
  });

/** The score asset's verdict as main's work file holds it. */
async function verdictOnMain(assetId: number): Promise<unknown> {
  const text = await git(w.config.contentRepo, ['show', `refs/heads/main:works/${SLUG}/index.md`]);
  const data = parseWorkFile(text).data as {
    sourceAssets: { id: number; listening?: unknown }[];
    arrangements: { assets: { id: number; listening?: unknown }[] }[];
  };
  return [...data.sourceAssets, ...data.arrangements.flatMap((a) => a.assets)].find((a) => a.id === assetId)?.listening;
}

describe('listening verdicts over the admin API', () => {
  it('refuses, recording nothing: no operator label, no or other audio named, not a rendered score', async () => {
    const head = await git(w.config.contentRepo, ['rev-parse', 'refs/heads/main']);
    const unlabeled = await api(SCORE, { verdict: 'approved', audioSha256: MASTER }, UNLABELED_ADMIN_KEY);
    expect(unlabeled.statusCode).toBe(403);
    expect(unlabeled.json().detail).toMatch(
      /accountable person: the key "key-[0-9a-f]{6}" has no operator-given label/,
    );

    const unnamed = await api(SCORE, { verdict: 'approved' });
    expect(unnamed.statusCode).toBe(400);
    expect(unnamed.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(JSON.stringify(unnamed.json().errors)).toContain('audioSha256');

    const other = await api(SCORE, { verdict: 'approved', audioSha256: hex('b') }); // the MP3's digest
    expect(other.statusCode).toBe(409);
    expect(other.json()).toMatchObject({ servedAudioSha256: MASTER });
    expect(other.json().detail).toContain('a verdict names the audio heard, and this is not it');

    const recording = await api(11, { verdict: 'approved', audioSha256: MASTER });
    expect(recording.statusCode).toBe(409);
    expect(recording.json().detail).toContain('asset 11 is a mp3 file, not a score');
    const unrendered = await api(12, { verdict: 'approved', audioSha256: MASTER });
    expect(unrendered.statusCode).toBe(409);
    expect(unrendered.json().detail).toContain('has no rendered audio to hear');
    expect((await api(999, { verdict: 'approved', audioSha256: MASTER })).statusCode).toBe(404);
    expect((await api(SCORE, { verdict: 'approved', audioSha256: MASTER }, null)).statusCode).toBe(401);

    expect(await git(w.config.contentRepo, ['rev-parse', 'refs/heads/main'])).toBe(head);
    expect(await verdictOnMain(SCORE)).toBeUndefined();
  });

  it('records an approval as a commit on main: the verdict, the master heard, the listener, the time', async () => {
    const res = await api(SCORE, { verdict: 'approved', audioSha256: MASTER.toUpperCase() });
    expect(res.statusCode, res.body).toBe(202);
    const data = res.json().data;
    expect(data).toMatchObject({
      workSlug: SLUG,
      assetId: SCORE,
      state: 'recorded',
      listening: { verdict: 'approved', audioSha256: MASTER, listener: 'alice' },
      links: { provenance: `${BASE}/works/${SLUG}/audio/${SCORE}/` },
    });
    expect(data.listening.atUtc).toMatch(/Z$/);
    expect(await verdictOnMain(SCORE)).toEqual(data.listening);
    const commit = await git(w.config.contentRepo, ['log', '-1', '--format=%an%n%B', 'refs/heads/main']);
    expect(commit).toContain('alice');
    expect(commit).toContain(`Listening: approved the rendered audio of ${SLUG} asset ${SCORE}`);
    expect(commit).toContain(`Heard: master.flac sha256 ${MASTER}`);
    expect(data.commit).toBe(await git(w.config.contentRepo, ['rev-parse', 'refs/heads/main']));
    expect(w.rebuilder.calls).toBeGreaterThan(0);
  });
});

describe('listening on the desk', () => {
  it('a work page lists each rendered score with a player, buttons closed until it has played, the digest in the form', async () => {
    const page = await w.app.inject({ url: `/admin/works/${SLUG}/listening`, headers: { cookie } });
    expect(page.statusCode).toBe(200);
    const body = page.body;
    expect(body).toContain(`id="listen-${SLUG}-${SCORE}"`);
    expect(body).toContain(`data-listen-player src="/works/${SLUG}/audio/${SCORE}/master.flac"`);
    expect(body).toMatch(/data-listen-approve disabled>Approve</);
    expect(body).toMatch(/data-listen-decline disabled>Decline</);
    expect(body).toContain(`name="audioSha256" value="${MASTER}"`);
    expect(body).toContain('data-listen-seconds="5"');
    expect(body).toContain('<kbd>A</kbd> approve');
    // Only scores with rendered audio are rows (the arrangement score 12 has none in this build).
    expect(body).not.toContain(`id="listen-${SLUG}-12"`);
    expect((await w.app.inject({ url: `/admin/works/${SLUG}/listening` })).statusCode).toBe(303);
  });

  it('records a verdict from the form and comes back at the next row; a forged or digest-less form records nothing', async () => {
    const post = (fields: Record<string, string>) =>
      w.app.inject({
        method: 'POST',
        url: '/admin/listening',
        headers: { ...form, cookie },
        payload: new URLSearchParams(fields).toString(),
      });
    const fields = {
      _csrf: csrf,
      slug: SLUG,
      assetId: String(SCORE),
      verdict: 'declined',
      next: `/admin/works/${SLUG}/listening`,
    };
    expect((await post({ ...fields, _csrf: 'forged' })).statusCode).toBe(403);
    const unnamed = await post(fields);
    expect(unnamed.statusCode).toBe(400);
    expect(unnamed.body).toContain('does not name the audio heard');
    const stale = await post({ ...fields, audioSha256: hex('9') });
    expect(stale.statusCode).toBe(409);
    expect(await verdictOnMain(SCORE)).toMatchObject({ verdict: 'approved' }); // the API's, unchanged

    const ok = await post({ ...fields, audioSha256: MASTER });
    expect(ok.statusCode, ok.body).toBe(303);
    expect(ok.headers.location).toBe(
      `/admin/works/${SLUG}/listening?heard=Declined%3A+${SLUG}+asset+${SCORE}.#after-listen-${SLUG}-${SCORE}`,
    );
    expect(await verdictOnMain(SCORE)).toMatchObject({ verdict: 'declined', listener: 'alice', audioSha256: MASTER });
    // Until the rebuild shows it, the row says it is recorded.
    const page = await w.app.inject({ url: ok.headers.location as string, headers: { cookie } });
    expect(page.body).toContain('data-listen-state="recorded-declined"');
    expect(page.body).toContain(`Declined: ${SLUG} asset ${SCORE}.`);
  });

  it("gives each applied row of a batch page its work's players", async () => {
    const item = (code: string, status: string, workSlug: string | null): BatchItemView =>
      ({ itemKey: code, trackingCode: code, status, workSlug, duplicateOf: null }) as BatchItemView;
    const ctx = { handle: w.handle, intake: { getContribution: async () => null } } as unknown as AppContext;
    const items = [
      item('C-1', 'applied', SLUG),
      item('C-2', 'accepted', SLUG),
      item('C-3', 'applied', 'bach-air-orchestral-suite-3'),
    ];
    const rows = await batchListenRows(ctx, items);
    expect([...rows.keys()]).toEqual(['C-1']);
    const cell = batchListenCell(items[0]!, rows, BASE, new RecentVerdicts()).html;
    expect(cell).toContain(`data-listen-player src="/works/${SLUG}/audio/${SCORE}/master.flac"`);
    expect(cell).toContain('data-listen-approve disabled');
    expect(batchListenCell(items[1]!, rows, BASE, new RecentVerdicts()).html).toBe('<td>—</td>');
    expect(batchListenCell(items[2]!, rows, BASE, new RecentVerdicts()).html).toContain('no rendered audio');
  });
});
