/**
 * A small ZIP writer over Node's native zlib (the per-work zips, work-zips.ts). fflate's
 * JavaScript deflate made the zips of 10,000 works take about two minutes of the full build
 * (most of it deflate and the garbage it leaves); zlib's C deflate and crc32 do the same work in
 * a fraction of that. Entries are written in the order given, each either stored (already
 * compressed formats) or deflated, with one modification time given in UTC, so the bytes depend
 * only on the inputs (not on the machine's time zone). No ZIP64: an entry or archive of 4 GiB or
 * more, or more than 65,535 entries, is refused with an error rather than written wrong.
 */
import * as zlib from 'node:zlib';

export interface ZipEntry {
  /** Path inside the zip, with `/` separators. */
  name: string;
  bytes: Uint8Array;
  /** true: stored as is (for already-compressed payloads); false: deflated. */
  store: boolean;
}

const LIMIT = 0xffffffff;

let crcTable: Uint32Array | undefined;
function crc32Js(bytes: Uint8Array): number {
  if (!crcTable) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  let crc = 0xffffffff;
  for (let i = 0; i < bytes.length; i++) crc = crcTable[(crc ^ bytes[i]!) & 0xff]! ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

/** zlib.crc32 where Node has it (20.15+, 22.2+); the same sum in JavaScript otherwise. */
const crc32: (bytes: Uint8Array) => number =
  typeof (zlib as { crc32?: unknown }).crc32 === 'function'
    ? (bytes) => (zlib as unknown as { crc32: (b: Uint8Array) => number }).crc32(bytes) >>> 0
    : crc32Js;

/** MS-DOS date and time of `at` in UTC (2-second resolution; years before 1980 become 1980). */
export function dosDateTime(at: Date): { date: number; time: number } {
  const year = Math.max(1980, Math.min(2107, at.getUTCFullYear()));
  return {
    date: ((year - 1980) << 9) | ((at.getUTCMonth() + 1) << 5) | at.getUTCDate(),
    time: (at.getUTCHours() << 11) | (at.getUTCMinutes() << 5) | (at.getUTCSeconds() >> 1),
  };
}

/**
 * The zip of these entries, in this order, every entry dated `mtime`, with an archive comment
 * (UTF-8, at most 4,000 bytes) when given: what the zip is, shown by `unzip -l` and archive tools.
 */
export function zipEntries(entries: ZipEntry[], mtime: Date, comment = ''): Buffer {
  if (entries.length > 0xffff)
    throw new Error(`a zip of ${entries.length} entries needs ZIP64, which this writer does not write`);
  const { date, time } = dosDateTime(mtime);
  const parts: Buffer[] = [];
  const central: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    // Bit 11: the name is UTF-8 (set only when it is not plain ASCII, as most zip tools do).
    const flags = name.length !== entry.name.length || /[^\x00-\x7f]/.test(entry.name) ? 0x0800 : 0;
    const data = entry.store ? entry.bytes : zlib.deflateRawSync(entry.bytes, { level: 6 });
    const method = entry.store ? 0 : 8;
    const crc = crc32(entry.bytes);
    if (entry.bytes.length >= LIMIT || data.length >= LIMIT || offset >= LIMIT)
      throw new Error(`zip entry ${entry.name} is 4 GiB or more (or lies past 4 GiB): ZIP64 is not written`);
    // The local header and the central directory entry carry the same 26 bytes, from the version
    // needed to the extra field's length (APPNOTE 4.3.7 and 4.3.12): written once, copied into both.
    const shared = Buffer.alloc(26);
    shared.writeUInt16LE(20, 0); // version needed: 2.0 (deflate)
    shared.writeUInt16LE(flags, 2);
    shared.writeUInt16LE(method, 4);
    shared.writeUInt16LE(time, 6);
    shared.writeUInt16LE(date, 8);
    shared.writeUInt32LE(crc, 10);
    shared.writeUInt32LE(data.length, 14);
    shared.writeUInt32LE(entry.bytes.length, 18);
    shared.writeUInt16LE(name.length, 22);
    // extra field length: 0
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    shared.copy(local, 4);
    const head = Buffer.alloc(46);
    head.writeUInt32LE(0x02014b50, 0);
    head.writeUInt16LE(20, 4); // version made by: 2.0, MS-DOS attributes
    shared.copy(head, 6);
    // comment length, disk number, internal and external attributes: 0
    head.writeUInt32LE(offset, 42);
    parts.push(local, name, data instanceof Buffer ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength));
    central.push(head, name);
    offset += 30 + name.length + data.length;
  }
  const centralSize = central.reduce((n, b) => n + b.length, 0);
  if (offset >= LIMIT || centralSize >= LIMIT)
    throw new Error('a zip of 4 GiB or more needs ZIP64, which this writer does not write');
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(centralSize, 12);
  end.writeUInt32LE(offset, 16);
  const note = Buffer.from(comment, 'utf8').subarray(0, 4000);
  end.writeUInt16LE(note.length, 20);
  return Buffer.concat([...parts, ...central, end, note]);
}
