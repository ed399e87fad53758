/**
 * No page limit: the largest real string quartet of ../shared/corpora (96 pages) is engraved in
 * the engraving pool with every page of both layouts, and its printable PDF holds every page,
 * one PDF page per engraved page (the cut at 40 pages is gone). Slow: about 26 s of engraving.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { EngravePool } from '../../src/lib/site/engrave-pool.ts';
import { findScore, LARGEST_QUARTET, QUARTETS } from '../helpers/corpus-content.ts';

// A generous budget: this test is about pages, and a busy shared machine engraves 5-10x slower.
const pool = new EngravePool({ size: 1, timeoutMs: 1_500_000 });
afterAll(() => pool.close());

/** Page objects of a PDF (PDFKit writes them uncompressed; the page tree node is /Type /Pages). */
const pdfPages = (bytes: Uint8Array) =>
  (
    Buffer.from(bytes)
      .toString('latin1')
      .match(/\/Type \/Page\b(?!s)/g) ?? []
  ).length;

describe('the largest quartet', () => {
  it('engraves every page for both layouts and the PDF holds every page', async () => {
    const out = await pool.engrave(
      { file: findScore(QUARTETS, LARGEST_QUARTET), compressed: true },
      {
        title: 'String Quartet',
        author: 'Hugo Wolf',
        subject: 'Engraved by Verovio from the MusicXML source score',
        createdAtUtc: '2026-01-01T00:00:00.000Z',
      },
    );
    expect(out.rendering.status).toBe('rendered');
    if (out.rendering.status !== 'rendered') return;
    const r = out.rendering;
    expect(r.pageCount).toBe(96);
    expect(r.pages).toHaveLength(96);
    expect(r.pages.at(-1)!.file).toBe('page-96.svg');
    expect(r.narrowPages.length).toBeGreaterThan(96);
    const names = new Set(out.files.map((f) => f.name));
    for (const p of [...r.pages, ...r.narrowPages]) expect(names.has(p.file)).toBe(true);
    expect(r.pdf).toBe('score.pdf');
    const pdf = out.files.find((f) => f.name === 'score.pdf')!;
    expect(pdfPages(pdf.bytes)).toBe(96);
  }, 1_800_000);
});
