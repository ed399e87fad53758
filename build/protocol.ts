/**
 * What the server and its build children say to each other (the server's side imports only this
 * file and the build's types, never the build itself, so the server process does not load Astro):
 * the start of a child's command line, the variable that hands a child the server's blob store, and the warm build process's requests
 * and answers (build/warm-worker.ts; api/site/warm-builder.ts sends them).
 */
import type { WarmUpResult } from './warm-up.ts';

/**
 * How the server hands its blob store to a build child: JSON in this variable of the child's own
 * environment (not a setting: S3 credentials stay off the command line). build/command.ts reads it (`--render-cache store`).
 */
export const BUILD_STORE_VARIABLE = 'ARCHIVE_BUILD_RENDER_CACHE_STORE';

/** A build child's command line (scripts/build.ts, build/command.ts) up to its options: what, where, for which URL, quietly. */
export function buildArgs(contentDir: string, outDir: string, baseUrl: string): string[] {
  return ['--content', contentDir, '--out', outDir, '--base-url', baseUrl, '--quiet'];
}

export interface BuildRequest {
  id: number;
  args: string[];
  env: Record<string, string>;
  maxBuilds: number;
  maxRssBytes: number;
}

export interface BuildAnswer {
  id: number;
  ok: boolean;
  /** The CLI's exit code for the failure: 2 a bad command line, 1 content errors or a failed build. */
  exitCode?: number;
  message?: string;
  /** A warm-up's figures (`--warm-up`: build/warm-up.ts). */
  warmUp?: WarmUpResult;
  /** Builds this process has run, this one included. */
  builds: number;
  rssBytes: number;
  /** The most resident memory this process has had, bytes. */
  peakRssBytes: number;
  /** What the next build may take it to: its memory now plus the most a warm build has added, bytes. */
  nextPeakBytes: number;
  /** This process exits after the answer. */
  retire: boolean;
}
