/**
 * Builds in a child process (docs/decisions/0011-builds-run-in-a-child-process.md): `npm run build`
 * with the server's arguments in a new process or in the warm build process, and the compaction of
 * a layer in a child at the lowest CPU priority. The folder a failed or stopped build leaves is
 * discarded.
 */
import { spawn } from 'node:child_process';
import { setPriority } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCommand } from '../process/spawner.ts';
import type { Config } from '../config.ts';
import type { WarmBuilder, WarmBuildResult } from './warm-builder.ts';
import { BUILD_STORE_VARIABLE, buildArgs } from '../../build/protocol.ts';
import { discardFolder } from './prune.ts';

const PROJECT_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export interface ChildBuildOptions {
  inheritOutput?: boolean;
  blobsDir?: string;
  /** The folder nginx.conf roots at (the server's: ARCHIVE_DATA_DIR/current/client); default the build's own client/. */
  nginxRoot?: string;
  /** Recorded in build.json; an incremental build needs it. */
  commit?: string;
  /** Build incrementally from this complete build folder (build/plan.ts), or in full when it cannot. */
  incrementalFrom?: string;
  /** Reader sign-in the records and pages are written for. */
  readerSignIn?: 'github' | 'none';
  /** Every record's generatedAtUtc (tests compare an incremental build with a full one of the same time). */
  generatedAtUtc?: string;
  /** Run at the lowest CPU priority (the background reconcile). */
  lowPriority?: boolean;
  /** Stops the child (the folder is removed, the promise rejects). */
  signal?: AbortSignal;
  /** The blob store whose named objects hold the render cache (local folder or S3); none: no cache. */
  renderCache?: Pick<Config, 'dataDir' | 'blobStore' | 's3'>;
  /** The engraving pool's workers and budgets. */
  engrave?: Config['engrave'];
  /**
   * Run the build in this warm build process (api/site/warm-builder.ts) instead of a new one;
   * not for a low-priority build or one whose output goes to the terminal.
   */
  builder?: WarmBuilder | null;
  /** Told which warm process ran the build and how many it had run before. */
  onWarmBuild?: (result: WarmBuildResult) => void;
  /**
   * Warm `builder` up instead of building (build/warm-up.ts): plan the build, render its
   * pages into `outDir`, remove it. Needs `builder`, `commit` and `incrementalFrom`.
   */
  warmUp?: boolean;
}

/** Run scripts/build.ts in a child process; rejects with the build's own error output. */
export function buildInChild(
  contentDir: string,
  outDir: string,
  baseUrl: string,
  options: ChildBuildOptions = {},
): Promise<void> {
  const args = [
    ...buildArgs(contentDir, outDir, baseUrl),
    ...(options.blobsDir ? ['--blobs-dir', options.blobsDir] : []),
    ...(options.nginxRoot ? ['--nginx-root', options.nginxRoot] : []),
    ...(options.commit ? ['--commit', options.commit] : []),
    ...(options.incrementalFrom ? ['--incremental-from', options.incrementalFrom] : []),
    ...(options.warmUp ? ['--warm-up'] : []),
    ...(options.generatedAtUtc ? ['--generated-at', options.generatedAtUtc] : []),
    ...(options.readerSignIn ? ['--reader-sign-in', options.readerSignIn] : []),
    ...(options.renderCache ? ['--render-cache', 'store'] : ['--render-cache', 'none']),
    ...(options.engrave
      ? [
          '--engrave-workers',
          String(options.engrave.size),
          '--engrave-cpu-ms',
          String(options.engrave.cpuMs),
          '--engrave-timeout-ms',
          String(options.engrave.timeoutMs),
          '--engrave-memory-mb',
          String(options.engrave.memoryMb),
        ]
      : []),
  ];
  const storeEnv: Record<string, string> = options.renderCache
    ? {
        [BUILD_STORE_VARIABLE]: JSON.stringify({
          dataDir: options.renderCache.dataDir,
          blobStore: options.renderCache.blobStore,
          s3: options.renderCache.s3,
        }),
      }
    : {};
  if (options.warmUp && (!options.builder || options.lowPriority || options.inheritOutput))
    return Promise.reject(new Error('a warm-up runs in the warm build process only'));
  if (options.builder && !options.lowPriority && !options.inheritOutput) {
    return options.builder.run(args, storeEnv, options.signal).then(
      (result) => options.onWarmBuild?.(result),
      (err: unknown) => {
        void discardFolder(outDir);
        throw err;
      },
    );
  }
  return new Promise((resolve, reject) => {
    if (options.signal?.aborted) {
      reject(new Error('build cancelled'));
      return;
    }
    const child = spawn(process.execPath, [path.join(PROJECT_ROOT, 'scripts', 'build.ts'), ...args], {
      env: options.renderCache ? { ...process.env, ...storeEnv } : undefined,
      stdio: ['ignore', options.inheritOutput ? 'inherit' : 'pipe', options.inheritOutput ? 'inherit' : 'pipe'],
    });
    if (options.lowPriority && child.pid !== undefined) {
      try {
        setPriority(child.pid, 19);
      } catch {
        // Not permitted here: it still runs, at normal priority.
      }
    }
    const onAbort = () => child.kill('SIGTERM');
    options.signal?.addEventListener('abort', onAbort, { once: true });
    child.on('exit', () => options.signal?.removeEventListener('abort', onAbort));
    let output = '';
    child.stdout?.on('data', (d) => (output += String(d)));
    child.stderr?.on('data', (d) => (output += String(d)));
    child.on('error', reject);
    child.on('exit', (code) => {
      if (code === 0) resolve();
      else {
        void discardFolder(outDir);
        reject(new Error(`build failed (exit ${code}): ${output.trim().slice(-4000)}`));
      }
    });
  });
}

/**
 * Compact the layered build `layerDir` into the plain folder `outDir` (build/compact.ts)
 * in a child at the lowest CPU priority; the folder is removed when it fails or is stopped.
 */
export async function compactInChild(layerDir: string, outDir: string, signal?: AbortSignal): Promise<void> {
  if (signal?.aborted) throw new Error('compaction cancelled');
  // Started from the spawner process, at the lowest CPU priority (api/process/spawner.ts).
  const r = await runCommand(
    process.execPath,
    [path.join(PROJECT_ROOT, 'scripts', 'build.ts'), '--compact-from', layerDir, '--out', outDir, '--quiet'],
    { lowPriority: true, signal, stderrLimit: 1024 * 1024 },
  );
  if (r.code === 0) return;
  void discardFolder(outDir);
  const output = `${r.stdout.toString('utf8')}${r.stderr}`;
  throw new Error(`compaction failed (exit ${r.code ?? r.signal}): ${output.trim().slice(-4000)}`);
}
