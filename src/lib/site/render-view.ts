/**
 * The render view: render cache entries unpacked into files on this machine, so a build hard-links
 * each engraved page into its output instead of reading, verifying and writing the entry's bytes
 * again. At the whole OpenScore corpus that was 2.9 GB written by every full build; a link is one
 * directory entry.
 *
 * A view folder is made only from an entry that passed its digest check, and it remembers which
 * stored object that was: the blob store's fingerprint of it (local store: device, inode, size and
 * modification time; S3: ETag and length). A build uses the view only while the entry's
 * fingerprint is unchanged and each of the view's files still has the fingerprint it had when it
 * was written (device, inode, size, modification time); anything else (an entry replaced, damaged
 * or restored, a file written in place, removed or replaced) makes the build read and verify the
 * entry again and unpack it anew. What the view cannot see is a change of a file's bytes that
 * keeps its size and modification time (a disk fault under the filesystem); the entry itself is
 * verified whenever it is read.
 *
 * Files in a build's output are linked, never written in place (every build writes new inodes,
 * see src/lib/site/move-tree.ts), so serving, pruning or hard-link copying a build never touches the
 * view. The view is disposable: removing its folder costs one unpacking per score.
 */
import { randomBytes } from 'node:crypto';
import { copyFileSync, linkSync, mkdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { EngraveOutput } from './engrave.ts';

const FORMAT = 'pdma-render-view/1';
const STAMP = 'view.json';
/** A stamp lists a score's files: a few hundred for the longest quartet; anything past this is not ours. */
const MAX_STAMP_BYTES = 4 * 1024 * 1024;
const FILE_NAME = /^[a-z0-9][a-z0-9.-]*$/;

export type ViewKind = 'engraving' | 'pdf';

/** One unpacked entry: its rendering and where each of its files is on disk. */
export interface ViewedEntry {
  rendering: EngraveOutput['rendering'];
  files: { name: string; file: string }[];
}

interface Stamp {
  format: string;
  key: string;
  /** The stored entry's fingerprint when it was verified and unpacked. */
  entry: string;
  rendering: EngraveOutput['rendering'];
  files: { name: string; fingerprint: string }[];
}

/** A file's fingerprint: which inode it is, its size and when its bytes last changed (not ctime: a link changes it). */
function fileFingerprint(file: string): string | null {
  try {
    const s = statSync(file, { bigint: true });
    return s.isFile() ? `${s.dev}:${s.ino}:${s.size}:${s.mtimeNs}` : null;
  } catch {
    return null;
  }
}

export class RenderView {
  readonly root: string;
  constructor(root: string) {
    this.root = root;
  }

  folder(key: string, kind: ViewKind): string {
    return path.join(this.root, kind, key.slice(0, 2), key);
  }

  /** The unpacked entry, when it was made from the entry with this fingerprint and none of its files changed. */
  open(key: string, kind: ViewKind, entryFingerprint: string): ViewedEntry | null {
    const dir = this.folder(key, kind);
    let stamp: Stamp;
    try {
      const bytes = readFileSync(path.join(dir, STAMP));
      if (bytes.length > MAX_STAMP_BYTES) return null;
      stamp = JSON.parse(bytes.toString('utf8')) as Stamp;
    } catch {
      return null;
    }
    if (stamp?.format !== FORMAT || stamp.key !== key || stamp.entry !== entryFingerprint) return null;
    if (!Array.isArray(stamp.files) || typeof stamp.rendering?.status !== 'string') return null;
    const files: ViewedEntry['files'] = [];
    for (const f of stamp.files) {
      if (typeof f?.name !== 'string' || !FILE_NAME.test(f.name) || f.name === STAMP) return null;
      const file = path.join(dir, f.name);
      if (fileFingerprint(file) !== f.fingerprint) return null;
      files.push({ name: f.name, file });
    }
    return { rendering: stamp.rendering, files };
  }

  /**
   * Unpack a verified entry (its output) made from the stored object with `entryFingerprint`:
   * written into a new folder beside the old one and renamed over it, so a concurrent build sees
   * the old view or the new one. Answers the new view.
   */
  store(key: string, kind: ViewKind, entryFingerprint: string, output: EngraveOutput): ViewedEntry {
    const dir = this.folder(key, kind);
    const temp = `${dir}.${process.pid}-${randomBytes(6).toString('hex')}.tmp`;
    mkdirSync(temp, { recursive: true });
    try {
      const files: Stamp['files'] = [];
      for (const f of output.files) {
        if (!FILE_NAME.test(f.name) || f.name === STAMP) throw new Error(`not a view file name: ${f.name}`);
        writeFileSync(path.join(temp, f.name), f.bytes);
        files.push({ name: f.name, fingerprint: fileFingerprint(path.join(temp, f.name))! });
      }
      const stamp: Stamp = { format: FORMAT, key, entry: entryFingerprint, rendering: output.rendering, files };
      writeFileSync(path.join(temp, STAMP), JSON.stringify(stamp));
      // The old folder goes first (a rename cannot replace a non-empty folder); a build that opened
      // it keeps its links (they are its own directory entries).
      rmSync(dir, { recursive: true, force: true });
      renameSync(temp, dir);
    } catch (err) {
      rmSync(temp, { recursive: true, force: true });
      throw err;
    }
    // Renaming the folder keeps each file's inode and times, so the fingerprints stay true.
    return {
      rendering: output.rendering,
      files: output.files.map((f) => ({ name: f.name, file: path.join(dir, f.name) })),
    };
  }
}

/**
 * Put a viewed file at `target` as a hard link (a copy when the filesystem refuses one, such as
 * another device), replacing what is there. Answers whether it was linked.
 */
export function placeViewedFile(file: string, target: string): boolean {
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      linkSync(file, target);
      return true;
    } catch (err) {
      // Something at the target: removed once and linked again; any other refusal: a copy.
      if ((err as NodeJS.ErrnoException).code !== 'EEXIST' || attempt > 0) break;
      rmSync(target, { force: true, recursive: true });
    }
  }
  rmSync(target, { force: true, recursive: true });
  copyFileSync(file, target);
  return false;
}
