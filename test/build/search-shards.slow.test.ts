/**
 * The site's search index in shards (src/lib/site/search-index.ts): a catalog larger than
 * ARCHIVE_SEARCH_SHARD_WORKS is indexed as several Pagefind indexes, named in the primary index's
 * shards.json, so Pagefind's memory follows the shard. Here with the sample catalog and shards of
 * 8 works; the browser side (the search page merging them) is test/site/search-shards.slow.test.ts.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadCatalog } from '../../src/domain/catalog.ts';
import {
  buildSearchIndex,
  buildSearchIndexInWorker,
  searchWorkerThread,
  shardCount,
  shardOf,
  shardWorksFrom,
  DEFAULT_SHARD_WORKS,
} from '../../src/lib/site/search-index.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';

let root: string;
beforeAll(() => {
  root = mkdtempSync(path.join(os.tmpdir(), 'pdma-search-shards-'));
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

function files(dir: string): Map<string, { sha: string; ino: number }> {
  const out = new Map<string, { sha: string; ino: number }>();
  const walk = (d: string) => {
    for (const e of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, e.name);
      if (e.isDirectory()) walk(p);
      else
        out.set(path.relative(dir, p), {
          sha: createHash('sha256').update(readFileSync(p)).digest('hex'),
          ino: statSync(p).ino,
        });
    }
  };
  walk(dir);
  return out;
}
const shas = (dir: string) => new Map([...files(dir)].map(([k, v]) => [k, v.sha]));
const pageCount = (dir: string) =>
  Object.values(
    (
      JSON.parse(readFileSync(path.join(dir, 'pagefind-entry.json'), 'utf8')) as {
        languages: Record<string, { page_count: number }>;
      }
    ).languages,
  ).reduce((n, l) => n + l.page_count, 0);

describe('shards of the search index', () => {
  const { catalog } = loadCatalog(path.join(PROJECT_ROOT, 'content'));
  const slugs = catalog.works.map((w) => w.content.slug);

  it('spreads works over shards by a stable hash of the slug', () => {
    expect(shardCount(26, 8)).toBe(4);
    expect(shardCount(26, DEFAULT_SHARD_WORKS)).toBe(1);
    expect(shardCount(0, 8)).toBe(1);
    for (const s of slugs) {
      expect(shardOf(s, 1)).toBe(0);
      expect(shardOf(s, 4)).toBe(shardOf(s, 4));
      expect(shardOf(s, 4)).toBeGreaterThanOrEqual(0);
      expect(shardOf(s, 4)).toBeLessThan(4);
    }
    // Every shard gets some of the 26 works (not all in one).
    expect(new Set(slugs.map((s) => shardOf(s, 4))).size).toBe(4);
    expect(shardWorksFrom(undefined)).toBe(DEFAULT_SHARD_WORKS);
    expect(shardWorksFrom('500')).toBe(500);
    for (const bad of ['0', '-1', '2.5', 'x'])
      expect(() => shardWorksFrom(bad)).toThrow(/ARCHIVE_SEARCH_SHARD_WORKS .*whole number/);
  });

  it('writes one index per shard, each with exactly its works, named in shards.json; the same bytes every time', async () => {
    const a = path.join(root, 'a');
    const b = path.join(root, 'b');
    expect((await buildSearchIndex(a, catalog, { shardWorks: 8 })).pages).toBe(26);
    expect((await buildSearchIndex(b, catalog, { shardWorks: 8, recordsInFlight: 3 })).pages).toBe(26);
    const dir = path.join(a, 'pagefind');
    expect(JSON.parse(readFileSync(path.join(dir, 'shards.json'), 'utf8'))).toEqual({
      scheme: 'fnv1a-linear',
      shards: ['shard-1/', 'shard-2/', 'shard-3/'],
    });
    for (let k = 0; k < 4; k++) {
      const shardDir = k === 0 ? dir : path.join(dir, `shard-${k}`);
      expect(pageCount(shardDir)).toBe(slugs.filter((s) => shardOf(s, 4) === k).length);
      expect(existsSync(path.join(shardDir, 'pagefind.js'))).toBe(true);
    }
    expect(shas(path.join(b, 'pagefind'))).toEqual(shas(dir));
  });

  it('one shard is the plain index with an empty shards.json', async () => {
    const one = path.join(root, 'one');
    expect((await buildSearchIndex(one, catalog)).pages).toBe(26);
    expect(JSON.parse(readFileSync(path.join(one, 'pagefind', 'shards.json'), 'utf8'))).toEqual({
      scheme: 'fnv1a-linear',
      shards: [],
    });
    expect(readdirSync(path.join(one, 'pagefind')).filter((n) => n.startsWith('shard-'))).toEqual([]);
    expect(pageCount(path.join(one, 'pagefind'))).toBe(26);
  });

  it('reuses clean shards of a base by hard links and indexes only the dirty ones, to the same bytes', async () => {
    const base = path.join(root, 'base');
    const next = path.join(root, 'next');
    await buildSearchIndex(base, catalog, { shardWorks: 8 });
    const summary = await buildSearchIndex(next, catalog, {
      shardWorks: 8,
      reuse: { dir: path.join(base, 'pagefind'), shards: 4, dirty: [2] },
    });
    expect(summary.pages).toBe(26);
    const before = files(path.join(base, 'pagefind'));
    const after = files(path.join(next, 'pagefind'));
    expect(new Map([...after].map(([k, v]) => [k, v.sha]))).toEqual(new Map([...before].map(([k, v]) => [k, v.sha])));
    for (const [rel, f] of after) {
      const linked = f.ino === before.get(rel)!.ino;
      expect([rel, linked]).toEqual([rel, !rel.startsWith('shard-2/') && rel !== 'shards.json']);
    }
  });

  it('does not reuse shards computed for another number of shards', async () => {
    const base = path.join(root, 'base');
    const other = path.join(root, 'other');
    await buildSearchIndex(other, catalog, {
      shardWorks: 13,
      reuse: { dir: path.join(base, 'pagefind'), shards: 4, dirty: [] },
    });
    expect(JSON.parse(readFileSync(path.join(other, 'pagefind', 'shards.json'), 'utf8'))).toEqual({
      scheme: 'fnv1a-linear',
      shards: ['shard-1/'],
    });
    const inBase = new Set([...files(path.join(base, 'pagefind')).values()].map((f) => f.ino));
    for (const f of files(path.join(other, 'pagefind')).values()) expect(inBase.has(f.ino)).toBe(false);
  });

  it('indexes in one worker thread kept between jobs, with the environment of each job, and a failed job leaves the next one working', async () => {
    const saved = process.env.ARCHIVE_SEARCH_SHARD_WORKS;
    try {
      process.env.ARCHIVE_SEARCH_SHARD_WORKS = '8';
      const first = path.join(root, 'worker-1');
      expect((await buildSearchIndexInWorker(first, catalog)).pages).toBe(26);
      const inline = path.join(root, 'worker-inline');
      await buildSearchIndex(inline, catalog, { shardWorks: 8 });
      expect(shas(path.join(first, 'pagefind'))).toEqual(shas(path.join(inline, 'pagefind')));
      const thread = searchWorkerThread();
      expect(thread).not.toBeNull();

      // The client folder is a file: Pagefind cannot write there.
      const blocked = path.join(root, 'worker-blocked');
      writeFileSync(blocked, 'not a folder');
      await expect(buildSearchIndexInWorker(blocked, catalog)).rejects.toThrow();

      // Read afresh per job, though the worker's own copy of the environment is its start's.
      process.env.ARCHIVE_SEARCH_SHARD_WORKS = '13';
      const second = path.join(root, 'worker-2');
      expect((await buildSearchIndexInWorker(second, catalog)).pages).toBe(26);
      expect(JSON.parse(readFileSync(path.join(second, 'pagefind', 'shards.json'), 'utf8'))).toEqual({
        scheme: 'fnv1a-linear',
        shards: ['shard-1/'],
      });
      expect(searchWorkerThread()).toBe(thread);
    } finally {
      if (saved === undefined) delete process.env.ARCHIVE_SEARCH_SHARD_WORKS;
      else process.env.ARCHIVE_SEARCH_SHARD_WORKS = saved;
    }
  });
});
