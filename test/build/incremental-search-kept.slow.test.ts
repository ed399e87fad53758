/**
 * Incremental builds that keep the base's Pagefind index: when no changed work's search
 * record changed (a correction of a rights note, review state, file or note), the base folder's
 * Pagefind index is linked instead of indexing the whole catalog again. The folder must still hold
 * exactly the bytes of a full build of the same commit, and the base folder must not change.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { searchRecordsUnchanged } from '../../build/search-reuse.ts';
import { loadCatalog } from '../../src/domain/catalog.ts';
import { digests, differences, IncrementalBuilds } from '../helpers/build-folders.ts';
import { readLayerManifest, SiteView } from '../../src/lib/site/layers.ts';

const BASE_URL = 'https://search-kept.example.test';
const builds = new IncrementalBuilds('pdma-search-kept-', BASE_URL);
const { repo } = builds;
const work = (slug: string) => builds.work(slug);

afterAll(() => builds.dispose());

let baseDir = '';

beforeAll(async () => {
  baseDir = await builds.buildBase();
}, 300_000);

describe('incremental build keeping the Pagefind index', () => {
  it('knows which changes leave every search record as it was', () => {
    const { catalog } = loadCatalog(repo);
    const before = new Map(catalog.works.map((w) => [w.content.slug, w]));
    const slug = 'beethoven-fur-elise';
    const original = before.get(slug)!;
    const withContent = (content: typeof original.content) => ({
      ...catalog,
      works: catalog.works.map((w) => (w.content.slug === slug ? { ...w, content } : w)),
    });
    expect(
      searchRecordsUnchanged(
        withContent({ ...original.content, rightsNote: `${original.content.rightsNote} Checked again.` }),
        [slug],
        before,
      ),
    ).toBe(true);
    expect(
      searchRecordsUnchanged(
        withContent({ ...original.content, title: `${original.content.title} (revised)` }),
        [slug],
        before,
      ),
    ).toBe(false);
    expect(
      searchRecordsUnchanged(
        withContent({ ...original.content, summary: `${original.content.summary} Revised.` }),
        [slug],
        before,
      ),
    ).toBe(false);
    // A new work (none before) or no snapshot of the base: the index is made again.
    expect(searchRecordsUnchanged(catalog, [slug], new Map())).toBe(false);
    expect(searchRecordsUnchanged(catalog, [slug], null)).toBe(false);
  });

  it('a rights-note correction: the base Pagefind index is linked, and the folder is byte-identical to a full build', async () => {
    const before = digests(baseDir);
    const file = work('beethoven-fur-elise');
    writeFileSync(
      file,
      readFileSync(file, 'utf8').replace(
        /^rightsNote: "The archive's/m,
        'rightsNote: "Checked again in November. The archive\'s',
      ),
    );
    const commit = await builds.commitAll('Correct the rights note of Für Elise');
    const { incremental, full, differences: diff } = await builds.buildBoth(commit, baseDir, 'rights');

    const info = JSON.parse(readFileSync(path.join(incremental, 'build.json'), 'utf8'));
    expect(info.mode).toBe('incremental');
    expect(info.incremental.works).toEqual(['beethoven-fur-elise']);
    expect(info.incremental.searchIndexKept).toBe(true);
    expect(info.searchIndex.pages).toBe(
      JSON.parse(readFileSync(path.join(full, 'build.json'), 'utf8')).searchIndex.pages,
    );
    expect(diff).toEqual([]);
    expect(
      readFileSync(path.join(incremental, 'client/api/v1/works/beethoven-fur-elise/index.json'), 'utf8'),
    ).toContain('Checked again in November');
    // Not written: the layer over the base (src/lib/site/layers.ts) holds no search file.
    const entry = 'pagefind/pagefind-entry.json';
    expect(SiteView.open(incremental).locate(entry)).toBe(path.join(baseDir, 'client', entry));
    expect(readLayerManifest(incremental)!.files.filter((f) => f.startsWith('pagefind/'))).toEqual([]);
    expect(differences(digests(baseDir), before)).toEqual([]);
  }, 600_000);
});
