/**
 * The render cache through the build CLI (scripts/build.ts --render-cache <folder>): on a content
 * repository with three real songs and one real quartet movement from ../shared/corpora, the
 * first full build engraves every score, a second full build of the unchanged catalog engraves
 * nothing (build.json `scores`) and writes the same score files, the pages' brotli and gzip
 * forms come from the cache (nothing compressed again), and a damaged cache entry is detected,
 * engraved again and replaced. Cached scores are hard-linked from the render view
 * (src/lib/site/render-view.ts): a view that no longer matches its entry, or a file of it changed
 * in place, is unpacked again from the verified entry; a removed view is made again.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { RenderSummary } from '../../src/lib/site/render-scores.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildWithCli, digests, filesUnder } from '../helpers/build-folders.ts';
import { corpusScores, findScore, LIEDER, makeCorpusContent, QUARTETS, spread } from '../helpers/corpus-content.ts';
import { decodeEntry, encodeEntry } from '../../src/lib/site/render-cache.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-render-cache-'));
const content = path.join(root, 'content');
const cache = path.join(root, 'cache');
const GENERATED_AT = '2026-01-02T03:04:05.000Z';

/** build.json `scores`: the render summary as the build records it. */
type Scores = Omit<RenderSummary, 'manifest' | 'durationMs'>;

afterAll(() => rmSync(root, { recursive: true, force: true }));

async function build(
  name: string,
  generatedAt = GENERATED_AT,
): Promise<{ dir: string; scores: Scores; compressedPages: { files: number } }> {
  const dir = path.join(root, name);
  const info = await buildWithCli(content, dir, 'https://render-cache.example.test', [
    '--generated-at',
    generatedAt,
    '--render-cache',
    cache,
    '--engrave-workers',
    '2',
  ]);
  return { dir, scores: info.scores as Scores, compressedPages: info.compressedPages as { files: number } };
}

/** Digest of every engraved file (pages and their br/gzip forms, phone pages, MIDI, PDF) of the build. */
function scoreFiles(dir: string): Map<string, string> {
  const all = digests(path.join(dir, 'client'));
  return new Map([...all].filter(([f]) => /^works\/[^/]+\/score\/\d+\/[^/]+\.(svg|svg\.br|svg\.gz|mid|pdf)$/.test(f)));
}

/** SVG pages (wide and phone) of the build's scores. */
const svgPageCount = (files: Map<string, string>) => [...files.keys()].filter((f) => f.endsWith('.svg')).length;

/** Where the build linked a score file from (the render view beside the cache). */
const view = path.join(cache, 'render-view');

function cacheEntries(): string[] {
  return filesUnder(cache).filter((f) => f.startsWith('named/render-cache/'));
}

let first: Awaited<ReturnType<typeof build>>;
let firstFiles: Map<string, string>;
let slugs: string[];

beforeAll(async () => {
  // Three songs spread over the corpus and the quartet movement that engraves fastest (6 pages).
  const songs = spread(corpusScores(LIEDER), 3);
  slugs = makeCorpusContent(content, [...songs, findScore(QUARTETS, 'sq7070781.mxl')], { sampleWorks: false });
  first = await build('first');
  firstFiles = scoreFiles(first.dir);
}, 600_000);

