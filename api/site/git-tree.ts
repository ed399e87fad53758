/**
 * Git tree objects read and written as bytes: a tree is a list of entries
 * `<mode> <name>\0<object id as raw bytes>`, ordered by name with a folder's name compared as if it
 * ended in "/" (git's `base_name_compare`). An edit of a few paths reads and writes only the trees
 * on their way from the root (at 100,000 works: the root, `works/` with one entry per work, and
 * the work's own), where git's index is a list of every file of the tree (16 MB there), read and
 * written whole by each command that uses one. A tree is walked by offsets, never split into one
 * object per entry (`works/` is 5 MB at 100,000 works), and written again as the old tree's byte
 * ranges around the changed entries.
 */

/** One entry of a tree: its mode as git writes it ("100644", "40000", ...), its name's bytes, its object id's bytes. */
export interface TreeEntry {
  mode: string;
  name: Buffer;
  id: Buffer;
}

import type { OtherWorks } from '../../src/domain/content-lint.ts';

const TREE_MODE = '40000';

export function isTreeEntry(entry: TreeEntry): boolean {
  return entry.mode === TREE_MODE;
}

/** Where one entry lies in a tree's body: [start, end), its name [nameStart, nameEnd). */
interface Span {
  start: number;
  nameStart: number;
  nameEnd: number;
  end: number;
}

/**
 * Calls `visit` with each entry's span, in the tree's order, until it returns false. The walk is
 * bounded by the body's length (each entry moves it forward); a body that is not a list of
 * entries throws. The span is one object, reused from entry to entry (a visitor that keeps one
 * copies it), and a mode's space is looked for where a mode of five or six digits ends: at
 * 100,000 works `works/` has 100,000 entries of about 55 bytes, and its walks run on the server's
 * thread during an apply. With the visitors' last-byte checks below, a whole walk looking for one
 * name took 3.8 ms instead of 13.5 ms there, and a two-work edit of `works/` about 21 ms instead
 * of 40 ms (a synthetic tree of that size, hashing of the written tree included).
 */
function walkTree(body: Buffer, idBytes: number, visit: (span: Span) => boolean | void): void {
  const span: Span = { start: 0, nameStart: 0, nameEnd: 0, end: 0 };
  const length = body.length;
  let at = 0;
  while (at < length) {
    // A mode is five or six digits ("40000", "100644"): its space is looked for there first.
    let space = body[at + 5] === 0x20 ? at + 5 : body[at + 6] === 0x20 ? at + 6 : at;
    while (space < length && body[space] !== 0x20) space++;
    const nul = space < length ? body.indexOf(0, space + 1) : -1;
    if (nul < 0 || nul + 1 + idBytes > length) throw new Error('not a git tree object');
    span.start = at;
    span.nameStart = space + 1;
    span.nameEnd = nul;
    span.end = nul + 1 + idBytes;
    if (visit(span) === false) return;
    at = span.end;
  }
}

function entryAt(body: Buffer, span: Span): TreeEntry {
  return {
    mode: body.toString('latin1', span.start, span.nameStart - 1),
    name: body.subarray(span.nameStart, span.nameEnd),
    id: body.subarray(span.nameEnd + 1, span.end),
  };
}

/** The entry named `name` (its exact bytes), or null. */
export function findEntry(body: Buffer, idBytes: number, name: string): TreeEntry | null {
  const wanted = Buffer.from(name, 'utf8');
  let found: TreeEntry | null = null;
  walkTree(body, idBytes, (span) => {
    if (span.nameEnd - span.nameStart !== wanted.length) return true;
    // Names share their beginnings ("bach-..."): their last bytes first, before a whole compare.
    if (body[span.nameEnd - 1] !== wanted[wanted.length - 1]) return true;
    if (body.compare(wanted, 0, wanted.length, span.nameStart, span.nameEnd) !== 0) return true;
    found = entryAt(body, span);
    return false;
  });
  return found;
}

/** Git's order of two names, each a folder's or not: by bytes, a folder's name as if it ended in "/". */
function compareNames(a: Buffer, aTree: boolean, b: Buffer, bTree: boolean): number {
  return compareNameWith(a, aTree, b, 0, b.length, bTree);
}

