/**
 * Build folders under ARCHIVE_DATA_DIR/builds and the rebuild-and-swap path (DESIGN.md 2.7).
 * A build runs in a child process into a fresh folder keyed by content commit and base URL; the
 * server switches to it in one step only once it is complete, so a failed build leaves the old
 * site serving. Rebuilds are serialised: concurrent callers queue behind the one running.
 */
import { createHash } from 'node:crypto';
import { spawn } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Config } from '../config.ts';
import type { SiteHandle } from './site-handle.ts';
import { git } from './content-repo.ts';

const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** Complete: build.json (written last) and the index the server loads; a build by an older version without an index is rebuilt. */
export function isCompleteBuild(outDir: string): boolean {
  return existsSync(path.join(outDir, 'build.json')) && existsSync(path.join(outDir, 'client')) && existsSync(path.join(outDir, 'index', 'catalog.json'));
}

/** Reader sign-in changes what records and pages say (issue 18), so it is part of the key (unchanged keys without it). */
export function buildKey(commit: string, baseUrl: string, readerSignIn: 'github' | 'none' = 'none'): string {
  const input = readerSignIn === 'none' ? baseUrl : `${baseUrl}\nreader-sign-in=${readerSignIn}`;
  return `${commit.slice(0, 12)}-${createHash('sha256').update(input).digest('hex').slice(0, 8)}`;
}

/** Run scripts/build.ts in a child process; rejects with the build's own error output. */
export function buildInChild(contentDir: string, outDir: string, baseUrl: string, options: { inheritOutput?: boolean; blobsDir?: string; readerSignIn?: 'github' | 'none' } = {}): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      process.execPath,
      [path.join(PROJECT_ROOT, 'scripts', 'build.ts'), '--content', contentDir, '--out', outDir, '--base-url', baseUrl, '--quiet', ...(options.blobsDir ? ['--blobs-dir', options.blobsDir] : []), ...(options.readerSignIn ? ['--reader-sign-in', options.readerSignIn] : [])],
      { stdio: ['ignore', options.inheritOutput ? 'inherit' : 'pipe', options.inheritOutput ? 'inherit' : 'pipe'] },
    );
    let output = '';
    child.stdout?.on('data', (d) => (output += String(d)));
    child.stderr?.on('data', (d) => (output += String(d)));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve();
      else {
        rmSync(outDir, { recursive: true, force: true });
        reject(new Error(`build failed (exit ${code}): ${output.trim().slice(-4000)}`));
      }
    });
  });
}

/** Make sure a complete build of `commit` exists; returns its folder. */
export async function ensureBuild(config: Config, commit: string, options: { inheritOutput?: boolean; onBuildStart?: () => void } = {}): Promise<string> {
  const buildsDir = path.join(config.dataDir, 'builds');
  const readerSignIn = config.readerSignIn ? config.readerSignIn.provider : 'none';
  const dir = path.join(buildsDir, buildKey(commit, config.publicBaseUrl, readerSignIn));
  if (isCompleteBuild(dir)) return dir;
  mkdirSync(buildsDir, { recursive: true });
  options.onBuildStart?.();
  // Build into a scratch folder: the content repository may move on while we build.
  const worktree = path.join(config.dataDir, 'worktrees', `${path.basename(dir)}-${process.pid}-${Date.now()}`);
  await git(config.contentRepo, ['worktree', 'add', '--detach', '--force', worktree, commit]);
  try {
    await buildInChild(worktree, dir, config.publicBaseUrl, { ...options, blobsDir: path.join(config.dataDir, 'blobs'), readerSignIn });
  } finally {
    await git(config.contentRepo, ['worktree', 'remove', '--force', worktree]).catch(() => rmSync(worktree, { recursive: true, force: true }));
  }
  return dir;
}

/** Remove build folders other than those to keep. */
export function pruneBuilds(config: Config, keep: string[]): void {
  const buildsDir = path.join(config.dataDir, 'builds');
  if (!existsSync(buildsDir)) return;
  const keepNames = new Set(keep.map((k) => path.basename(k)));
  for (const name of readdirSync(buildsDir)) if (!keepNames.has(name)) rmSync(path.join(buildsDir, name), { recursive: true, force: true });
}

export interface SwapResult {
  commit: string;
  buildDir: string;
  durationMs: number;
}

/** Rebuild the content repository's HEAD and switch the server to it, one at a time. */
export class Rebuilder {
  private readonly config: Config;
  private readonly handle: SiteHandle;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(config: Config, handle: SiteHandle) {
    this.config = config;
    this.handle = handle;
  }

  rebuildAndSwap(): Promise<SwapResult> {
    const run = this.queue.then(async () => {
      const started = Date.now();
      const commit = await git(this.config.contentRepo, ['rev-parse', 'HEAD']);
      const previous = this.handle.current.dir;
      const buildDir = await ensureBuild(this.config, commit);
      if (buildDir !== previous) {
        await this.handle.swap(buildDir);
        // Keep the previous folder for requests still streaming from it; drop older ones.
        pruneBuilds(this.config, [buildDir, previous]);
      }
      return { commit, buildDir, durationMs: Date.now() - started };
    });
    this.queue = run.catch(() => undefined);
    return run;
  }
}
