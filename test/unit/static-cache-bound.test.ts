/**
 * StaticSite's two caches (api/site/static-site.ts) stay within their byte budgets however many
 * distinct files are asked for: the bytes of small files (ARCHIVE_STATIC_CACHE_MB) and the facts
 * of known files (ARCHIVE_STATIC_FACTS_MB, counted with factBytes). A file that left either cache
 * still answers, with the same bytes and ETag.
 */
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { factBytes, StaticSite, type StaticFile } from '../../api/site/static-site.ts';
import { cacheBudgetsFromEnv, ConfigError } from '../../api/config.ts';
import { DEFAULT_CACHE_BUDGETS } from '../../api/site/cache-budgets.ts';

const WORKS = 200;
let dir: string;

function writeSite(): void {
  dir = mkdtempSync(path.join(os.tmpdir(), 'static-bound-'));
  for (let i = 0; i < WORKS; i++) {
    const work = path.join(dir, 'api', 'v1', 'works', `work-${String(i).padStart(4, '0')}`);
    mkdirSync(work, { recursive: true });
    writeFileSync(path.join(work, 'index.json'), JSON.stringify({ i, pad: 'x'.repeat(500 + (i % 7) * 100) }));
    writeFileSync(path.join(work, 'index.md'), `# Work ${i}\n\n${'y'.repeat(300)}\n`);
  }
}

async function fileAt(site: StaticSite, url: string): Promise<StaticFile> {
  const r = await site.resolve(url);
  if (r.kind !== 'file') throw new Error(`${url}: ${r.kind}`);
  return r.file;
}

describe('StaticSite byte budgets', () => {
  beforeEach(writeSite);
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('keeps file bytes and file facts within their budgets over many distinct files', async () => {
    const memoryBudget = 20_000;
    const factBudget = 40_000;
    const site = new StaticSite(dir, { memoryBudget, factBudget });
    let maxBodies = 0;
    let maxFacts = 0;
    for (let round = 0; round < 2; round++) {
      for (let i = 0; i < WORKS; i++) {
        const slug = `work-${String(i).padStart(4, '0')}`;
        for (const url of [`/api/v1/works/${slug}`, `/api/v1/works/${slug}/index.md`]) {
          const file = await fileAt(site, url);
          expect((await site.bytesOf(file)).length).toBe(file.size);
          const s = site.stats();
          maxBodies = Math.max(maxBodies, s.bodyBytes);
          maxFacts = Math.max(maxFacts, s.factBytes);
        }
      }
    }
    expect(maxBodies).toBeLessThanOrEqual(memoryBudget);
    expect(maxFacts).toBeLessThanOrEqual(factBudget);
    // The budgets were used, not bypassed: both caches filled close to their budget.
    expect(maxBodies).toBeGreaterThan(memoryBudget / 2);
    expect(maxFacts).toBeGreaterThan(factBudget / 2);
    // Far fewer files are known than were asked for.
    expect(site.stats().files).toBeLessThan(WORKS);
    expect(site.stats().files).toBeGreaterThan(0);
  });

  it('answers a forgotten file again with the same ETag and bytes', async () => {
    const site = new StaticSite(dir, { memoryBudget: 0, factBudget: 5_000 });
    const first = await fileAt(site, '/api/v1/works/work-0000');
    const firstBytes = await site.bytesOf(first);
    expect(site.stats().bodyBytes).toBe(0); // a budget of 0 keeps no bytes
    for (let i = 1; i < 50; i++) await fileAt(site, `/api/v1/works/work-${String(i).padStart(4, '0')}`);
    expect(site.peek('/api/v1/works/work-0000')).toBeUndefined(); // forgotten
    const again = await fileAt(site, '/api/v1/works/work-0000');
    expect(again).not.toBe(first);
    expect(again.etag).toBe(first.etag);
    expect((await site.bytesOf(again)).equals(firstBytes)).toBe(true);
  });

  it('counts a file held by two concurrent first requests once', async () => {
    const site = new StaticSite(dir, { memoryBudget: 1_000_000, factBudget: 1_000_000 });
    const [a, b] = await Promise.all([
      fileAt(site, '/api/v1/works/work-0001'),
      fileAt(site, '/api/v1/works/work-0001'),
    ]);
    expect(a).toBe(b);
    expect(site.stats().files).toBe(1);
    expect(site.stats().factBytes).toBe(factBytes(a));
    expect(site.stats().bodyBytes).toBe(a.size);
  });

  it('keeps a small file in its own allocation, not a slice of a shared pool', async () => {
    const site = new StaticSite(dir, { memoryBudget: 1_000_000 });
    const file = await fileAt(site, '/api/v1/works/work-0002/index.md');
    expect(file.body).toBeDefined();
    expect(file.body!.buffer.byteLength).toBe(file.body!.length);
  });
});

describe('cache budget settings', () => {
  it('default to the documented budgets and read MiB', () => {
    expect(cacheBudgetsFromEnv({})).toEqual(DEFAULT_CACHE_BUDGETS);
    expect(DEFAULT_CACHE_BUDGETS.staticBytes).toBe(64 * 1024 * 1024);
    expect(
      cacheBudgetsFromEnv({
        ARCHIVE_STATIC_CACHE_MB: '0',
        ARCHIVE_STATIC_FACTS_MB: '2',
        ARCHIVE_RECORD_CACHE_MB: '3',
        ARCHIVE_ANSWER_CACHE_MB: '4',
      }),
    ).toEqual({ staticBytes: 0, staticFactBytes: 2 * 1048576, recordBytes: 3 * 1048576, answerBytes: 4 * 1048576 });
  });

  it('refuse a value that is not a whole number of MiB in range, naming the variable', () => {
    for (const [name, value] of [
      ['ARCHIVE_STATIC_CACHE_MB', '-1'],
      ['ARCHIVE_STATIC_CACHE_MB', '1.5'],
      ['ARCHIVE_STATIC_FACTS_MB', '0'],
      ['ARCHIVE_RECORD_CACHE_MB', 'lots'],
      ['ARCHIVE_ANSWER_CACHE_MB', '65537'],
    ] as const) {
      expect(() => cacheBudgetsFromEnv({ [name]: value })).toThrow(ConfigError);
      expect(() => cacheBudgetsFromEnv({ [name]: value })).toThrow(name);
    }
  });
});
