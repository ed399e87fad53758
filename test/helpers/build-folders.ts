/** Build folders compared file by file, and the fixture of the incremental-build tests. */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { buildInChild } from '../../api/site/builds.ts';
import { ensureContentRepo, git } from '../../api/site/content-repo.ts';
import { WarmBuilder } from '../../api/site/warm-builder.ts';
import { PROJECT_ROOT } from './app.ts';
import { runScript } from './process.ts';
import { CATALOG_SNAPSHOT, resolvedSnapshot } from '../../build/catalog-snapshot.ts';
import { LAYER_BASE_LINK, LAYER_DELETED_DIR, LAYER_FILE, SiteView } from '../../src/lib/site/layers.ts';
import { materializeListing } from '../../api/catalog/index-layers.ts';
import { INDEX_DIR, RESOLVE_OVERLAY_FILE, WORKS_OVERLAY_FILE } from '../../src/domain/catalog-index/index-files.ts';

export function filesUnder(dir: string, prefix = ''): string[] {
  const out: string[] = [];
  for (const e of readdirSync(path.join(dir, prefix), { withFileTypes: true })) {
    const rel = prefix ? `${prefix}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...filesUnder(dir, rel));
    else out.push(rel);
  }
  return out.sort();
}

/** A layered build's own bookkeeping (src/lib/site/layers.ts), not part of what it serves. */
const LAYER_OWN = (rel: string) =>
  rel === LAYER_FILE || rel === LAYER_BASE_LINK || rel.startsWith(`${LAYER_DELETED_DIR}/`);

/**
 * Digest of every file of a build folder but build.json (timings); nginx.conf names its own
 * folder; the catalog snapshot is the whole one a layer's delta stands for, and so are a listing
 * overlay's index files (merged with its base's: api/catalog/index-layers.ts). `client/` is the
 * folder's view: a layered build's delta over its base, without the files it deletes, so a layer
 * compares with the full build of the same commit.
 */
export function digests(dir: string): Map<string, string> {
  const map = new Map<string, string>();
  const hash = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
  // Folders without an index (a Pagefind output, a client/) are compared file by file.
  const listing = existsSync(path.join(dir, INDEX_DIR, 'catalog.json')) ? materializeListing(dir) : null;
  if (listing) for (const [name, bytes] of Object.entries(listing)) map.set(`${INDEX_DIR}/${name}`, hash(bytes));
  for (const rel of filesUnder(dir)) {
    if (rel === 'build.json' || rel.startsWith('client/') || LAYER_OWN(rel)) continue;
    if (
      listing &&
      (rel === `${INDEX_DIR}/${WORKS_OVERLAY_FILE}` || rel === `${INDEX_DIR}/${RESOLVE_OVERLAY_FILE}` || map.has(rel))
    )
      continue;
    let bytes: Buffer = readFileSync(path.join(dir, rel));
    // A layered build's snapshot is a delta over its plain base's: compared as the whole it stands for.
    if (rel === CATALOG_SNAPSHOT) bytes = resolvedSnapshot(dir) ?? bytes;
    if (rel === 'nginx.conf') bytes = Buffer.from(bytes.toString('utf8').replaceAll(dir, '<build>'));
    map.set(rel, hash(bytes));
  }
  const view = SiteView.open(dir);
  for (const rel of view.filesUnder('')) map.set(`client/${rel}`, hash(readFileSync(view.locate(rel)!)));
  return map;
}

/** The files of a build folder's view under `dir` of its client/ (a layered build: delta and base). */
export function viewFilesUnder(buildDir: string, dir = ''): string[] {
  return SiteView.open(buildDir).filesUnder(dir);
}

export function differences(a: Map<string, string>, b: Map<string, string>): string[] {
  const out: string[] = [];
  for (const [rel, d] of a)
    if (!b.has(rel)) out.push(`only in the incremental build: ${rel}`);
    else if (b.get(rel) !== d) out.push(`differs: ${rel}`);
  for (const rel of b.keys()) if (!a.has(rel)) out.push(`only in the full build: ${rel}`);
  return out;
}

/**
 * A content repository with a full base build, for tests that build a commit incrementally and
 * compare it with a full build of the same commit. `dispose()` in `afterAll`.
 */
export class IncrementalBuilds {
  readonly root: string;
  readonly repo: string;
  readonly baseUrl: string;
  /**
   * With `{ warm: true }`: the base and every incremental build run in one warm build process
   * (api/site/warm-builder.ts), as the server's applies do, so the incremental builds render
   * through the warm renderer (build/warm-render.ts); the full builds they are compared with
   * still run each in a new process.
   */
  readonly builder: WarmBuilder | null;
  baseDir = '';

  constructor(prefix: string, baseUrl: string, options: { warm?: boolean } = {}) {
    this.baseUrl = baseUrl;
    this.root = mkdtempSync(path.join(os.tmpdir(), prefix));
    this.repo = path.join(this.root, 'content');
    this.builder = options.warm ? new WarmBuilder() : null;
  }

  /** A file of a work in the repository. */
  work(slug: string, file = 'index.md'): string {
    return path.join(this.repo, 'works', slug, file);
  }

  /** Seed the repository from `seed` (relative to the project) and build its head in full as the base. */
  async buildBase(seed = 'content'): Promise<string> {
    const seeded = await ensureContentRepo(this.repo, path.join(PROJECT_ROOT, seed));
    this.baseDir = path.join(this.root, 'base');
    await buildInChild(this.repo, this.baseDir, this.baseUrl, { commit: seeded.head, builder: this.builder });
    return this.baseDir;
  }

  async commitAll(message: string): Promise<string> {
    await git(this.repo, ['add', '--all']);
    await git(this.repo, ['commit', '--quiet', '-m', message]);
    return git(this.repo, ['rev-parse', 'HEAD']);
  }

  /** Build `commit` incrementally from `base` and in full (same time), and compare the two folders. */
  async buildBoth(
    commit: string,
    base: string,
    name: string,
  ): Promise<{ incremental: string; full: string; differences: string[] }> {
    const incremental = path.join(this.root, `${name}-inc`);
    const full = path.join(this.root, `${name}-full`);
    await buildInChild(this.repo, incremental, this.baseUrl, { commit, incrementalFrom: base, builder: this.builder });
    // An incremental folder keeps the time of the full build it descends from.
    const { generatedAtUtc } = buildInfo(base) as { generatedAtUtc: string };
    await buildInChild(this.repo, full, this.baseUrl, { commit, generatedAtUtc });
    return { incremental, full, differences: differences(digests(incremental), digests(full)) };
  }

  dispose(): void {
    this.builder?.close();
    rmSync(this.root, { recursive: true, force: true });
  }
}

/**
 * A quiet build of `content` into `out` through the build CLI (scripts/build.ts) under `baseUrl`,
 * with `args` besides; throws with its output when it fails. Returns the folder's build.json.
 */
export async function buildWithCli(
  content: string,
  out: string,
  baseUrl: string,
  args: string[] = [],
): Promise<Record<string, any>> {
  const run = await runScript('build.ts', [
    '--content',
    content,
    '--out',
    out,
    '--base-url',
    baseUrl,
    ...args,
    '--quiet',
  ]);
  if (run.status !== 0) throw new Error(`scripts/build.ts failed (exit ${run.status}):\n${run.out}`);
  return buildInfo(out);
}

/** A build folder's build.json. */
export function buildInfo(dir: string): Record<string, any> {
  return JSON.parse(readFileSync(path.join(dir, 'build.json'), 'utf8')) as Record<string, any>;
}
