/**
 * Layered builds (docs/decisions/0051-layers-instead-of-copies.md): the rules, without the file
 * system. An incremental build made on a layered base does not copy the base's files: its folder
 * holds a *delta* (every file changed since the base, at its newest version) and the list of the
 * base's files that are gone from the view. A path of the view is the delta's file when the delta
 * has it, nothing when the base's file is deleted, else the base's file. The delta is cumulative,
 * so the chain is never deeper than one layer over one base; once it holds more than a bound of
 * paths, the next incremental build compacts (a hard-linked copy of the whole view, as before
 * layers) and starts a new base.
 */

export const LAYER_FORMAT = 1;

/** `layer.json` of a layered build folder. */
export interface LayerManifest {
  format: typeof LAYER_FORMAT;
  /** The base build folder's name (a sibling folder in builds/). */
  base: string;
  /** Every file of the delta (`client/`), root-relative with `/`, sorted. */
  files: string[];
  /** The base's files that are not part of the view, sorted; never one the delta holds. */
  deleted: string[];
}

/** Where a path of the view comes from. */
export type LayerSource = 'delta' | 'base' | 'deleted';

export function sourceOf(rel: string, files: ReadonlySet<string>, deleted: ReadonlySet<string>): LayerSource {
  if (files.has(rel)) return 'delta';
  return deleted.has(rel) ? 'deleted' : 'base';
}

/** The number of paths a layer carries (what the compaction bound counts). */
export function layerSize(manifest: Pick<LayerManifest, 'files' | 'deleted'>): number {
  return manifest.files.length + manifest.deleted.length;
}

/** ARCHIVE_LAYER_MAX_PATHS: the paths a layer may carry before the next build compacts. */
export const DEFAULT_LAYER_MAX_PATHS = 20_000;
export const LAYER_MAX_PATHS_LIMIT = 10_000_000;

/**
 * The setting's value: unset is the default; 0 turns layers off (every incremental build is a
 * hard-linked copy of its base, as before). Throws a message naming the setting otherwise.
 */
export function layerMaxPathsFrom(value: string | undefined): number {
  if (value === undefined || value.trim() === '') return DEFAULT_LAYER_MAX_PATHS;
  const n = Number(value);
  if (!/^\s*\d+\s*$/.test(value) || !Number.isSafeInteger(n) || n > LAYER_MAX_PATHS_LIMIT)
    throw new Error(
      `ARCHIVE_LAYER_MAX_PATHS must be a whole number from 0 (layers off) to ${LAYER_MAX_PATHS_LIMIT}; got ${JSON.stringify(value)}`,
    );
  return n;
}

/**
 * Whether a served layer is compacted in the background (api/site/compaction.ts): from half the bound
 * on, so that the compaction normally lands before an apply reaches the bound and has to compact
 * inline (`nextBuildKind`). `layerPaths`: the layer's `layerSize`, null for a plain build (never
 * compacted); never with layers off (0).
 */
export function compactionDue(layerPaths: number | null, maxPaths: number): boolean {
  return layerPaths !== null && maxPaths > 0 && layerPaths * 2 >= maxPaths;
}

/**
 * How the next incremental build is made from its base: a new `layer` over the same base (the
 * base's own layer, when it is one, carries fewer paths than the bound), or a `copy` of the whole
 * view (layers off, or the bound is reached: the compaction).
 */
export function nextBuildKind(
  base: Pick<LayerManifest, 'files' | 'deleted'> | null,
  maxPaths: number,
): 'layer' | 'copy' {
  if (maxPaths === 0) return 'copy';
  return base === null || layerSize(base) < maxPaths ? 'layer' : 'copy';
}

/**
 * The deleted list of a new layer: the previous layer's deleted files and the base files the
 * change removed (those under the folders it replaced), but none the new delta holds (a page
 * removed and rendered again is the delta's). Sorted, without repeats.
 */
export function nextDeleted(
  previous: Iterable<string>,
  removedBaseFiles: Iterable<string>,
  delta: ReadonlySet<string>,
): string[] {
  const out = new Set<string>();
  for (const rel of previous) if (!delta.has(rel)) out.add(rel);
  for (const rel of removedBaseFiles) if (!delta.has(rel)) out.add(rel);
  return [...out].sort();
}

/** Whether `rel` lies in the folder `dir` (root-relative, without a trailing slash; '' is the root). */
export function isUnder(rel: string, dir: string): boolean {
  return dir === '' || rel.startsWith(`${dir}/`);
}

/** A root-relative path a manifest may name: no empty, `.` or `..` segment, no leading slash, no NUL. */
export function isSafeRelPath(rel: string): boolean {
  if (rel === '' || rel.includes('\0') || rel.includes('\\')) return false;
  return rel.split('/').every((s) => s !== '' && s !== '.' && s !== '..');
}

/** Parse `layer.json`; throws a message naming what is wrong (a build folder is the build's own output). */
export function parseLayerManifest(text: string): LayerManifest {
  const value = JSON.parse(text) as Partial<LayerManifest>;
  if (value.format !== LAYER_FORMAT)
    throw new Error(`layer.json: format ${String(value.format)}, expected ${LAYER_FORMAT}`);
  if (typeof value.base !== 'string' || !isSafeRelPath(value.base) || value.base.includes('/'))
    throw new Error('layer.json: base must name a sibling build folder');
  for (const key of ['files', 'deleted'] as const) {
    const list = value[key];
    if (!Array.isArray(list) || !list.every((p) => typeof p === 'string' && isSafeRelPath(p)))
      throw new Error(`layer.json: ${key} must be a list of relative paths`);
  }
  return value as LayerManifest;
}
