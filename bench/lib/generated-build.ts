/**
 * A build folder at scale without Astro: a generated catalog (scripts/generate-catalog.ts),
 * loaded and turned into records by the domain code the build uses (loadCatalog,
 * buildWorkRecord, buildProfileRecord, buildInstrumentRecords, buildApiIndex), written where the
 * build writes them (`client/api/v1/works/<slug>/index.json` and `index.md`, profiles,
 * instruments, the API index), plus the same index files (`buildIndexFiles`), nginx.conf,
 * published-blobs.json and build.json. What it does not write is what only Astro renders: HTML
 * pages, discovery documents other than /api/v1, scores, Pagefind. The server and nginx serve it
 * like any build folder; the benches at 10,000 and 100,000 works use it because a full Astro build
 * of 100,000 works does not fit a bench run.
 *
 * The content repository is seeded with the same generated content, and the folder is placed at
 * the build key of its HEAD, so `npm start` serves it without building.
 *
 *   node bench/lib/generated-build.ts --works 100000 --data DIR --base-url http://127.0.0.1:PORT
 *   node bench/lib/generated-build.ts --reindex BUILD_DIR     (index files only, from the records)
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { generateCatalog } from '../../scripts/generate-catalog.ts';
import { loadCatalog } from '../../src/domain/catalog.ts';
import {
  buildInstrumentRecords,
  buildProfileRecord,
  buildWorkRecord,
  publishedBlobs,
  renderWorkMarkdown,
  urls,
} from '../../src/domain/records.ts';
import { buildApiIndex } from '../../src/domain/discovery.ts';
import { envelope } from '../../src/schemas/envelope.ts';
import { buildIndexFiles } from '../../src/domain/catalog-index/index-files.ts';
import { indexBuild, writeIndexFiles } from '../../api/catalog/build-index.ts';
import { renderNginxConfig } from '../../api/site/nginx.ts';
import { ensureContentRepo } from '../../api/site/content-repo.ts';
import { buildKey } from '../../api/site/builds.ts';
import type { WorkRecord } from '../../src/schemas/work.ts';

export interface GeneratedBuildOptions {
  works: number;
  /** ARCHIVE_DATA_DIR of the service that will serve it (content repository and builds go there). */
  dataDir: string;
  baseUrl: string;
  seed?: number;
  log?: (message: string) => void;
}

export interface GeneratedBuild {
  buildDir: string;
  contentRepo: string;
  works: number;
  slugs: string[];
  timingsMs: Record<string, number>;
}

function writeJson(file: string, value: unknown): void {
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, JSON.stringify(value));
}

export async function writeGeneratedBuild(options: GeneratedBuildOptions): Promise<GeneratedBuild> {
  const log = options.log ?? (() => undefined);
  const timings: Record<string, number> = {};
  let t = Date.now();
  const lap = (name: string) => {
    timings[name] = Date.now() - t;
    log(`${name}: ${(timings[name] / 1000).toFixed(1)} s`);
    t = Date.now();
  };
  const seedDir = path.join(options.dataDir, 'generated-content');
  generateCatalog({ works: options.works, outDir: seedDir, seed: options.seed ?? 1 });
  lap('generate content');
  const contentRepo = path.join(options.dataDir, 'content');
  const { head } = await ensureContentRepo(contentRepo, seedDir);
  lap('seed the content repository');

  const loaded = loadCatalog(seedDir);
  if (loaded.messages.length > 0)
    throw new Error(`generated content does not load: ${loaded.messages.length} message(s)`);
  const catalog = loaded.catalog;
  lap('load the catalog (domain loader)');

  const baseUrl = options.baseUrl;
  const generatedAtUtc = new Date().toISOString();
  const buildDir = path.join(options.dataDir, 'builds', buildKey(head, baseUrl));
  const client = path.join(buildDir, 'client');
  const api = path.join(client, 'api', 'v1');
  const records: WorkRecord[] = [];
  for (const work of catalog.works) {
    const record = buildWorkRecord(work, catalog, baseUrl);
    records.push(record);
    const dir = path.join(api, 'works', record.slug);
    writeJson(path.join(dir, 'index.json'), envelope(record, generatedAtUtc));
    writeFileSync(path.join(dir, 'index.md'), renderWorkMarkdown(record, generatedAtUtc));
  }
  lap('write work records (json, md)');
  const profiles = catalog.profiles
    .map((p) => buildProfileRecord(p, catalog, baseUrl))
    .sort((a, b) => (a.slug < b.slug ? -1 : 1));
  for (const p of profiles) writeJson(path.join(api, 'profiles', p.slug, 'index.json'), envelope(p, generatedAtUtc));
  const instruments = buildInstrumentRecords(catalog, baseUrl);
  const families = [...new Set(instruments.map((i) => i.family))]
    .sort()
    .map((family) => ({ family, instruments: instruments.filter((i) => i.family === family).map((i) => i.slug) }));
  writeJson(path.join(api, 'instruments', 'index.json'), envelope({ instruments, families }, generatedAtUtc));
  writeJson(path.join(api, 'index.json'), envelope(buildApiIndex(urls(baseUrl)), generatedAtUtc));
  writeFileSync(path.join(buildDir, 'published-blobs.json'), `${JSON.stringify(publishedBlobs(catalog))}\n`);
  writeFileSync(path.join(buildDir, 'nginx.conf'), renderNginxConfig(client));
  lap('write profiles, instruments, API index');

  await writeIndexFiles(buildDir, buildIndexFiles({ records, profiles, instruments }));
  lap('write index files');
  const slugs = records.map((r) => r.slug).sort();
  writeFileSync(
    path.join(buildDir, 'build.json'),
    `${JSON.stringify({ baseUrl, contentDir: contentRepo, generatedAtUtc, works: records.length, profiles: profiles.length, generated: 'bench/lib/generated-build.ts (no Astro)' }, null, 2)}\n`,
  );
  return { buildDir, contentRepo, works: records.length, slugs, timingsMs: timings };
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: {
      works: { type: 'string', default: '10000' },
      data: { type: 'string' },
      'base-url': { type: 'string' },
      seed: { type: 'string', default: '1' },
      reindex: { type: 'string' },
    },
  });
  if (values.reindex) {
    // Rewrite the index files of an existing build folder from its records (after an index format change).
    console.log(JSON.stringify(await indexBuild(path.resolve(values.reindex))));
    process.exit(0);
  }
  if (!values.data || !values['base-url']) {
    console.error('usage: node bench/lib/generated-build.ts --works N --data DIR --base-url URL [--seed S]');
    process.exit(2);
  }
  const r = await writeGeneratedBuild({
    works: Number(values.works),
    dataDir: path.resolve(values.data),
    baseUrl: values['base-url'],
    seed: Number(values.seed),
    log: (m) => console.error(m),
  });
  // Last line: the result as JSON, for the bench that ran this in a child process.
  console.log(JSON.stringify({ ...r, slugs: undefined, slugCount: r.slugs.length }));
}
