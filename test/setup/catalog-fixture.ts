/**
 * The fast tier's catalog (vitest.config.ts, project "fast"): what the server needs to answer its
 * dynamic routes over the shipped sample content, written in-process in about a second with the
 * build's own pure functions (src/domain/records.ts, the index writer, the OpenAPI document):
 * build.json, the catalog index (`index/`), every work, profile and instruments record and
 * `openapi.json`. No Astro run, no pages, no rendered scores, no search index, no zips: a test that
 * needs those is a slow test (`*.slow.test.ts`) and gets the real sample build instead.
 *
 * It is provided under the same name as the real build (`inject('sampleBuildDir')`), so a test
 * moves between tiers by its file name alone.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { writeIndexFiles } from '../../api/catalog/build-index.ts';
import { makeFastTierTmpDir, removeFastTierTmpDir } from './memory-tmp.ts';
import { formatLintMessage, loadCatalog } from '../../src/domain/catalog.ts';
import { buildIndexFiles } from '../../src/domain/catalog-index/index-files.ts';
import { buildInstrumentRecords, buildProfileRecord, buildWorkRecord } from '../../src/domain/records.ts';
import { buildPeopleRecords, personSummary } from '../../src/domain/people.ts';
import { buildOpenApi } from '../../src/openapi/document.ts';
import { envelope } from '../../src/schemas/envelope.ts';
import { TEST_BASE_URL } from './global-build.ts';

/** Write the catalog of `contentDir` as a build folder at `outDir` (records, index, OpenAPI; no pages). */
export async function writeCatalogFixture(outDir: string, contentDir: string, baseUrl: string): Promise<void> {
  const { catalog, messages } = loadCatalog(contentDir);
  if (messages.length > 0) throw new Error(`${contentDir}:\n${messages.map(formatLintMessage).join('\n')}`);
  const generatedAtUtc = new Date().toISOString();
  const api = path.join(outDir, 'client', 'api', 'v1');
  const write = (rel: string, value: unknown) => {
    const file = path.join(api, rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(value));
  };
  const records = catalog.works.map((w) => buildWorkRecord(w, catalog, baseUrl, {}));
  const profiles = catalog.profiles.map((p) => buildProfileRecord(p, catalog, baseUrl));
  const instruments = buildInstrumentRecords(catalog, baseUrl);
  for (const r of records) write(`works/${r.slug}/index.json`, envelope(r, generatedAtUtc));
  for (const p of profiles) write(`profiles/${p.slug}/index.json`, envelope(p, generatedAtUtc));
  const people = buildPeopleRecords(
    catalog.people.map((p) => p.content),
    catalog.works.map((w) => w.content),
    baseUrl,
  );
  for (const p of people) write(`people/${p.slug}/index.json`, envelope(p, generatedAtUtc));
  write('people/index.json', envelope({ items: people.map(personSummary) }, generatedAtUtc));
  write('instruments/index.json', envelope({ instruments }, generatedAtUtc));
  write('openapi.json', buildOpenApi(baseUrl));
  await writeIndexFiles(outDir, buildIndexFiles({ records, profiles, instruments }));
  const info = {
    baseUrl,
    readerSignIn: 'none',
    contentDir,
    commit: null,
    mode: 'full',
    generatedAtUtc,
    works: records.length,
    profiles: profiles.length,
    fixture: 'catalog only (test/setup/catalog-fixture.ts): no pages, scores, search index or zips',
  };
  writeFileSync(path.join(outDir, 'build.json'), `${JSON.stringify(info, null, 2)}\n`);
}

export default async function setup(project: TestProject) {
  // The tier's temporary folder (vitest.config.ts gives it to the workers as TMPDIR).
  const tmp = makeFastTierTmpDir();
  const root = mkdtempSync(path.join(tmp ?? os.tmpdir(), 'pdma-test-catalog-'));
  const out = path.join(root, 'build');
  await writeCatalogFixture(out, path.resolve(process.env.TEST_CONTENT_DIR ?? 'content'), TEST_BASE_URL);
  project.provide('sampleBuildDir', out);
  project.provide('testBaseUrl', TEST_BASE_URL);
  return () => {
    rmSync(root, { recursive: true, force: true });
    removeFastTierTmpDir(tmp);
  };
}
