/**
 * A build's plan: what a build folder will hold, decided before anything is written. A plan names
 * its base (an earlier complete build this one starts from, or none: a full build), the works in
 * scope (those whose pages, records, scores and zips are made; every work without a base) and the
 * folder it writes. The steps (build/steps/) carry it out the same way with or without a
 * base (docs/decisions/0050-one-build-pipeline.md).
 *
 * With a base, the plan is the incremental build's reasoning (docs/review.md, "Apply-to-visible
 * and the incremental path"):
 *   1. `git diff --name-only --no-renames B N` in the content worktree. Every path must lie in a
 *      work's folder (`works/<slug>/...`); any other path (instruments.json, genres.json, a
 *      profile, the layout of the repository) is a shared input: full build.
 *   2. The content is checked as a full build checks it (`loadCatalog`; the same lint messages),
 *      but only the changed works' folders are parsed and checked: every other work comes from the
 *      base build's `catalog-snapshot.json` (build/catalog-snapshot.ts), which every build
 *      writes (a base without one: the whole catalog is loaded).
 *      A changed work whose composer differs from its earlier version, or from another work of
 *      the same composer, or a new/removed work that would add or remove a composer, changes
 *      composer pages and slugs across the catalog: full build.
 *   3. The scope: the changed works; the browse pages of the values they left or joined, their
 *      composer's page, the pages of the profiles their arrangements use(d), and the JSON records
 *      of those whose usage list the change alters (`ChangePlan`).
 * Any reason the plan cannot be sure of the result is a `FullBuildNeeded`, and the caller builds
 * without a base instead; a content error fails as it would in a full build.
 */
import { execFileSync } from 'node:child_process';
import { runChecked } from '../api/process/spawner.ts';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  formatLintMessage,
  knownSlugOrdered,
  loadCatalog,
  markSlugOrdered,
  type Catalog,
  type LoadedWork,
  type LoadResult,
} from '../src/domain/catalog.ts';
import { parseWorkFile } from '../src/domain/work-file.ts';
import { profileRecordsChangedBy } from '../src/domain/records.ts';
import { WorkFile, type WorkContent } from '../src/schemas/work.ts';
import type { PersonContent } from '../src/schemas/person.ts';
import { peopleOfWork, resolveWork } from '../src/domain/people.ts';
import { validate } from '../src/domain/validation.ts';
import { fold } from '../src/domain/text.ts';
import { layerMaxPathsFrom, nextBuildKind, type LayerManifest } from '../src/domain/site-layers.ts';
import { readLayerManifest, SiteView } from '../src/lib/site/layers.ts';
import { composerScopeKey, facetKeysOf, personScopeKey } from '../src/lib/site/facets.ts';
import { forgetSnapshot, readBaseSnapshot, workFolder, type SnapshotReuse } from './catalog-snapshot.ts';
import { siteCodeDigest } from './site-code.ts';
import { forgetWorksIndexPageKeys } from '../src/lib/site/works-index.ts';
import { forgetSiteModel } from '../src/lib/site-data.ts';
import { forgetBrowsePageKeys } from '../src/lib/site/browse-pages.ts';
import { batchWorksFrom } from './astro.ts';
import { lowerBound, patchSorted, workToSlug } from '../src/lib/site/kept-order.ts';
import { forgetScoreManifest, readScoreManifest, type ManifestFile } from './score-manifest.ts';
import { ContentError, PROJECT_ROOT, SCORES_MANIFEST, type BuildInfo, type BuildOptions } from './types.ts';

/** The incremental path cannot vouch for the result; the message says why (build.json `fallbackReason`). */
export class FullBuildNeeded extends Error {}

