/**
 * Rendering the pages: one Astro run in this process (or the warm renderer, which renders through
 * the compiled pages an earlier run left loaded: build/warm-render.ts), and a full build's
 * runs in batches of works.
 */
import {
  copyFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import type { Catalog } from '../src/domain/catalog.ts';
import { buildScope, dropSharedSiteData, shareCatalog } from '../src/lib/site-data.ts';
import { isCodeOnlyRoute } from '../src/lib/site/code-only-pages.ts';
import { siteCodeDigest } from './site-code.ts';
import { warmAppKey, warmCapture, warmKey, warmRender } from './warm-render.ts';
import { PROJECT_ROOT, type RendererUsed } from './types.ts';

export interface AstroRun {
  contentDir: string;
  baseUrl: string;
  generatedAtUtc: string;
  /** A scratch folder the run may use (Astro's staging files, a borrowed node_modules link). */
  workDir: string;
  /** Where the pages go. */
  clientDir: string;
  scoresManifest: string;
  /** An incremental build's scope file (src/lib/site-data.ts, ARCHIVE_BUILD_SCOPE); none: every page. */
  scopeFile?: string;
  /** The catalog already loaded and checked from contentDir: the pages use it instead of parsing every work again. */
  catalog?: Catalog;
  readerSignIn?: 'github' | 'none';
  quiet?: boolean;
  /** Keep the site data the run built for the next run of the same build (batches); otherwise dropped when the run ends. */
  keepSiteData?: boolean;
  /**
   * Make the site data from the last incremental build's in this process, and keep it for the
   * next (src/lib/site-data.ts, `shareCatalog` with `patch`): an incremental build's run.
   */
  patchSiteData?: boolean;
  /**
   * Render through the warm renderer when this process holds Astro's compiled pages for the same
   * site code and settings (build/warm-render.ts). Only for a run whose output joins a base
   * built by the same code: a warm run writes pages and records, not the browser's bundles.
   */
  warm?: boolean;
  /** The site code's digest (build/site-code.ts), when the caller has it: the warm renderer's key. */
  siteCode?: string;
}

let warmScopes = 0;

/** Run `astro build` once in this process (the build is a child process of the server). */
export async function runAstro(run: AstroRun): Promise<RendererUsed> {
  const cacheDir = path.join(run.workDir, '.cache');
  const env: Record<string, string> = {
    ARCHIVE_CONTENT_DIR: run.contentDir,
    PUBLIC_BASE_URL: run.baseUrl,
    ARCHIVE_GENERATED_AT: run.generatedAtUtc,
    ARCHIVE_BUILD_OUT: run.clientDir,
    ARCHIVE_BUILD_CACHE: cacheDir,
    ARCHIVE_SCORES_MANIFEST: run.scoresManifest,
    ARCHIVE_READER_SIGNIN: run.readerSignIn ?? 'none',
    ASTRO_TELEMETRY_DISABLED: '1',
  };
  if (run.scopeFile) env.ARCHIVE_BUILD_SCOPE = run.scopeFile;
  else delete process.env.ARCHIVE_BUILD_SCOPE;
  Object.assign(process.env, env);
  if (run.catalog) shareCatalog(run.contentDir, run.catalog, { patch: run.patchSiteData });
  const key = warmKey(run.siteCode ?? siteCodeDigest(PROJECT_ROOT), process.env);
  let because: string | undefined;
  if (run.warm) {
    // The pages key their scope by its file name, and the warm app's page modules saw earlier
    // runs' files: each warm run reads its scope from a name of its own.
    const scopeCopy = run.scopeFile ? `${run.scopeFile}.warm-${process.pid}-${++warmScopes}` : undefined;
    try {
      if (scopeCopy) {
        copyFileSync(run.scopeFile!, scopeCopy);
        process.env.ARCHIVE_BUILD_SCOPE = scopeCopy;
      }
      const held = warmAppKey();
      // A scoped run that does not render the listings (an apply, a batch of works): the pages
      // made from the code alone are the base's (or the listings run's), byte for byte.
      const scope = buildScope();
      const done = await warmRender(key, run.clientDir, {
        skipRoute: scope !== null && scope.listings !== 'all' ? isCodeOnlyRoute : undefined,
      });
      if (done) {
        if (!run.quiet)
          console.log(`[build] warm render: ${done.files} pages and records in ${done.durationMs} ms (no Vite run)`);
        return { kind: 'warm', ...done };
      }
      because = held === null ? 'no warm app in this process yet' : 'the site code or its settings changed';
    } catch (err) {
      because = `the warm render failed: ${(err as Error).message}`;
      console.error(`[build] ${because}; running Astro`);
      rmSync(run.clientDir, { recursive: true, force: true });
    } finally {
      if (scopeCopy) {
        rmSync(scopeCopy, { force: true });
        process.env.ARCHIVE_BUILD_SCOPE = run.scopeFile!;
      }
      if (!run.keepSiteData) dropSharedSiteData();
    }
    if (run.catalog) shareCatalog(run.contentDir, run.catalog, { patch: run.patchSiteData });
  }
  const { build } = await import('astro');
  // Astro stages prerendered chunks under <cwd>/.astro when outDir lies outside the working
  // directory, so two builds of this checkout would share (and break) one staging folder. Building
  // from inside the output folder keeps each build's staging files its own.
  // The staged chunks import packages by name, so the build folder borrows node_modules for the build.
  const cwd = process.cwd();
  const borrowed = path.join(run.workDir, 'node_modules');
  symlinkSync(path.join(PROJECT_ROOT, 'node_modules'), borrowed, 'dir');
  process.chdir(run.workDir);
  try {
    // No `astro sync` first: it writes TypeScript declarations and syncs content collections,
    // neither of which the site uses or a build's output depends on, and cost 0.2-0.3 s of every
    // build, an apply's incremental ones included. `sync` is an option of Astro's builder that
    // build() passes on but does not declare (astro 7.3): should a later Astro ignore it, sync
    // runs again, which only costs the time.
    const options = { sync: false } as Parameters<typeof build>[1];
    await build(
      {
        root: PROJECT_ROOT,
        logLevel: run.quiet ? 'error' : 'info',
        outDir: run.clientDir,
        cacheDir,
        // Every run leaves its compiled pages loaded for the next run's warm render.
        integrations: [warmCapture(key, path.join(run.clientDir, '.prerender'))],
      },
      options,
    );
  } finally {
    process.chdir(cwd);
    rmSync(borrowed, { force: true });
    rmSync(path.join(run.clientDir, '.prerender'), { recursive: true, force: true });
    if (!run.keepSiteData) dropSharedSiteData();
  }
  rmSync(cacheDir, { recursive: true, force: true });
  return because === undefined ? { kind: 'astro' } : { kind: 'astro', because };
}

/** Works per Astro run of a full build, unless the caller or ARCHIVE_BUILD_BATCH_WORKS says otherwise. */
export const DEFAULT_BATCH_WORKS = 10_000;

export function batchWorksFrom(value: string | number | undefined): number {
  if (value === undefined || value === '') return DEFAULT_BATCH_WORKS;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 1)
    throw new Error(`the batch size must be a whole number of works >= 1 (got "${value}")`);
  return n;
}

