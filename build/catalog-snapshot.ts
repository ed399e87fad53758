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
 * an incremental build of the same commit write the same bytes, except that a layered build
 * (src/lib/site/layers.ts) writes a delta over its plain base's snapshot, as its pages are a delta
 * over the base's: the lines of every work that differs from the plain base, and the folders the
 * plain base has and the catalog no longer does (`{"format":1,"over":"<plain base folder>",
 * "removed":[...],"works":[...]}`). Copying the base's half a gigabyte of lines at 100,000 works
 * was one of an apply's longest tasks (1.4-4.6 s); the delta is as small as the layer. A delta
 * stands for the full snapshot `resolvedSnapshot` gives, the bytes a full build writes.
 */
import { closeSync, openSync, readFileSync, readSync, rmSync, writeFileSync, writeSync } from 'node:fs';
import path from 'node:path';
import { knownSlugOrdered, markSlugOrdered, type Catalog, type LoadedWork } from '../src/domain/catalog.ts';
import { fileIdentity } from '../src/lib/file-identity.ts';
import type { WorkContent } from '../src/schemas/work.ts';
import { writeSnapshotPieces, type SnapshotPiece } from './snapshot-writer.ts';

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
/** How a layered build's snapshot begins (`writeDelta`): the plain base's folder name follows. */
const DELTA_HEAD = `{"format":${FORMAT},"over":`;
const TAIL = '\n]}\n';
const SEPARATOR = ',\n';

/** Where each work's line lies in a snapshot file: folder -> [start, end) byte offsets, separator excluded. */
export type SnapshotSpans = Map<string, [number, number]>;

/**
 * A base build's snapshot: its works, a full snapshot file and where each work's line lies in it.
 * For a layered base, `file` and `spans` are its plain base's, and `delta` names the folders whose
 * line there is not the base's work (changed, new or removed since the plain base).
 */
export interface BaseSnapshot {
  works: LoadedWork[];
  /** The build folder's own snapshot file (what the memory of it is known by). */
  own: string;
  file: string;
  spans: SnapshotSpans;
  delta: SnapshotDelta | null;
}

