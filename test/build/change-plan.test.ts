/**
 * The incremental build's plan (build/plan.ts `planChange`), over the sample
 * content in a git repository: which works a change touches, which browse pages and profiles it
 * reaches, and which changes only a full build can vouch for (shared inputs, a composer added,
 * removed or written differently). The build that follows a plan is proved byte-identical to a
 * full build by the slow incremental-identity tests; this file checks the decisions alone. Every
 * plan is made twice, with the changed works' base versions read from git and taken from the
 * base's loaded works (as a build over a base with a catalog snapshot does), and both must agree.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { ensureContentRepo, git } from '../../api/site/content-repo.ts';
import { composerCensus, FullBuildNeeded, patchComposerCensus, planChange } from '../../build/plan.ts';
import { currentRightsYear, loadCatalog, type LoadedWork } from '../../src/domain/catalog.ts';
import { composerScopeKey } from '../../src/lib/site/facets.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';

let repo = '';
let head = '';
/** The works as the base commit has them (loaded once: every test starts from that commit). */
let baseWorks = new Map<string, LoadedWork>();

beforeAll(async () => {
  // One repository for the file: the sample content copied and committed as the base.
  const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-change-plan-'));
  repo = path.join(root, 'repo');
  head = (await ensureContentRepo(repo, path.join(PROJECT_ROOT, 'content'))).head;
  baseWorks = new Map(loadCatalog(repo).catalog.works.map((w) => [w.content.slug, w]));
});
beforeEach(async () => {
  // Fresh state per test: the working tree put back to the base commit, nothing else in it.
  await git(repo, ['reset', '--quiet', '--hard', head]);
  await git(repo, ['clean', '--quiet', '-fdx']);
});
afterAll(() => {
  rmSync(path.dirname(repo), { recursive: true, force: true });
});

const workFile = (slug: string) => path.join(repo, 'works', slug, 'index.md');
function edit(slug: string, from: RegExp, to: string): void {
  const before = readFileSync(workFile(slug), 'utf8');
  const after = before.replace(from, to);
  if (after === before) throw new Error(`no ${from} in ${slug}`);
  writeFileSync(workFile(slug), after);
}
function attempt<T>(make: () => T): { value: T } | { error: unknown } {
  try {
    return { value: make() };
  } catch (error) {
    return { error };
  }
}
function plan(files: string[]) {
  const { catalog } = loadCatalog(repo);
  const people = {
    bySlug: new Map(catalog.people.map((p) => [p.content.slug, p.content])),
    asOfYear: currentRightsYear(),
  };
  const fromGit = attempt(() => planChange(repo, head, files, catalog.works, catalog.genres, null, people));
  const fromBase = attempt(() => planChange(repo, head, files, catalog.works, catalog.genres, baseWorks, people));
  expect(fromBase).toEqual(fromGit);
  if ('error' in fromGit) throw fromGit.error;
  return fromGit.value;
}

