/**
 * A layered build's listing is an overlay over its plain base's listing files
 * (api/catalog/index-layers.ts, api/catalog/listing.ts): the server answers the works listing
 * and the search page from the base's files with the overlay laid over them. Over two layers
 * (a retitle that moves a work to the front, a removed work, a new work; then a second edit on
 * the first layer, whose overlay holds both), every listing answer — each filter, every page —
 * is byte for byte the one the full build of the same commit gives, and a compaction of the
 * layer writes the full build's listing files. The same holds for resolve, whose rows are laid
 * over the plain base's resolve.idx (src/domain/resolve/catalog-layer.ts): every answer is the
 * full build's but for the count of arrangements judged one by one (and the note giving it).
 */
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IncrementalBuilds, buildInfo } from '../helpers/build-folders.ts';
import { openApp } from '../helpers/app.ts';
import { compactBuild } from '../../build/compact.ts';

const BASE_URL = 'https://listing-overlay.example.test';
const builds = new IncrementalBuilds('pdma-listing-overlay-', BASE_URL);
afterAll(() => builds.dispose());
beforeAll(async () => {
  await builds.buildBase();
}, 120_000);

const ROLES = ['music-bed', 'music-lead', 'music-ambient', 'music-sleep-lead', 'intro', 'outro', 'short-form'];

/**
 * Resolve answers worth comparing: catalog-wide for every role under several requirements, and by
 * the slugs and title words of changed, added, removed and untouched works. Each answer's data
 * without `search.arrangementsJudged` and `search.note` (the scan's order over base and overlay).
 */
async function resolveAnswers(buildDir: string, named: string[]): Promise<Map<string, unknown>> {
  const t = await openApp(buildDir);
  try {
    const bodies: unknown[] = [];
    for (const role of ROLES) {
      const channel = { channelKey: 'overlay', intendedRole: role };
      bodies.push(
        { channel, requirements: { requiredFormats: ['mp3'] } },
        { channel: { ...channel, narrationPresent: true }, requirements: { requiredFormats: [], mood: 'calm gentle' } },
        {
          channel,
          requirements: { requiredFormats: ['musicxml'], style: 'romantic piano', targetDurationSeconds: 120 },
        },
        { channel, requirements: { requiredFormats: [], instrumentation: 'flute strings', requireMusicXml: true } },
      );
    }
    for (const name of named) {
      const channel = { channelKey: 'overlay', intendedRole: 'music-bed' };
      bodies.push(
        { channel, requirements: { requiredFormats: [] }, workSlug: name },
        { channel, requirements: { requiredFormats: ['mp3'] }, title: name.split('-').slice(1).join(' ') },
        { channel, requirements: { requiredFormats: [] }, composer: name.split('-')[0] },
      );
    }
    bodies.push({
      channel: { channelKey: 'zz', intendedRole: 'intro' },
      requirements: { requiredFormats: [] },
      title: 'zz revision',
    });
    const out = new Map<string, unknown>();
    for (const body of bodies) {
      const payload = JSON.stringify(body);
      const res = await t.request({
        method: 'POST',
        url: '/api/v1/music/resolve',
        payload,
        headers: { 'content-type': 'application/json' },
      });
      expect(res.statusCode, payload).toBe(200);
      const data = res.json().data;
      delete data.search.arrangementsJudged;
      delete data.search.note;
      out.set(payload, data);
    }
    return out;
  } finally {
    await t.close();
  }
}

/** Every listing answer worth comparing: each filter value the catalog has, each page of five. */
async function answers(buildDir: string): Promise<Map<string, string>> {
  const t = await openApp(buildDir);
  try {
    const all = (await t.request({ url: '/api/v1/works?pageSize=100' })).json().data.items as Array<{
      slug: string;
      composer: string;
      genre: string;
      instruments: string[];
      styles: string[];
    }>;
    const filters: string[] = ['', 'query=bach', 'query=a', 'query=zz%20revision', 'query=humoresque'];
    for (const w of all) {
      filters.push(`genre=${encodeURIComponent(w.genre)}`, `composer=${encodeURIComponent(w.composer)}`);
      for (const i of w.instruments) filters.push(`instrument=${encodeURIComponent(i)}`);
      for (const s of w.styles) filters.push(`style=${encodeURIComponent(s)}`);
    }
    const out = new Map<string, string>();
    for (const filter of new Set(filters)) {
      for (let page = 1; page <= 7; page++) {
        const url = `/api/v1/works?${filter}${filter ? '&' : ''}page=${page}&pageSize=5`;
        const res = await t.request({ url });
        expect(res.statusCode, url).toBe(200);
        out.set(url, `${res.headers.etag} ${res.body}`);
      }
      if (filter.startsWith('query=')) {
        const url = `/search/?${filter}`;
        out.set(url, (await t.request({ url })).body);
      }
    }
    return out;
  } finally {
    await t.close();
  }
}

