/**
 * The per-work zips' writer (src/lib/site/zip-writer.ts): another reader (fflate) gets every
 * entry back byte for byte, stored entries are stored and text is deflated, the date is the
 * given time in UTC, and the bytes do not depend on the machine's time zone.
 */
import { describe, expect, it } from 'vitest';
import { unzipSync } from 'fflate';
import { dosDateTime, zipEntries } from '../../src/lib/site/zip-writer.ts';

const text = (s: string) => new Uint8Array(Buffer.from(s, 'utf8'));

/** Each central directory entry's name and compression method. */
function methods(zip: Buffer): Map<string, number> {
  const out = new Map<string, number>();
  const end = zip.length - 22;
  expect(zip.readUInt32LE(end)).toBe(0x06054b50);
  let at = zip.readUInt32LE(end + 16);
  for (let i = 0; i < zip.readUInt16LE(end + 10); i++) {
    expect(zip.readUInt32LE(at)).toBe(0x02014b50);
    const nameLength = zip.readUInt16LE(at + 28);
    out.set(zip.subarray(at + 46, at + 46 + nameLength).toString('utf8'), zip.readUInt16LE(at + 10));
    at += 46 + nameLength + zip.readUInt16LE(at + 30) + zip.readUInt16LE(at + 32);
  }
  return out;
}

describe('zip writer', () => {
  const mtime = new Date('2026-11-23T18:04:06Z');
  const record = text(`${JSON.stringify({ title: 'Nocturne', body: 'x'.repeat(5000) })}\n`);
  const mp3 = new Uint8Array(4096).map((_, i) => (i * 7919) % 251);
  const entries = [
    { name: 'w/record.json', bytes: record, store: false },
    { name: 'w/files/take.mp3', bytes: mp3, store: true },
    { name: 'w/files/Dvořák — Largo.txt', bytes: text('ø ł ß'), store: false },
    { name: 'w/empty.txt', bytes: new Uint8Array(0), store: false },
  ];

  it('writes entries another reader gets back byte for byte', () => {
    const files = unzipSync(new Uint8Array(zipEntries(entries, mtime)));
    expect(Object.keys(files)).toEqual(entries.map((e) => e.name));
    for (const e of entries) expect(Buffer.from(files[e.name]!).equals(Buffer.from(e.bytes))).toBe(true);
  });

  it('stores what it is told to store and deflates the rest', () => {
    const zip = zipEntries(entries, mtime);
    expect(methods(zip)).toEqual(
      new Map([
        ['w/record.json', 8],
        ['w/files/take.mp3', 0],
        ['w/files/Dvořák — Largo.txt', 8],
        ['w/empty.txt', 8],
      ]),
    );
    // The repetitive record shrinks; the stored payload is in the zip as it is.
    expect(zip.length).toBeLessThan(record.length + mp3.length);
    expect(zip.includes(Buffer.from(mp3))).toBe(true);
  });

  it('dates every entry at the given time in UTC, whatever the time zone', () => {
    const { date, time } = dosDateTime(mtime);
    expect({ year: (date >> 9) + 1980, month: (date >> 5) & 15, day: date & 31 }).toEqual({
      year: 2026,
      month: 11,
      day: 23,
    });
    expect({ h: time >> 11, m: (time >> 5) & 63, s: (time & 31) * 2 }).toEqual({ h: 18, m: 4, s: 6 });
    const zip = zipEntries(entries, mtime);
    expect(zip.readUInt16LE(10)).toBe(time);
    expect(zip.readUInt16LE(12)).toBe(date);
    const tz = process.env.TZ;
    try {
      process.env.TZ = 'Pacific/Kiritimati';
      expect(zipEntries(entries, mtime).equals(zip)).toBe(true);
    } finally {
      if (tz === undefined) delete process.env.TZ;
      else process.env.TZ = tz;
    }
  });
});
