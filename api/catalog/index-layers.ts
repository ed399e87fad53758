/**
 * A layered build's listing index (docs/decisions/0048-listing-overlay-over-a-plain-base.md): its `index/` holds no works.idx or summaries.json but `works-overlay.json`, the
 * works changed since its plain base, laid over that base's two files when they are read
 * (catalog.json `overlay` names the base folder and its works.idx digest). Here: reading a plain
 * base's listing (kept decoded by the thread that reads it, since every layer over one base reads
 * the same files), reading an overlay, and merging the two into the files a full build of the
 * same catalog writes (the background compaction, a build that cannot lay a new overlay over its
 * base, and the tests that compare builds).
 */
import { promises as fs, readFileSync } from 'node:fs';
import path from 'node:path';
import { decodeIndex } from '../../src/domain/catalog-index/binary.ts';
import {
  CATALOG_INDEX_FORMAT,
  COMPOSERS_FILE,
  INDEX_DIR,
  RESOLVE_OVERLAY_FILE,
  WORKS_OVERLAY_FILE,
  manifestWithout,
  type CatalogManifest,
} from '../../src/domain/catalog-index/index-files.ts';
import { decodeWorksIndex, mergeWorksIndex, type WorksIndex } from '../../src/domain/catalog-index/works-index.ts';
import { decodeWorksOverlay, type WorksOverlay } from '../../src/domain/catalog-index/works-overlay.ts';
import { RememberedFile } from '../../src/lib/file-identity.ts';
import { decodeResolveCatalog, encodeResolveCatalog, type ResolveCatalog } from '../../src/domain/resolve/catalog.ts';
import { mergeResolveCatalog } from '../../src/domain/resolve/catalog-merge.ts';
import { decodeResolveOverlay, type ResolveOverlay } from '../../src/domain/catalog-index/resolve-overlay.ts';

/** A plain build's listing files, as an overlay lies over them. */
export interface ListingBase {
  /** The plain build folder. */
  dir: string;
  /** Its catalog.json `worksDigest`. */
  digest: string;
  works: WorksIndex;
  /** Its summaries.json. */
  summariesFile: string;
}

export class ListingLayerError extends Error {}

/** The decoded works.idx this thread read last, known again by the file's identity. */
const lastBase = new RememberedFile<WorksIndex>();
/** The same for a plain base's resolve.idx (every layer over one base lays its rows over it). */
const lastResolveBase = new RememberedFile<ResolveCatalog>();

function checkedManifest(buildDir: string, text: string): CatalogManifest {
  const manifest = JSON.parse(text) as CatalogManifest;
  if (manifest.format !== CATALOG_INDEX_FORMAT)
    throw new ListingLayerError(`${buildDir}: index format ${manifest.format}, expected ${CATALOG_INDEX_FORMAT}`);
  return manifest;
}

const manifestFile = (buildDir: string) => path.join(buildDir, INDEX_DIR, 'catalog.json');

/** A plain folder's works.idx digest, checked against the one an overlay names. */
function plainDigest(dir: string, manifest: CatalogManifest, digest: string | undefined): string {
  if (manifest.overlay) throw new ListingLayerError(`${dir} holds a listing overlay, not a plain listing`);
  if (manifest.worksDigest === undefined)
    throw new ListingLayerError(`${dir} was built before its works.idx digest was kept`);
  if (digest !== undefined && manifest.worksDigest !== digest)
    throw new ListingLayerError(`${dir}: its works.idx is ${manifest.worksDigest}, the overlay lies over ${digest}`);
  return manifest.worksDigest;
}

/** The decoded works.idx, kept for the next read of the same file. */
function decodedWorks(file: string, bytes: Buffer): WorksIndex {
  const works = decodeWorksIndex(decodeIndex(bytes, 'works.idx'));
  lastBase.remember(file, works);
  return works;
}

/**
 * The listing of plain build `dir`; with `digest`, it must be the one an overlay names. Throws
 * `ListingLayerError` when the folder holds no works.idx of its own (an overlay, or a build made
 * before works.idx digests were kept).
 */
export async function readListingBase(dir: string, digest?: string): Promise<ListingBase> {
  const manifest = checkedManifest(dir, await fs.readFile(manifestFile(dir), 'utf8'));
  const file = path.join(dir, INDEX_DIR, 'works.idx');
  const plain = plainDigest(dir, manifest, digest);
  return plainListing(dir, manifest, plain, lastBase.recall(file) ?? decodedWorks(file, await fs.readFile(file)));
}

function plainListing(dir: string, manifest: CatalogManifest, digest: string, works: WorksIndex): ListingBase {
  if (works.count !== manifest.works)
    throw new ListingLayerError(`${dir}: works.idx holds ${works.count} works, catalog.json ${manifest.works}`);
  return { dir, digest, works, summariesFile: path.join(dir, INDEX_DIR, 'summaries.json') };
}

/** The plain folder an overlay's folder lies over (a sibling in builds/). */
export function overlayBaseDir(buildDir: string, manifest: CatalogManifest): string {
  const base = manifest.overlay!.base;
  // A folder name, never a path: the manifest is read as untrusted.
  if (base === '' || base.includes('/') || base.includes('\\') || base === '.' || base === '..')
    throw new ListingLayerError(`${buildDir}: catalog.json overlay.base ${JSON.stringify(base)} is not a folder name`);
  return path.join(path.dirname(path.resolve(buildDir)), base);
}

