/**
 * Render cache entries (src/lib/site/render-cache.ts): an entry decodes to exactly what was
 * encoded, and any damage (a flipped byte, a cut, another key, a header that is not ours) makes
 * it unusable, so the build engraves the score again instead of serving wrong pages.
 */
import { describe, expect, it } from 'vitest';
import {
  decodeEntry,
  encodeEntry,
  engravingKey,
  pdfKey,
  renderCacheName,
  verovioVersion,
} from '../../src/lib/site/render-cache.ts';
import type { EngraveOutput } from '../../src/lib/site/engrave.ts';

const output: EngraveOutput = {
  rendering: {
    status: 'rendered',
    pageCount: 2,
    pages: [
      { file: 'page-1.svg', width: 840, height: 1188 },
      { file: 'page-2.svg', width: 840, height: 600 },
    ],
    midi: 'score.mid',
    pdf: 'score.pdf',
    narrowPages: [{ file: 'narrow-page-1.svg', width: 340, height: 500 }],
  },
  files: [
    { name: 'score.mid', bytes: Buffer.from('MThd\0\0\0\x06') },
    { name: 'page-1.svg', bytes: Buffer.from('<svg width="840px" height="1188px"></svg>') },
    { name: 'page-2.svg', bytes: Buffer.from('<svg width="840px" height="600px"></svg>') },
    { name: 'narrow-page-1.svg', bytes: Buffer.from('<svg width="340px" height="500px"></svg>') },
    { name: 'score.pdf', bytes: Buffer.from('%PDF-1.7\n') },
  ],
};
const meta = { title: 'T', author: 'A', subject: 'S' };
const key = engravingKey('a'.repeat(64));

describe('render cache entries', () => {
  it('round-trips the rendering and every file', () => {
    const decoded = decodeEntry(key, encodeEntry(key, output))!;
    expect(decoded.rendering).toEqual(output.rendering);
    expect(decoded.files.map((f) => [f.name, Buffer.from(f.bytes).toString('latin1')])).toEqual(
      output.files.map((f) => [f.name, Buffer.from(f.bytes).toString('latin1')]),
    );
  });

  it('refuses an entry with any byte of its body flipped', () => {
    const good = encodeEntry(key, output);
    const bodyStart = good.indexOf(0x0a) + 1;
    for (let i = bodyStart; i < good.length; i++) {
      const bad = Buffer.from(good);
      bad[i]! ^= 0x01;
      expect(decodeEntry(key, bad)).toBeNull();
    }
  });

  it('refuses a cut entry, another key, a damaged header and bytes that are not an entry', () => {
    const good = encodeEntry(key, output);
    expect(decodeEntry(key, good.subarray(0, good.length - 1))).toBeNull();
    expect(decodeEntry(engravingKey('b'.repeat(64)), good)).toBeNull();
    const header = Buffer.from(good);
    header[5]! ^= 0x20;
    expect(decodeEntry(key, header)).toBeNull();
    expect(decodeEntry(key, Buffer.from('not an entry'))).toBeNull();
    expect(decodeEntry(key, Buffer.alloc(0))).toBeNull();
  });

  it('keys the engraving by the score and the engraver, the PDF by the engraving and its metadata', () => {
    expect(engravingKey('a'.repeat(64))).toBe(key);
    expect(engravingKey('b'.repeat(64))).not.toBe(key);
    expect(pdfKey(key, meta)).toBe(pdfKey(key, { ...meta }));
    expect(pdfKey(key, { ...meta, author: 'B' })).not.toBe(pdfKey(key, meta));
    expect(pdfKey(engravingKey('b'.repeat(64)), meta)).not.toBe(pdfKey(key, meta));
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(renderCacheName(key)).toBe(`render-cache/v1/engraving/${key.slice(0, 2)}/${key}`);
    expect(renderCacheName(key, 'pdf')).toBe(`render-cache/v1/pdf/${key.slice(0, 2)}/${key}`);
    expect(verovioVersion()).toMatch(/^\d+\.\d+\.\d+/);
  });
});
