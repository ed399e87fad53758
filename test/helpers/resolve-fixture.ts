/**
 * A generated catalog as the resolve overlay tests use it: 400 works built into records by the
 * domain code, shuffled, the first 360 the base (its resolve and listing indexes, and what a server
 * loads of them: both decoded from their bytes), the other 40 spare works to add. Built in a fresh
 * temporary folder per test file.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadCatalog, type LoadOptions } from '../../src/domain/catalog.ts';
import { buildInstrumentRecords, buildProfileRecord, buildWorkRecord, workSummary } from '../../src/domain/records.ts';
import { profileHead } from '../../src/domain/catalog-index/profiles.ts';
import { buildResolveCatalog, decodeResolveCatalog, encodeResolveCatalog } from '../../src/domain/resolve/catalog.ts';
import { decodeIndex } from '../../src/domain/catalog-index/binary.ts';
import { decodeWorksIndex, encodeWorksIndex, orderWorks } from '../../src/domain/catalog-index/works-index.ts';
import { buildWorksOverlay } from '../../src/domain/catalog-index/works-overlay.ts';
import { generateCatalog, rng } from '../../scripts/generate-catalog.ts';
import type { WorkRecord } from '../../src/schemas/work.ts';

/**
 * The catalog of `contentDir` (default: the shipped sample content) built into records as the
 * build builds them: work records, profile records and instrument records over `baseUrl`. Throws
 * when the content does not load without messages.
 */
export function catalogRecords(
  baseUrl: string,
  contentDir = path.resolve(import.meta.dirname, '..', '..', 'content'),
  options: LoadOptions = {},
) {
  const loaded = loadCatalog(contentDir, options);
  if (loaded.messages.length > 0)
    throw new Error(`${contentDir} does not load: ${loaded.messages.map((m) => m.message).join('; ')}`);
  const catalog = loaded.catalog;
  return {
    catalog,
    records: catalog.works.map((w) => buildWorkRecord(w, catalog, baseUrl)),
    profiles: catalog.profiles.map((p) => buildProfileRecord(p, catalog, baseUrl)),
    instruments: buildInstrumentRecords(catalog, baseUrl),
  };
}

export function resolveFixture(baseUrl: string) {
  const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-resolve-fixture-'));
  try {
    const content = path.join(root, 'content');
    generateCatalog({ works: 400, outDir: content, seed: 31 });
    const generated = catalogRecords(baseUrl, content);
    const all = generated.records;
    const rand = rng(31);
    for (let i = all.length - 1; i > 0; i--) {
      const j = Math.floor(rand() * (i + 1));
      [all[i], all[j]] = [all[j]!, all[i]!];
    }
    const profiles = generated.profiles.map(profileHead);
    const instruments = generated.instruments;
    const baseRecords = all.slice(0, 360);
    const base = buildResolveCatalog(baseRecords, profiles, instruments);
    const instrumentNames = new Map(instruments.map((i) => [i.slug, i.aliases]));
    const ordered = orderWorks(
      baseRecords.map((record) => ({ record, summary: workSummary(record) })),
      instrumentNames,
    );
    return {
      baseRecords,
      baseSlugs: new Set(baseRecords.map((r) => r.slug)),
      spare: all.slice(360),
      profiles,
      instruments,
      instrumentNames,
      base,
      // What a server loads: the base's resolve.idx and works.idx, decoded.
      loadedBase: decodeResolveCatalog(decodeIndex(encodeResolveCatalog(base)), profiles),
      worksBase: decodeWorksIndex(decodeIndex(encodeWorksIndex(ordered).index)),
      sortKeys: ordered.map((w) => w.sortKey),
    };
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/**
 * The works overlay a layered build writes over the fixture's base for the catalog `current`:
 * the `changed` works (new or rewritten), and the base's works `current` no longer holds removed.
 */
export function worksOverlayOf(
  f: ReturnType<typeof resolveFixture>,
  current: ReadonlyMap<string, WorkRecord>,
  changed: ReadonlyMap<string, WorkRecord>,
) {
  return buildWorksOverlay({
    base: f.worksBase,
    baseDigest: 'base',
    baseSortKey: (id) => f.sortKeys[id]!,
    instrumentNames: f.instrumentNames,
    changed: [...changed.values()].map((record) => ({ record, summary: workSummary(record) })),
    removed: f.baseRecords.filter((r) => !current.has(r.slug)).map((r) => r.slug),
  });
}

/** `record` with the fields `fields` names (bits: title, composer, genre, arrangements, rights, source assets) taken from `donor`. */
export function edited(record: WorkRecord, donor: WorkRecord, fields: number): WorkRecord {
  const r = structuredClone(record);
  if (fields & 1) r.title = donor.title;
  if (fields & 2) r.composer = structuredClone(donor.composer);
  if (fields & 4) r.genre = donor.genre;
  if (fields & 8) r.arrangements = structuredClone(donor.arrangements);
  if (fields & 16) r.rights = structuredClone(donor.rights);
  if (fields & 32) r.sourceAssets = structuredClone(donor.sourceAssets);
  return r;
}

/** A change to the fixture's catalog: `add` one of the spare works, `remove` one, or another kind that rewrites one. */
export interface CatalogStep {
  kind: string;
  /** Which current work (modulo their number): remove and the rewriting kinds. */
  target?: number;
  /** Which spare work (modulo their number): add. */
  spare?: number;
}

/**
 * The catalog after `steps`, from the fixture's base: every current record, and the added or
 * changed ones. A step neither `add` nor `remove` replaces its target with `rewrite(record, step)`.
 */
export function applySteps<S extends CatalogStep>(
  f: { baseRecords: WorkRecord[]; spare: WorkRecord[] },
  steps: S[],
  rewrite: (record: WorkRecord, step: S) => WorkRecord,
): { current: Map<string, WorkRecord>; changed: Map<string, WorkRecord> } {
  const current = new Map(f.baseRecords.map((r) => [r.slug, r]));
  const changed = new Map<string, WorkRecord>();
  for (const s of steps) {
    const slugs = [...current.keys()];
    if (s.kind === 'add') {
      const r = f.spare[s.spare! % f.spare.length]!;
      current.set(r.slug, r);
      changed.set(r.slug, r);
    } else if (s.kind !== 'remove') {
      const slug = slugs[s.target! % slugs.length]!;
      const r = rewrite(current.get(slug)!, s);
      current.set(slug, r);
      changed.set(slug, r);
    } else {
      const slug = slugs[s.target! % slugs.length]!;
      current.delete(slug);
      changed.delete(slug);
    }
  }
  return { current, changed };
}
