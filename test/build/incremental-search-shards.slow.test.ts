/**
 * Incremental builds over a search index in shards (src/lib/site/search-index.ts): with
 * ARCHIVE_SEARCH_SHARD_WORKS=8 the sample catalog's 26 works are four Pagefind indexes, and a
 * retitled work re-indexes only its own shard; the others are linked from the base. The folder
 * must hold exactly the bytes of a full build of the same commit, and the base must not change.
 */
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shardOf } from '../../src/lib/site/search-index.ts';
import { filesUnder, digests, differences, IncrementalBuilds } from '../helpers/build-folders.ts';

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
    // The clean shards' files are the base's (same inodes); the dirty shard's are new.
    const inShard = (rel: string) => {
      const m = /^client\/pagefind\/(?:shard-(\d+)\/)?/.exec(rel);
      return m ? Number(m[1] ?? 0) : null;
    };
    let linked = 0;
    let written = 0;
    for (const rel of filesUnder(incremental).filter(
      (r) => r.startsWith('client/pagefind/') && r !== 'client/pagefind/shards.json',
    )) {
      const same =
        statSync(path.join(incremental, rel)).ino === statSync(path.join(baseDir, rel), { throwIfNoEntry: false })?.ino;
      if (inShard(rel) === dirty) {
        expect([rel, same]).toEqual([rel, false]);
        written++;
      } else {
        expect([rel, same]).toEqual([rel, true]);
        linked++;
      }
    }
    expect(linked).toBeGreaterThan(10);
    expect(written).toBeGreaterThan(3);
    expect(differences(digests(baseDir), before)).toEqual([]);
  }, 600_000);
});