/** `compareNames` of `a` and the name at `body[start, end)`, read in place. */
function compareNameWith(a: Buffer, aTree: boolean, body: Buffer, start: number, end: number, bTree: boolean): number {
  const bLength = end - start;
  const n = Math.min(a.length, bLength);
  const common = a.compare(body, start, start + n, 0, n);
  if (common !== 0) return common;
  const aNext = a.length > n ? a[n]! : aTree ? 0x2f : 0;
  const bNext = bLength > n ? body[start + n]! : bTree ? 0x2f : 0;
  return aNext - bNext;
}

/** Git's order of tree entries. */
export function compareEntries(a: TreeEntry, b: TreeEntry): number {
  return compareNames(a.name, isTreeEntry(a), b.name, isTreeEntry(b));
}

/** One entry's bytes. */
function entryBytes(e: TreeEntry): Buffer {
  return Buffer.concat([Buffer.from(`${e.mode} `, 'latin1'), e.name, Buffer.from([0]), e.id]);
}

/** A tree object's body for `entries`, which must be in git's order. */
export function serializeTree(entries: readonly TreeEntry[]): Buffer {
  return Buffer.concat(entries.map(entryBytes));
}

/** What an edit does to one folder: its files written (a blob id) or removed (null), its sub-folders edited. */
export interface TreeEdit {
  files: Map<string, string | null>;
  dirs: Map<string, TreeEdit>;
}

/**
 * The edit of a list of changes, by path ("a/b/c"; each path already checked to be inside the
 * repository). A later change of the same path replaces an earlier one. A path that is both
 * written as a file and a folder of another written path is refused.
 */
export function treeEditOf(changes: Iterable<[path: string, blob: string | null]>): TreeEdit {
  const root: TreeEdit = { files: new Map(), dirs: new Map() };
  for (const [file, blob] of changes) {
    const parts = file.split('/');
    let node = root;
    for (const part of parts.slice(0, -1)) {
      if (node.files.get(part)) throw new Error(`${file}: a change writes ${part} as a file and as a folder`);
      let next = node.dirs.get(part);
      if (!next) node.dirs.set(part, (next = { files: new Map(), dirs: new Map() }));
      node = next;
    }
    const name = parts[parts.length - 1]!;
    if (blob !== null && node.dirs.has(name)) throw new Error(`${file}: a change writes it as a file and as a folder`);
    node.files.set(name, blob);
  }
  return root;
}

/** How the edit reads and writes tree objects (git's object store). */
export interface TreeStore {
  /** A tree object's body. */
  read(id: string): Promise<Buffer>;
  /** Writes a tree object's body; its id (hex). */
  write(body: Buffer): Promise<string>;
  /** Bytes in an object id: 20 (SHA-1) or 32 (SHA-256). */
  idBytes: number;
}

const EMPTY = Buffer.alloc(0);

/**
 * The id of tree `base` (null: an empty folder) with `edit` applied, or null when nothing is left
 * in it (git keeps no empty folder). Only the trees the edit goes through are read and written;
 * the recursion follows the edit, whose depth is that of the longest changed path. A file written
 * where the base has a folder, or a folder where it has a file, is refused (neither replaces the
 * other by surprise).
 */
