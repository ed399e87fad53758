/**
 * The container format of the build's index files (`<build>/index/*.idx`): a small JSON header
 * naming typed sections, then the sections' bytes, each 8-byte aligned. Loading is one file read
 * and one view per section (no copy, no per-item parse), which is what lets a server start or
 * swap onto a 100,000-work index in milliseconds. Little-endian, as every machine this runs on.
 *
 *   "PDMAIDX1"  u32 header length  header JSON  padding  section bytes ...
 *
 * Strings lists are one UTF-8 section joined by "\n" (no indexed string contains a line break:
 * words, slugs and prefixes are letters and digits).
 */

const MAGIC = 'PDMAIDX1';

export type SectionType = 'i32' | 'u32' | 'u16' | 'u8' | 'bytes' | 'strings';

interface SectionHeader {
  name: string;
  type: SectionType;
  offset: number;
  byteLength: number;
  /** Number of strings (strings sections only), so an empty list and [""] differ. */
  count?: number;
}

interface Header {
  format: typeof MAGIC;
  meta: Record<string, unknown>;
  sections: SectionHeader[];
}

export type SectionValue = Int32Array | Uint32Array | Uint16Array | Uint8Array | Buffer | string[];

/** Sections to write, in order: typed arrays keep their type; a string array becomes one strings section. */
export type Sections = Record<string, SectionValue | { bytes: Uint8Array }>;

function typeOf(value: SectionValue | { bytes: Uint8Array }): SectionType {
  if (Array.isArray(value)) return 'strings';
  if (value instanceof Int32Array) return 'i32';
  if (value instanceof Uint32Array) return 'u32';
  if (value instanceof Uint16Array) return 'u16';
  if ('bytes' in value && !(value instanceof Uint8Array)) return 'bytes';
  return 'u8';
}

const align8 = (n: number) => (n + 7) & ~7;

/** One index file: the header, then every section's bytes. */
export function encodeIndex(meta: Record<string, unknown>, sections: Sections): Buffer {
  const parts: Array<{ header: SectionHeader; bytes: Uint8Array }> = [];
  for (const [name, value] of Object.entries(sections)) {
    const type = typeOf(value);
    let bytes: Uint8Array;
    let count: number | undefined;
    if (Array.isArray(value)) {
      for (const s of value) if (s.includes('\n')) throw new Error(`section ${name}: a string contains a line break`);
      bytes = Buffer.from(value.join('\n'), 'utf8');
      count = value.length;
    } else if ('bytes' in value && !(value instanceof Uint8Array)) {
      bytes = value.bytes;
    } else {
      const v = value as Exclude<SectionValue, string[]>;
      bytes = new Uint8Array(v.buffer, v.byteOffset, v.byteLength);
    }
    parts.push({
      header: { name, type, offset: 0, byteLength: bytes.byteLength, ...(count !== undefined ? { count } : {}) },
      bytes,
    });
  }
  // The header's own length depends on the offsets it lists: offsets are relative to the data
  // start, so the header is written once.
  let offset = 0;
  for (const p of parts) {
    p.header.offset = offset;
    offset = align8(offset + p.header.byteLength);
  }
  const header: Header = { format: MAGIC, meta, sections: parts.map((p) => p.header) };
  const headerBytes = Buffer.from(JSON.stringify(header), 'utf8');
  const dataStart = align8(MAGIC.length + 4 + headerBytes.length);
  // Not zero-filled first (about 160 MB per incremental build at 100,000 works): every byte is
  // written below, the padding as zeros. Never from the shared pool, so the sections stay aligned.
  const out = Buffer.allocUnsafeSlow(dataStart + offset);
  out.write(MAGIC, 0, 'latin1');
  out.writeUInt32LE(headerBytes.length, MAGIC.length);
  headerBytes.copy(out, MAGIC.length + 4);
  out.fill(0, MAGIC.length + 4 + headerBytes.length, dataStart);
  for (const p of parts) {
    const at = dataStart + p.header.offset;
    out.set(p.bytes, at);
    out.fill(0, at + p.header.byteLength, dataStart + align8(p.header.offset + p.header.byteLength));
  }
  return out;
}

export interface DecodedIndex {
  meta: Record<string, unknown>;
  i32(name: string): Int32Array;
  u32(name: string): Uint32Array;
  u16(name: string): Uint16Array;
  u8(name: string): Uint8Array;
  /** Raw bytes (a Buffer view over the file). */
  bytes(name: string): Buffer;
  strings(name: string): string[];
  has(name: string): boolean;
}

export class IndexFormatError extends Error {}

/** Views over an index file's bytes; `file` must stay unmodified while the views are used. */
export function decodeIndex(file: Buffer, label = 'index file'): DecodedIndex {
  if (file.length < MAGIC.length + 4 || file.toString('latin1', 0, MAGIC.length) !== MAGIC)
    throw new IndexFormatError(`${label} is not an archive index (${MAGIC})`);
  const headerLength = file.readUInt32LE(MAGIC.length);
  const header = JSON.parse(file.toString('utf8', MAGIC.length + 4, MAGIC.length + 4 + headerLength)) as Header;
  const dataStart = align8(MAGIC.length + 4 + headerLength);
  // Typed arrays need aligned offsets: a Buffer from readFile may sit at any offset in its pool.
  const base = file.byteOffset % 8 === 0 ? file : Buffer.from(file);
  const byName = new Map(header.sections.map((s) => [s.name, s]));
  const section = (name: string, type: SectionType): SectionHeader => {
    const s = byName.get(name);
    if (!s) throw new IndexFormatError(`${label} has no section "${name}"`);
    if (s.type !== type) throw new IndexFormatError(`${label}: section "${name}" is ${s.type}, not ${type}`);
    if (dataStart + s.offset + s.byteLength > base.length)
      throw new IndexFormatError(`${label} is truncated (section "${name}")`);
    return s;
  };
  const at = (s: SectionHeader) => base.byteOffset + dataStart + s.offset;
  return {
    meta: header.meta,
    i32: (name) => {
      const s = section(name, 'i32');
      return new Int32Array(base.buffer, at(s), s.byteLength / 4);
    },
    u32: (name) => {
      const s = section(name, 'u32');
      return new Uint32Array(base.buffer, at(s), s.byteLength / 4);
    },
    u16: (name) => {
      const s = section(name, 'u16');
      return new Uint16Array(base.buffer, at(s), s.byteLength / 2);
    },
    u8: (name) => {
      const s = section(name, 'u8');
      return new Uint8Array(base.buffer, at(s), s.byteLength);
    },
    bytes: (name) => {
      const s = section(name, 'bytes');
      return Buffer.from(base.buffer, at(s), s.byteLength);
    },
    strings: (name) => {
      const s = section(name, 'strings');
      if (s.count === 0) return [];
      const list = base.toString('utf8', dataStart + s.offset, dataStart + s.offset + s.byteLength).split('\n');
      if (list.length !== s.count)
        throw new IndexFormatError(`${label}: section "${name}" holds ${list.length} strings, header says ${s.count}`);
      return list;
    },
    has: (name) => byName.has(name),
  };
}
