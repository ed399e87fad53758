/**
 * The warm renderer (issue 29, item 2; docs/decisions/0053-warm-renderer.md): Astro's compiled
 * pages kept loaded between the builds of one process, so an apply renders the few pages its
 * change touches without running Vite again.
 *
 * An Astro build compiles the pages into a prerender bundle, imports it, and renders every path
 * through the bundle's app (`generatePages`). Vite's part (config, plugins, compiling and bundling
 * the pages and the browser's scripts and styles) costs about 2-3 s whatever the scope; rendering a
 * scoped apply's pages costs a fraction of that. So every Astro run in this process captures its
 * app (through the prerenderer hook Astro gives integrations, wrapping Astro's own prerenderer),
 * and loads every module of the bundle before Astro removes its folder; a later run with the same
 * key renders through that app instead: each path Astro's `StaticPaths` gives (the pages read the
 * scope and the catalog afresh: ARCHIVE_BUILD_SCOPE, the shared catalog), rendered by Astro's own
 * `renderPath` (the same request, the same output file), written where Astro would write it.
 *
 * The key is the site code's digest (build/site-code.ts) and the settings a page module or
 * Astro's config reads when loaded (the base URL, ARCHIVE_* and PUBLIC_* variables other than the
 * per-run ones): when any differs, the next run is a real Astro run, which captures again. What a
 * warm run does not write: the browser's bundles (`_astro/`), which are the base build's, made by
 * the same code (an incremental build starts only from a base with the same `siteCode`).
 *
 * Astro's internal modules are imported by file from the installed package (the lockfile pins
 * the version, and it is part of the key); should a later Astro move them, the warm path reports
 * itself unavailable and every run is a real one.
 */