export async function editTree(store: TreeStore, base: string | null, edit: TreeEdit, at = ''): Promise<string | null> {
  const body = base === null ? EMPTY : await store.read(base);
  const names = [...new Set([...edit.files.keys(), ...edit.dirs.keys()])];
  const byLength = new Map<number, { name: string; bytes: Buffer }[]>();
  for (const name of names) {
    const bytes = Buffer.from(name, 'utf8');
    byLength.set(bytes.length, [...(byLength.get(bytes.length) ?? []), { name, bytes }]);
  }
  // The base's entries of the changed names, found in one walk that compares only names of their lengths.
  const old = new Map<string, { entry: TreeEntry; span: Span }>();
  let entries = 0;
  walkTree(body, store.idBytes, (span) => {
    entries++;
    for (const c of byLength.get(span.nameEnd - span.nameStart) ?? [])
      if (
        body[span.nameEnd - 1] === c.bytes[c.bytes.length - 1] &&
        body.compare(c.bytes, 0, c.bytes.length, span.nameStart, span.nameEnd) === 0
      )
        old.set(c.name, { entry: entryAt(body, span), span: { ...span } });
  });
  const removed: Span[] = [];
  const added: TreeEntry[] = [];
  for (const [name, blob] of edit.files) {
    const was = old.get(name);
    if (edit.dirs.has(name)) {
      if (was && !isTreeEntry(was.entry)) removed.push(was.span); // the file goes, the folder comes below
      continue;
    }
    if (was && isTreeEntry(was.entry)) {
      if (blob === null) continue; // removing a file that is a folder: nothing to remove
      throw new Error(`${at}${name}: a change writes a file where the base has a folder`);
    }
    if (was) removed.push(was.span);
    if (blob !== null) added.push({ mode: '100644', name: Buffer.from(name, 'utf8'), id: Buffer.from(blob, 'hex') });
  }
  for (const [name, sub] of edit.dirs) {
    const was = old.get(name);
    if (was && !isTreeEntry(was.entry) && edit.files.get(name) !== null)
      throw new Error(`${at}${name}: a change writes a folder where the base has a file`);
    const wasTree = was && isTreeEntry(was.entry) ? was : null;
    const id = await editTree(store, wasTree ? wasTree.entry.id.toString('hex') : null, sub, `${at}${name}/`);
    if (wasTree && id === wasTree.entry.id.toString('hex')) continue; // unchanged
    if (wasTree) removed.push(wasTree.span);
    if (id !== null) added.push({ mode: TREE_MODE, name: Buffer.from(name, 'utf8'), id: Buffer.from(id, 'hex') });
  }
  if (removed.length === 0 && added.length === 0 && base !== null) return base;
  if (entries - removed.length + added.length === 0) return null;
  // The new body: the base's bytes with the removed entries cut out and the added ones put where
  // git's order puts them (found in a second walk, against the added entries in order).
  added.sort(compareEntries);
  const cuts = removed.sort((a, b) => a.start - b.start);
  const inserts: { at: number; entry: TreeEntry }[] = [];
  let next = 0;
  if (added.length > 0)
    walkTree(body, store.idBytes, (span) => {
      // "40000" is the only mode of five characters (a file's are six: 100644, 100755, 120000, 160000).
      const tree = span.nameStart - 1 - span.start === TREE_MODE.length;
      while (
        next < added.length &&
        compareNameWith(added[next]!.name, isTreeEntry(added[next]!), body, span.nameStart, span.nameEnd, tree) <= 0
      )
        inserts.push({ at: span.start, entry: added[next++]! });
      return next < added.length;
    });
  while (next < added.length) inserts.push({ at: body.length, entry: added[next++]! });
  const pieces: Buffer[] = [];
  let copied = 0;
  let i = 0;
  for (const cut of [...cuts, { start: body.length, end: body.length }]) {
    for (; i < inserts.length && inserts[i]!.at <= cut.start; i++) {
      pieces.push(body.subarray(copied, inserts[i]!.at), entryBytes(inserts[i]!.entry));
      copied = inserts[i]!.at;
    }
    pieces.push(body.subarray(copied, cut.start));
    copied = cut.end;
  }
  return store.write(Buffer.concat(pieces));
}

/**
 * The work folders of a `works/` tree's body less `exclude`, looked up by slug without case (the
 * lint's rule across works, `OtherWorks` in src/domain/content-lint.ts): each look-up walks the
 * body once, comparing only names that can match (an ASCII name of the slug's length, folded to
 * lower case byte by byte; a name with other characters decoded and lower-cased as a string is).
 */
export function otherWorksInTree(body: Buffer, idBytes: number, exclude: ReadonlySet<string>): OtherWorks {
  return {
    find(slug) {
      const lower = slug.toLowerCase();
      const want = Buffer.from(lower, 'utf8');
      const ascii = want.every((b) => b < 0x80);
      let found: string | undefined;
      walkTree(body, idBytes, ({ nameStart, nameEnd }) => {
        const length = nameEnd - nameStart;
        let other = false; // a byte past ASCII
        if (ascii && length === want.length) {
          let same = true;
          for (let k = 0; k < length; k++) {
            let b = body[nameStart + k]!;
            if (b >= 0x80) {
              other = true;
              break;
            }
            if (b >= 0x41 && b <= 0x5a) b += 0x20;
            if (b !== want[k]) {
              same = false;
              break;
            }
          }
          if (!other && !same) return true;
        } else {
          for (let k = nameStart; k < nameEnd && !other; k++) other = body[k]! >= 0x80;
          if (!other) return true;
        }
        const name = body.toString('utf8', nameStart, nameEnd);
        if (name.toLowerCase() !== lower || exclude.has(name)) return true;
        found = name;
        return false;
      });
      return found;
    },
  };
}