/** Move every file under `from` to the same place under `to` (replacing what is there), then remove `from`. */
function moveInto(from: string, to: string): void {
  for (const entry of readdirSync(from, { withFileTypes: true })) {
    const src = path.join(from, entry.name);
    const dest = path.join(to, entry.name);
    if (entry.isDirectory()) {
      if (!existsSync(dest)) {
        renameSync(src, dest);
        continue;
      }
      moveInto(src, dest);
    } else {
      rmSync(dest, { force: true });
      renameSync(src, dest);
    }
  }
  rmSync(from, { recursive: true, force: true });
}

/**
 * Every page of a full build. Up to `batchWorks` works: one Astro run, as always. More: one run
 * per batch of works (their pages, records, score pages and files; the catalog-wide pages come
 * along in every run and are the same bytes each time), then one run for every composer, browse
 * and profile page, each into a scratch folder moved into `clientDir`. The runs share one loaded
 * catalog and one set of records (src/lib/site-data.ts), so memory follows the batch, not the
 * number of runs; the output is the same files with the same bytes as one run
 * (test/build/full-build-batches.slow.test.ts).
 */
export async function renderAllPages(
  run: Omit<AstroRun, 'scopeFile' | 'keepSiteData'> & { catalog: Catalog },
  batchWorks: number,
  log: (message: string) => void,
): Promise<{ runs: number; warm: number }> {
  const slugs = run.catalog.works.map((w) => w.content.slug).sort();
  if (slugs.length <= batchWorks) {
    await runAstro(run);
    return { runs: 1, warm: 0 };
  }
  let warm = 0;
  // A folder per run too: Node keeps a module loaded from a path, and Astro's prerender entry keeps
  // its app (and the static paths it computed) in module state, so a run from the same path would
  // render the previous run's paths.
  const scratch = (n: number) => path.join(run.workDir, `.batch-${n}`);
  const scopeFile = (n: number) => path.join(run.workDir, `.batch-scope-${n}.json`);
  const scopes: Array<{ works: string[]; facets: string[]; profiles: string[]; listings: 'named' | 'all' }> = [];
  for (let i = 0; i < slugs.length; i += batchWorks)
    scopes.push({ works: slugs.slice(i, i + batchWorks), facets: [], profiles: [], listings: 'named' });
  scopes.push({ works: [], facets: [], profiles: [], listings: 'all' });
  mkdirSync(run.clientDir, { recursive: true });
  try {
    for (const [n, scope] of scopes.entries()) {
      // A file per run: the page modules may be the ones an earlier run loaded, and they key their scope by its file.
      writeFileSync(scopeFile(n), JSON.stringify(scope));
      const last = n === scopes.length - 1;
      // Runs after the first render through the first one's compiled pages (its bundles are in place).
      const used = await runAstro({
        ...run,
        clientDir: scratch(n),
        scopeFile: scopeFile(n),
        keepSiteData: !last,
        warm: n > 0,
      });
      if (used.kind === 'warm') warm++;
      rmSync(scopeFile(n), { force: true });
      moveInto(scratch(n), run.clientDir);
      const m = process.memoryUsage();
      const memory = `rss ${Math.round(m.rss / 1048576)} MB, heap ${Math.round(m.heapUsed / 1048576)}/${Math.round(m.heapTotal / 1048576)} MB`;
      log(
        `${scope.works.length > 0 ? `pages of works ${n * batchWorks + 1}-${n * batchWorks + scope.works.length} of ${slugs.length}` : 'composer, browse and profile pages'} (run ${n + 1} of ${scopes.length}, ${used.kind === 'warm' ? 'warm' : 'Astro'}); ${memory}`,
      );
    }
  } finally {
    dropSharedSiteData();
    for (let n = 0; n < scopes.length; n++) {
      rmSync(scopeFile(n), { force: true });
      rmSync(scratch(n), { recursive: true, force: true });
    }
  }
  return { runs: scopes.length, warm };
}
