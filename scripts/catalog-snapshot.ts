/**
 * The catalog a build checked, kept in its folder (`catalog-snapshot.json`) so that an incremental
 * build starting from that folder re-parses and re-checks only the works a change touches
 * (docs/review.md, "Apply-to-visible and the incremental path"): every other work is, by
 * `git diff`, byte for byte the one the earlier build loaded and checked against the same shared
 * inputs (a change to a shared input is a full build).
 *
 * One line per work, in the loader's order (folder names, sorted), with its checked content, its
 * Markdown body and the stored files its assets name (name, SHA-256, size; the path is rebuilt
 * from the content folder the next build reads, which may be another worktree). A full build and
 * an incremental build of the same commit write the same bytes.
 */
import { closeSync, openSync, readFileSync, rmSync, writeSync } from 'node:fs';
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

function snapshotLine(w: LoadedWork): string {
  const entry: SnapshotWork = {
    folder: workFolder(w),
    content: w.content,
    body: w.body,
    files: [...w.files.values()].map((f) => ({ name: f.name, sha256: f.sha256, byteLength: f.byteLength })),
  };
  return JSON.stringify(entry);
}

const HEAD = `{"format":${FORMAT},"works":[\n`;
const TAIL = '\n]}\n';

/**
 * Written a few hundred lines at a time, never as one string: at 100,000 works the file is about
 * half a gigabyte, near V8's longest string.
 */
export function writeSnapshot(outDir: string, catalog: Catalog): void {
  const file = path.join(outDir, CATALOG_SNAPSHOT);
  rmSync(file, { force: true }); // a new inode: an incremental folder shares files with its base
  const fd = openSync(file, 'w');
  try {
    writeSync(fd, HEAD);
    const works = catalog.works;
    for (let i = 0; i < works.length; i += 500) {
      const lines = works
        .slice(i, i + 500)
        .map(snapshotLine)
        .join(',\n');
      writeSync(fd, i === 0 ? lines : `,\n${lines}`);
    }
    writeSync(fd, TAIL);
  } finally {
    closeSync(fd);
  }
}

/**
 * The works of a build's snapshot, their stored files under `contentDir`; null when the folder
 * has none (an older build) or another format. Parsed line by line (one work per line).
 */
export function readSnapshot(buildDir: string, contentDir: string): LoadedWork[] | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(path.join(buildDir, CATALOG_SNAPSHOT));
  } catch {
    return null;
  }
  if (
    !bytes.subarray(0, HEAD.length).equals(Buffer.from(HEAD)) ||
    !bytes.subarray(bytes.length - TAIL.length).equals(Buffer.from(TAIL))
  )
    return null;
  const works: LoadedWork[] = [];
  const end = bytes.length - TAIL.length;
  let start = HEAD.length;
  while (start < end) {
    let stop = bytes.indexOf(0x0a, start);
    if (stop === -1 || stop > end) stop = end;
    // Each line but the last ends with a comma before its line break.
    const lineEnd = stop < end && bytes[stop - 1] === 0x2c ? stop - 1 : stop;
    const w = JSON.parse(bytes.toString('utf8', start, lineEnd)) as SnapshotWork;
    const workDir = path.join(contentDir, 'works', w.folder);
    works.push({
      content: w.content,
      body: w.body,
      file: `works/${w.folder}/index.md`,
      files: new Map(w.files.map((f) => [f.name, { ...f, absolutePath: path.join(workDir, f.name) }])),
    });
    start = stop + 1;
  }
  return works;
}
