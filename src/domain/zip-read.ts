/**
 * A bounded reader of zip archives from people (an .mxl score): it reads the central directory
 * itself and inflates one entry at a time with a running cap on the bytes it actually writes,
 * never trusting the sizes the archive declares. A "lying" archive (an entry declaring 1,000 bytes
 * that inflates to 2 GiB) is stopped as soon as its output passes the cap, in milliseconds, with
 * an error that says so; an archive with more entries than the cap is refused before any entry is
 * read. Every offset and length is checked against the archive's own length.
 */
import { inflateRawSync } from 'node:zlib';

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated; anything else is refused when read. */
  method: number;
  flags: number;
  compressedSize: number;
  /** What the archive says the entry inflates to (not trusted: see readZipEntry). */
  declaredSize: number;
  localOffset: number;
}

/** Why a zip was refused: `entries` (more than the cap), `bytes` (an entry inflates past its cap), `format`. */
export class ZipReadError extends Error {
  readonly reason: 'entries' | 'bytes' | 'format';
  constructor(reason: 'entries' | 'bytes' | 'format', message: string) {
    super(message);
    this.reason = reason;
  }
}

const EOCD = 0x06054b50;
const ZIP64_LOCATOR = 0x07064b50;
const ZIP64_EOCD = 0x06064b50;
const CENTRAL = 0x02014b50;
const LOCAL = 0x04034b50;

function u16(b: Uint8Array, at: number): number {
  return b[at]! | (b[at + 1]! << 8);
}
function u32(b: Uint8Array, at: number): number {
  return (b[at]! | (b[at + 1]! << 8) | (b[at + 2]! << 16) | (b[at + 3]! << 24)) >>> 0;
}
/** A 64-bit little-endian size; refused beyond 2^53 (no real archive is that large). */
function u64(b: Uint8Array, at: number): number {
  const n = u32(b, at) + u32(b, at + 4) * 2 ** 32;
  if (!Number.isSafeInteger(n)) throw new ZipReadError('format', 'the zip archive declares an impossible size');
  return n;
}

function need(b: Uint8Array, at: number, length: number, what: string): void {
  if (at < 0 || length < 0 || at + length > b.length)
    throw new ZipReadError('format', `the zip archive is damaged: its ${what} runs past the end of the file`);
}

/**
 * The archive's entries from its central directory, in their order. More than `maxEntries` is
 * refused (ZipReadError 'entries') before anything is read or inflated.
 */
export function zipDirectory(bytes: Uint8Array, maxEntries: number): ZipEntry[] {
  // The end-of-central-directory record is in the last 22 + 65,535 bytes (its comment is at most that).
  let eocd = -1;
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - 22 - 0xffff); at--) {
    if (u32(bytes, at) === EOCD) {
      eocd = at;
      break;
    }
  }
  if (eocd < 0) throw new ZipReadError('format', 'it is not a zip archive (no end of central directory)');
  let count = u16(bytes, eocd + 10);
  let size = u32(bytes, eocd + 12);
  let offset = u32(bytes, eocd + 16);
  if (count === 0xffff || size === 0xffffffff || offset === 0xffffffff) {
    // ZIP64: the locator sits just before the end record and names the ZIP64 end record.
    const locator = eocd - 20;
    if (locator >= 0 && u32(bytes, locator) === ZIP64_LOCATOR) {
      const at = u64(bytes, locator + 8);
      need(bytes, at, 56, 'ZIP64 end record');
      if (u32(bytes, at) !== ZIP64_EOCD)
        throw new ZipReadError('format', 'the zip archive is damaged (ZIP64 end record)');
      count = u64(bytes, at + 32);
      size = u64(bytes, at + 40);
      offset = u64(bytes, at + 48);
    }
  }
  if (count > maxEntries)
    throw new ZipReadError(
      'entries',
      `the zip archive holds ${count} entries; at most ${maxEntries} are read, so it is refused unread`,
    );
  need(bytes, offset, size, 'central directory');
  const entries: ZipEntry[] = [];
  let at = offset;
  for (let i = 0; i < count; i++) {
    need(bytes, at, 46, 'central directory');
    if (u32(bytes, at) !== CENTRAL) throw new ZipReadError('format', 'the zip archive is damaged (central directory)');
    const flags = u16(bytes, at + 8);
    const method = u16(bytes, at + 10);
    let compressedSize = u32(bytes, at + 20);
    let declaredSize = u32(bytes, at + 24);
    const nameLength = u16(bytes, at + 28);
    const extraLength = u16(bytes, at + 30);
    const commentLength = u16(bytes, at + 32);
    let localOffset = u32(bytes, at + 42);
    need(bytes, at + 46, nameLength + extraLength + commentLength, 'central directory');
    const name = new TextDecoder().decode(bytes.subarray(at + 46, at + 46 + nameLength));
    // ZIP64 sizes and offset, in the order the spec gives, for the fields that are all ones.
    for (let e = at + 46 + nameLength; e + 4 <= at + 46 + nameLength + extraLength;) {
      const id = u16(bytes, e);
      const length = u16(bytes, e + 2);
      if (id === 0x0001) {
        let f = e + 4;
        const end = f + length;
        if (declaredSize === 0xffffffff && f + 8 <= end) ((declaredSize = u64(bytes, f)), (f += 8));
        if (compressedSize === 0xffffffff && f + 8 <= end) ((compressedSize = u64(bytes, f)), (f += 8));
        if (localOffset === 0xffffffff && f + 8 <= end) localOffset = u64(bytes, f);
      }
      e += 4 + length;
    }
    entries.push({ name, method, flags, compressedSize, declaredSize, localOffset });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/**
 * One entry's bytes, inflated with a running cap: the output is counted as it is written (Node's
 * zlib with `maxOutputLength`), so an entry that inflates past `maxBytes`, whatever it declares,
 * is stopped there (ZipReadError 'bytes'), never inflated whole.
 */
export function readZipEntry(bytes: Uint8Array, entry: ZipEntry, maxBytes: number): Uint8Array {
  if (entry.flags & 1) throw new ZipReadError('format', `the zip entry ${entry.name} is encrypted`);
  need(bytes, entry.localOffset, 30, `entry ${entry.name}`);
  if (u32(bytes, entry.localOffset) !== LOCAL)
    throw new ZipReadError('format', `the zip archive is damaged (the entry ${entry.name} is not where it says)`);
  const start = entry.localOffset + 30 + u16(bytes, entry.localOffset + 26) + u16(bytes, entry.localOffset + 28);
  need(bytes, start, entry.compressedSize, `entry ${entry.name}`);
  const data = bytes.subarray(start, start + entry.compressedSize);
  const overCap = () =>
    new ZipReadError(
      'bytes',
      `the zip entry ${entry.name} inflates to more than ${maxBytes} bytes (it declares ${entry.declaredSize}); it was stopped when it passed that limit`,
    );
  if (entry.method === 0) {
    if (data.length > maxBytes) throw overCap();
    return data;
  }
  if (entry.method !== 8)
    throw new ZipReadError(
      'format',
      `the zip entry ${entry.name} uses compression method ${entry.method}, which is not read`,
    );
  try {
    return inflateRawSync(data, { maxOutputLength: Math.max(1, maxBytes) });
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ERR_BUFFER_TOO_LARGE') throw overCap();
    throw new ZipReadError('format', `the zip entry ${entry.name} cannot be inflated: ${(err as Error).message}`);
  }
}
