/**
 * The served build and the build folders (docs/decisions/0013-rebuild-and-swap.md): the link nginx
 * follows, the folders' names (keyed by content commit, base URL and reader sign-in), whether a
 * folder is complete, and what its build.json says.
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  renameSync,
  rmSync,
  symlinkSync,
} from 'node:fs';
import path from 'node:path';
import type { Config } from '../config.ts';
import { LAYER_FILE, layerBaseDir } from '../../src/lib/site/layers.ts';

/**
 * ARCHIVE_DATA_DIR/current: a symbolic link to the build folder being served (`builds/<name>`,
 * relative, so the data folder can move). The generated nginx.conf roots at `current/client`, so
 * nginx in front follows every swap without a reload: the kernel resolves the link on every open.
 * It lives beside builds/, not in it, so nothing that lists build folders (pruning, the base of an
 * incremental build) can take it for one.
 */
export function servedBuildLink(dataDir: string): string {
  return path.join(dataDir, 'current');
}

/** The folder the served-build link is rooted at in nginx.conf. */
export function servedClientDir(dataDir: string): string {
  return path.join(servedBuildLink(dataDir), 'client');
}

/**
 * Point the served-build link at `buildDir` in one step: a new link under a temporary name, then
 * rename(2) over the old one, which replaces it atomically. A reader (nginx) sees the old folder or
 * the new one, never a missing link; a stop (even kill -9) between the two steps leaves the old
 * link and a stray temporary one, which the next call removes.
 */
export function pointServedBuild(link: string, buildDir: string): void {
  const dir = path.dirname(link);
  mkdirSync(dir, { recursive: true });
  const base = path.basename(link);
  for (const name of readdirSync(dir)) {
    if (name.startsWith(`.${base}-`)) rmSync(path.join(dir, name), { force: true });
  }
  const target = path.relative(dir, path.resolve(buildDir));
  const tmp = path.join(dir, `.${base}-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2, 8)}`);
  symlinkSync(target, tmp, 'dir');
  try {
    renameSync(tmp, link);
  } catch (err) {
    rmSync(tmp, { force: true });
    throw err;
  }
}

/** The build folder the served-build link names (absolute), or null when there is no link. */
export function servedBuildTarget(link: string): string | null {
  try {
    return path.resolve(path.dirname(link), readlinkSync(link));
  } catch {
    return null;
  }
}

/** Complete: build.json (written last) and the index the server loads; a build by an older version without an index is rebuilt. */
export function isCompleteBuild(outDir: string): boolean {
  if (
    !existsSync(path.join(outDir, 'build.json')) ||
    !existsSync(path.join(outDir, 'client')) ||
    !existsSync(path.join(outDir, 'index', 'catalog.json'))
  )
    return false;
  // A layered build (src/lib/site/layers.ts) is complete with its base: build.json is written
  // after layer.json, and a base is a plain build (the layer of a layer names the same base).
  if (!existsSync(path.join(outDir, LAYER_FILE))) return true;
  const base = layerBaseDir(outDir);
  return base !== null && !existsSync(path.join(base, LAYER_FILE)) && isCompleteBuild(base);
}

/** Reader sign-in changes what records and pages say, so it is part of the key (unchanged keys without it). */
export function buildKey(commit: string, baseUrl: string, readerSignIn: 'github' | 'none' = 'none'): string {
  const input = readerSignIn === 'none' ? baseUrl : `${baseUrl}\nreader-sign-in=${readerSignIn}`;
  return `${commit.slice(0, 12)}-${createHash('sha256').update(input).digest('hex').slice(0, 8)}`;
}

/** The reader sign-in a build for this configuration is written for (part of the build key). */
export function readerSignInOf(config: Config): 'github' | 'none' {
  return config.readerSignIn ? config.readerSignIn.provider : 'none';
}

/** An incremental build's folder: the full build's name with `-inc` (the reconcile's full build takes the plain name). */
export function incrementalBuildDir(config: Config, commit: string): string {
  return path.join(config.dataDir, 'builds', `${buildKey(commit, config.publicBaseUrl, readerSignInOf(config))}-inc`);
}

/**
 * A layered build made plain again by the background compaction (build/compact.ts): the
 * full build's name with `-cmp`. The same view as the layer it was made from, so it stands for the
 * same commit.
 */
export function compactedBuildDir(config: Config, commit: string): string {
  return path.join(config.dataDir, 'builds', `${buildKey(commit, config.publicBaseUrl, readerSignInOf(config))}-cmp`);
}

/** What a complete build folder says about itself (build.json); null when unreadable. */
export function readBuildInfo(dir: string): {
  commit: string | null;
  mode: 'full' | 'incremental';
  fallbackReason?: string | null;
  /** A layered build's paths (its delta's files, the base's files it deletes); null for a plain folder. */
  layerPaths: number | null;
  /** Rendered audio of the build: how many scores' audio it left pending (not in the render cache), and whether a background full build is to render it. */
  audio: { pending: number; later: boolean } | null;
} | null {
  try {
    const info = JSON.parse(readFileSync(path.join(dir, 'build.json'), 'utf8')) as {
      commit?: string | null;
      mode?: 'full' | 'incremental';
      fallbackReason?: string | null;
      incremental?: { layer?: { base: string | null; files?: number; deleted?: number } };
      audio?: { pending?: number; later?: boolean };
    };
    const layer = info.incremental?.layer;
    return {
      commit: info.commit ?? null,
      mode: info.mode ?? 'full',
      fallbackReason: info.fallbackReason ?? null,
      layerPaths: layer?.base ? (layer.files ?? 0) + (layer.deleted ?? 0) : null,
      audio: info.audio ? { pending: info.audio.pending ?? 0, later: info.audio.later === true } : null,
    };
  } catch {
    return null;
  }
}