/** A layered snapshot's difference from its plain base's (`BaseSnapshot`). */
export interface SnapshotDelta {
  /** The plain base's folder name (a sibling in builds/). */
  over: string;
  folders: ReadonlySet<string>;
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
 * (build/warm-up.ts) reads the served build's snapshot once, so the first apply does not.
 * Not kept when the file changed since it was read.
 */
export function rememberBaseSnapshot(snapshot: BaseSnapshot, contentDir: string): void {
  const identity = fileIdentity(snapshot.own);
  const { works, own, file, spans, delta } = snapshot;
  remembered = identity === null ? null : { identity, contentDir, snapshot: { works, own, file, spans, delta } };
}

/** What a new snapshot may copy from its base's file: the unchanged works' lines. */
export interface SnapshotReuse {
  base: BaseSnapshot;
  /** Folders whose works changed or are new: serialized, even when the base has a line for them. */
  changed: Set<string>;
}

/** A line of `base.file` that is still the work's: not changed now, nor since the plain base. */
function baseLine(reuse: SnapshotReuse | undefined, folder: string): [number, number] | undefined {
  if (!reuse || reuse.changed.has(folder) || reuse.base.delta?.folders.has(folder)) return undefined;
  return reuse.base.spans.get(folder);
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
 * file (build/snapshot-writer.ts), so an incremental build writes it beside its render:
 * copying about half a gigabyte of its base's lines at 100,000 works held the build's thread
 * 2 s, and through the thread pool it waited on the render's thread between reads (7-11 s).
 */
export async function writeSnapshot(
  outDir: string,
  catalog: Catalog,
  options: { reuse?: SnapshotReuse; rememberFor?: string; over?: string } = {},
): Promise<void> {
  const file = path.join(outDir, CATALOG_SNAPSHOT);
  rmSync(file, { force: true }); // a new inode: an incremental folder shares files with its base
  remembered = null; // the works it holds are let go before this build's are kept
  const { reuse } = options;
  if (reuse && options.over !== undefined && plainOf(reuse.base) === options.over) {
    writeDelta(file, catalog, reuse, options.over, options.rememberFor);
    return;
  }
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
      const from = baseLine(reuse, folder);
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
    const identity = fileIdentity(file);
    if (identity)
      remembered = {
        identity,
        contentDir: options.rememberFor,
        snapshot: { works: catalog.works, own: file, file, spans, delta: null },
      };
  }
}

/** The plain base folder a base's snapshot file belongs to (its own folder, or the one its delta is over). */
function plainOf(base: BaseSnapshot): string {
  return base.delta ? base.delta.over : path.basename(path.dirname(base.file));
}

/**
 * A layered build's snapshot: a delta over its plain base's (`reuse.base` is that base or a layer
 * over it): a line for every work of a folder changed now or since the plain base, and the
 * folders the plain base has that the catalog no longer does. Small: written on this thread.
 */
function writeDelta(file: string, catalog: Catalog, reuse: SnapshotReuse, over: string, rememberFor?: string): void {
  const folders = new Set([...(reuse.base.delta?.folders ?? []), ...reuse.changed]);
  const found = new Map<string, LoadedWork>();
  for (const w of catalog.works) {
    const folder = workFolder(w);
    if (folders.has(folder)) found.set(folder, w);
  }
  const lines: string[] = [];
  const removed: string[] = [];
  const kept = new Set<string>();
  for (const folder of [...folders].sort()) {
    const w = found.get(folder);
    if (w !== undefined) lines.push(snapshotLine(w));
    else if (reuse.base.spans.has(folder)) removed.push(folder);
    else continue; // new since the plain base, and removed again: nothing to say
    kept.add(folder);
  }
  const head = `${DELTA_HEAD}${JSON.stringify(over)},"removed":${JSON.stringify(removed)},"works":[\n`;
  writeFileSync(file, head + lines.join(SEPARATOR) + TAIL);
  if (rememberFor !== undefined) {
    const identity = fileIdentity(file);
    if (identity)
      remembered = {
        identity,
        contentDir: rememberFor,
        snapshot: {
          works: catalog.works,
          own: file,
          file: reuse.base.file,
          spans: reuse.base.spans,
          delta: { over, folders: kept },
        },
      };
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
 * (`fromMemory`, the default), else read and parsed, with where each line lies. A layered build's
 * delta is read with its plain base's snapshot, and stands for the works of both.
 */
export function readBaseSnapshot(
  buildDir: string,
  contentDir: string,
  options: { fromMemory?: boolean } = {},
): (BaseSnapshot & { fromMemory: boolean }) | null {
  const own = path.join(buildDir, CATALOG_SNAPSHOT);
  if ((options.fromMemory ?? true) && remembered && remembered.contentDir === contentDir) {
    const identity = fileIdentity(own);
    if (identity !== null && identity === remembered.identity) return { ...remembered.snapshot, own, fromMemory: true };
  }
  const read = readSnapshotFile(own, contentDir);
  if (read === null) return null;
  if (read.over === null)
    return { works: read.works, own, file: own, spans: read.spans, delta: null, fromMemory: false };
  const plainFile = path.join(path.dirname(path.resolve(buildDir)), read.over, CATALOG_SNAPSHOT);
  const plain = readSnapshotFile(plainFile, contentDir);
  if (plain === null || plain.over !== null) return null;
  const folders = new Set([...read.folders, ...read.removed]);
  // Both in the loader's order: the plain base's works not in the delta, merged with the delta's.
  const works: LoadedWork[] = [];
  let d = 0;
  for (let p = 0; p < plain.works.length; p++) {
    const folder = plain.folders[p]!;
    while (d < read.works.length && read.folders[d]! < folder) works.push(read.works[d++]!);
    if (!folders.has(folder)) works.push(plain.works[p]!);
  }
  while (d < read.works.length) works.push(read.works[d++]!);
  return {
    // A merge of two arrays in the loader's order is in that order.
    works: knownSlugOrdered(plain.works) && knownSlugOrdered(read.works) ? markSlugOrdered(works) : works,
    own,
    file: plainFile,
    spans: plain.spans,
    delta: { over: read.over, folders },
    fromMemory: false,
  };
}

/** A snapshot file as written: a full one (`over` null), or a layered build's delta. */
interface SnapshotFile {
  over: string | null;
  removed: string[];
  works: LoadedWork[];
  /** Each work's folder, in the same order. */
  folders: string[];
  spans: SnapshotSpans;
}

function readSnapshotFile(file: string, contentDir: string): SnapshotFile | null {
  let bytes: Buffer;
  try {
    bytes = readFileSync(file);
  } catch {
    return null;
  }
  const head = snapshotHead(bytes);
  if (head === null) return null;
  const { over, removed } = head;
  const works: LoadedWork[] = [];
  const folders: string[] = [];
  const spans: SnapshotSpans = new Map();
  let ordered = true;
  for (const [start, lineEnd] of lineRanges(bytes, head.start)) {
    const w = JSON.parse(bytes.toString('utf8', start, lineEnd)) as SnapshotWork;
    if (w.content.slug !== w.folder || (folders.length > 0 && !(folders[folders.length - 1]! < w.folder)))
      ordered = false;
    const workDir = path.join(contentDir, 'works', w.folder);
    works.push({
      content: w.content,
      body: w.body,
      file: `works/${w.folder}/index.md`,
      files: new Map(w.files.map((f) => [f.name, { ...f, absolutePath: path.join(workDir, f.name) }])),
    });
    folders.push(w.folder);
    spans.set(w.folder, [start, lineEnd]);
  }
  return { over, removed, works: ordered ? markSlugOrdered(works) : works, folders, spans };
}

/** Each work line of a snapshot file from `start` on, as `[start, end)` without its separator. */
function* lineRanges(bytes: Buffer, start: number): Generator<[number, number]> {
  const end = bytes.length - TAIL.length;
  while (start < end) {
    let stop = bytes.indexOf(0x0a, start);
    if (stop === -1 || stop > end) stop = end;
    // Each line but the last ends with a comma before its line break.
    yield [start, stop < end && bytes[stop - 1] === 0x2c ? stop - 1 : stop];
    start = stop + 1;
  }
}

/** Each line of a snapshot file's works (`[start, end)`, separator excluded) with its folder, read from the line's start. */
function scanLines(bytes: Buffer, start: number): Array<{ folder: string; start: number; end: number }> {
  const out: Array<{ folder: string; start: number; end: number }> = [];
  const prefix = Buffer.from('{"folder":');
  for (const [from, to] of lineRanges(bytes, start)) {
    if (!bytes.subarray(from, from + prefix.length).equals(prefix))
      throw new Error('a snapshot line without its folder');
    // The folder is the line's first field, a JSON string: up to its closing quote.
    let q = from + prefix.length + 1;
    while (q < to && bytes[q] !== 0x22) q += bytes[q] === 0x5c ? 2 : 1;
    out.push({
      folder: JSON.parse(bytes.toString('utf8', from + prefix.length, q + 1)) as string,
      start: from,
      end: to,
    });
  }
  return out;
}

/** A snapshot file's head: full (`over` null) or a delta's, and where its lines start; null when it is neither. */
function snapshotHead(bytes: Buffer): { over: string | null; removed: string[]; start: number } | null {
  if (!bytes.subarray(bytes.length - TAIL.length).equals(Buffer.from(TAIL))) return null;
  if (bytes.subarray(0, HEAD.length).equals(Buffer.from(HEAD))) return { over: null, removed: [], start: HEAD.length };
  if (!bytes.subarray(0, DELTA_HEAD.length).equals(Buffer.from(DELTA_HEAD))) return null;
  const nl = bytes.indexOf(0x0a);
  if (nl === -1) return null;
  let head: unknown;
  try {
    head = JSON.parse(`${bytes.toString('utf8', 0, nl)}]}`);
  } catch {
    return null;
  }
  const h = head as { over?: unknown; removed?: unknown };
  if (
    typeof h.over !== 'string' ||
    !/^[A-Za-z0-9][A-Za-z0-9._-]*$/.test(h.over) ||
    !Array.isArray(h.removed) ||
    !h.removed.every((f): f is string => typeof f === 'string')
  )
    return null;
  return { over: h.over, removed: h.removed, start: nl + 1 };
}

/**
 * The pieces of the full snapshot a build folder's file stands for, in order: its own bytes, or
 * for a layered build's delta, its plain base's lines and the delta's in the loader's order, the
 * bytes a full build of the same catalog writes. Null when there is none, or it cannot be read.
 */
function resolvedPieces(buildDir: string): Buffer[] | null {
  let own: Buffer;
  try {
    own = readFileSync(path.join(buildDir, CATALOG_SNAPSHOT));
  } catch {
    return null;
  }
  const head = snapshotHead(own);
  if (head === null) return null;
  if (head.over === null) return [own];
  let plain: Buffer;
  try {
    plain = readFileSync(path.join(path.dirname(path.resolve(buildDir)), head.over, CATALOG_SNAPSHOT));
  } catch {
    return null;
  }
  const plainHead = snapshotHead(plain);
  if (plainHead === null || plainHead.over !== null) return null;
  try {
    const delta = scanLines(own, head.start);
    const gone = new Set([...delta.map((l) => l.folder), ...head.removed]);
    const pieces: Buffer[] = [Buffer.from(HEAD)];
    let first = true;
    const put = (bytes: Buffer) => {
      if (!first) pieces.push(Buffer.from(SEPARATOR));
      first = false;
      pieces.push(bytes);
    };
    let d = 0;
    for (const line of scanLines(plain, plainHead.start)) {
      while (d < delta.length && delta[d]!.folder < line.folder) put(own.subarray(delta[d]!.start, delta[d++]!.end));
      if (!gone.has(line.folder)) put(plain.subarray(line.start, line.end));
    }
    while (d < delta.length) put(own.subarray(delta[d]!.start, delta[d++]!.end));
    pieces.push(Buffer.from(TAIL));
    return pieces;
  } catch {
    return null;
  }
}

/** The full snapshot a build folder's file stands for (`resolvedPieces`), as one buffer: for comparing folders. */
export function resolvedSnapshot(buildDir: string): Buffer | null {
  const pieces = resolvedPieces(buildDir);
  return pieces === null ? null : Buffer.concat(pieces);
}

/**
 * Write the full snapshot a build folder's file stands for into `file` (the background compaction
 * of a layer: its plain folder must not depend on the layer's plain base). False, and nothing
 * written, when there is none or it cannot be read.
 */
export function writeResolvedSnapshot(buildDir: string, file: string): boolean {
  const pieces = resolvedPieces(buildDir);
  if (pieces === null) return false;
  const fd = openSync(file, 'w');
  try {
    for (const bytes of pieces) for (let at = 0; at < bytes.length;) at += writeSync(fd, bytes, at, bytes.length - at);
  } finally {
    closeSync(fd);
  }
  return true;
}

/** Whether a build folder's snapshot is a layered build's delta (`writeDelta`). */
export function isDeltaSnapshot(buildDir: string): boolean {
  try {
    const fd = openSync(path.join(buildDir, CATALOG_SNAPSHOT), 'r');
    try {
      const head = Buffer.alloc(DELTA_HEAD.length);
      return readSync(fd, head, 0, head.length, 0) === head.length && head.equals(Buffer.from(DELTA_HEAD));
    } finally {
      closeSync(fd);
    }
  } catch {
    return false;
  }
}
