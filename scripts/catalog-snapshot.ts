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
import { closeSync, openSync, readFileSync, rmSync, statSync, writeSync } from 'node:fs';
import path from 'node:path';
import type { Catalog, LoadedWork } from '../src/domain/catalog.ts';
import type { WorkContent } from '../src/schemas/work.ts';
import { writeSnapshotPieces, type SnapshotPiece } from './lib/snapshot-writer.ts';

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
const SEPARATOR = ',\n';

/** Where each work's line lies in a snapshot file: folder -> [start, end) byte offsets, separator excluded. */
export type SnapshotSpans = Map<string, [number, number]>;

/** A base build's snapshot: its works, its file and where each work's line lies in it. */
export interface BaseSnapshot {
  works: LoadedWork[];
  file: string;
  spans: SnapshotSpans;
}

/**
 * The snapshot the last incremental build of this process wrote, kept for the next build that
 * starts from it (the warm build process runs each apply's build after the one before, whose
 * folder is its base): its works as loaded objects and where their lines lie, so that build
 * neither reads nor parses the file. Known by the file's identity (device, inode, size,
 * modification and change times): a build folder's snapshot is written once, and any other file
 * is read from disk. Full builds keep nothing (at 100,000 works the catalog is let go before
 * the index step, for the build's peak memory).
 */
let remembered: { identity: string; contentDir: string; snapshot: BaseSnapshot } | null = null;

/** Let go of the remembered snapshot (a full build, which starts from none, needs the memory). */
export function forgetSnapshot(): void {
  remembered = null;
}

/**
 * Keep a base's snapshot as it was read (`readBaseSnapshot`, from its file) for the next build of
 * this process that starts from the same folder: the warm-up at a server's start
 * (scripts/build/warm-up.ts) reads the served build's snapshot once, so the first apply does not.
 * Not kept when the file changed since it was read.
 */
export function rememberBaseSnapshot(snapshot: BaseSnapshot, contentDir: string): void {
  const identity = identityOf(snapshot.file);
  const { works, file, spans } = snapshot;
  remembered = identity === null ? null : { identity, contentDir, snapshot: { works, file, spans } };
}

function identityOf(file: string): string | null {
  const st = statSync(file, { throwIfNoEntry: false, bigint: true });
  return st ? `${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}` : null;
}

/** What a new snapshot may copy from its base's file: the unchanged works' lines. */
export interface SnapshotReuse {
  base: BaseSnapshot;
  /** Folders whose works changed or are new: serialized, even when the base has a line for them. */
  changed: Set<string>;
}

/**
 * Written a few hundred lines at a time, never as one string: at 100,000 works the file is about
 * half a gigabyte, near V8's longest string. With `reuse`, each run of unchanged works whose
 * lines are consecutive in the base's file is copied from it byte for byte (the same code wrote
 * them: an incremental build starts only from a base of the same site code), and only the
 * changed works are serialized. With `rememberFor` (the content folder the works' files lie in),
 * the next build of this process that starts from this folder takes the works from memory.
 *
 * With `reuse`, this thread only serializes the changed works' lines; a worker thread writes the
 * file (scripts/lib/snapshot-writer.ts), so an incremental build writes it beside its render:
 * copying about half a gigabyte of its base's lines at 100,000 works held the build's thread
 * 2 s, and through the thread pool it waited on the render's thread between reads (7-11 s).
 */
