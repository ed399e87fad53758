/**
 * The score files under a folder, for the command-line tools that take a folder of scores
 * (`npm run import`, `npm run engrave`): every `.musicxml`, `.xml` and `.mxl`
 * (src/domain/score-files.ts, the one definition the build and review's checks use too), at any
 * depth up to a bound, in a stable order. Bounded in depth and count: a folder is untrusted
 * input, and a link loop or a million files must not hang the tool.
 */
import { promises as fs } from 'node:fs';
import path from 'node:path';
import { isScoreFileName } from '../../src/domain/score-files.ts';

export const MAX_SCORE_FILES = 200_000;
export const MAX_FOLDER_DEPTH = 8;

export interface ScoreWalk {
  /** Paths relative to the folder, "/"-separated, in NFC, sorted. */
  files: string[];
  /** True when the walk stopped at a bound (files beyond it were not listed). */
  truncated: boolean;
}

/** Every score file under `dir` (symbolic links are not followed); throws when `dir` cannot be read. */
export async function scoreFilesUnder(
  dir: string,
  limits: { maxFiles?: number; maxDepth?: number } = {},
): Promise<ScoreWalk> {
  const maxFiles = limits.maxFiles ?? MAX_SCORE_FILES;
  const maxDepth = limits.maxDepth ?? MAX_FOLDER_DEPTH;
  const out: string[] = [];
  let truncated = false;
  const walk = async (rel: string, depth: number): Promise<void> => {
    const entries = await fs.readdir(path.join(dir, rel), { withFileTypes: true });
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const e of entries) {
      if (out.length >= maxFiles) {
        truncated = true;
        return;
      }
      const child = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) {
        if (depth >= maxDepth) truncated = true;
        else await walk(child, depth + 1).catch(() => undefined);
      } else if (e.isFile() && isScoreFileName(e.name)) out.push(child.normalize('NFC'));
    }
  };
  await walk('', 0);
  return { files: out, truncated };
}