import { existsSync, mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { AstroIntegration, AstroPrerenderer } from 'astro';

/** Variables each run sets for itself (build/astro.ts, runAstro): not part of the key. */
const PER_RUN = new Set([
  'ARCHIVE_CONTENT_DIR',
  'ARCHIVE_GENERATED_AT',
  'ARCHIVE_BUILD_OUT',
  'ARCHIVE_BUILD_CACHE',
  'ARCHIVE_SCORES_MANIFEST',
  'ARCHIVE_READER_SIGNIN',
  'ARCHIVE_BUILD_SCOPE',
]);

/** What a captured app must have been compiled under to render this run. */
export function warmKey(siteCode: string, env: NodeJS.ProcessEnv): string {
  const settings = Object.keys(env)
    .filter((name) => (name.startsWith('ARCHIVE_') || name.startsWith('PUBLIC_')) && !PER_RUN.has(name))
    .sort()
    .map((name) => [name, env[name]]);
  return JSON.stringify([siteCode, settings]);
}

/** The parts of Astro's build app this module uses (astro/dist/core/build/app.js, BuildApp). */
interface BuildAppLike {
  manifest: { routes: Array<{ routeData: { distURL?: URL[] } }> };
  routeCache: { clearAll(): void };
  getOptions(): {
    settings: { config: { outDir: URL; build: { concurrency: number } } };
    logger: unknown;
  };
}

interface Captured {
  key: string;
  app: BuildAppLike;
}

let captured: Captured | null = null;

export function warmAppKey(): string | null {
  return captured?.key ?? null;
}

/** Every module file of the prerender bundle, so none is read from disk after Astro removes the folder. */
async function loadAll(dir: string): Promise<number> {
  let n = 0;
  const walk = async (d: string, depth: number): Promise<void> => {
    if (depth > 8) return;
    for (const entry of readdirSync(d, { withFileTypes: true })) {
      const p = path.join(d, entry.name);
      if (entry.isDirectory()) await walk(p, depth + 1);
      else if (entry.isFile() && entry.name.endsWith('.mjs')) {
        await import(pathToFileURL(p).href);
        n++;
      }
    }
  };
  await walk(dir, 0);
  return n;
}

function forgetPaths(app: BuildAppLike): void {
  // The static paths (and props) of the run, and each route's output files: kept by the app
  // between runs otherwise, for nothing (a full build's would hold every work's).
  app.routeCache.clearAll();
  for (const { routeData } of app.manifest.routes) delete routeData.distURL;
}

/**
 * The integration an Astro run adds to capture its app under `key`. `prerenderDir` is where
 * Astro writes the bundle (`<outDir>/.prerender/`, since the run builds from inside its work folder).
 */
export function warmCapture(key: string, prerenderDir: string): AstroIntegration {
  return {
    name: 'archive:warm-render',
    hooks: {
      'astro:build:start': ({ setPrerenderer }) => {
        setPrerenderer((astro: AstroPrerenderer): AstroPrerenderer => {
          let loaded = false;
          const wrapper: AstroPrerenderer = {
            name: 'archive:warm-render',
            setup: async () => {
              captured = null;
              await astro.setup?.();
              // A bundle that cannot be loaded whole is not captured; the build itself goes on.
              loaded =
                existsSync(prerenderDir) &&
                (await loadAll(prerenderDir).then(
                  () => true,
                  () => false,
                ));
            },
            getStaticPaths: () => astro.getStaticPaths(),
            render: (request, options) => astro.render(request, options),
            teardown: async () => {
              await astro.teardown?.();
              const app = (astro as AstroPrerenderer & { app?: BuildAppLike }).app;
              if (!loaded || !app || typeof app.getOptions !== 'function' || !app.routeCache) return;
              forgetPaths(app);
              captured = { key, app };
            },
          };
          return wrapper;
        });
      },
    },
  };
}

interface AstroInternals {
  renderPath: (args: {
    prerenderer: { render: AstroPrerenderer['render'] };
    pathname: string;
    route: unknown;
    options: unknown;
    logger: unknown;
    collectMetadata: boolean;
  }) => Promise<{ body: string | Uint8Array; outFile: URL } | null>;
  StaticPaths: new (app: BuildAppLike) => {
    getAll(): Promise<Array<{ pathname: string; route: { type: string; component: string } }>>;
  };
  renderForPrerender: (
    app: BuildAppLike,
    request: Request,
    options: { routeData: unknown; collectMetadata?: boolean },
  ) => Promise<Response | { response: Response }>;
}

let internals: Promise<AstroInternals | null> | undefined;

function astroInternals(): Promise<AstroInternals | null> {
  internals ??= (async () => {
    try {
      const root = new URL('./', import.meta.resolve('astro/package.json'));
      const [generate, staticPaths, prerender] = await Promise.all([
        import(new URL('dist/core/build/generate.js', root).href),
        import(new URL('dist/runtime/prerender/static-paths.js', root).href),
        import(new URL('dist/core/app/prerender.js', root).href),
      ]);
      const found = {
        renderPath: generate.renderPath,
        StaticPaths: staticPaths.StaticPaths,
        renderForPrerender: prerender.renderForPrerender,
      };
      return Object.values(found).every((f) => typeof f === 'function') ? (found as AstroInternals) : null;
    } catch {
      return null;
    }
  })();
  return internals;
}

export interface WarmRun {
  /** Pages and records written. */
  files: number;
  durationMs: number;
  /** Of it, asking the pages for their paths in scope (each page's getStaticPaths). */
  pathsMs: number;
  /** The slowest pages to render, slowest first (at most five): where a scoped apply's time goes. */
  slowest: Array<{ path: string; ms: number }>;
  /** Paths left out as the caller asked (`skipRoute`: pages made from the code alone, which the base holds). */
  skipped: number;
}

/**
 * Render every path in scope through the captured app into `outDir`, when one was captured under
 * `key`; null when none was (or Astro's internals are not where this module looks): then the
 * caller runs Astro. The caller sets the run's variables and shares the catalog first, as for an
 * Astro run. `skipRoute` names routes (by component: `src/pages/...`) whose paths are not rendered:
 * an apply's pages made from the code alone, which its base already holds
 * (src/lib/site/code-only-pages.ts). An error while rendering drops the captured app and is thrown.
 */
export async function warmRender(
  key: string,
  outDir: string,
  leave: { skipRoute?: (component: string) => boolean } = {},
): Promise<WarmRun | null> {
  if (!captured || captured.key !== key) return null;
  const astro = await astroInternals();
  if (!astro) return null;
  const { app } = captured;
  const start = performance.now();
  try {
    forgetPaths(app);
    const options = app.getOptions();
    const fromRoot = options.settings.config.outDir.href;
    const paths = await new astro.StaticPaths(app).getAll();
    const pathsMs = Math.round(performance.now() - start);
    const timings: Array<{ path: string; ms: number }> = [];
    // A path two routes give is rendered once, by the first (Astro's default for a conflict).
    const seen = new Set<string>();
    let skipped = 0;
    const todo = paths.filter(({ pathname, route }) => {
      if (route.type !== 'page' && route.type !== 'endpoint')
        throw new Error(`the warm renderer renders pages and endpoints only (got a ${route.type} route)`);
      if (leave.skipRoute?.(route.component)) {
        skipped++;
        return false;
      }
      const normalized = pathname.replace(/\/+$/, '');
      if (seen.has(normalized)) return false;
      seen.add(normalized);
      return true;
    });
    const render: AstroPrerenderer['render'] = (request, o) => astro.renderForPrerender(app, request, o);
    mkdirSync(outDir, { recursive: true });
    const target = pathToFileURL(outDir.endsWith(path.sep) ? outDir : `${outDir}${path.sep}`);
    let files = 0;
    let next = 0;
    let failed = false;
    const worker = async (): Promise<void> => {
      while (!failed && next < todo.length) {
        const { pathname, route } = todo[next++]!;
        const began = performance.now();
        const result = await astro.renderPath({
          prerenderer: { render },
          pathname,
          route,
          options,
          logger: options.logger,
          collectMetadata: false,
        });
        if (!result) continue;
        if (!result.outFile.href.startsWith(fromRoot))
          throw new Error(`Astro placed ${pathname} outside its output folder (${result.outFile.href})`);
        const file = fileURLToPath(new URL(result.outFile.href.slice(fromRoot.length), target));
        mkdirSync(path.dirname(file), { recursive: true });
        writeFileSync(file, result.body);
        files++;
        timings.push({ path: pathname, ms: Math.round(performance.now() - began) });
      }
    };
    const lanes = Math.max(1, options.settings.config.build.concurrency || 1);
    // Every lane stops at the first failure and is awaited: nothing writes after this returns.
    const ends = await Promise.allSettled(
      Array.from({ length: Math.min(lanes, todo.length) }, () =>
        worker().catch((err: unknown) => {
          failed = true;
          throw err;
        }),
      ),
    );
    const failure = ends.find((e) => e.status === 'rejected');
    if (failure) throw failure.reason;
    forgetPaths(app);
    const slowest = timings.sort((a, b) => b.ms - a.ms).slice(0, 5);
    return { files, durationMs: Math.round(performance.now() - start), pathsMs, slowest, skipped };
  } catch (err) {
    captured = null;
    throw err;
  }
}
