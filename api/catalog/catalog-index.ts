/**
 * The in-memory view of one build that the dynamic routes search: work summaries with folded
 * search fields, and profile records. Built from the build's own JSON records, so a query never
 * disagrees with the static record it links to.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import type { WorkRecord, WorkSummary } from '../../src/schemas/work.ts';
import type { InstrumentRecord, ProfileRecord } from '../../src/schemas/profile.ts';
import { indexWork, type IndexedWork } from '../../src/domain/works-query.ts';
import { workSummary } from '../../src/domain/records.ts';

export interface CatalogIndex {
  works: IndexedWork[];
  /** Full work records by slug (for resolve and later consumers). */
  records: Map<string, WorkRecord>;
  profiles: ProfileRecord[];
  instruments: InstrumentRecord[];
}

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

export async function loadCatalogIndex(clientDir: string): Promise<CatalogIndex> {
  const api = path.join(clientDir, 'api', 'v1');
  const instruments = (await readJson<{ data: { instruments: InstrumentRecord[] } }>(path.join(api, 'instruments', 'index.json'))).data.instruments;
  const aliases = new Map(instruments.map((i) => [i.slug, i.aliases]));
  const records = new Map<string, WorkRecord>();
  const works: IndexedWork[] = [];
  const slugs = await listDirs(path.join(api, 'works'));
  // Read in batches: 10,000 records load in well under a second without opening 10,000 files at once.
  for (let i = 0; i < slugs.length; i += 256) {
    const batch = await Promise.all(
      slugs.slice(i, i + 256).map((slug) => readJson<{ data: WorkRecord }>(path.join(api, 'works', slug, 'index.json'))),
    );
    for (const { data } of batch) {
      const summary: WorkSummary = workSummary(data);
      records.set(data.slug, data);
      works.push(indexWork(data, summary, aliases));
    }
  }
  const profiles: ProfileRecord[] = [];
  for (const slug of await listDirs(path.join(api, 'profiles'))) {
    profiles.push((await readJson<{ data: ProfileRecord }>(path.join(api, 'profiles', slug, 'index.json'))).data);
  }
  return { works, records, profiles, instruments };
}
