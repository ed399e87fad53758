/**
 * Curator publication end to end: a library key is refused (403), an ineligible package is
 * refused with every failed condition (422), an eligible one becomes a new arrangement in the
 * public work record through a content-repository commit naming the curator and the track, with
 * its files served from the blob store (no re-upload), and the package turns `public`.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createApp } from '../../api/app.ts';
import { ensureBuild } from '../../api/site/builds.ts';
import { loadConfig } from '../../api/config.ts';
import { ensureContentRepo, git } from '../../api/site/content-repo.ts';
import { SiteHandle } from '../../api/site/site-handle.ts';
import { RecordStore } from '../../api/storage/record-store.ts';
import type { StoredTrack } from '../../src/domain/library/model.ts';
import { PROJECT_ROOT, testAppOver, type TestApp } from '../helpers/app.ts';
import { CUR, KEY_ENV, LIB, fileInput, importAndCommit, importInput, sha256 } from './library-helpers.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-publish-'));
const BASE = 'https://publish.example.test';
const config = loadConfig({ ARCHIVE_DATA_DIR: root, PUBLIC_BASE_URL: BASE, ...KEY_ENV }, PROJECT_ROOT);
let app: FastifyInstance;
let t: TestApp;

beforeAll(async () => {
  const repo = await ensureContentRepo(config.contentRepo, path.join(PROJECT_ROOT, 'test', 'fixtures', 'mini'));
  const handle = await SiteHandle.open(await ensureBuild(config, repo.head));
  app = await createApp({ config, handle });
  t = testAppOver(app, handle, BASE);
});
afterAll(async () => {
  await app?.close();
  rmSync(root, { recursive: true, force: true });
});

const publish = (key: string, headers: Record<string, string>) =>
  t.request({ method: 'POST', url: `/api/v1/library/tracks/${key}/publish`, headers });

describe('publication', () => {
  it('needs a curator key', async () => {
    const b = randomBytes(100);
    await importAndCommit(t, importInput([fileInput(b)], {}, { stableKey: 'needs-curator' }), [b]);
    const res = await publish('needs-curator', LIB);
    expect(res.statusCode).toBe(403);
    expect(res.json().type).toBe(`${BASE}/problems/forbidden`);
  });

  it('refuses an ineligible package with every failed condition', async () => {
    const manifest = Buffer.from('{"take":1}');
    await importAndCommit(
      t,
      importInput(
        [
          fileInput(manifest, {
            kind: 'manifest',
            fileName: 'take.json',
            originalRelativePath: 'take.json',
            contentType: 'application/json',
          }),
        ],
        {},
        {
          stableKey: 'ineligible',
          rightsStatus: 'unknown',
          reviewStatus: 'rights-review-required',
          rightsEvidence: { evidenceUrls: ['http://insecure.example.org/page'] },
          quality: null,
          durationSeconds: null,
          intendedUses: ['podcast'],
        },
      ),
      [manifest],
    );
    const head = await git(config.contentRepo, ['rev-parse', 'HEAD']);
    const res = await publish('ineligible', CUR);
    expect(res.statusCode).toBe(422);
    const problem = res.json();
    expect(problem.type).toBe(`${BASE}/problems/publication-refused`);
    expect(new Set(problem.reasons.map((r: { condition: string }) => r.condition))).toEqual(
      new Set([
        'rights-review',
        'public-domain-arrangement',
        'rights-evidence',
        'technical-pass',
        'publishable-file',
        'arrangement-fields',
      ]),
    );
    expect(await git(config.contentRepo, ['rev-parse', 'HEAD'])).toBe(head);
    const pkg = (await t.request({ url: '/api/v1/library/tracks/ineligible', headers: CUR })).json().data;
    expect(pkg.visibility).toBe('private');
  });

  it('refuses a work whose composition is not public domain, and an unknown work', async () => {
    const b = randomBytes(50);
    await importAndCommit(
      t,
      importInput(
        [fileInput(b)],
        {},
        {
          stableKey: 'unknown-work',
          rightsEvidence: { workSlug: 'no-such-work', evidenceUrls: ['https://example.org/e'] },
        },
      ),
      [b],
    );
    const res = await publish('unknown-work', CUR);
    expect(res.statusCode).toBe(422);
    expect(res.json().reasons).toEqual([
      expect.objectContaining({ condition: 'rights-evidence', detail: expect.stringContaining('no-such-work') }),
    ]);
  });

  it('publishes an eligible package as an arrangement of the public work record', async () => {
    const wav = randomBytes(20_000);
    const xml = Buffer.from('<?xml version="1.0"?><score-partwise version="4.0"/>');
    const manifest = Buffer.from('{"delivery":"bed"}');
    const { imp } = await importAndCommit(
      t,
      importInput(
        [
          fileInput(wav),
          fileInput(xml, {
            kind: 'musicxml',
            fileName: 'bed.musicxml',
            originalRelativePath: 'score/bed.musicxml',
            contentType: 'application/vnd.recordare.musicxml+xml',
          }),
          fileInput(manifest, {
            kind: 'manifest',
            fileName: 'manifest.json',
            originalRelativePath: 'manifest.json',
            contentType: 'application/json',
          }),
        ],
        {},
        { stableKey: 'minuet-bed-public' },
      ),
      [wav, xml, manifest],
    );
    const before = await git(config.contentRepo, ['rev-parse', 'HEAD']);
    const res = await publish('minuet-bed-public', CUR);
    expect(res.statusCode, res.body).toBe(200);
    const result = res.json().data;
    expect(result).toMatchObject({
      stableKey: 'minuet-bed-public',
      visibility: 'public',
      publication: { publishedBy: 'ada', workSlug: 'bach-minuet-in-g', arrangementId: 2, assetIds: [3, 4] },
    });
    expect(result.publication.links.work).toBe(`${BASE}/api/v1/works/bach-minuet-in-g`);

    // The commit names the curator and the track, and only adds lines to the work file.
    const head = await git(config.contentRepo, ['rev-parse', 'HEAD']);
    expect(result.publication.commit).toBe(head);
    expect(await git(config.contentRepo, ['log', '-1', '--format=%an|%s'])).toBe(
      'ada|Publish library track minuet-bed-public as arrangement 2 of bach-minuet-in-g',
    );
    expect(await git(config.contentRepo, ['log', '-1', '--format=%b'])).toContain(`Import: ${imp.id}`);
    expect(await git(config.contentRepo, ['diff', '--numstat', before, head])).toMatch(
      /^\d+\t0\tworks\/bach-minuet-in-g\/index\.md$/,
    );

    // The public record shows the arrangement; its files come from the blob store, review state not raised.
    const work = (await t.request({ url: '/api/v1/works/bach-minuet-in-g' })).json().data;
    const arrangement = work.arrangements.find((a: { id: number }) => a.id === 2);
    expect(arrangement).toMatchObject({
      title: 'Minuet bed',
      reviewState: 'technical-pass',
      intendedRole: 'music-bed',
      durationSeconds: 90,
      instrumentation: 'Piano',
    });
    expect(
      arrangement.assets.map((a: { kind: string; sha256: string; reviewState: string; access: string }) => [
        a.kind,
        a.sha256,
        a.reviewState,
        a.access,
      ]),
    ).toEqual([
      ['wav', sha256(wav), 'technical-pass', 'public'],
      ['musicxml', sha256(xml), 'technical-pass', 'public'],
    ]);
    expect(arrangement.assets[0].links.download).toBe(`${BASE}/blobs/${sha256(wav)}`);
    expect(arrangement.assets[0].reviewStatus).toBe('Technical pass (not listening-approved)');
    const blob = await t.request({ url: `/blobs/${sha256(wav)}` });
    expect(blob.statusCode).toBe(200);
    expect(blob.rawPayload.equals(wav)).toBe(true);
    expect((await t.request({ url: `/blobs/${sha256(manifest)}` })).statusCode).toBe(404);

    const pkg = (await t.request({ url: '/api/v1/library/tracks/minuet-bed-public', headers: LIB })).json().data;
    expect(pkg.visibility).toBe('public');
    expect(pkg.publication.commit).toBe(head);

    // Publishing again is answered with the same publication and commits nothing.
    const again = await publish('minuet-bed-public', CUR);
    expect(again.statusCode).toBe(200);
    expect(again.json().data.publication.commit).toBe(head);
    expect(await git(config.contentRepo, ['rev-parse', 'HEAD'])).toBe(head);
  });

  it('settles a publication a crash interrupted: public if its commit landed, else dropped', async () => {
    const tracks = new RecordStore<StoredTrack>(path.join(root, 'state', 'library', 'tracks'));
    for (const key of ['landed', 'lost']) {
      const b = randomBytes(20);
      await importAndCommit(t, importInput([fileInput(b)], {}, { stableKey: key }), [b]);
    }
    const head = await git(config.contentRepo, ['rev-parse', 'HEAD']);
    const pending = (commit: string) => ({
      publishedAtUtc: '2026-11-22T00:00:00.000Z',
      publishedBy: 'ada',
      workSlug: 'bach-minuet-in-g',
      arrangementId: 9,
      assetIds: [9],
      commit,
    });
    await tracks.update('landed', (r) => ({ ...r, pendingPublication: pending(head) }));
    await tracks.update('lost', (r) => ({ ...r, pendingPublication: pending('0'.repeat(40)) }));
    const landed = (await t.request({ url: '/api/v1/library/tracks/landed', headers: LIB })).json().data;
    expect(landed).toMatchObject({ visibility: 'public', publication: { commit: head } });
    const lost = (await t.request({ url: '/api/v1/library/tracks/lost', headers: LIB })).json().data;
    expect(lost).toMatchObject({ visibility: 'private', publication: null });
    expect((await tracks.get('lost'))!.pendingPublication).toBeNull();
  });
});
