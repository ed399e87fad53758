/**
 * A layered build's listing is an overlay over its plain base's listing files
 * (api/catalog/index-layers.ts, api/catalog/listing.ts): the server answers the works listing
 * and the search page from the base's files with the overlay laid over them. Over two layers
 * (a retitle that moves a work to the front, a removed work, a new work; then a second edit on
 * the first layer, whose overlay holds both), every listing answer — each filter, every page —
 * is byte for byte the one the full build of the same commit gives, and a compaction of the
 * layer writes the full build's listing files.
 */
import { cpSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IncrementalBuilds, buildInfo } from '../helpers/build-folders.ts';
import { openApp } from '../helpers/app.ts';
import { compactBuild } from '../../scripts/build/compact.ts';

const BASE_URL = 'https://listing-overlay.example.test';
const builds = new IncrementalBuilds('pdma-listing-overlay-', BASE_URL);
afterAll(() => builds.dispose());
beforeAll(async () => {
  await builds.buildBase();
}, 120_000);

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
