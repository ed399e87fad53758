/**
 * The MIDI rendition carries the work's metadata: Verovio writes a type-1 Standard MIDI File whose
 * first track (the conductor track) holds only the tempo; here its sequence name becomes the
 * score's title, and text events name the composer and where the file comes from, so a player
 * or a DAW shows "String Quartet No. 18 in A major, K. 464 — Allegro" by Mozart instead of
 * nothing. Pure; the engraving (shared by every work that stores the same file) keeps the plain
 * MIDI, and this runs where the PDF gets its metadata (src/lib/site/render-scores.ts).
 */
import { vlq } from '../../domain/audio/smf.ts';

export interface MidiMeta {
  /** The sequence name (meta event 0x03 of the first track). */
  title: string;
  /** Text events (meta 0x01), e.g. "Composer: Wolfgang Amadeus Mozart". */
  texts: string[];
}

const MAX_TEXT_BYTES = 512;

function metaEvent(type: number, text: string): number[] {
  let bytes = new TextEncoder().encode(text);
  if (bytes.length > MAX_TEXT_BYTES) bytes = bytes.subarray(0, MAX_TEXT_BYTES);
  return [0x00, 0xff, type, ...vlq(bytes.length), ...bytes];
}

/**
 * The MIDI file with the metadata at the start of its first track (tick 0); a file that is not a
 * Standard MIDI File as expected is answered unchanged (it is still the rendition).
 */
export function withMidiMetadata(midi: Uint8Array, meta: MidiMeta): Uint8Array {
  const b = Buffer.from(midi.buffer, midi.byteOffset, midi.byteLength);
  if (b.length < 22 || b.toString('latin1', 0, 4) !== 'MThd') return midi;
  const headerLength = b.readUInt32BE(4);
  const track = 8 + headerLength;
  if (track + 8 > b.length || b.toString('latin1', track, track + 4) !== 'MTrk') return midi;
  const length = b.readUInt32BE(track + 4);
  if (track + 8 + length > b.length) return midi;
  const events = Buffer.from([metaEvent(0x03, meta.title), ...meta.texts.map((t) => metaEvent(0x01, t))].flat());
  const out = Buffer.alloc(b.length + events.length);
  b.copy(out, 0, 0, track + 4);
  out.writeUInt32BE(length + events.length, track + 4);
  events.copy(out, track + 8);
  b.copy(out, track + 8 + events.length, track + 8);
  return new Uint8Array(out.buffer, out.byteOffset, out.length);
}

/**
 * The metadata a score's published MIDI carries (its title, composer and what it is): one rule for
 * the engraving's score.mid and the rendered audio's, so the two are the same file.
 */
export function scoreMidiMeta(info: { title: string; composer: string; subject: string }): MidiMeta {
  return { title: info.title, texts: [`Composer: ${info.composer}`, `${info.subject} (Public-Domain Music Archive)`] };
}

/** The sequence name and text events of the first track (for tests and checks). */
export function midiMetadata(midi: Uint8Array): { title: string | null; texts: string[] } {
  const b = Buffer.from(midi.buffer, midi.byteOffset, midi.byteLength);
  const track = 8 + b.readUInt32BE(4);
  const end = Math.min(b.length, track + 8 + b.readUInt32BE(track + 4));
  let p = track + 8;
  let title: string | null = null;
  const texts: string[] = [];
  // Only the leading meta events at tick 0 are read (bounded by the track's length).
  while (p + 3 < end && b[p] === 0x00 && b[p + 1] === 0xff) {
    const type = b[p + 2]!;
    let q = p + 3;
    let len = 0;
    let c: number;
    do {
      c = b[q++]!;
      len = (len << 7) | (c & 0x7f);
    } while (c & 0x80 && q < end);
    const text = new TextDecoder().decode(b.subarray(q, q + len));
    if (type === 0x03 && title === null) title = text;
    if (type === 0x01) texts.push(text);
    p = q + len;
  }
  return { title, texts };
}
