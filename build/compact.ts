/**
 * The background compaction (docs/decisions/0052-background-compaction.md): a layered build
 * folder made again as a plain one, without building anything. Its `client/` is the layer's whole
 * view, hard-linked (the base's files but the deleted ones, the delta's over them:
 * `materializeView`, the same as an incremental build's inline compaction); its other files
 * (`index/`, `protected/`, the manifests) are the layer's, linked, and its catalog snapshot, a delta
 * over the layer's base, is written whole (build/catalog-snapshot.ts), as are its listing
 * index files when the layer holds a listing overlay over its base's (api/catalog/index-layers.ts:
 * merged, the bytes a full build writes, its other index files linked); `build.json` is
 * the layer's with `incremental.layer` saying `{ base: null, compacted: true }` and
 * `compactedFrom` naming the layer, written last. The view is byte for byte the layer's, so the
 * server can swap it in at any time while the layer is still the served build, and the next
 * apply is a small layer over it. The server runs it in a child at the lowest CPU priority
 * (api/site/compaction.ts); `npm run build -- --compact-from LAYER-DIR --out DIR` runs it by hand.
 */
import { execFileSync } from 'node:child_process';
import {
  closeSync,
  fdatasyncSync,
  fsyncSync,
  linkSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  utimesSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import path from 'node:path';
import {
  LAYER_BASE_LINK,
  LAYER_DELETED_DIR,
  LAYER_FILE,
  readLayerManifest,
  SiteView,
  writePlainBaseLink,
} from '../src/lib/site/layers.ts';
import { materializeView } from './link-base.ts';
import { CATALOG_SNAPSHOT, isDeltaSnapshot, writeResolvedSnapshot } from './catalog-snapshot.ts';
import { materializeListing } from '../api/catalog/index-layers.ts';
import { INDEX_DIR, RESOLVE_OVERLAY_FILE, WORKS_OVERLAY_FILE } from '../src/domain/catalog-index/index-files.ts';
import type { BuildInfo } from './types.ts';

/** The layer's own files, which a plain folder does not have (its `base` link is written again). */
const LAYER_ONLY = new Set(['client', LAYER_BASE_LINK, LAYER_FILE, LAYER_DELETED_DIR, 'build.json']);

/** The folder named is not a complete layered build (the command line's mistake, not a failure). */
export class NotALayer extends Error {}

export interface CompactionInfo {
  /** The layer compacted (its folder's name). */
  from: string;
  /** The paths the layer carried (its delta's files and the base's files it deleted). */
  layerPaths: number;
  durationMs: number;
}

/**
 * The layer's index files as a plain folder's: linked, but a listing overlay's merged into the
 * listing files and catalog.json a full build of the same catalog writes (the plain folder must
 * not need the layer's base, which may be pruned once it is served).
 */
function compactIndex(layerDir: string, from: string, to: string): void {
  const merged = materializeListing(layerDir);
  if (merged === null) {
    execFileSync('cp', ['-al', from, to]);
    return;
  }
  mkdirSync(to);
  for (const name of readdirSync(from)) {
    if (name === WORKS_OVERLAY_FILE || name === RESOLVE_OVERLAY_FILE || name in merged) continue;
    linkSync(path.join(from, name), path.join(to, name));
  }
  // Written through to the disk here, at this child's low priority: about 155 MB at 100,000 works
  // (the listing files and resolve.idx), which the kernel would otherwise write back while the
  // server swaps this folder in.
  for (const [name, bytes] of Object.entries(merged)) writeGently(path.join(to, name), bytes);
}

/** Bytes written to the disk between pauses by `writeGently`. */
const GENTLE_CHUNK = 4 * 1024 * 1024;
const GENTLE_PAUSE_MS = 10;

/**
 * `bytes` written to `file` and through to the disk a few megabytes at a time, pausing between
 * them: one flush of 155 MB keeps the disk's queue full for seconds, and a server read that
 * misses the page cache meanwhile (a static file read on its thread) waits behind it (run 64:
 * 214 ms). The compaction is in no hurry; the server's reads are.
 */
function writeGently(file: string, bytes: Buffer): void {
  const fd = openSync(file, 'w');
  const pause = new Int32Array(new SharedArrayBuffer(4));
  try {
    for (let at = 0; at < bytes.length; at += GENTLE_CHUNK) {
      const chunk = bytes.subarray(at, Math.min(at + GENTLE_CHUNK, bytes.length));
      for (let done = 0; done < chunk.length;) done += writeSync(fd, chunk, done);
      fdatasyncSync(fd);
      Atomics.wait(pause, 0, 0, GENTLE_PAUSE_MS);
    }
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Make `outDir` the plain folder of the layered build `layerDir`; throws when it is not a complete layer. */
export async function compactBuild(layerDir: string, outDir: string): Promise<CompactionInfo> {
  const started = Date.now();
  layerDir = path.resolve(layerDir);
  outDir = path.resolve(outDir);
  let info: BuildInfo;
  try {
    info = JSON.parse(readFileSync(path.join(layerDir, 'build.json'), 'utf8')) as BuildInfo;
  } catch (err) {
    throw new NotALayer(`${layerDir} is not a complete build: ${(err as Error).message}`);
  }
  const layer = readLayerManifest(layerDir);
  if (!layer) throw new NotALayer(`${layerDir} is not a layered build (it has no ${LAYER_FILE}): nothing to compact`);
  const view = SiteView.open(layerDir);
  rmSync(outDir, { recursive: true, force: true });
  mkdirSync(outDir, { recursive: true });
  await materializeView(view, layer, path.join(outDir, 'client'));
  for (const entry of readdirSync(layerDir, { withFileTypes: true })) {
    if (LAYER_ONLY.has(entry.name)) continue;
    const from = path.join(layerDir, entry.name);
    const to = path.join(outDir, entry.name);
    if (entry.name === 'nginx.conf') {
      // Rooted at the layer's own folder only when no --nginx-root was given: then at the new one.
      writeFileSync(to, readFileSync(from, 'utf8').split(layerDir).join(outDir));
    } else if (entry.name === CATALOG_SNAPSHOT && isDeltaSnapshot(layerDir)) {
      // A layer's snapshot is a delta over the layer's base, which the plain folder must not need
      // (that base may be pruned once this folder is served): written whole. Unreadable: none,
      // and the next build loads the whole catalog.
      writeResolvedSnapshot(layerDir, to);
    } else if (entry.name === INDEX_DIR && entry.isDirectory()) compactIndex(layerDir, from, to);
    else if (entry.isDirectory()) execFileSync('cp', ['-al', from, to]);
    else if (entry.isFile()) linkSync(from, to);
  }
  writePlainBaseLink(outDir);
  const compaction: CompactionInfo = {
    from: path.basename(layerDir),
    layerPaths: layer.files.length + layer.deleted.length,
    durationMs: Date.now() - started,
  };
  const compacted: BuildInfo = {
    ...info,
    ...(info.incremental ? { incremental: { ...info.incremental, layer: { base: null, compacted: true } } } : {}),
    compaction,
  };
  const file = path.join(outDir, 'build.json');
  writeFileSync(file, `${JSON.stringify(compacted, null, 2)}\n`);
  // No newer than the layer: the newest complete build (api/site/ensure-build.ts, latestCompleteBuild)
  // must stay the one of the newest commit, whichever of the two a stop left.
  const { atime, mtime } = statSync(path.join(layerDir, 'build.json'));
  utimesSync(file, atime, mtime);
  return compaction;
}