describe('the incremental plan', () => {
  it('a field edit touches its work, its browse pages, its composer page and its profiles', () => {
    edit('beethoven-fur-elise', /^title: .*$/m, 'title: Für Elise (revised)');
    const p = plan(['works/beethoven-fur-elise/index.md']);
    expect(p.works).toEqual(['beethoven-fur-elise']);
    const { catalog } = loadCatalog(repo);
    const work = catalog.works.find((w) => w.content.slug === 'beethoven-fur-elise')!.content;
    expect(p.facets).toContain(composerScopeKey(work.composer));
    const profiles = [...new Set(work.arrangements.flatMap((a) => a.renderingProfileSlugs))].sort();
    expect(profiles.length).toBeGreaterThan(0);
    expect(p.profiles).toEqual(profiles);
    // The profiles' JSON records list slugs and arrangement ids only: a new title leaves them as they are.
    expect(p.profileRecords).toEqual([]);
    // Another composer's page is not in scope.
    const other = catalog.works.find((w) => w.content.composer.name !== work.composer.name)!.content;
    expect(p.facets).not.toContain(composerScopeKey(other.composer));
  });

  it('an edit that leaves the title and the arrangements alone reaches no profile', () => {
    edit('beethoven-fur-elise', /^summary: .*$/m, 'summary: A short bagatelle, revised.');
    const p = plan(['works/beethoven-fur-elise/index.md']);
    expect(p.works).toEqual(['beethoven-fur-elise']);
    expect(p.profiles).toEqual([]);
    expect(p.profileRecords).toEqual([]);
  });

  it('an arrangement moved to another profile renders both profiles’ pages and records, and only theirs', () => {
    edit('beethoven-fur-elise', /^ {6}- warm-grand-piano$/m, '      - music-box-celesta');
    const p = plan(['works/beethoven-fur-elise/index.md']);
    expect(p.profileRecords).toEqual(['music-box-celesta', 'warm-grand-piano']);
    expect(p.profiles).toEqual(['music-box-celesta', 'warm-grand-piano']);
  });

  it('a removed work whose composer has other works is planned, with the pages it had', () => {
    rmSync(path.dirname(workFile('bach-cello-suite-1-prelude')), { recursive: true });
    const p = plan(['works/bach-cello-suite-1-prelude/index.md']);
    expect(p.works).toEqual(['bach-cello-suite-1-prelude']);
    const before = JSON.parse(
      JSON.stringify(
        loadCatalog(repo).catalog.works.find((w) => w.content.composer.name === 'Johann Sebastian Bach')!.content
          .composer,
      ),
    );
    expect(p.facets).toContain(composerScopeKey(before));
    // Every profile it used lists it no more.
    expect(p.profileRecords.length).toBeGreaterThan(0);
    expect(p.profiles).toEqual(p.profileRecords);
  });

  it('shared inputs need a full build, and say which file', () => {
    for (const file of ['instruments.json', 'genres.json', 'profiles/warm-grand-piano.json']) {
      expect(() => plan([file])).toThrow(FullBuildNeeded);
      expect(() => plan([file])).toThrow(`${file} is a shared input`);
    }
  });

  it('a work that names another composer, or a changed person record (every work naming them), needs a full build', () => {
    edit('beethoven-fur-elise', /^composer: beethoven-ludwig-van$/m, 'composer: mozart-wolfgang-amadeus');
    expect(() => plan(['works/beethoven-fur-elise/index.md'])).toThrow(/composer/);
    expect(() => plan(['people/beethoven-ludwig-van.json'])).toThrow(
      /people\/beethoven-ludwig-van.json is a shared input/,
    );
  });

  it('the composer census patched from the base’s is the one counted afresh', () => {
    const base = loadCatalog(repo).catalog.works;
    const counted = composerCensus(base);
    // A work removed, a work edited and a composer's only work gone: as an apply's catalog is made.
    const gone = base.find((w) => w.content.slug === 'bach-cello-suite-1-prelude')!;
    const single = base.find(
      (w) => base.filter((o) => o.content.composer.name === w.content.composer.name).length === 1,
    )!;
    edit('beethoven-fur-elise', /^title: .*$/m, 'title: Für Elise (revised)');
    const edited = loadCatalog(repo, { works: new Set(['beethoven-fur-elise']) }).catalog.works;
    const removed = [gone, single, base.find((w) => w.content.slug === 'beethoven-fur-elise')!];
    const works = [...base.filter((w) => !removed.includes(w)), ...edited];
    patchComposerCensus(base, works, removed, edited);
    const patched = composerCensus(works);
    const fresh = composerCensus([...works]);
    expect(patched).not.toBe(fresh);
    expect([...patched].sort()).toEqual([...fresh].sort());
    expect(patched.size).toBe(counted.size - 1);
    // The base's census is left as it was.
    expect(composerCensus(base)).toBe(counted);
    expect(counted.size).toBe(new Set(base.map((w) => w.content.composer.name)).size);
  });

  it('the last work of a composer removed needs a full build (the composer leaves the catalog)', () => {
    const { catalog } = loadCatalog(repo);
    const counts = new Map<string, string[]>();
    for (const w of catalog.works)
      counts.set(w.content.composer.name, [...(counts.get(w.content.composer.name) ?? []), w.content.slug]);
    const [composer, [slug]] = [...counts].find(([, slugs]) => slugs.length === 1)!;
    rmSync(path.dirname(workFile(slug!)), { recursive: true });
    expect(() => plan([`works/${slug}/index.md`])).toThrow(`works/${slug} adds or removes the composer ${composer}`);
  });
});
