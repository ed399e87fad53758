/**
 * Outputs carry the work's real metadata (src/lib/site/render-scores.ts scoreMetadata,
 * midi-meta.ts, work-zips.ts): the PDF's title names the work (and the movement a score holds)
 * and its composer, never the file's format; the MIDI's first track names the same; the zip's
 * comment names the work, its composer and its page.
 */
import { describe, expect, it } from 'vitest';
import { scoreMetadata } from '../../src/lib/site/render-scores.ts';
import { midiMetadata, withMidiMetadata } from '../../src/lib/site/midi-meta.ts';
import { svgPagesToPdf } from '../../src/lib/site/score-pdf.ts';
import { zipComment } from '../../src/lib/site/work-zips.ts';
import type { AssetContent, WorkContent, WorkRecord } from '../../src/schemas/work.ts';

const work = {
  title: 'String Quartet No. 18 in A major, K. 464',
  workNumber: 'K. 464',
  composer: { name: 'Wolfgang Amadeus Mozart', sortName: 'Mozart', born: '1756', died: '1791', aliases: [] },
  catalogNumbers: [
    { catalog: 'K.', number: '464' },
    { catalog: 'Op.', number: '10 No. 5' },
  ],
  genre: 'Chamber piece',
  movements: [
    { number: 1, title: 'Allegro' },
    { number: 2, title: 'Menuetto and Trio' },
  ],
} as unknown as WorkContent;
const asset = (movement?: number) =>
  ({ id: 3, title: 'Movement 2: Menuetto and Trio (compressed MusicXML)', movement }) as unknown as AssetContent;

/** A type-1 MIDI file as Verovio writes it: a conductor track with the tempo, one note track. */
function plainMidi(): Uint8Array {
  const track = (events: number[]) => [0x4d, 0x54, 0x72, 0x6b, 0, 0, 0, events.length, ...events];
  const conductor = track([0x00, 0xff, 0x51, 0x03, 0x07, 0xa1, 0x20, 0x00, 0xff, 0x2f, 0x00]);
  const notes = track([0x00, 0x90, 60, 64, 0x60, 0x80, 60, 0, 0x00, 0xff, 0x2f, 0x00]);
  return new Uint8Array([0x4d, 0x54, 0x68, 0x64, 0, 0, 0, 6, 0, 1, 0, 2, 0, 0x78, ...conductor, ...notes]);
}

describe('score metadata', () => {
  it('titles a movement’s PDF with the work, the movement and the composer, never the file format', () => {
    const m = scoreMetadata(work, asset(2));
    expect(m.title).toBe('String Quartet No. 18 in A major, K. 464: II. Menuetto and Trio — Wolfgang Amadeus Mozart');
    expect(m.composer).toBe('Wolfgang Amadeus Mozart');
    expect(m.keywords).toBe('K. 464; Op. 10 No. 5; Chamber piece; movement 2');
    const whole = scoreMetadata(work, asset());
    expect(whole.title).toBe('String Quartet No. 18 in A major, K. 464 — Wolfgang Amadeus Mozart');
    expect(whole.title).not.toMatch(/MusicXML/);
    const song = scoreMetadata(
      { ...work, movements: undefined, lyricist: { name: 'Ludwig Uhland' } } as unknown as WorkContent,
      asset(),
    );
    expect(song.composer).toBe('Wolfgang Amadeus Mozart; words by Ludwig Uhland');
  });

  it('writes the title, author and keywords into the PDF and asks viewers to show the title', async () => {
    const m = scoreMetadata(work, asset(2));
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><rect width="10" height="10"/></svg>';
    const { bytes } = await svgPagesToPdf([svg], {
      title: m.title,
      author: m.composer,
      subject: m.subject,
      keywords: m.keywords,
      createdAt: new Date(0),
    });
    const text = bytes.toString('latin1');
    const info = (key: string) => {
      const ref = new RegExp(`/${key} ([0-9]+) 0 R`).exec(text)?.[1];
      const raw = new RegExp(`\\n${ref} 0 obj\\n\\(([\\s\\S]*?)\\)\\nendobj`).exec(text)?.[1] ?? '';
      return raw;
    };
    expect(info('Author')).toBe('Wolfgang Amadeus Mozart');
    expect(info('Keywords')).toBe('K. 464; Op. 10 No. 5; Chamber piece; movement 2');
    // PDFKit writes a non-ASCII title as UTF-16 with a BOM: its words are there.
    expect(text).toMatch(/\/DisplayDocTitle true/);
    expect(info('Title').length).toBeGreaterThan(0);
  });

  it('names the work and composer in the MIDI’s first track, leaving the notes as they were', () => {
    const plain = plainMidi();
    const withMeta = withMidiMetadata(plain, {
      title: 'Sørgmarsj — Søren Prøve',
      texts: ['Composer: Søren Prøve'],
    });
    expect(midiMetadata(withMeta)).toEqual({ title: 'Sørgmarsj — Søren Prøve', texts: ['Composer: Søren Prøve'] });
    expect(midiMetadata(plain)).toEqual({ title: null, texts: [] });
    // The note track is untouched, byte for byte, at the end of the file.
    expect(Buffer.from(withMeta.subarray(withMeta.length - 20))).toEqual(
      Buffer.from(plain.subarray(plain.length - 20)),
    );
    // Not a MIDI file: answered unchanged.
    const junk = new Uint8Array([1, 2, 3]);
    expect(withMidiMetadata(junk, { title: 'x', texts: [] })).toBe(junk);
  });

  it('gives the zip a comment naming the work, its composer and its page', () => {
    const record = {
      title: 'Sonatine in C',
      workNumber: 'Op. 4',
      composer: { name: 'Ágnes Próba', born: '1801', died: '1850' },
      lyricist: null,
      links: { html: 'https://archive.example/works/agnes-proba-sonatine-in-c/' },
    } as unknown as WorkRecord;
    expect(zipComment(record)).toBe(
      'Sonatine in C, Op. 4 — Ágnes Próba (1801–1850)\nPublic-Domain Music Archive: https://archive.example/works/agnes-proba-sonatine-in-c/',
    );
  });
});
