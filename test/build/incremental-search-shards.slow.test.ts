/**
 * Incremental builds over a search index in shards (src/lib/site/search-index.ts): with
 * ARCHIVE_SEARCH_SHARD_WORKS=8 the sample catalog's 26 works are four Pagefind indexes, and a
 * retitled work re-indexes only its own shard; the others stay the base's (the incremental build
 * is a layer over it: src/lib/site/layers.ts). The folder's view must hold exactly the bytes of a
 * full build of the same commit, and the base must not change.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shardOf } from '../../src/lib/site/search-index.ts';
import { digests, differences, IncrementalBuilds } from '../helpers/build-folders.ts';
import { readLayerManifest, SiteView } from '../../src/lib/site/layers.ts';

const BASE_URL = 'https://search-shards.example.test';
const builds = new IncrementalBuilds('pdma-search-shards-inc-', BASE_URL);
const { repo } = builds;
const work = (slug: string) => builds.work(slug);
const previous = process.env.ARCHIVE_SEARCH_SHARD_WORKS;

afterAll(() => {
  if (previous === undefined) delete process.env.ARCHIVE_SEARCH_SHARD_WORKS;
  else process.env.ARCHIVE_SEARCH_SHARD_WORKS = previous;
  builds.dispose();
});

let baseDir = '';

beforeAll(async () => {
  // The build children inherit it.
  process.env.ARCHIVE_SEARCH_SHARD_WORKS = '8';
  baseDir = await builds.buildBase();
}, 600_000);

describe('an incremental build over a sharded search index', () => {
  it('a retitled work re-indexes its own shard only, and the folder is byte-identical to a full build', async () => {
    expect(JSON.parse(readFileSync(path.join(baseDir, 'client/pagefind/shards.json'), 'utf8'))).toEqual({
      scheme: 'fnv1a-linear',
      shards: ['shard-1/', 'shard-2/', 'shard-3/'],
    });
    const before = digests(baseDir);
    const slug = 'beethoven-fur-elise';
    const file = work(slug);
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(/^title: .*$/m, 'title: Für Elise (Bagatelle in A minor, WoO 59)'),
    );
    expect(readFileSync(file, 'utf8')).toContain('Bagatelle in A minor, WoO 59');
    const commit = await builds.commitAll('Retitle Für Elise');
    const { incremental, differences: diff } = await builds.buildBoth(commit, baseDir, 'retitle');

    const info = JSON.parse(readFileSync(path.join(incremental, 'build.json'), 'utf8'));
    expect(info.mode).toBe('incremental');
    expect(info.incremental.searchIndexKept).toBe(false);
    const dirty = shardOf(slug, 4);
    expect(info.incremental.searchShardsIndexed).toEqual([dirty]);
    expect(info.searchIndex.pages).toBe(26);
    expect(diff).toEqual([]);
    // The clean shards' files are the base's (the layer does not hold them); of the dirty shard's,
    // those Pagefind made again with the same bytes (the other works' fragments, the bundle's
    // scripts) are the base's too, and the rest (its entry, the retitled work's fragment, the
    // chunks that hold its words) the layer's own, new files.
    const inShard = (rel: string) => {
      const m = /^pagefind\/(?:shard-(\d+)\/)?/.exec(rel);
      return m ? Number(m[1] ?? 0) : null;
    };
    const view = SiteView.open(incremental);
    const own = new Set(readLayerManifest(incremental)!.files);
    let linked = 0;
    let written = 0;
    let unchanged = 0;
    const writtenFiles: string[] = [];
    for (const rel of view.filesUnder('pagefind').filter((r) => r !== 'pagefind/shards.json')) {
      const fromBase = view.locate(rel) === path.join(baseDir, 'client', rel);
      if (inShard(rel) === dirty) {
        expect([rel, fromBase, own.has(rel)]).toEqual([rel, !own.has(rel), own.has(rel)]);
        if (fromBase) unchanged++;
        else {
          written++;
          writtenFiles.push(rel);
        }
      } else {
        expect([rel, fromBase, own.has(rel)]).toEqual([rel, true, false]);
        linked++;
      }
    }
    expect(linked).toBeGreaterThan(10);
    expect(written).toBeGreaterThan(1);
    expect(unchanged).toBeGreaterThan(3);
    const shardDir = dirty === 0 ? 'pagefind/' : `pagefind/shard-${dirty}/`;
    expect(writtenFiles).toContain(`${shardDir}pagefind-entry.json`);
    expect(writtenFiles.filter((rel) => rel.startsWith(`${shardDir}fragment/`))).toHaveLength(1);
    expect(differences(digests(baseDir), before)).toEqual([]);
  }, 600_000);
  it("works added past a multiple of the shard size make a fifth shard: only the split shard, the new one and the changed works' shards are indexed", async () => {
    // 26 works + 7 = 33 > 4 x 8: five shards. Linear hashing splits shard 0 into 0 and 4; the
    // new works are chosen to fall in those two, so shards 1-3 keep their works (but for the
    // retitled work of the first test, which is in this change too).
    const air = readFileSync(work('bach-air-orchestral-suite-3'), 'utf8');
    const added: string[] = [];
    for (let i = 0; added.length < 7 && i < 10_000; i++) {
      const slug = `bach-air-study-${i}`;
      if (shardOf(slug, 5) === 0 || shardOf(slug, 5) === 4) added.push(slug);
    }
    expect(added).toHaveLength(7);
    for (const slug of added) {
      mkdirSync(path.join(repo, 'works', slug));
      writeFileSync(
        path.join(repo, 'works', slug, 'index.md'),
        air.replace(/^slug: .*$/m, `slug: ${slug}`).replace(/^title: .*$/m, `title: Air, ${slug}`),
      );
    }
    const commit = await builds.commitAll('Seven new works');
    const { incremental, differences: diff } = await builds.buildBoth(commit, baseDir, 'grow');
    const info = JSON.parse(readFileSync(path.join(incremental, 'build.json'), 'utf8'));
    expect(info.mode).toBe('incremental');
    expect(info.searchIndex.pages).toBe(33);
    expect(JSON.parse(readFileSync(path.join(incremental, 'client/pagefind/shards.json'), 'utf8')).shards).toEqual([
      'shard-1/',
      'shard-2/',
      'shard-3/',
      'shard-4/',
    ]);
    const retitled = 'beethoven-fur-elise';
    const dirty = [...new Set([0, 4, shardOf(retitled, 4), shardOf(retitled, 5)])].sort((a, b) => a - b);
    expect(info.incremental.searchShardsIndexed).toEqual(dirty);
    expect(dirty.length).toBeLessThan(5);
    expect(diff).toEqual([]);
    // A clean shard's files are the base's own, read through the layer.
    const clean = [1, 2, 3].filter((k) => !dirty.includes(k));
    const view = SiteView.open(incremental);
    for (const k of clean) {
      const entry = `pagefind/shard-${k}/pagefind-entry.json`;
      expect(view.locate(entry)).toBe(path.join(baseDir, 'client', entry));
    }
  }, 600_000);
});
