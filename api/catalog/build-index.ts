/**
 * Writes a build folder's index files (`<build>/index/`) from the records the build wrote into
 * `client/`, so the index can never disagree with the static records it points to. Runs in the
 * build's child process (scripts/build.ts), never on the server's request thread.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { WorkRecord } from '../../src/schemas/work.ts';
import type { InstrumentRecord, ProfileRecord } from '../../src/schemas/profile.ts';
import { buildIndexFiles, INDEX_DIR, type CatalogIndexInput, type IndexFiles } from '../../src/domain/catalog-index/index-files.ts';

async function readJson<T>(file: string): Promise<T> {
  return JSON.parse(await fs.readFile(file, 'utf8')) as T;
}

async function listDirs(dir: string): Promise<string[]> {
  try {
    return (await fs.readdir(dir, { withFileTypes: true })).filter((d) => d.isDirectory()).map((d) => d.name).sort();
  } catch {
    return [];
  }
}

/** Every work record, profile and instrument a build folder's `client/` holds (slug order). */
export async function readBuildRecords(clientDir: string): Promise<CatalogIndexInput> {
  const api = path.join(clientDir, 'api', 'v1');
  const instruments = (await readJson<{ data: { instruments: InstrumentRecord[] } }>(path.join(api, 'instruments', 'index.json'))).data.instruments;
  const records: WorkRecord[] = [];
  const slugs = await listDirs(path.join(api, 'works'));
  // In batches: thousands of records load quickly without opening thousands of files at once.
  for (let i = 0; i < slugs.length; i += 256) {
    const batch = await Promise.all(slugs.slice(i, i + 256).map((slug) => readJson<{ data: WorkRecord }>(path.join(api, 'works', slug, 'index.json'))));
    for (const { data } of batch) records.push(data);
  }
  const profiles: ProfileRecord[] = [];
  for (const slug of await listDirs(path.join(api, 'profiles'))) {
    profiles.push((await readJson<{ data: ProfileRecord }>(path.join(api, 'profiles', slug, 'index.json'))).data);
  }
  return { records, profiles, instruments };
}

/** Write the index files into `<buildDir>/index`, replacing any there in one rename. */
export async function writeIndexFiles(buildDir: string, files: IndexFiles): Promise<void> {
  const target = path.join(buildDir, INDEX_DIR);
  const staging = path.join(buildDir, `.${INDEX_DIR}-${process.pid}-${Date.now()}`);
  await fs.mkdir(staging, { recursive: true });
  for (const [name, bytes] of Object.entries(files)) await fs.writeFile(path.join(staging, name), bytes);
  const old = `${staging}-old`;
  await fs.rename(target, old).catch(() => undefined);
  await fs.rename(staging, target);
  await fs.rm(old, { recursive: true, force: true });
}

/** Index a build folder from its own records; returns the number of works indexed. */
export async function indexBuild(buildDir: string): Promise<{ works: number; durationMs: number }> {
  const started = Date.now();
  const input = await readBuildRecords(path.join(buildDir, 'client'));
  await writeIndexFiles(buildDir, buildIndexFiles(input));
  return { works: input.records.length, durationMs: Date.now() - started };
}