export async function writeSnapshot(
  outDir: string,
  catalog: Catalog,
  options: { reuse?: SnapshotReuse; rememberFor?: string } = {},
): Promise<void> {
  const file = path.join(outDir, CATALOG_SNAPSHOT);
  rmSync(file, { force: true }); // a new inode: an incremental folder shares files with its base
  remembered = null; // the works it holds are let go before this build's are kept
  const { reuse } = options;
  const spans: SnapshotSpans = new Map();
  // Without a base, written as it is made; with one, the pieces go to the writer thread.
  const pieces: SnapshotPiece[] = [];
  const fd = reuse ? null : openSync(file, 'w');
  let written = 0;
  const put = (piece: SnapshotPiece) => {
    if (fd === null) pieces.push(piece);
    else {
      const bytes = piece as Uint8Array;
      for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at);
    }
    written += Array.isArray(piece) ? piece[1] - piece[0] : piece.length;
  };
  try {
    let text: string[] = [];
    const flushText = () => {
      if (text.length > 0) put(Buffer.from(text.join('')));
      text = [];
    };
    // A run of the base's file still to copy: [start, end).
    let run: [number, number] | null = null;
    const flushRun = () => {
      if (run) put(run);
      run = null;
    };
    text.push(HEAD);
    // Where the next line starts in the new file (spans), whatever is still buffered.
    let at = HEAD.length;
    const works = catalog.works;
    for (let i = 0; i < works.length; i++) {
      const w = works[i]!;
      const folder = workFolder(w);
      const from = reuse && !reuse.changed.has(folder) ? reuse.base.spans.get(folder) : undefined;
      if (i > 0) at += SEPARATOR.length;
      if (from) {
        // The base's separator is the same bytes: a line right after the run's last joins the run.
        if (run && i > 0 && from[0] === run[1] + SEPARATOR.length) run[1] = from[1];
        else {
          flushRun();
          if (i > 0) text.push(SEPARATOR);
          flushText();
          run = [from[0], from[1]];
        }
        spans.set(folder, [at, at + (from[1] - from[0])]);
        at += from[1] - from[0];
      } else {
        flushRun();
        const line = snapshotLine(w);
        const length = Buffer.byteLength(line);
        text.push(i > 0 ? SEPARATOR + line : line);
        spans.set(folder, [at, at + length]);
        at += length;
        if (text.length >= 500) flushText();
      }
    }
    flushRun();
    text.push(TAIL);
    flushText();
    if (written !== at + TAIL.length)
      throw new Error(`the snapshot's size is ${written} bytes, not the ${at + TAIL.length} planned`);
  } finally {
    if (fd !== null) closeSync(fd);
  }
  if (reuse) await writeSnapshotPieces(file, reuse.base.file, pieces);
  if (options.rememberFor !== undefined) {
    const identity = identityOf(file);
    if (identity)
      remembered = { identity, contentDir: options.rememberFor, snapshot: { works: catalog.works, file, spans } };
  }
}

/**
 * The works of a build's snapshot, their stored files under `contentDir`; null when the folder
 * has none (an older build) or another format. Parsed line by line (one work per line).
 */
export function readSnapshot(buildDir: string, contentDir: string): LoadedWork[] | null {
  return readBaseSnapshot(buildDir, contentDir, { fromMemory: false })?.works ?? null;
}

/**
 * A base build's snapshot: from memory when this process wrote it for the same content folder
 * (`fromMemory`, the default), else read and parsed, with where each line lies.
 */
export function readBaseSnapshot(
  buildDir: string,
  contentDir: string,
  options: { fromMemory?: boolean } = {},
): (BaseSnapshot & { fromMemory: boolean }) | null {
  const file = path.join(buildDir, CATALOG_SNAPSHOT);
  if ((options.fromMemory ?? true) && remembered && remembered.contentDir === contentDir) {
    const identity = identityOf(file);
    if (identity !== null && identity === remembered.identity)
      return { ...remembered.snapshot, file, fromMemory: true };
  }
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return null;
  }
  if (
    !bytes.subarray(0, HEAD.length).equals(Buffer.from(HEAD)) ||
    !bytes.subarray(bytes.length - TAIL.length).equals(Buffer.from(TAIL))
  )
    return null;
  const works: LoadedWork[] = [];
  const spans: SnapshotSpans = new Map();
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
    spans.set(w.folder, [start, lineEnd]);
    start = stop + 1;
  }
  return { works, file, spans, fromMemory: false };
}
