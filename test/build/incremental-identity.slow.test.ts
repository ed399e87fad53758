/**
 * Incremental builds: for several kinds of change to the sample catalog, a build made
 * incrementally from the previous build holds exactly the bytes of a full build of the same commit
 * (same generatedAtUtc): every record, Markdown file, HTML page, listing, score file, zip, the
 * Pagefind index, the server's index files, published-blobs.json and the score manifest. An
 * incremental build is a layer over its base (src/lib/site/layers.ts) and compared as its view.
 * The earlier build folder, which the new one reads through (or shares inodes with),
 * is left exactly as it was. Changes the incremental path cannot vouch for fall back to a full build.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildInChild } from '../../api/site/builds.ts';
import { git } from '../../api/site/content-repo.ts';
import { FullBuildNeeded, planChange } from '../../build/plan.ts';
import { currentRightsYear, loadCatalog } from '../../src/domain/catalog.ts';
import { CODE_ONLY_ROUTES } from '../../src/lib/site/code-only-pages.ts';
import { filesUnder, digests, differences, IncrementalBuilds, viewFilesUnder } from '../helpers/build-folders.ts';

const BASE_URL = 'https://incremental.example.test';
// The incremental builds run as the server's applies do: in one warm build process, rendering
// through the warm renderer (the full builds they are compared with each run in a new process).
const builds = new IncrementalBuilds('pdma-incremental-', BASE_URL, { warm: true });
const { root, repo } = builds;
const work = (slug: string, file = 'index.md') => builds.work(slug, file);
const commitAll = (message: string) => builds.commitAll(message);
const buildBoth = (commit: string, base: string, name: string) => builds.buildBoth(commit, base, name);

afterAll(() => builds.dispose());

/**
 * The files of a full build (`client/`-relative) that the routes made from the code alone write
 * (src/lib/site/code-only-pages.ts): a route with a parameter writes everything under its folder,
 * an endpoint its file, a page its folder's index.html.
 */
function codeOnlyFiles(buildDir: string): string[] {
  const client = path.join(buildDir, 'client');
  return CODE_ONLY_ROUTES.flatMap((component) => {
    const rel = component.slice('src/pages/'.length);
    const dynamic = rel.indexOf('[');
    if (dynamic >= 0) return filesUnder(client, rel.slice(0, dynamic).replace(/\/$/, '')).sort();
    if (rel.endsWith('.ts')) return [rel.slice(0, -'.ts'.length)];
    return [rel.replace(/\.astro$/, '.html')];
  }).filter((rel) => existsSync(path.join(client, rel)));
}

let baseDir = '';
let firstIncremental = '';

beforeAll(async () => {
  baseDir = await builds.buildBase();
}, 300_000);

