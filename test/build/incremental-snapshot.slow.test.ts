/**
 * The incremental build's shortcuts: it re-parses only the changed works, taking every
 * other one from the base build's catalog snapshot (`catalog-snapshot.json`), and its index files
 * come from a worker thread that reads the base's records of unchanged works while Astro renders.
 * Each shortcut must give the bytes the long way gives: an incremental build from a base without a
 * snapshot (the whole catalog loaded, as a full build loads it) writes the same folder. A content
 * error in a changed work fails the build with the loader's message, as a full build would.
 */
import { cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildInChild } from '../../api/site/builds.ts';
import { indexWorkerThread, startIndexWorker } from '../../api/catalog/build-index.ts';
import {
  CATALOG_SNAPSHOT,
  readBaseSnapshot,
  readSnapshot,
  resolvedSnapshot,
  workFolder,
  writeSnapshot,
} from '../../build/catalog-snapshot.ts';
import { loadCatalog } from '../../src/domain/catalog.ts';
import { buildInfo, digests, IncrementalBuilds } from '../helpers/build-folders.ts';
import { expectEach } from '../helpers/expect-each.ts';

const BASE_URL = 'https://snapshot.example.test';
const builds = new IncrementalBuilds('pdma-snapshot-', BASE_URL);
const { root, repo } = builds;
const work = (slug: string) => builds.work(slug);
const commitAll = (message: string) => builds.commitAll(message);

afterAll(() => builds.dispose());

let baseDir = '';

beforeAll(async () => {
  baseDir = await builds.buildBase();
}, 300_000);

