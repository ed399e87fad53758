/**
 * A build folder's site as readers see it (src/domain/site-layers.ts has the rules): a plain
 * build's `client/`, or a layered build's delta over its base's `client/` without the deleted
 * files. Everything that reads a build's pages and records goes through this: the static server,
 * the record reader, the index worker of the next incremental build, `publish:static`, and the
 * tests that compare an incremental build with a full one.
 *
 * On disk a layered build folder holds, beside the usual files: `client/` (the delta),
 * `layer.json`, `base` (a relative link to the base folder's `client/`) and `deleted/` (an empty
 * file at each deleted path). A plain build has `base` too, linked to its own `client/`. The
 * generated nginx.conf roots at the build folder and tries `client/` then `base/`, refusing a path
 * `deleted/` names (api/site/nginx.ts), so nginx follows a swap between plain and layered builds
 * without a reload, and a request whose tries straddle a swap still finds its file.
 */
import {
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import path from 'node:path';
import { isUnder, parseLayerManifest, sourceOf, type LayerManifest } from '../../domain/site-layers.ts';

export const LAYER_FILE = 'layer.json';
export const LAYER_BASE_LINK = 'base';
export const LAYER_DELETED_DIR = 'deleted';

/** The layer manifest of a build folder; null for a plain build. Throws when it is unreadable. */
export function readLayerManifest(buildDir: string): LayerManifest | null {
  const file = path.join(buildDir, LAYER_FILE);
  if (!existsSync(file)) return null;
  return parseLayerManifest(readFileSync(file, 'utf8'));
}

/** The folder a layered build's base is (a sibling in builds/); null for a plain build or an unreadable manifest. */
export function layerBaseDir(buildDir: string): string | null {
  try {
    const manifest = readLayerManifest(buildDir);
    return manifest ? path.join(path.dirname(path.resolve(buildDir)), manifest.base) : null;
  } catch {
    return null;
  }
}

/**
 * Every file under `dir`, root-relative to `root` with `/` (an explicit stack: no recursion),
 * not entering the folders `skip` names.
 */
export function filesBelow(root: string, dir = '', skip: (folder: string) => boolean = () => false): string[] {
  const out: string[] = [];
  const stack = [dir];
  while (stack.length > 0) {
    const rel = stack.pop()!;
    let entries;
    try {
      entries = readdirSync(path.join(root, rel), { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const child = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) {
        if (!skip(child)) stack.push(child);
      } else out.push(child);
    }
  }
  return out;
}

export class SiteView {
  /** The folder this view's own files are in (a plain build's `client/`, or a layer's delta). */
  readonly client: string;
  /** The base's `client/` of a layered build; null for a plain one. */
  readonly base: string | null;
  private readonly files: ReadonlySet<string>;
  private readonly deleted: ReadonlySet<string>;

  private constructor(client: string, base: string | null, files: string[], deleted: string[]) {
    this.client = path.resolve(client);
    this.base = base === null ? null : path.resolve(base);
    this.files = new Set(files);
    this.deleted = new Set(deleted);
  }

  /** The view of a build folder (its `client/`, layered or not). */
  static open(buildDir: string): SiteView {
    return SiteView.of(buildDir, readLayerManifest(buildDir));
  }

  /** A build folder's view from its layer manifest, already read (null: a plain build). */
  static of(buildDir: string, manifest: LayerManifest | null): SiteView {
    const client = path.join(buildDir, 'client');
    if (manifest === null) return SiteView.plain(client);
    const base = path.join(path.dirname(path.resolve(buildDir)), manifest.base, 'client');
    return new SiteView(client, base, manifest.files, manifest.deleted);
  }

  /** A plain folder of files as a view. */
  static plain(dir: string): SiteView {
    return new SiteView(dir, null, [], []);
  }

  get layered(): boolean {
    return this.base !== null;
  }

  /**
   * Where the view's file `rel` (root-relative, `/`, already checked to have no `..`) would be;
   * null when the layer deleted it. The file may still not exist.
   */
  locate(rel: string): string | null {
    if (this.base === null) return path.join(this.client, rel);
    switch (sourceOf(rel, this.files, this.deleted)) {
      case 'delta':
        return path.join(this.client, rel);
      case 'deleted':
        return null;
      default:
        return path.join(this.base, rel);
    }
  }

  /** The names of the folders in the view's folder `dir` (sorted); a folder of only deleted files may be listed. */
  listDirs(dir: string): string[] {
    const names = new Set<string>();
    for (const root of this.base === null ? [this.client] : [this.client, this.base]) {
      try {
        for (const d of readdirSync(path.join(root, dir), { withFileTypes: true }))
          if (d.isDirectory()) names.add(d.name);
      } catch {
        // Not there.
      }
    }
    return [...names].sort();
  }

  /** The view's files under the folder `dir` ('' for all), sorted. */
  filesUnder(dir = ''): string[] {
    if (this.base === null) return filesBelow(this.client, dir).sort();
    const out = new Set<string>();
    for (const rel of filesBelow(this.base, dir)) if (sourceOf(rel, this.files, this.deleted) === 'base') out.add(rel);
    for (const rel of this.files) if (isUnder(rel, dir)) out.add(rel);
    return [...out].sort();
  }

  /**
   * The files of the plain build under the view, under `dir`: a layered view's base's (whether
   * the layer deleted or replaced them or not), a plain view's own.
   */
  baseFilesUnder(dir: string, skip?: (folder: string) => boolean): string[] {
    return filesBelow(this.base ?? this.client, dir, skip);
  }
}

/**
 * A plain build's `base` link, to its own `client/`: nginx tries `client/<file>`, then
 * `base/<file>`, and the served link may move between the two tries (a swap between a layer and
 * a plain build). With the link, the second try finds the plain build's file instead of nothing.
 */
export function writePlainBaseLink(buildDir: string): void {
  const link = path.join(buildDir, LAYER_BASE_LINK);
  rmSync(link, { force: true });
  symlinkSync('client', link, 'dir');
}

/**
 * Write a layer's own files into its build folder: `layer.json`, the `base` link and the
 * `deleted/` markers (nginx refuses the paths they name). The delta (`client/`) is already there.
 * `present`: the markers already in `deleted/` (the base layer's, hard-linked beside the delta by
 * the build's link step): only the difference is written, not every marker of the layer again
 * (several hundred once a new work moved a search shard: about 0.4 s per apply).
 */
export function writeLayerFiles(buildDir: string, manifest: LayerManifest, present: readonly string[] = []): void {
  const deletedDir = path.join(buildDir, LAYER_DELETED_DIR);
  if (present.length === 0) rmSync(deletedDir, { recursive: true, force: true });
  mkdirSync(deletedDir, { recursive: true });
  const wanted = new Set(manifest.deleted);
  for (const rel of present) {
    if (wanted.has(rel)) continue;
    rmSync(path.join(deletedDir, rel), { force: true });
    // A folder left empty goes too, as a marker written afresh would not have made it.
    for (let dir = path.dirname(rel); dir !== '.'; dir = path.dirname(dir)) {
      try {
        rmdirSync(path.join(deletedDir, dir));
      } catch {
        break; // not empty
      }
    }
  }
  const had = new Set(present);
  for (const rel of manifest.deleted) {
    if (had.has(rel)) continue;
    const marker = path.join(deletedDir, rel);
    mkdirSync(path.dirname(marker), { recursive: true });
    writeFileSync(marker, '');
  }
  const link = path.join(buildDir, LAYER_BASE_LINK);
  rmSync(link, { force: true });
  symlinkSync(path.join('..', manifest.base, 'client'), link, 'dir');
  writeFileSync(path.join(buildDir, LAYER_FILE), `${JSON.stringify(manifest)}\n`);
}