describe('render cache in the full build', () => {
  it('engraves every score once and keeps one verified entry per score', () => {
    expect(first.scores).toMatchObject({ rendered: 4, failed: 0, engraved: 4, fromCache: 0, corrupt: 0 });
    // One engraving and one PDF per score.
    expect(cacheEntries().filter((f) => f.includes('/engraving/'))).toHaveLength(4);
    expect(cacheEntries().filter((f) => f.includes('/pdf/'))).toHaveLength(4);
    const files = scoreFiles(first.dir);
    for (const slug of slugs) {
      expect(files.has(`works/${slug}/score/1/page-1.svg`)).toBe(true);
      expect(files.has(`works/${slug}/score/1/narrow-page-1.svg`)).toBe(true);
      expect(files.has(`works/${slug}/score/1/score.pdf`)).toBe(true);
      expect(files.has(`works/${slug}/score/1/page-1.svg.br`)).toBe(true);
      expect(files.has(`works/${slug}/score/1/narrow-page-1.svg.gz`)).toBe(true);
    }
    // Every page compressed once, with its engraving, into the cache entry; none left for the build's compression step.
    expect(first.scores.compressedForCache).toBe(svgPageCount(files));
    expect(first.scores.compressedFromCache).toBe(0);
    expect(first.compressedPages.files).toBe(0);
    // Each new engraving unpacked into the view once, and the build's files are links to it.
    expect(first.scores).toMatchObject({ unpacked: 4, fromView: 0, linkedFiles: files.size });
    const page = path.join(first.dir, 'client', 'works', slugs[0]!, 'score', '1', 'page-1.svg');
    const viewed = filesUnder(view).filter((f) => f.startsWith('engraving/') && f.endsWith('/page-1.svg'));
    expect(viewed).toHaveLength(4);
    expect(viewed.map((f) => statSync(path.join(view, f)).ino)).toContain(statSync(page).ino);
  });

  it('a second full build of the unchanged catalog engraves nothing and writes the same score files', async () => {
    // Another build time: the cache key does not depend on it.
    const second = await build('second', '2026-02-03T04:05:06.000Z');
    expect(second.scores).toMatchObject({ rendered: 4, failed: 0, engraved: 0, fromCache: 4, corrupt: 0, pdfsMade: 0 });
    expect(scoreFiles(second.dir)).toEqual(scoreFiles(first.dir));
    // No brotli or gzip work: every page's forms came from the verified entries.
    expect(second.scores.compressedFromCache).toBe(svgPageCount(scoreFiles(first.dir)));
    expect(second.scores.compressedForCache).toBe(0);
    expect(second.compressedPages.files).toBe(0);
    // Linked from the view, no entry read: the same inodes as the first build's files.
    expect(second.scores).toMatchObject({ fromView: 4, unpacked: 0, linkedFiles: firstFiles.size });
    for (const slug of slugs) {
      const page = (dir: string) => path.join(dir, 'client', 'works', slug, 'score', '1', 'narrow-page-1.svg.br');
      expect(statSync(page(second.dir)).ino).toBe(statSync(page(first.dir)).ino);
    }
  }, 600_000);

  it('a damaged cache entry is detected, engraved again and replaced; an entry without compressed forms gets them once', async () => {
    const entries = cacheEntries()
      .filter((f) => f.includes('/engraving/'))
      .map((f) => path.join(cache, f))
      .sort((a, b) => statSync(b).size - statSync(a).size);
    // The largest engraving is the quartet's; flip one byte in the middle of its body.
    const victim = entries[0]!;
    const good = readFileSync(victim);
    const bad = Buffer.from(good);
    bad[Math.floor(bad.length / 2)]! ^= 0xff;
    writeFileSync(victim, bad);
    // Another entry as stored before the compressed forms were kept: the pages without .br/.gz.
    const old = entries[1]!;
    const key = path.basename(old);
    const full = decodeEntry(key, readFileSync(old))!;
    const plain = full.files.filter((f) => !/\.svg\.(br|gz)$/.test(f.name));
    const oldPages = plain.filter((f) => f.name.endsWith('.svg')).length;
    writeFileSync(old, encodeEntry(key, { rendering: full.rendering, files: plain }));

    const third = await build('third');
    expect(third.scores).toMatchObject({ rendered: 4, failed: 0, engraved: 1, fromCache: 3, corrupt: 1 });
    // The two rewritten entries no longer match their views: read, verified and unpacked again.
    expect(third.scores).toMatchObject({ fromView: 2, unpacked: 2 });
    expect(scoreFiles(third.dir)).toEqual(scoreFiles(first.dir));
    // Replaced by the new engraving: the same bytes as before the damage (same build time).
    expect(readFileSync(victim).equals(good)).toBe(true);
    expect(readdirSync(path.dirname(victim)).filter((n) => n.endsWith('.tmp'))).toEqual([]);
    // The quartet's pages compressed with its new engraving, the old entry's pages once; the rest from the cache.
    const quartetPages = decodeEntry(path.basename(victim), good)!.files.filter((f) => f.name.endsWith('.svg')).length;
    expect(third.scores.compressedForCache).toBe(quartetPages + oldPages);
    expect(third.scores.compressedFromCache).toBe(svgPageCount(scoreFiles(first.dir)) - quartetPages - oldPages);
    expect(third.compressedPages.files).toBe(0);
    // The old entry now carries its forms again: byte for byte the entry the first build stored.
    expect(readFileSync(old).equals(encodeEntry(key, full))).toBe(true);
  }, 600_000);

  it('a view file written in place is noticed: the entry is read, verified and unpacked again', async () => {
    // As a write through a served link would (the view's file and the build's are one inode).
    const victim = path.join(
      view,
      filesUnder(view).find((f) => f.startsWith('engraving/') && f.endsWith('/page-1.svg'))!,
    );
    const before = readFileSync(victim);
    writeFileSync(victim, Buffer.concat([before.subarray(0, before.length - 6), Buffer.from('<!---->')]));
    const fourth = await build('fourth');
    expect(fourth.scores).toMatchObject({
      rendered: 4,
      engraved: 0,
      corrupt: 0,
      fromCache: 4,
      fromView: 3,
      unpacked: 1,
    });
    expect(scoreFiles(fourth.dir)).toEqual(firstFiles);
    // Unpacked anew: the view's page is a new inode with the verified bytes.
    expect(readFileSync(victim).equals(before)).toBe(true);
  }, 600_000);

  it('a removed view is made again from the verified entries, engraving nothing', async () => {
    rmSync(view, { recursive: true, force: true });
    const fifth = await build('fifth');
    expect(fifth.scores).toMatchObject({
      rendered: 4,
      engraved: 0,
      corrupt: 0,
      fromCache: 4,
      fromView: 0,
      unpacked: 4,
    });
    expect(scoreFiles(fifth.dir)).toEqual(firstFiles);
    expect(filesUnder(view).filter((f) => f.endsWith('view.json'))).toHaveLength(8);
  }, 600_000);
});
