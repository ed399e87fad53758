/**
 * Move a folder's files into another folder on the same filesystem, merging with what is there:
 * a file replaces the one at its place (a new inode: a hard-linked copy of an older build keeps its
 * own), a folder that does not exist there yet is moved whole (one rename), one that does is
 * merged entry by entry. The build's engraved pages (gigabytes for a real catalog) reach `client/`
 * this way instead of being copied and then deleted.
 */
import { mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import path from 'node:path';

/** Moves everything under `from` into `to`; answers the number of files moved. `from` is left empty. */
export function moveTree(from: string, to: string): number {
  let moved = 0;
  // The build's own folders, walked with an explicit stack.
  const stack: [string, string][] = [[from, to]];
  mkdirSync(to, { recursive: true });
  while (stack.length > 0) {
    const [src, dest] = stack.pop()!;
    for (const entry of readdirSync(src, { withFileTypes: true })) {
      const s = path.join(src, entry.name);
      const d = path.join(dest, entry.name);
      if (entry.isDirectory()) {
        if (!exists(d)) {
          renameSync(s, d);
          moved += countFiles(d);
        } else stack.push([s, d]);
      } else {
        rmSync(d, { force: true, recursive: true });
        renameSync(s, d);
        moved++;
      }
    }
  }
  return moved;
}

function exists(p: string): boolean {
  try {
    statSync(p);
    return true;
  } catch {
    return false;
  }
}

function countFiles(dir: string): number {
  return readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => !e.isDirectory()).length;
}