describe('incremental build shortcuts', () => {
  it('re-parses only the changed work, and writes what loading the whole catalog writes', async () => {
    expect(readFileSync(path.join(baseDir, CATALOG_SNAPSHOT), 'utf8')).toContain('"folder":"beethoven-fur-elise"');
    const file = work('beethoven-fur-elise');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^title: .*$/m, 'title: Für Elise (snapshot check)'));
    const commit = await commitAll('Retitle Für Elise');

    const withSnapshot = path.join(root, 'with-snapshot');
    await buildInChild(repo, withSnapshot, BASE_URL, { commit, incrementalFrom: baseDir });
    const info = buildInfo(withSnapshot);
    expect(info.mode).toBe('incremental');
    expect(info.incremental.reparsedWorks).toBe(1);
    // One pipeline (build/index.ts): the plan's phases, then the steps in order, each
    // join before a step as its own phase; the full base build went through the same steps.
    const steps = ['besideMs', 'scoresMs', 'predictMs', 'astroMs', 'searchMs', 'indexMs', 'restMs'];
    expect(Object.keys(info.phases)).toEqual([
      'diffMs',
      'loadMs',
      'planMs',
      ...steps,
      'stageWaitMs',
      'stageMs',
      'zipsMs',
      'finishMs',
    ]);
    expect(info.incremental.phases).toEqual(info.phases);
    expect(Object.keys(buildInfo(baseDir).phases)).toEqual([
      'loadMs',
      ...steps,
      'stageWaitMs',
      'stageMs',
      'zipsMs',
      'finishMs',
      'recordWaitMs',
    ]);
    // Beside Astro: the search shards, the hard-linked copy, the engraved pages' brotli/gzip forms,
    // the index worker and the catalog snapshot; a full build's index files run beside its last steps (and its zips,
    // from 64 works on: the sample's 26 are zipped on the build's thread).
    expect(Object.keys(info.incremental.background).sort()).toEqual([
      'compressMs',
      'indexMs',
      'linkMs',
      'searchMs',
      'snapshotMs',
    ]);
    expect(Object.keys(buildInfo(baseDir).background).sort()).toEqual(['compressMs', 'indexMs', 'searchMs']);
    expect(info.catalogIndex.works).toBe(info.works);
    // The new folder's snapshot has the new title, the base's keeps the old one.
    expect(readFileSync(path.join(withSnapshot, CATALOG_SNAPSHOT), 'utf8')).toContain('Für Elise (snapshot check)');
    // A layer over the base: its snapshot is a delta over the base's (the digests below compare the whole it stands for).
    expect(readFileSync(path.join(withSnapshot, CATALOG_SNAPSHOT), 'utf8')).toMatch(
      /^\{"format":1,"over":"[^"]+","removed":\[\],"works":\[\n/,
    );
    expect(readFileSync(path.join(baseDir, CATALOG_SNAPSHOT), 'utf8')).not.toContain('snapshot check');

    // The same base without its snapshot (as an older version wrote it): the whole catalog is loaded.
    const oldBase = path.join(root, 'base-without-snapshot');
    cpSync(baseDir, oldBase, { recursive: true });
    rmSync(path.join(oldBase, CATALOG_SNAPSHOT));
    const withoutSnapshot = path.join(root, 'without-snapshot');
    await buildInChild(repo, withoutSnapshot, BASE_URL, { commit, incrementalFrom: oldBase });
    expect(buildInfo(withoutSnapshot).mode).toBe('incremental');
    expect(buildInfo(withoutSnapshot).incremental.reparsedWorks).toBeNull();
    const a = digests(withSnapshot);
    const b = digests(withoutSnapshot);
    expect([...a.keys()]).toEqual([...b.keys()]);
    expect([...a].filter(([rel, d]) => b.get(rel) !== d).map(([rel]) => rel)).toEqual([]);
  }, 600_000);

  it('a content error in a changed work fails the build with the loader message, and no folder is left', async () => {
    const file = work('bach-air-orchestral-suite-3');
    const text = readFileSync(file, 'utf8');
    const broken = text.replace(/^composer: bach-johann-sebastian$/m, 'composer: bach-johann-sebastien');
    expect(broken).not.toBe(text);
    writeFileSync(file, broken);
    const commit = await commitAll('A composer who has no record');
    const out = path.join(root, 'broken');
    await expect(buildInChild(repo, out, BASE_URL, { commit, incrementalFrom: baseDir })).rejects.toThrow(
      /works\/bach-air-orchestral-suite-3\/index\.md: \/composer: names the person "bach-johann-sebastien", who has no record/,
    );
    expect(() => readdirSync(out)).toThrow();
  }, 300_000);

  it('a snapshot reads back as the loader loaded it; another format or a cut file is not used', async () => {
    const { catalog } = loadCatalog(repo);
    const dir = path.join(root, 'snapshot-unit');
    mkdirSync(dir);
    await writeSnapshot(dir, catalog);
    const works = readSnapshot(dir, repo);
    expect(works?.map((w) => ({ ...w, files: [...w.files.entries()] }))).toEqual(
      catalog.works.map((w) => ({ ...w, files: [...w.files.entries()] })),
    );
    expectEach(
      works!.flatMap((w) => [...w.files.values()]),
      (f) => f.absolutePath.startsWith(path.join(repo, 'works')),
    );
    const file = path.join(dir, CATALOG_SNAPSHOT);
    const text = readFileSync(file, 'utf8');
    writeFileSync(file, text.replace('"format":1', '"format":0'));
    expect(readSnapshot(dir, repo)).toBeNull();
    writeFileSync(file, text.slice(0, text.length - 10));
    expect(readSnapshot(dir, repo)).toBeNull();
    expect(readSnapshot(path.join(root, 'no-such-build'), repo)).toBeNull();
  });

  it('a snapshot made from its base’s lines is the bytes of one written whole, and the next build of the process takes it from memory', async () => {
    const { catalog } = loadCatalog(repo);
    const baseSnap = path.join(root, 'snapshot-reuse-base');
    mkdirSync(baseSnap);
    await writeSnapshot(baseSnap, catalog);
    const base = readBaseSnapshot(baseSnap, repo)!;
    expect(base.fromMemory).toBe(false); // a full build's snapshot is not kept in memory
    // The next commit's catalog: one work retitled, one removed, one added (in the loader's order).
    const [first, second, third] = [catalog.works[0]!, catalog.works[1]!, catalog.works[5]!];
    const added = {
      ...third,
      file: 'works/zz-added-study/index.md',
      content: { ...third.content, slug: 'zz-added-study', title: 'An added study' },
    };
    const works = [
      first,
      ...catalog.works.slice(2).map((w) => (w === third ? { ...w, content: { ...w.content, title: 'Retitled' } } : w)),
      added,
    ];
    const next = { ...catalog, works };
    const changed = new Set([workFolder(third), workFolder(added), workFolder(second)]);
    const reused = path.join(root, 'snapshot-reused');
    const whole = path.join(root, 'snapshot-whole');
    mkdirSync(reused);
    mkdirSync(whole);
    await writeSnapshot(reused, next, { reuse: { base, changed }, rememberFor: repo });
    const bytes = readFileSync(path.join(reused, CATALOG_SNAPSHOT));
    await writeSnapshot(whole, next);
    expect(bytes.equals(readFileSync(path.join(whole, CATALOG_SNAPSHOT)))).toBe(true);
    expect(bytes.toString('utf8')).toContain('"title":"Retitled"');
    // From memory: the same works, and the spans a parse of the file finds.
    await writeSnapshot(reused, next, { reuse: { base, changed }, rememberFor: repo });
    const kept = readBaseSnapshot(reused, repo)!;
    expect(kept.fromMemory).toBe(true);
    expect(kept.works).toEqual(works);
    const parsed = readBaseSnapshot(reused, repo, { fromMemory: false })!;
    expect(parsed.fromMemory).toBe(false);
    expect([...kept.spans]).toEqual([...parsed.spans]);
    expect(parsed.works.map((w) => w.content.title)).toEqual(works.map((w) => w.content.title));
    // Another content folder, or the file replaced: read from disk.
    expect(readBaseSnapshot(reused, path.join(root, 'elsewhere'))!.fromMemory).toBe(false);
    const file = path.join(reused, CATALOG_SNAPSHOT);
    const copy = `${file}.copy`;
    cpSync(file, copy);
    rmSync(file);
    cpSync(copy, file);
    expect(readBaseSnapshot(reused, repo)!.fromMemory).toBe(false);
  });

  it('a layered build writes a delta over its plain base’s snapshot, which reads back as the whole a full build writes', async () => {
    const { catalog } = loadCatalog(repo);
    const dirOf = (name: string) => {
      const dir = path.join(root, name);
      mkdirSync(dir);
      return dir;
    };
    const plainDir = dirOf('snap-plain');
    await writeSnapshot(plainDir, catalog);
    const retitle = (w: (typeof catalog.works)[number], title: string) => ({ ...w, content: { ...w.content, title } });
    const [a, b, c] = [catalog.works[0]!, catalog.works[3]!, catalog.works[7]!];
    // A new work (its stored files where its folder is, as the loader would give them).
    const added = {
      ...c,
      file: 'works/zz-layered-study/index.md',
      content: { ...c.content, slug: 'zz-layered-study' },
      files: new Map(
        [...c.files].map(([name, f]) => [
          name,
          { ...f, absolutePath: path.join(repo, 'works', 'zz-layered-study', name) },
        ]),
      ),
    };
    // Layer 1 over the plain base: a retitled work, a removed one, a new one.
    const works1 = [...catalog.works.filter((w) => w !== b).map((w) => (w === a ? retitle(w, 'Layer one') : w)), added];
    const layer1 = dirOf('snap-layer-1');
    const base0 = readBaseSnapshot(plainDir, repo)!;
    await writeSnapshot(
      layer1,
      { ...catalog, works: works1 },
      {
        reuse: { base: base0, changed: new Set([workFolder(a), workFolder(b), workFolder(added)]) },
        rememberFor: repo,
        over: 'snap-plain',
      },
    );
    // Kept in memory for the next build of the process (writing another snapshot lets it go).
    const fromMemory1 = readBaseSnapshot(layer1, repo)!;
    expect(fromMemory1.fromMemory).toBe(true);
    expect(fromMemory1.works).toEqual(works1);
    const text1 = readFileSync(path.join(layer1, CATALOG_SNAPSHOT), 'utf8');
    expect(text1.startsWith('{"format":1,"over":"snap-plain","removed":[')).toBe(true);
    expect(text1).toContain('Layer one');
    expect(text1).not.toContain(`"folder":"${workFolder(c)}"`); // an unchanged work's line is the plain base's
    const whole1 = dirOf('snap-whole-1');
    await writeSnapshot(whole1, { ...catalog, works: works1 });
    const wholeBytes1 = readFileSync(path.join(whole1, CATALOG_SNAPSHOT));
    expect(resolvedSnapshot(layer1)!.equals(wholeBytes1)).toBe(true);
    const fromFile1 = readBaseSnapshot(layer1, repo, { fromMemory: false })!;
    expect(fromFile1.works).toEqual(works1);
    expect(fromFile1.delta?.over).toBe('snap-plain');
    expect([...fromMemory1.delta!.folders].sort()).toEqual([...fromFile1.delta!.folders].sort());

    // Layer 2 over the same plain base, from layer 1 (read from its file): the new work removed
    // again, the retitled one changed back, another retitled. The delta carries every difference.
    const works2 = works1
      .filter((w) => w !== added)
      .map((w) => (w.file === a.file ? a : w === c ? retitle(c, 'Layer two') : w));
    const layer2 = dirOf('snap-layer-2');
    await writeSnapshot(
      layer2,
      { ...catalog, works: works2 },
      {
        reuse: { base: fromFile1, changed: new Set([workFolder(a), workFolder(c), workFolder(added)]) },
        over: 'snap-plain',
      },
    );
    const whole2 = dirOf('snap-whole-2');
    await writeSnapshot(whole2, { ...catalog, works: works2 });
    expect(resolvedSnapshot(layer2)!.equals(readFileSync(path.join(whole2, CATALOG_SNAPSHOT)))).toBe(true);
    expect(readBaseSnapshot(layer2, repo)!.works).toEqual(works2);
    expect(readFileSync(path.join(layer2, CATALOG_SNAPSHOT), 'utf8')).not.toContain('zz-layered-study');

    // The compaction (a whole snapshot from a layered base) writes a full build's bytes.
    const compacted = dirOf('snap-compacted');
    await writeSnapshot(
      compacted,
      { ...catalog, works: works2 },
      {
        reuse: { base: readBaseSnapshot(layer2, repo, { fromMemory: false })!, changed: new Set() },
      },
    );
    expect(
      readFileSync(path.join(compacted, CATALOG_SNAPSHOT)).equals(readFileSync(path.join(whole2, CATALOG_SNAPSHOT))),
    ).toBe(true);

    // A delta whose plain base is gone is no snapshot (the build loads the whole catalog).
    rmSync(plainDir, { recursive: true });
    expect(readBaseSnapshot(layer2, repo, { fromMemory: false })).toBeNull();
    expect(resolvedSnapshot(layer2)).toBeNull();
  });

  it('the index worker reports a base it cannot read as an error, not a crash', async () => {
    const worker = startIndexWorker(path.join(root, 'no-such-build'), []);
    try {
      await expect(worker.finish(path.join(root, 'no-such-build'))).rejects.toThrow(/cannot write the index files/);
    } finally {
      await worker.close();
    }
  }, 60_000);

  it('one index worker thread serves every build of the process; a job its build ended before the index step leaves the next one working', async () => {
    const indexOf = (dir: string) =>
      new Map(readdirSync(path.join(dir, 'index')).map((f) => [f, readFileSync(path.join(dir, 'index', f))]));
    // A build that failed before its index step: its job is let go.
    const cancelled = startIndexWorker(baseDir, ['beethoven-fur-elise']);
    const thread = indexWorkerThread();
    expect(thread).not.toBeNull();
    await cancelled.close();
    // A failing job (no base) does not end the thread either.
    const failing = startIndexWorker(path.join(root, 'no-such-build'), []);
    await expect(failing.finish(path.join(root, 'no-such-build'))).rejects.toThrow(/cannot write the index files/);
    await failing.close();
    // Nothing changed: the index files are the base's, byte for byte, twice.
    for (const name of ['again-1', 'again-2']) {
      const out = path.join(root, name);
      mkdirSync(out, { recursive: true });
      const job = startIndexWorker(baseDir, []);
      try {
        const result = await job.finish(out, path.join(baseDir, 'client'));
        expect(result).toMatchObject({ works: 26, listing: 'merged', resolve: 'merged' });
      } finally {
        await job.close();
      }
      expect(indexOf(out)).toEqual(indexOf(baseDir));
      expect(indexWorkerThread()).toBe(thread);
    }
  }, 60_000);

  it('the early merge is kept only when the rendered records are the predicted ones', async () => {
    const indexOf = (dir: string) =>
      new Map(readdirSync(path.join(dir, 'index')).map((f) => [f, readFileSync(path.join(dir, 'index', f))]));
    const slug = 'beethoven-fur-elise';
    const record = JSON.parse(
      readFileSync(path.join(baseDir, 'client', 'api', 'v1', 'works', slug, 'index.json'), 'utf8'),
    ).data;
    // The rendered records are the base's (nothing changed): the right prediction, then a wrong one.
    const wrong = { ...record, title: `${record.title} (predicted wrong)` };
    for (const [name, predicted, merge] of [
      ['predicted-right', record, 'early'],
      ['predicted-wrong', wrong, 'at finish'],
    ] as const) {
      const out = path.join(root, name);
      mkdirSync(out, { recursive: true });
      const job = startIndexWorker(baseDir, [slug]);
      try {
        job.predict([predicted], out);
        const result = await job.finish(out, path.join(baseDir, 'client'));
        expect(result).toMatchObject({ listing: 'merged', resolve: 'merged', merge });
        expect(result.mergedLateBecause).toBe(
          merge === 'early' ? undefined : 'the rendered records are not the predicted ones',
        );
      } finally {
        await job.close();
      }
      // Either way, the index of the rendered records: the base's; the early files' staging
      // folder was renamed into place or removed.
      expect(indexOf(out)).toEqual(indexOf(baseDir));
      expect(readdirSync(out)).toEqual(['index']);
    }
  }, 60_000);
});