/** What a change from the base commit touches, as the incremental build sees it. */
export interface ChangePlan {
  changedFiles: string[];
  /** Work slugs whose folder changed (added, edited or removed). */
  works: string[];
  /** Browse keys ("facet/value") the changed works had before or have now, and their composers' keys (`composerScopeKey`). */
  facets: string[];
  /**
   * Profiles whose page a change reaches: those the changed works' arrangements used before or use
   * now, when the work's entry in the profile's usage changed or the work's title did (the page
   * lists the first works by title).
   */
  profiles: string[];
  /**
   * Profiles whose JSON record (and definition record) is rendered again: those whose usage list
   * the change alters (`profileRecordsChangedBy`). At 100,000 works a record lists tens of
   * thousands of works (1.2-2.1 MB), so a correction that leaves a work's arrangements alone does
   * not render it.
   */
  profileRecords: string[];
}

function gitIn(dir: string, args: string[]): string {
  return execFileSync('git', ['-C', dir, ...args], {
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

/**
 * The files that differ between two commits (renames as a delete and an add). git is started by
 * the spawner process (api/process/spawner.ts): started from the warm build process (2-3 GB at
 * 100,000 works) it cost about 80 ms of this thread per apply, most of it copying the memory map.
 */
export async function changedFiles(contentDir: string, from: string, to: string): Promise<string[]> {
  try {
    const out = await runChecked('git', ['-C', contentDir, 'diff', '--name-only', '--no-renames', '-z', from, to], {
      stdoutLimit: 256 * 1024 * 1024,
    });
    return out.toString('utf8').split('\0').filter(Boolean).sort();
  } catch (err) {
    throw new FullBuildNeeded(
      `cannot diff ${from.slice(0, 12)}..${to.slice(0, 12)}: ${((err as { stderr?: string }).stderr || String(err)).trim().split('\n')[0]}`,
    );
  }
}

const WORK_FILE = /^works\/([^/]+)\/.+$/;

/**
 * The earlier version of a work's content, from the base commit; null when it had none. Resolved
 * against `people`, the people of the new commit: a build on a base is planned only when no person
 * record changed (`planOnBase`), so they are the base's too.
 */
function contentAt(
  contentDir: string,
  commit: string,
  slug: string,
  people: ReadonlyMap<string, PersonContent>,
  asOfYear: number,
): WorkContent | null {
  let text: string;
  try {
    text = gitIn(contentDir, ['show', `${commit}:works/${slug}/index.md`]);
  } catch {
    return null;
  }
  let data: unknown;
  try {
    data = parseWorkFile(text).data;
  } catch {
    throw new FullBuildNeeded(`works/${slug}/index.md at the base commit does not parse`);
  }
  // With the schema's defaults, as loadCatalog reads it (alsoSuits, moods ... may be left out).
  if (validate(WorkFile, data, { useDefaults: true }).length > 0)
    throw new FullBuildNeeded(`works/${slug}/index.md at the base commit does not validate`);
  const resolved = resolveWork(data as WorkFile, people, asOfYear);
  if (resolved.content === null)
    throw new FullBuildNeeded(`works/${slug}/index.md at the base commit names a person with no record`);
  return resolved.content;
}

const composerKey = (c: WorkContent['composer']) => `${fold(c.sortName)}|${c.born}`;

// Each composer object's key and JSON text, once per process: the builds of the warm build process
// share the loaded works a change did not touch (build/catalog-snapshot.ts), so an apply works
// out only the changed works' (at 100,000 works, folding and serializing every composer was about
// 0.4 s of each apply's plan).
const composerFacts = new WeakMap<WorkContent['composer'], { key: string; text: string }>();
function composerFactsOf(c: WorkContent['composer']): { key: string; text: string } {
  let facts = composerFacts.get(c);
  if (facts === undefined) composerFacts.set(c, (facts = { key: composerKey(c), text: JSON.stringify(c) }));
  return facts;
}

const profileSlugsOf = (c: WorkContent) => c.arrangements.flatMap((a) => a.renderingProfileSlugs);

/** Per composer key (`composerKey`), how many works write the composer each way (its JSON text). */
type ComposerCensus = ReadonlyMap<string, ReadonlyMap<string, number>>;
const censuses = new WeakMap<readonly LoadedWork[], ComposerCensus>();

/** The census of a works array: kept (patched by `planOnBase`), or counted in one walk. */
export function composerCensus(works: readonly LoadedWork[]): ComposerCensus {
  let census = censuses.get(works);
  if (census !== undefined) return census;
  const counted = new Map<string, Map<string, number>>();
  for (const w of works) {
    const { key, text } = composerFactsOf(w.content.composer);
    let texts = counted.get(key);
    if (texts === undefined) counted.set(key, (texts = new Map()));
    texts.set(text, (texts.get(text) ?? 0) + 1);
  }
  census = counted;
  censuses.set(works, census);
  return census;
}

/**
 * The census of `works` made from the base's (`baseWorks`, when counted) without the `removed`
 * works and with the `added` ones: `works` must be exactly that. Only the touched composers' counts
 * are copied; the base's census is not changed.
 */
export function patchComposerCensus(
  baseWorks: readonly LoadedWork[],
  works: readonly LoadedWork[],
  removed: Iterable<LoadedWork>,
  added: readonly LoadedWork[],
): void {
  const base = censuses.get(baseWorks);
  if (base === undefined || censuses.has(works)) return;
  const out = new Map(base);
  const copied = new Set<string>();
  /** False when a removed work was not counted: the census is not the base's (then `works` is walked). */
  const count = (w: LoadedWork, by: 1 | -1): boolean => {
    const { key, text } = composerFactsOf(w.content.composer);
    let texts = out.get(key) as Map<string, number> | undefined;
    if (!copied.has(key) || texts === undefined) {
      texts = new Map(texts);
      copied.add(key);
    }
    const n = (texts.get(text) ?? 0) + by;
    if (n < 0) return false;
    if (n > 0) texts.set(text, n);
    else texts.delete(text);
    if (texts.size === 0) out.delete(key);
    else out.set(key, texts);
    return true;
  };
  for (const w of removed) if (!count(w, -1)) return;
  for (const w of added) count(w, 1);
  censuses.set(works, out);
}

/** Decide what to re-render, or why only a full build will do. */
export function planChange(
  contentDir: string,
  baseCommit: string,
  files: string[],
  works: LoadedWork[],
  genres: Parameters<typeof facetKeysOf>[1],
  baseWorks: Map<string, LoadedWork> | null = null,
  people: { bySlug: ReadonlyMap<string, PersonContent>; asOfYear: number } = { bySlug: new Map(), asOfYear: 0 },
): ChangePlan {
  const slugs = new Set<string>();
  for (const file of files) {
    const m = WORK_FILE.exec(file);
    if (!m) throw new FullBuildNeeded(`${file} is a shared input`);
    slugs.add(m[1]!);
  }
  const bySlug = new Map<string, LoadedWork>();
  for (const w of works) if (slugs.has(w.content.slug)) bySlug.set(w.content.slug, w);
  // Each changed work as the base commit had it: from the base build's snapshot when the plan has
  // it (`baseWorks`: the base's loaded works of the changed folders, absent for a new one), from
  // git otherwise.
  const changed = [...slugs].map((slug) => ({
    slug,
    now: bySlug.get(slug)?.content ?? null,
    before: baseWorks
      ? (baseWorks.get(slug)?.content ?? null)
      : contentAt(contentDir, baseCommit, slug, people.bySlug, people.asOfYear),
  }));
  // Composer pages, slugs and "first written" names come from every work of a composer, so a
  // changed work may only keep a composer exactly as every other work writes it. The catalog's
  // composers are counted once per works array (`composerCensus`: patched from the base's in an
  // apply of the warm build process), and only the changed works' composers are looked up.
  const census = composerCensus(works);
  const followed = new Map<string, { texts: Set<string>; unchanged: number }>();
  for (const { before, now } of changed)
    for (const c of [before, now]) {
      if (!c) continue;
      const key = composerFactsOf(c.composer).key;
      const texts = census.get(key) ?? new Map<string, number>();
      let total = 0;
      for (const n of texts.values()) total += n;
      followed.set(key, { texts: new Set(texts.keys()), unchanged: total });
    }
  // The changed works the catalog holds are not "unchanged".
  for (const { now } of changed) if (now) followed.get(composerFactsOf(now.composer).key)!.unchanged--;
  const facets = new Set<string>();
  const profiles = new Set<string>();
  const profileRecords = new Set<string>();
  for (const { slug, before, now } of changed) {
    for (const c of [before, now]) {
      if (!c) continue;
      const key = composerKey(c.composer);
      const composer = followed.get(key)!;
      if (composer.unchanged === 0 && !(before && now && composerKey(before.composer) === composerKey(now.composer))) {
        throw new FullBuildNeeded(`works/${slug} adds or removes the composer ${c.composer.name}`);
      }
      if (composer.texts.size > 1)
        throw new FullBuildNeeded(`works/${slug}: the works of ${c.composer.name} write the composer differently`);
      for (const k of facetKeysOf(c, genres)) facets.add(k);
      // Its composer's page, also when the work left it (not a browse folder: composer pages are never removed here).
      facets.add(composerScopeKey(c.composer));
      // The pages of the people it names (person pages list their works).
      for (const p of peopleOfWork(c)) facets.add(personScopeKey(p.slug));
    }
    if (before && now && JSON.stringify(before.composer) !== JSON.stringify(now.composer)) {
      throw new FullBuildNeeded(`works/${slug} changes its composer`);
    }
    const records = profileRecordsChangedBy(before, now);
    for (const p of records) profileRecords.add(p);
    // A profile's page shows the work's title and usage entry; the usage is in `records`.
    const pages = before?.title === now?.title ? records : [before, now].flatMap((c) => (c ? profileSlugsOf(c) : []));
    for (const p of pages) profiles.add(p);
  }
  return {
    changedFiles: files,
    works: [...slugs].sort(),
    facets: [...facets].sort(),
    profiles: [...profiles].sort(),
    profileRecords: [...profileRecords].sort(),
  };
}

/**
 * The catalog of the new commit, re-parsing and re-checking only the works whose folders changed:
 * every other work comes from the base build's snapshot (build/catalog-snapshot.ts). Without a
 * snapshot (a base made by an older version), the whole catalog is loaded as a full build loads it.
 */
function loadChanged(
  contentDir: string,
  baseDir: string,
  files: string[],
  asOfYear: number,
): LoadResult & {
  reparsed: number | null;
  before: Map<string, LoadedWork> | null;
  snapshot: (SnapshotReuse & { fromMemory: boolean }) | null;
} {
  const base = readBaseSnapshot(baseDir, contentDir);
  if (!base) return { ...loadCatalog(contentDir, { asOfYear }), reparsed: null, before: null, snapshot: null };
  const baseWorks = base.works;
  const touched = new Set(files.map((f) => WORK_FILE.exec(f)?.[1]).filter((s): s is string => s !== undefined));
  // Shared inputs (instruments, profiles, genres) are loaded whole: the changed works are checked against them.
  const loaded = loadCatalog(contentDir, { works: touched, asOfYear });
  // The touched works as the base build had them (absent: new works), and the others.
  const { kept, before } = knownSlugOrdered(baseWorks)
    ? splitOrdered(baseWorks, touched)
    : splitWalking(baseWorks, touched);
  // The one check across works: slugs equal folder names and differ in more than letter case.
  // A clash is left to a full build, which reports it with the loader's exact message. A slug is
  // lower case (SLUG_PATTERN) and the kept works' were checked, so only a changed folder with a
  // capital letter (which fails its own checks) can clash: the kept names are folded only then.
  if (loaded.catalog.works.some((w) => workFolder(w) !== workFolder(w).toLowerCase())) {
    const keptKeys = new Set(kept.map((w) => workFolder(w).toLowerCase()));
    const newKeys = new Set<string>();
    for (const w of loaded.catalog.works) {
      const key = workFolder(w).toLowerCase();
      if (keptKeys.has(key) || newKeys.has(key))
        throw new FullBuildNeeded(`works/${workFolder(w)} has a slug that differs from another only in letter case`);
      newKeys.add(key);
    }
  }
  const works = inFolderOrder(kept, loaded.catalog.works);
  // The composers counted for the base's works, patched for these (planChange looks them up).
  patchComposerCensus(baseWorks, works, before.values(), loaded.catalog.works);
  return {
    catalog: { ...loaded.catalog, works },
    messages: loaded.messages,
    reparsed: loaded.catalog.works.length,
    before,
    snapshot: { base, changed: touched, fromMemory: base.fromMemory },
  };
}

type Split = { kept: LoadedWork[]; before: Map<string, LoadedWork> };

/** The base's works in the loader's order (slug = folder): the touched ones found by binary search. */
function splitOrdered(baseWorks: readonly LoadedWork[], touched: ReadonlySet<string>): Split {
  const before = new Map<string, LoadedWork>();
  const at: number[] = [];
  for (const folder of touched) {
    const i = lowerBound(baseWorks, folder, workToSlug);
    if (i < baseWorks.length && baseWorks[i]!.content.slug === folder) {
      before.set(folder, baseWorks[i]!);
      at.push(i);
    }
  }
  const kept = baseWorks.slice();
  for (const i of at.sort((a, b) => b - a)) kept.splice(i, 1);
  // What is left of an array in the loader's order is in that order.
  return { kept: markSlugOrdered(kept), before };
}

/** The same for a base whose order is not known: every work's folder read. */
function splitWalking(baseWorks: readonly LoadedWork[], touched: ReadonlySet<string>): Split {
  const before = new Map<string, LoadedWork>();
  const kept: LoadedWork[] = [];
  for (const w of baseWorks) {
    if (touched.has(workFolder(w))) before.set(workFolder(w), w);
    else kept.push(w);
  }
  return { kept, before };
}

const byFolder = (a: LoadedWork, b: LoadedWork) => {
  const x = workFolder(a);
  const y = workFolder(b);
  return x < y ? -1 : x > y ? 1 : 0;
};

/**
 * The kept works and the loaded ones in the loader's order: folder names, sorted as
 * readdirSync(...).sort() sorts them. The kept works come in that order (the base's), so the few
 * loaded ones are put in their places; kept works out of order are sorted with them.
 */
function inFolderOrder(kept: LoadedWork[], loaded: LoadedWork[]): LoadedWork[] {
  const keptOrdered = knownSlugOrdered(kept);
  if (!keptOrdered)
    for (let i = 1; i < kept.length; i++)
      if (byFolder(kept[i - 1]!, kept[i]!) > 0) return [...kept, ...loaded].sort(byFolder);
  const merged = patchSorted(kept, [], loaded, byFolder);
  if (merged === null) return [...kept, ...loaded].sort(byFolder);
  // Both in the loader's order, every slug its folder's name: so is the merge.
  return keptOrdered && knownSlugOrdered(loaded) ? markSlugOrdered(merged) : merged;
}

/** The earlier complete build a plan starts from, and what the change from it touches. */
export interface BasePlan {
  /** The base build's folder. */
  dir: string;
  /** Its build.json. */
  info: BuildInfo;
  change: ChangePlan;
  /** Works parsed and checked again (the rest came from the base's snapshot); null: the whole catalog was loaded. */
  reparsed: number | null;
  /** The changed works as the base had them (absent: new works); null when the base's works are not known. */
  before: Map<string, LoadedWork> | null;
  /** The base's catalog snapshot, for the new folder's (its unchanged works' lines are copied). */
  snapshot: (SnapshotReuse & { fromMemory: boolean }) | null;
  /** The base's score manifest (every work's scores; the changed works' entries are replaced), with its text and file. */
  scores: ManifestFile;
  /** A layered base's manifest, or null for a plain base (src/lib/site/layers.ts). */
  layer: LayerManifest | null;
  /** The base's files as served. */
  view: SiteView;
  /**
   * The new folder: a layer over the base's own plain base, or a linked copy of the base's whole
   * view (layers off; or past ARCHIVE_LAYER_MAX_PATHS, the compaction: a new plain base).
   */
  kind: 'layer' | 'copy';
}

export interface BuildPlan {
  options: BuildOptions;
  contentDir: string;
  /** The build folder this plan writes (`client/` the site, build.json last). */
  outDir: string;
  clientDir: string;
  commit: string | null;
  /** Every record's time: now, or the caller's; with a base, the base's (the full build it descends from). */
  generatedAtUtc: string;
  /** The site code's digest (build/site-code.ts), recorded in build.json. */
  siteCode: string;
  /** Works per Astro run of a build without a base (build/astro.ts). */
  batchWorks: number;
  /** The slugs of the works in scope, sorted: every work without a base. */
  scope: string[];
  base: BasePlan | null;
  /** When planning began (the build's durationMs counts from here). */
  startedAt: number;
  /** The plan's own time (ms): loadMs; with a base also diffMs before it and planMs after. */
  phases: Record<string, number>;
}

/** A plan, and the catalog it was made from (the steps hold it, and a full build lets it go early). */
export interface PlannedBuild {
  plan: BuildPlan;
  catalog: Catalog;
}

function planClock(): ((name: string) => void) & { phases: Record<string, number> } {
  let mark = Date.now();
  const phases: Record<string, number> = {};
  return Object.assign(
    (name: string) => {
      const now = Date.now();
      phases[name] = now - mark;
      mark = now;
    },
    { phases },
  );
}

/** The year a build's rights are derived for: the year of its time. */
function rightsYearOf(generatedAtUtc: string): number {
  const y = Number(generatedAtUtc.slice(0, 4));
  return Number.isInteger(y) && y >= 1900 ? y : new Date().getUTCFullYear();
}

function outputsOf(options: BuildOptions) {
  const outDir = path.resolve(options.outDir);
  return { contentDir: path.resolve(options.contentDir), outDir, clientDir: path.join(outDir, 'client') };
}

/**
 * The plan of a build from `baseDir` (a complete earlier build), or of a full build without one.
 * Throws FullBuildNeeded when the base cannot be built on, ContentError when the content fails its checks.
 */
export async function planBuild(options: BuildOptions, baseDir?: string | null): Promise<PlannedBuild> {
  return baseDir ? planOnBase(options, path.resolve(baseDir)) : planFull(options);
}

function planFull(options: BuildOptions): PlannedBuild {
  const startedAt = Date.now();
  const clock = planClock();
  const outputs = outputsOf(options);
  const siteCode = siteCodeDigest(PROJECT_ROOT);
  // A full build reads no snapshot and no earlier run's page keys; the warm build process's
  // memory of the last apply's is let go.
  forgetSnapshot();
  forgetScoreManifest();
  forgetSiteModel();
  forgetWorksIndexPageKeys();
  forgetBrowsePageKeys();
  const generatedAtUtc = options.generatedAtUtc ?? new Date().toISOString();
  // Rights are derived for the year of the build's time, so two builds of one time agree.
  const loaded = loadCatalog(outputs.contentDir, { asOfYear: rightsYearOf(generatedAtUtc) });
  if (loaded.messages.length > 0) throw new ContentError(loaded.messages.map(formatLintMessage));
  clock('loadMs');
  const catalog = loaded.catalog;
  return {
    plan: {
      options,
      ...outputs,
      commit: options.commit ?? null,
      generatedAtUtc,
      siteCode,
      batchWorks: options.batchWorks ?? batchWorksFrom(process.env.ARCHIVE_BUILD_BATCH_WORKS),
      scope: catalog.works.map((w) => w.content.slug).sort(),
      base: null,
      startedAt,
      phases: clock.phases,
    },
    catalog,
  };
}

async function planOnBase(options: BuildOptions, baseDir: string): Promise<PlannedBuild> {
  const startedAt = Date.now();
  const outputs = outputsOf(options);
  if (!existsSync(path.join(baseDir, 'build.json')))
    throw new FullBuildNeeded(`the base ${path.basename(baseDir)} is not a complete build`);
  const info = JSON.parse(readFileSync(path.join(baseDir, 'build.json'), 'utf8')) as BuildInfo;
  if (!info.commit) throw new FullBuildNeeded('the base build does not name its commit');
  if (info.baseUrl !== options.baseUrl) throw new FullBuildNeeded('the base build was made for another base URL');
  if ((info.readerSignIn ?? 'none') !== (options.readerSignIn ?? 'none'))
    throw new FullBuildNeeded('the base build was made for another reader sign-in');
  if (!existsSync(path.join(baseDir, SCORES_MANIFEST)))
    throw new FullBuildNeeded('the base build kept no score manifest');
  if (!options.commit) throw new FullBuildNeeded('no commit named');
  // The pages not rendered again are the base's: the same code must have made them.
  const siteCode = siteCodeDigest(PROJECT_ROOT);
  if (!info.siteCode) throw new FullBuildNeeded('the base build does not record its site code');
  if (info.siteCode !== siteCode) throw new FullBuildNeeded('the site code changed since the base build');
  const clock = planClock();
  // Every record of the folder carries the base's time, and its rights are derived for that year:
  // in a new year the whole catalog is derived again (a work may have become free on 1 January).
  const asOfYear = rightsYearOf(info.generatedAtUtc);
  if (asOfYear !== rightsYearOf(options.generatedAtUtc ?? new Date().toISOString()))
    throw new FullBuildNeeded(`the base build's rights were derived for ${asOfYear}, not this year`);
  const files = await changedFiles(outputs.contentDir, info.commit, options.commit);
  // A person record reaches every work that names them: a shared input.
  for (const file of files) if (!WORK_FILE.test(file)) throw new FullBuildNeeded(`${file} is a shared input`);
  clock('diffMs');
  const { catalog, messages, reparsed, before, snapshot } = loadChanged(outputs.contentDir, baseDir, files, asOfYear);
  if (messages.length > 0) throw new ContentError(messages.map(formatLintMessage));
  clock('loadMs');
  const change = planChange(outputs.contentDir, info.commit, files, catalog.works, catalog.genres, before, {
    bySlug: new Map(catalog.people.map((p) => [p.content.slug, p.content])),
    asOfYear,
  });
  // A layered base's view is its delta over its own base (src/lib/site/layers.ts).
  let layer: LayerManifest | null;
  let view: SiteView;
  try {
    layer = readLayerManifest(baseDir);
    view = SiteView.of(baseDir, layer);
  } catch (err) {
    throw new FullBuildNeeded(`the base's layer cannot be read: ${(err as Error).message}`);
  }
  if (layer && !existsSync(path.join(view.base!, '..', 'build.json')))
    throw new FullBuildNeeded(`the base's own base ${layer.base} is gone`);
  const scores = readScoreManifest(baseDir);
  clock('planMs');
  return {
    plan: {
      options,
      ...outputs,
      commit: options.commit,
      // Every record of the folder carries one time: the full build it descends from.
      generatedAtUtc: info.generatedAtUtc,
      siteCode,
      batchWorks: options.batchWorks ?? batchWorksFrom(process.env.ARCHIVE_BUILD_BATCH_WORKS),
      scope: change.works,
      base: {
        dir: baseDir,
        info,
        change,
        reparsed,
        before,
        snapshot,
        scores,
        layer,
        view,
        kind: nextBuildKind(layer, layerMaxPathsFrom(process.env.ARCHIVE_LAYER_MAX_PATHS)),
      },
      startedAt,
      phases: clock.phases,
    },
    catalog,
  };
}
