/**
 * Page weight of the reader's site, Lighthouse-style: builds the sample catalog, serves it with
 * the real front server on loopback, and for each page sums the bytes a browser transfers before
 * any image, score or audio loads: the HTML plus every stylesheet and script it links (inline
 * scripts and styles are part of the HTML). The server sends no compression, so these are the
 * bytes on the wire. Budgets (1 KB = 1,000 bytes):
 *   - a work page: under 100 KB (the largest work page counts);
 *   - home: under 60 KB;
 *   - pages that need no client JavaScript carry none (no <script> at all).
 * Search, the work pages, tracking and home (a one-line progressive enhancement of its search
 * box) are the pages that need JavaScript; their script bytes are reported. --quick weighs the
 * first five work pages instead of all of them.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createApp } from '../../api/app.ts';
import { loadConfig } from '../../api/config.ts';
import { SiteHandle } from '../../api/site/site-handle.ts';
import { PROJECT_ROOT, freePort, runSiteBuild } from './util.ts';

export const BUDGETS = { workPageBytes: 100_000, homeBytes: 60_000 } as const;

export interface PageWeight {
  path: string;
  htmlBytes: number;
  cssBytes: number;
  jsBytes: number;
  /** Inline <script> bytes inside the HTML (already counted in htmlBytes). */
  inlineJsBytes: number;
  totalBytes: number;
  scripts: number;
  resources: string[];
}

async function weigh(origin: string, pagePath: string): Promise<PageWeight> {
  const res = await fetch(`${origin}${pagePath}`);
  if (!res.ok) throw new Error(`${pagePath} answered ${res.status}`);
  const html = Buffer.from(await res.arrayBuffer());
  const text = html.toString('utf8');
  const css = [...text.matchAll(/<link\b[^>]*rel="stylesheet"[^>]*href="([^"]+)"/g)].map((m) => m[1]!);
  const js = [...text.matchAll(/<script\b[^>]*\bsrc="([^"]+)"/g)].map((m) => m[1]!);
  const inline = [...text.matchAll(/<script\b(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g)].map((m) =>
    Buffer.byteLength(m[1]!),
  );
  const size = async (href: string) => {
    const r = await fetch(new URL(href, `${origin}${pagePath}`).href.replace(/^https?:\/\/[^/]+/, origin));
    if (!r.ok) throw new Error(`${href} (linked from ${pagePath}) answered ${r.status}`);
    return Buffer.from(await r.arrayBuffer()).length;
  };
  const cssBytes = (await Promise.all(css.map(size))).reduce((a, b) => a + b, 0);
  const jsBytes = (await Promise.all(js.map(size))).reduce((a, b) => a + b, 0);
  return {
    path: pagePath,
    htmlBytes: html.length,
    cssBytes,
    jsBytes,
    inlineJsBytes: inline.reduce((a, b) => a + b, 0),
    totalBytes: html.length + cssBytes + jsBytes,
    scripts: js.length + inline.length,
    resources: [...css, ...js],
  };
}

export async function runPageWeightBench(options: { quick: boolean }): Promise<Record<string, unknown>> {
  const started = Date.now();
  const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-bench-page-weight-'));
  const outDir = path.join(root, 'build');
  let app: Awaited<ReturnType<typeof createApp>> | undefined;
  try {
    // The build's links point at the origin the pages are fetched from.
    const port = await freePort();
    const origin = `http://127.0.0.1:${port}`;
    await runSiteBuild(path.join(PROJECT_ROOT, 'content'), outDir, origin);
    const config = loadConfig({ PUBLIC_BASE_URL: origin, ARCHIVE_DATA_DIR: path.join(root, 'data') }, PROJECT_ROOT);
    app = await createApp({ config, handle: await SiteHandle.open(outDir) }, { logger: false });
    await app.listen({ port, host: '127.0.0.1' });

    const client = path.join(outDir, 'client');
    // A work is a folder (works/index.html is the listing's own page).
    const slugs = readdirSync(path.join(client, 'works'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name)
      .sort();
    const workSlugs = options.quick ? slugs.slice(0, 5) : slugs;
    const composers = readdirSync(path.join(client, 'composers'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);
    const profiles = readdirSync(path.join(client, 'profiles'), { withFileTypes: true })
      .filter((d) => d.isDirectory())
      .map((d) => d.name);

    const home = await weigh(origin, '/');
    const works = await Promise.all(workSlugs.map((s) => weigh(origin, `/works/${s}/`)));
    const heaviest = works.reduce((a, b) => (b.totalBytes > a.totalBytes ? b : a));
    const withScripts = [await weigh(origin, '/search/'), await weigh(origin, '/track/')];
    const noJsPaths = [
      '/browse/',
      '/composers/',
      '/instruments/',
      '/profiles/',
      '/api-docs/',
      `/composers/${composers[0]}/`,
      `/profiles/${profiles[0]}/`,
      '/browse/period/baroque/',
      `/works/${slugs.find((s) => s.startsWith('dvorak-symphony')) ?? slugs[0]}/score/1/`,
    ];
    const noJs = await Promise.all(noJsPaths.map((p) => weigh(origin, p)));
    const scriptedNoJsPages = noJs.filter((p) => p.scripts > 0).map((p) => p.path);

    const budgets = [
      {
        name: 'work page (largest)',
        path: heaviest.path,
        bytes: heaviest.totalBytes,
        budget: BUDGETS.workPageBytes,
        pass: heaviest.totalBytes < BUDGETS.workPageBytes,
      },
      {
        name: 'home',
        path: '/',
        bytes: home.totalBytes,
        budget: BUDGETS.homeBytes,
        pass: home.totalBytes < BUDGETS.homeBytes,
      },
      {
        name: 'no client JavaScript where none is needed',
        path: noJsPaths.join(' '),
        bytes: scriptedNoJsPages.length,
        budget: 0,
        pass: scriptedNoJsPages.length === 0,
      },
    ];
    return {
      status: budgets.every((b) => b.pass) ? 'ok' : 'over-budget',
      pass: budgets.every((b) => b.pass),
      unit: 'bytes (1 KB = 1,000 bytes), HTML + linked CSS + linked JS, uncompressed as served',
      budgets,
      pages: {
        home,
        heaviestWorkPage: heaviest,
        workPages: Object.fromEntries(works.map((w) => [w.path, w.totalBytes])),
        medianWorkPageBytes: works.map((w) => w.totalBytes).sort((a, b) => a - b)[Math.floor(works.length / 2)],
        scripted: withScripts,
        scriptFree: noJs.map((p) => ({ path: p.path, totalBytes: p.totalBytes, scripts: p.scripts })),
      },
      scriptedNoJsPages,
      durationMs: Date.now() - started,
    };
  } finally {
    await app?.close();
    rmSync(root, { recursive: true, force: true });
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const result = await runPageWeightBench({ quick: process.argv.includes('--quick') });
  console.log(JSON.stringify(result, null, 2));
  process.exitCode = result.pass ? 0 : 1;
}