describe('a listing overlay over the plain base', () => {
  let first: { incremental: string; full: string; differences: string[] };

  it('answers every listing as the full build of the same commit (retitle to the front, removal, new work)', async () => {
    const file = builds.work('satie-gymnopedie-1');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(/^title: .*$/m, 'title: Aaa, the first of all (zz revision)'),
    );
    // Removed: a work whose composer and genre have others (removing a composer builds in full,
    // removing a genre builds the resolve catalog from every record).
    rmSync(path.join(builds.repo, 'works', 'dvorak-humoresque-op-101-no-7'), { recursive: true });
    const added = path.join(builds.repo, 'works', 'faure-pavane-second-copy');
    cpSync(path.join(builds.repo, 'works', 'faure-pavane-op-50'), added, { recursive: true });
    const index = path.join(added, 'index.md');
    writeFileSync(
      index,
      readFileSync(index, 'utf8')
        .replace(/^slug: .*$/m, 'slug: faure-pavane-second-copy')
        .replace(/^title: .*$/m, 'title: Pavane, a zz revision'),
    );
    const commit = await builds.commitAll('Retitle, remove, add');
    first = await builds.buildBoth(commit, builds.baseDir, 'one');
    expect(buildInfo(first.incremental).catalogIndex).toMatchObject({ listing: 'overlay' });
    expect(existsSync(path.join(first.incremental, 'index', 'works.idx'))).toBe(false);
    expect(first.differences).toEqual([]);
    const [layered, full] = [await answers(first.incremental), await answers(first.full)];
    expect(layered.size).toBeGreaterThan(100);
    expect([...layered.keys()]).toEqual([...full.keys()]);
    for (const [url, body] of full) expect([url, layered.get(url)]).toEqual([url, body]);
    // The retitled work is first in the plain listing; the removed one is nowhere.
    const page = JSON.parse(layered.get('/api/v1/works?page=1&pageSize=5')!.split(' ').slice(1).join(' ')).data;
    expect(page.items[0].slug).not.toBe('dvorak-humoresque-op-101-no-7');
    expect(page.total).toBe(26);
    // Resolve over the base's resolve.idx with the layer's rows laid over it: the full build's answers.
    expect(buildInfo(first.incremental).catalogIndex).toMatchObject({ resolve: 'laid' });
    expect(existsSync(path.join(first.incremental, 'index', 'resolve.idx'))).toBe(false);
    const named = [
      'satie-gymnopedie-1',
      'dvorak-humoresque-op-101-no-7',
      'faure-pavane-second-copy',
      'faure-pavane-op-50',
    ];
    const [laid, whole] = [await resolveAnswers(first.incremental, named), await resolveAnswers(first.full, named)];
    expect(laid.size).toBeGreaterThan(35);
    for (const [body, data] of whole) expect([body, laid.get(body)]).toEqual([body, data]);
    // The requests reach the changed works: the retitled and the added one are candidates somewhere.
    const shown = new Set(
      [...laid.values()].flatMap((d) =>
        (d as { candidates: Array<{ workSlug: string }> }).candidates.map((c) => c.workSlug),
      ),
    );
    expect(shown).toContain('satie-gymnopedie-1');
    expect(shown).toContain('faure-pavane-second-copy');
    expect(shown).not.toContain('dvorak-humoresque-op-101-no-7');
  }, 300_000);

  it('a second layer over the same base holds both changes, and answers as the full build; its compaction writes the full listing files', async () => {
    const file = builds.work('bach-prelude-in-c-bwv-846');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^title: .*$/m, 'title: Prelude, a zz revision'));
    const commit = await builds.commitAll('A second retitle');
    const second = await builds.buildBoth(commit, first.incremental, 'two');
    expect(buildInfo(second.incremental).catalogIndex).toMatchObject({ listing: 'overlay' });
    const overlay = JSON.parse(readFileSync(path.join(second.incremental, 'index', 'works-overlay.json'), 'utf8'));
    expect(overlay.works.map((w: { slug: string }) => w.slug).sort()).toEqual([
      'bach-prelude-in-c-bwv-846',
      'faure-pavane-second-copy',
      'satie-gymnopedie-1',
    ]);
    expect(second.differences).toEqual([]);
    const [layered, full] = [await answers(second.incremental), await answers(second.full)];
    for (const [url, body] of full) expect([url, layered.get(url)]).toEqual([url, body]);
    // Its resolve rows hold both changes' works too, and answer as the full build.
    expect(buildInfo(second.incremental).catalogIndex).toMatchObject({ resolve: 'laid' });
    const rows = JSON.parse(readFileSync(path.join(second.incremental, 'index', 'resolve-overlay.json'), 'utf8'));
    expect(rows.works.map((w: { slug: string }) => w.slug)).toEqual(overlay.works.map((w: { slug: string }) => w.slug));
    const named = ['bach-prelude-in-c-bwv-846', 'satie-gymnopedie-1', 'faure-pavane-second-copy'];
    const [laid, whole] = [await resolveAnswers(second.incremental, named), await resolveAnswers(second.full, named)];
    for (const [body, data] of whole) expect([body, laid.get(body)]).toEqual([body, data]);

    const compacted = path.join(builds.root, 'two-cmp');
    await compactBuild(second.incremental, compacted);
    expect(readdirSync(path.join(compacted, 'index')).sort()).toEqual([
      'catalog.json',
      'composers.json',
      'profiles.idx',
      'resolve.idx',
      'summaries.json',
      'works.idx',
    ]);
    for (const name of readdirSync(path.join(second.full, 'index')))
      expect([
        name,
        readFileSync(path.join(compacted, 'index', name)).equals(readFileSync(path.join(second.full, 'index', name))),
      ]).toEqual([name, true]);
  }, 300_000);
});
