/**
 * The warm-up at a server's start (ARCHIVE_WARM_BUILDER_WARM_UP; api/site/warm-up.ts,
 * `StartPreparation`): the warm build process (api/site/warm-builder.ts) plans a build of the
 * content's HEAD on the served build and runs its first two steps (scores, astro) into a scratch
 * folder, which is then removed. What an apply would otherwise pay on the first build after a
 * start stays in the process for it:
 *
 * - the served build's catalog snapshot, read and parsed once and kept for the next build that
 *   starts from that folder (build/catalog-snapshot.ts, `rememberBaseSnapshot`): about 6.5 s at
 *   100,000 works;
 * - Astro's compiled pages (build/warm-render.ts): the warm-up's render is a real Astro run,
 *   which captures its app, so the first apply renders through it;
 * - the work entries, kept orders and page keys the pages compute (src/lib/site-data.ts,
 *   src/lib/site/kept-order.ts, works-index.ts, browse-pages.ts), for the unchanged works: the
 *   keys of every browse value's pages too, which its own run does not render (`warmUp` in the
 *   scope), so the first apply to reach a value hashes only the pages its change touches;
 * - every work's asset entries (src/domain/records.ts), which each build's rest step reads;
 * - the served build's score manifest, parsed, with its parts made (build/score-manifest.ts);
 * - the composers of the served build's works, counted (build/plan.ts, `composerCensus`);
 * - the content validators (compiled once: the work schema's alone about 0.2 s), and the search
 *   and index worker threads, started and loading their modules (each about 0.4-0.5 s of CPU),
 *   idle until the first apply's build gives them a job; the search worker's Pagefind process
 *   started too, and one search shard indexed again as an apply would (its files left to the
 *   view), so the first apply's search runs code that has run.
 *
 * Nothing is served from it and nothing outside the scratch folder is written. A base that cannot
 * be built on (another site code, a shared input changed) is not warmed up on (`skipped` says why):
 * the first apply is then a full build, which no warm-up shortens.
 */
import { rmSync } from 'node:fs';
import path from 'node:path';
import { prepareIndexWorker } from '../api/catalog/build-index.ts';
import { prepareContentValidators } from '../src/domain/catalog.ts';
import { publishedBlobs } from '../src/domain/records.ts';
import { buildSearchIndexInWorker, prepareSearchWorker } from '../src/lib/site/search-index.ts';
import { searchShardReuse } from './search-reuse.ts';
import { rememberBaseSnapshot } from './catalog-snapshot.ts';
import { composerCensus, FullBuildNeeded, planBuild, type PlannedBuild } from './plan.ts';
import { BuildRun, runSteps } from './runner.ts';
import { render } from './steps/render.ts';
import { scores } from './steps/scores.ts';
import { rememberBaseManifest } from './score-manifest.ts';
import type { BuildOptions, RendererUsed } from './types.ts';

export interface WarmUpResult {
  durationMs: number;
  /** Each step's time, as build.json's phases. */
  phases: Record<string, number>;
  /** Works in the catalog. */
  works: number;
  /** How the pages were rendered: a real Astro run unless this process had compiled the same site code already. */
  renderer: RendererUsed | null;
  /** The base's snapshot was read from its file (and is now kept), not taken from memory. */
  snapshotRead: boolean;
  /** Why nothing was warmed up beyond the threads and validators: the base cannot be built on. */
  skipped?: string;
  /** Why no search shard was indexed (`phases.searchMs` when one was). */
  searchFailed?: string;
}

export async function warmUp(options: BuildOptions, baseDir: string): Promise<WarmUpResult> {
  const started = Date.now();
  prepareContentValidators();
  prepareSearchWorker();
  prepareIndexWorker();
  let planned: PlannedBuild;
  try {
    planned = await planBuild(options, baseDir);
  } catch (err) {
    if (!(err instanceof FullBuildNeeded)) throw err;
    return {
      durationMs: Date.now() - started,
      phases: {},
      works: 0,
      renderer: null,
      snapshotRead: false,
      skipped: err.message,
    };
  }
  const { plan, catalog } = planned;
  const snapshot = plan.base?.snapshot ?? null;
  if (snapshot && !snapshot.fromMemory) rememberBaseSnapshot(snapshot.base, plan.contentDir);
  // The composers of the served build's works, counted now: the first apply patches its count
  // (planChange) instead of walking every work (about 0.08 s at 100,000 works).
  if (snapshot) composerCensus(snapshot.base.works);
  const run = new BuildRun(plan, catalog);
  run.warmUp = true;
  let searchFailed: string | undefined;
  try {
    await runSteps(run, [scores, render]);
    if (plan.base) searchFailed = await warmSearch(plan.base, plan.outDir, catalog, run.phases);
  } finally {
    rmSync(plan.outDir, { recursive: true, force: true });
  }
  // Every work's asset entries, which the rest step reads of every work (kept per loaded work:
  // src/domain/records.ts): about 0.3 s of the first apply at 100,000 works otherwise.
  publishedBlobs(catalog);
  // The served build's score manifest, read by the plan (the scores step above remembered the
  // scratch folder's, now removed).
  if (plan.base) rememberBaseManifest(plan.base.scores);
  return {
    durationMs: Date.now() - started,
    phases: run.phases,
    works: run.counts.works,
    renderer: run.renderer ?? null,
    snapshotRead: snapshot !== null && !snapshot.fromMemory,
    ...(searchFailed !== undefined ? { searchFailed } : {}),
  };
}

/**
 * One search shard indexed again as an apply indexes it (the shard of the catalog's first work,
 * over the base's view), into the scratch folder: the main thread's records, the search worker's
 * and Pagefind's parts run once before the first apply needs them. Nothing is written but the
 * files the view lacks (none: the records are the base's). Its time goes in `phases.searchMs`; a
 * failure is returned (the first apply's own search reports its own), not thrown.
 */
async function warmSearch(
  base: NonNullable<PlannedBuild['plan']['base']>,
  outDir: string,
  catalog: PlannedBuild['catalog'],
  phases: Record<string, number>,
): Promise<string | undefined> {
  const started = Date.now();
  try {
    const slugs = catalog.works.map((w) => w.content.slug);
    const reuse = searchShardReuse(base.view, slugs, slugs.slice(0, 1));
    if (reuse === null) return 'the base has no sharded search index';
    await buildSearchIndexInWorker(path.join(outDir, '.search'), catalog, {
      reuse: { ...reuse, link: false, view: base.dir },
    });
    phases.searchMs = Date.now() - started;
    return undefined;
  } catch (err) {
    return (err as Error).message;
  }
}