describe('incremental build', () => {
  it('a one-field correction: byte-identical to a full build; the base folder is untouched', async () => {
    const before = digests(baseDir);
    const file = work('beethoven-fur-elise');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^title: .*$/m, 'title: Für Elise (zanzibar revision)'));
    const commit = await commitAll('Retitle Für Elise');
    const result = await buildBoth(commit, baseDir, 'edit');
    const info = JSON.parse(readFileSync(path.join(result.incremental, 'build.json'), 'utf8'));
    expect(info.mode).toBe('incremental');
    expect(info.commit).toBe(commit);
    expect(info.incremental.works).toEqual(['beethoven-fur-elise']);
    // Rendered by the warm renderer: the base's build left Astro's compiled pages loaded.
    expect(info.incremental.renderer).toMatchObject({ kind: 'warm' });
    // The base's catalog snapshot was read from its file (a full build keeps none in memory).
    expect(info.incremental.snapshot).toBe('file');
    // Nor its site data: this build made the pages' works, orders and facets afresh.
    expect(info.incremental.siteData).toBe('made');
    // A layer over the base: only the files the change touched, none of the base's copied.
    expect(info.incremental.layer).toMatchObject({ base: 'base' });
    expect(info.incremental.layer.files).toBeLessThan(filesUnder(path.join(baseDir, 'client')).length / 2);
    // The index files were merged from the base's, and (below) their bytes are a full build's.
    // The listing's are not written at all: an overlay over the base's (api/catalog/index-layers.ts),
    // compared below as the files it merges into.
    // ... without reading the base's records of the unchanged works (catalog.json keeps the counts).
    // ... beside the render, from the records the build predicted (the rendered ones are the same),
    // made before the scores step from the base's score manifest (the correction left its scores).
    expect(info.incremental.prediction).toBe('base');
    expect(readdirSync(path.join(result.incremental, 'index')).sort()).toEqual([
      'catalog.json',
      'composers.json',
      'profiles.idx',
      'resolve-overlay.json',
      'works-overlay.json',
    ]);
    // Nor the resolve catalog's: the changed work's rows, laid over the base's resolve.idx when read
    // (src/domain/resolve/catalog-layer.ts); compared below as the resolve.idx they merge into.
    expect(info.catalogIndex).toMatchObject({
      listing: 'overlay',
      resolve: 'laid',
      baseRecordsRead: false,
      merge: 'early',
      // A full build's index files: read from disk.
      baseFiles: 'read',
      // No profile record changed (below): the base's profiles index is this build's, linked.
      profiles: 'linked',
    });
    // So is its composers file: the change brought no composer.
    const inode = (dir: string, name: string) => statSync(path.join(dir, 'index', name)).ino;
    for (const name of ['profiles.idx', 'composers.json'])
      expect([name, inode(result.incremental, name)]).toEqual([name, inode(baseDir, name)]);
    expect([
      info.catalogIndex.listingBuiltBecause,
      info.catalogIndex.resolveBuiltBecause,
      info.catalogIndex.mergedLateBecause,
    ]).toEqual([undefined, undefined, undefined]);
    expect(result.differences).toEqual([]);
    // The pages made from the code alone were not rendered again: the layer serves the base's.
    const codeOnly = codeOnlyFiles(baseDir);
    expect(codeOnly.length).toBeGreaterThan(30);
    expect(info.incremental.renderer.skipped).toBe(codeOnly.length);
    const layerFiles = new Set(JSON.parse(readFileSync(path.join(result.incremental, 'layer.json'), 'utf8')).files);
    expect(codeOnly.filter((rel) => layerFiles.has(rel))).toEqual([]);
    // A new title changes the pages of the profiles the work uses (they list the first works by
    // title), not their JSON records (slugs and arrangement ids): the layer serves the base's.
    for (const profile of ['warm-grand-piano', 'calm-underscore']) {
      expect(layerFiles.has(`profiles/${profile}/index.html`), profile).toBe(true);
      expect(layerFiles.has(`api/v1/profiles/${profile}/index.json`), profile).toBe(false);
      expect(layerFiles.has(`api/v1/profiles/${profile}/definition/index.json`), profile).toBe(false);
    }
    // And they are made from the code alone: the same bytes in a full build of another catalog,
    // naming neither the build's time nor its commit.
    const baseInfo = JSON.parse(readFileSync(path.join(baseDir, 'build.json'), 'utf8'));
    // The full build's index read each record once: the genres and periods it expected were the records'.
    expect(baseInfo.catalogIndex.works).toBe(baseInfo.works);
    expect(baseInfo.catalogIndex.recordsReadAgain).toBeUndefined();
    for (const rel of codeOnly) {
      const bytes = readFileSync(path.join(baseDir, 'client', rel));
      expect(readFileSync(path.join(result.full, 'client', rel)).equals(bytes), rel).toBe(true);
      expect(bytes.includes(baseInfo.generatedAtUtc), rel).toBe(false);
      expect(bytes.includes(baseInfo.commit), rel).toBe(false);
    }
    const record = JSON.parse(
      readFileSync(path.join(result.incremental, 'client/api/v1/works/beethoven-fur-elise/index.json'), 'utf8'),
    );
    expect(record.data.title).toBe('Für Elise (zanzibar revision)');
    expect(
      readFileSync(path.join(result.incremental, 'client/works/beethoven-fur-elise/index.html'), 'utf8'),
    ).toContain('zanzibar revision');
    // The base build shares inodes with the new folder and must not have changed.
    expect(differences(digests(baseDir), before)).toEqual([]);
    expect(
      JSON.parse(readFileSync(path.join(baseDir, 'client/api/v1/works/beethoven-fur-elise/index.json'), 'utf8')).data
        .title,
    ).not.toContain('zanzibar');
    firstIncremental = result.incremental;
  }, 600_000);

  it('a new arrangement with files, a score change, a new work and a rename at once, built on the incremental folder', async () => {
    // New arrangement with stored files (score + MIDI) on an existing work.
    const brahms = work('brahms-wiegenlied-op-49-no-4');
    const text = readFileSync(brahms, 'utf8');
    const start = text.indexOf('\n  - id: 2\n    rank: 2\n');
    const end = text.indexOf('\ncomments:');
    expect(start).toBeGreaterThan(0);
    const arrangement = text
      .slice(start, end)
      .replace('  - id: 2\n    rank: 2\n', '  - id: 3\n    rank: 3\n')
      .replace('title: "Wiegenlied: flute sketch"', 'title: "Wiegenlied: second flute sketch"')
      .replace('- id: 22\n', '- id: 32\n')
      .replace('- id: 23\n', '- id: 33\n')
      .replaceAll('wiegenlied-flute-sketch.', 'wiegenlied-flute-two.')
      .replaceAll('access: signed-in', 'access: public');
    writeFileSync(brahms, text.slice(0, end) + arrangement + text.slice(end));
    copyFileSync(
      work('brahms-wiegenlied-op-49-no-4', 'wiegenlied-flute-sketch.musicxml'),
      work('brahms-wiegenlied-op-49-no-4', 'wiegenlied-flute-two.musicxml'),
    );
    copyFileSync(
      work('brahms-wiegenlied-op-49-no-4', 'wiegenlied-flute-sketch.mid'),
      work('brahms-wiegenlied-op-49-no-4', 'wiegenlied-flute-two.mid'),
    );
    // A changed source score (the engraving changes).
    const score = work('bach-prelude-in-c-bwv-846', 'bwv846-prelude-opening.musicxml');
    writeFileSync(
      score,
      readFileSync(score, 'utf8').replace(
        '<movement-title>Prelude, mm. 1–8',
        '<movement-title>Prelude (revised engraving), mm. 1–8',
      ),
    );
    // A new work by a composer the catalog has.
    const air = readFileSync(work('bach-air-orchestral-suite-3'), 'utf8');
    const newDir = path.join(repo, 'works', 'bach-air-second-study');
    mkdirSync(newDir);
    writeFileSync(
      path.join(newDir, 'index.md'),
      air.replace(/^slug: .*$/m, 'slug: bach-air-second-study').replace(/^title: .*$/m, 'title: Air, a second study'),
    );
    // A rename: the old slug's pages go, the new slug's come.
    renameSync(
      path.join(repo, 'works', 'bach-toccata-and-fugue-d-minor'),
      path.join(repo, 'works', 'bach-toccata-renamed'),
    );
    const toccata = work('bach-toccata-renamed');
    writeFileSync(toccata, readFileSync(toccata, 'utf8').replace(/^slug: .*$/m, 'slug: bach-toccata-renamed'));
    const commit = await commitAll('Arrangement, score revision, new work, rename');

    const result = await buildBoth(commit, firstIncremental, 'mixed');
    const info = JSON.parse(readFileSync(path.join(result.incremental, 'build.json'), 'utf8'));
    expect(info.fallbackReason ?? null).toBeNull();
    expect(info.mode).toBe('incremental');
    expect(info.incremental.renderer).toMatchObject({ kind: 'warm' });
    // The first incremental build of the process kept its catalog for this one, and its score
    // manifest (the file's identity unchanged since it was written).
    expect(info.incremental.snapshot).toBe('memory');
    expect(info.incremental.scoreManifest).toBe('memory');
    // ... and its site data, which this build patched (src/lib/site-data.ts, `siteDelta`): the
    // byte-identity below covers the patched works, orders, facets and profile usage.
    expect(info.incremental.siteData).toBe('patched');
    expect(info.incremental.works).toEqual([
      'bach-air-second-study',
      'bach-prelude-in-c-bwv-846',
      'bach-toccata-and-fugue-d-minor',
      'bach-toccata-renamed',
      'brahms-wiegenlied-op-49-no-4',
    ]);
    // A new work, a rename and new arrangements, merged into the base's index files too (early:
    // the instruments' work counts changed, not their terms), predicted after the scores step
    // (new works and a changed score); the listing overlay holds the first build's change and this
    // one's (the renamed work's old slug is a tombstone over the base, in no overlay entry).
    expect(info.incremental.prediction).toBe('scores');
    expect(info.catalogIndex).toMatchObject({
      listing: 'overlay',
      resolve: 'laid',
      baseRecordsRead: false,
      merge: 'early',
      // The plain base's resolve catalog, kept decoded by the index worker that read it for the
      // first incremental build (every layer over that base lays its rows over it).
      baseFiles: 'kept',
      // New arrangements change the profiles' usage lists: their records are rendered, their index written.
      profiles: 'written',
    });
    const overlay = JSON.parse(readFileSync(path.join(result.incremental, 'index', 'works-overlay.json'), 'utf8'));
    // The resolve rows hold the same works: both changes', over the plain base.
    const rows = JSON.parse(readFileSync(path.join(result.incremental, 'index', 'resolve-overlay.json'), 'utf8'));
    expect(rows.works.map((w: { slug: string }) => w.slug)).toEqual(overlay.works.map((w: { slug: string }) => w.slug));
    expect(overlay.works.map((w: { slug: string }) => w.slug).sort()).toEqual([
      'bach-air-second-study',
      'bach-prelude-in-c-bwv-846',
      'bach-toccata-renamed',
      'beethoven-fur-elise',
      'brahms-wiegenlied-op-49-no-4',
    ]);
    expect(result.differences).toEqual([]);
    // A layer over the first one's base (never a chain): its view is compared above; the renamed
    // work's base files are deleted from it, not copied and removed.
    expect(info.incremental.layer).toMatchObject({ base: 'base' });
    expect(info.incremental.layer.deleted).toBeGreaterThan(0);
    const files = viewFilesUnder(result.incremental);
    expect(files).toContain('works/brahms-wiegenlied-op-49-no-4/files/wiegenlied-flute-two.musicxml');
    expect(files).toContain('works/bach-air-second-study/index.html');
    expect(files.some((f) => f.startsWith('works/bach-toccata-and-fugue-d-minor/'))).toBe(false);
    expect(files.some((f) => f.startsWith('api/v1/works/bach-toccata-and-fugue-d-minor/'))).toBe(false);
    // The changed source score was engraved again (the base folder keeps its old engraving).
    const svg = 'client/works/bach-prelude-in-c-bwv-846/score/1/page-1.svg';
    expect(digests(result.incremental).get(svg)).toBeDefined();
    expect(digests(result.incremental).get(svg)).not.toBe(digests(baseDir).get(svg));
  }, 600_000);

  it('falls back to a full build for shared inputs and composer changes', async () => {
    const { catalog } = loadCatalog(repo);
    const head = await git(repo, ['rev-parse', 'HEAD']);
    expect(() => planChange(repo, head, ['instruments.json'], catalog.works, catalog.genres)).toThrow(FullBuildNeeded);
    expect(() => planChange(repo, head, ['profiles/warm-grand-piano.json'], catalog.works, catalog.genres)).toThrow(
      /shared input/,
    );
    // A person's record reaches every work naming them: a shared input (decision 38).
    expect(() => planChange(repo, head, ['people/beethoven-ludwig-van.json'], catalog.works, catalog.genres)).toThrow(
      /people\/beethoven-ludwig-van\.json is a shared input/,
    );
    // A work that takes its composer's only work away from them removes a composer page.
    const file = work('satie-gymnopedie-1');
    const satie = readFileSync(file, 'utf8');
    const moved = satie.replace(/^composer: satie-erik$/m, 'composer: beethoven-ludwig-van');
    expect(moved).not.toBe(satie);
    writeFileSync(file, moved);
    const changed = loadCatalog(repo).catalog;
    const people = {
      bySlug: new Map(changed.people.map((p) => [p.content.slug, p.content])),
      asOfYear: currentRightsYear(),
    };
    expect(() =>
      planChange(repo, head, ['works/satie-gymnopedie-1/index.md'], changed.works, changed.genres, null, people),
    ).toThrow(/adds or removes the composer Erik Satie/);
    // Through the build: a changed instruments file builds in full and says why.
    await git(repo, ['checkout', '--quiet', '--', '.']);
    const instruments = path.join(repo, 'instruments.json');
    writeFileSync(instruments, readFileSync(instruments, 'utf8').replace(/\n$/, '') + '\n\n');
    const commit = await commitAll('Reformat instruments.json');
    const out = path.join(root, 'fallback');
    await buildInChild(repo, out, BASE_URL, { commit, incrementalFrom: firstIncremental });
    const info = JSON.parse(readFileSync(path.join(out, 'build.json'), 'utf8'));
    expect(info.mode).toBe('full');
    expect(info.fallbackReason).toMatch(/instruments\.json is a shared input/);
    // A full build records the site code it was made by.
    expect(info.siteCode).toMatch(/^[0-9a-f]{64}$/);

    // A base made by other site code: its pages are not this code's, so the build is a full one.
    const other = JSON.parse(readFileSync(path.join(out, 'build.json'), 'utf8'));
    writeFileSync(path.join(out, 'build.json'), JSON.stringify({ ...other, siteCode: '0'.repeat(64) }));
    const elise = work('beethoven-fur-elise');
    writeFileSync(elise, readFileSync(elise, 'utf8').replace(/^title: .*$/m, 'title: Für Elise (other code)'));
    const next = await commitAll('Retitle Für Elise again');
    const after = path.join(root, 'other-code');
    await buildInChild(repo, after, BASE_URL, { commit: next, incrementalFrom: out });
    const afterInfo = JSON.parse(readFileSync(path.join(after, 'build.json'), 'utf8'));
    expect(afterInfo.mode).toBe('full');
    expect(afterInfo.fallbackReason).toBe('the site code changed since the base build');
    expect(afterInfo.siteCode).toBe(info.siteCode);
  }, 600_000);
});