export async function readWorksOverlay(buildDir: string): Promise<WorksOverlay> {
  return decodeWorksOverlay(await fs.readFile(path.join(buildDir, INDEX_DIR, WORKS_OVERLAY_FILE)));
}

/** A layer's resolve rows (catalog.json `overlay.resolve`). */
export async function readResolveOverlay(buildDir: string): Promise<ResolveOverlay> {
  return decodeResolveOverlay(await fs.readFile(path.join(buildDir, INDEX_DIR, RESOLVE_OVERLAY_FILE)));
}

/**
 * Plain build `dir`'s resolve catalog, decoded (about 0.1 s at 100,000 works) and kept for the
 * next read of the same file, as every layer over that base lays its rows over it. Its profile
 * heads are the plain build's; a layer lays its own over them (`layerResolveCatalog`).
 */
export async function readResolveBase(dir: string): Promise<{ catalog: ResolveCatalog; kept: boolean }> {
  const manifest = checkedManifest(dir, await fs.readFile(manifestFile(dir), 'utf8'));
  if (manifest.overlay) throw new ListingLayerError(`${dir} holds an overlay, not a plain resolve index`);
  const file = path.join(dir, INDEX_DIR, 'resolve.idx');
  const kept = lastResolveBase.recall(file);
  if (kept) return { catalog: kept, kept: true };
  const catalog = decodeResolveCatalog(decodeIndex(await fs.readFile(file), 'resolve.idx'), manifest.profiles);
  lastResolveBase.remember(file, catalog);
  return { catalog, kept: false };
}

function readResolveBaseSync(dir: string): ResolveCatalog {
  const manifest = checkedManifest(dir, readFileSync(manifestFile(dir), 'utf8'));
  const file = path.join(dir, INDEX_DIR, 'resolve.idx');
  const kept = lastResolveBase.recall(file);
  if (kept) return kept;
  const catalog = decodeResolveCatalog(decodeIndex(readFileSync(file), 'resolve.idx'), manifest.profiles);
  lastResolveBase.remember(file, catalog);
  return catalog;
}

/**
 * The listing files and catalog.json a full build of `buildDir`'s catalog writes, from its plain
 * base's and its overlay (merged: O(postings) typed-array work, about 0.2 s at 100,000 works);
 * null when `buildDir` holds its own listing files. Synchronous: for the compaction's child, the
 * index worker's thread and the tests, never the server's thread.
 */
export function materializeListing(
  buildDir: string,
): { 'works.idx': Buffer; 'summaries.json': Buffer; 'catalog.json': Buffer; 'resolve.idx'?: Buffer } | null {
  const manifest = checkedManifest(buildDir, readFileSync(manifestFile(buildDir), 'utf8'));
  if (!manifest.overlay) return null;
  const dir = overlayBaseDir(buildDir, manifest);
  const plainManifest = checkedManifest(dir, readFileSync(manifestFile(dir), 'utf8'));
  const file = path.join(dir, INDEX_DIR, 'works.idx');
  const digest = plainDigest(dir, plainManifest, manifest.overlay.digest);
  const base = plainListing(
    dir,
    plainManifest,
    digest,
    lastBase.recall(file) ?? decodedWorks(file, readFileSync(file)),
  );
  const overlay = decodeWorksOverlay(readFileSync(path.join(buildDir, INDEX_DIR, WORKS_OVERLAY_FILE)));
  if (overlay.base.digest !== base.digest || overlay.base.count !== base.works.count)
    throw new ListingLayerError(`${buildDir}: its overlay lies over another listing than ${base.dir}'s`);
  const merged = mergeWorksIndex(base.works, readFileSync(base.summariesFile), overlay);
  if (merged.slugs.count !== manifest.works)
    throw new ListingLayerError(
      `${buildDir}: the overlay gives ${merged.slugs.count} works, catalog.json ${manifest.works}`,
    );
  // Resolve rows laid over the base's resolve.idx: merged into the resolve.idx a full build writes.
  const resolve = manifest.overlay.resolve
    ? encodeResolveCatalog(
        mergeResolveCatalog(
          readResolveBaseSync(dir),
          overlay,
          decodeResolveOverlay(readFileSync(path.join(buildDir, INDEX_DIR, RESOLVE_OVERLAY_FILE))),
          merged.slugs,
        ),
      )
    : null;
  return {
    'works.idx': merged.index,
    'summaries.json': merged.summaries,
    'catalog.json': manifestWithout(manifest, merged.index),
    ...(resolve ? { 'resolve.idx': resolve } : {}),
  };
}

/**
 * A build folder's distinct composers: its catalog.json's (a folder made before 2026-11-30
 * afternoon) or its `composers.json`; `file` names the latter when there is one (an incremental
 * build links it).
 */
export async function readComposers(
  buildDir: string,
  manifest: CatalogManifest,
): Promise<{ composers: NonNullable<CatalogManifest['composers']>; file: string | null }> {
  if (manifest.composers) return { composers: manifest.composers, file: null };
  const file = path.join(buildDir, INDEX_DIR, COMPOSERS_FILE);
  const composers: unknown = JSON.parse(await fs.readFile(file, 'utf8'));
  if (!Array.isArray(composers)) throw new Error(`${file} is not a list of composers`);
  return { composers: composers as NonNullable<CatalogManifest['composers']>, file };
}
