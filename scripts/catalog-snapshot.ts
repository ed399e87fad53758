/**
 * The catalog a build checked, kept in its folder (`catalog-snapshot.json`) so that an incremental
 * build starting from that folder re-parses and re-checks only the works a change touches
 * (issue 12): every other work is, by `git diff`, byte for byte the one the earlier build loaded
 * and checked against the same shared inputs (a change to a shared input is a full build).
 *
 * One line per work, in the loader's order (folder names, sorted), with its checked content, its
 * Markdown body and the stored files its assets name (name, SHA-256, size; the path is rebuilt
 * from the content folder the next build reads, which may be another worktree). A full build and
 * an incremental build of the same commit write the same bytes.
 */
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Catalog, LoadedWork } from '../src/domain/catalog.ts';
import type { WorkContent } from '../src/schemas/work.ts';

export const CATALOG_SNAPSHOT = 'catalog-snapshot.json';
const FORMAT = 1;

interface SnapshotWork {
  folder: string;
  content: WorkContent;
  body: string;
  files: { name: string; sha256: string; byteLength: number }[];
}

/** The folder a loaded work came from (`works/<folder>/index.md`). */
export function workFolder(work: LoadedWork): string {
  return work.file.slice('works/'.length, -'/index.md'.length);
}

export function serializeSnapshot(works: LoadedWork[]): string {
  const lines = works.map((w) => {
    const entry: SnapshotWork = {
      folder: workFolder(w),
      content: w.content,
      body: w.body,
      files: [...w.files.values()].map((f) => ({ name: f.name, sha256: f.sha256, byteLength: f.byteLength })),
    };
    return JSON.stringify(entry);
  });
  return `{"format":${FORMAT},"works":[\n${lines.join(',\n')}\n]}\n`;
}

export function writeSnapshot(outDir: string, catalog: Catalog): void {
  const file = path.join(outDir, CATALOG_SNAPSHOT);
  rmSync(file, { force: true }); // a new inode: an incremental folder shares files with its base
  writeFileSync(file, serializeSnapshot(catalog.works));
}

/** The works of a build's snapshot, their stored files under `contentDir`; null when the folder has none (an older build). */
export function readSnapshot(buildDir: string, contentDir: string): LoadedWork[] | null {
  let text: string;
  try {
    text = readFileSync(path.join(buildDir, CATALOG_SNAPSHOT), 'utf8');
  } catch {
    return null;
  }
  const parsed = JSON.parse(text) as { format: number; works: SnapshotWork[] };
  if (parsed.format !== FORMAT) return null;
  return parsed.works.map((w) => {
    const workDir = path.join(contentDir, 'works', w.folder);
    return {
      content: w.content,
      body: w.body,
      file: `works/${w.folder}/index.md`,
      files: new Map(w.files.map((f) => [f.name, { ...f, absolutePath: path.join(workDir, f.name) }])),
    };
  });
}
