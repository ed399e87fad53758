/** Technical checks on the shipped sample files, and on corrupt files of each kind. */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runTechnicalChecks } from '../../api/review/checks.ts';
import { billionLaughs, externalEntity, plainScore } from '../helpers/hostile-scores.ts';

const SAMPLES = path.resolve('content/works/beethoven-fur-elise');
const dir = mkdtempSync(path.join(os.tmpdir(), 'pdma-checks-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function write(name: string, bytes: Buffer | string): string {
  const file = path.join(dir, name);
  writeFileSync(file, bytes);
  return file;
}

/** A PCM WAV file: `seconds` of a 440 Hz tone (or a header only when seconds is 0). */
function wav(seconds: number, rate = 8000): Buffer {
  const samples = Math.round(seconds * rate);
  const data = Buffer.alloc(samples * 2);
  for (let i = 0; i < samples; i++)
    data.writeInt16LE(Math.round(8000 * Math.sin((2 * Math.PI * 440 * i) / rate)), i * 2);
  const h = Buffer.alloc(44);
  h.write('RIFF', 0);
  h.writeUInt32LE(36 + data.length, 4);
  h.write('WAVEfmt ', 8);
  h.writeUInt32LE(16, 16);
  h.writeUInt16LE(1, 20); // PCM
  h.writeUInt16LE(1, 22); // mono
  h.writeUInt32LE(rate, 24);
  h.writeUInt32LE(rate * 2, 28);
  h.writeUInt16LE(2, 32);
  h.writeUInt16LE(16, 34);
  h.write('data', 36);
  h.writeUInt32LE(data.length, 40);
  return Buffer.concat([h, data]);
}

describe('runTechnicalChecks on valid files', () => {
  it('loads MusicXML in Verovio and counts pages and measures', async () => {
    const r = await runTechnicalChecks('musicxml', path.join(SAMPLES, 'fur-elise-warm-piano.musicxml'));
    expect(r).toMatchObject({ kind: 'musicxml', passed: true, measurements: { pages: 1, measures: 9 } });
    expect(r.summary).toBe('MusicXML loads in Verovio: 1 page, 9 measures');
  });

  it('reads the duration, bitrate and sample rate of an MP3', async () => {
    const r = await runTechnicalChecks('mp3', path.join(SAMPLES, 'fur-elise-warm-piano.mp3'));
    expect(r.passed).toBe(true);
    // The sample's recordings are the archive's renderings (scripts/render-sample-audio.ts): 192 kbit/s, 48 kHz stereo.
    expect(r.measurements).toMatchObject({ container: 'MPEG', bitrate: 192000, sampleRate: 48000, channels: 2 });
    expect(r.measurements.durationSeconds as number).toBeGreaterThan(10);
    expect(r.summary).toMatch(/^MP3 decodes: 10\.\d s, 192 kbit\/s, 48000 Hz, 2 channels$/);
  });

  it('reads a WAV file', async () => {
    const r = await runTechnicalChecks('wav', write('tone.wav', wav(1.5)));
    expect(r).toMatchObject({
      passed: true,
      measurements: { container: 'WAVE', sampleRate: 8000, channels: 1, durationSeconds: 1.5 },
    });
  });

  it('parses MIDI and counts its notes', async () => {
    const r = await runTechnicalChecks('midi', path.join(SAMPLES, 'fur-elise-warm-piano.mid'));
    expect(r).toMatchObject({ passed: true, measurements: { tracksWithNotes: 1, notes: 35 } });
    expect(r.measurements.durationSeconds as number).toBeGreaterThan(5);
  });

  it('passes kinds without a check, saying so, and never passes an .mxl it could not read', async () => {
    expect(await runTechnicalChecks('score-pdf', path.join(dir, 'none.pdf'))).toMatchObject({
      passed: true,
      summary: 'No technical check for score-pdf files',
    });
    // .mxl is checked (read through its container, then the MusicXML checks;
    // test/unit/mxl.test.ts), no longer refused as unsupported; a file that cannot be read fails.
    expect(await runTechnicalChecks('mxl', path.join(dir, 'none.mxl'))).toMatchObject({
      kind: 'mxl',
      passed: false,
      summary: expect.stringContaining('none.mxl'),
    });
  });
});

describe('runTechnicalChecks on corrupt files', () => {
  const xml = readFileSync(path.join(SAMPLES, 'fur-elise-warm-piano.musicxml'), 'utf8');
  const mp3 = readFileSync(path.join(SAMPLES, 'fur-elise-warm-piano.mp3'));
  const midi = readFileSync(path.join(SAMPLES, 'fur-elise-warm-piano.mid'));

  it.each([
    ['musicxml', 'not-xml.musicxml', 'just some text', /Not MusicXML/],
    ['musicxml', 'truncated.musicxml', xml.slice(0, Math.floor(xml.length / 2)), /incomplete/],
    [
      'musicxml',
      'broken-inside.musicxml',
      xml.replace(/<part id="([^"]+)">/, '<part id="$1"><measure number="1"><note><<<'),
      /not well-formed XML: malformed tag on line/,
    ],
    [
      'musicxml',
      'unclosed.musicxml',
      xml.replace('</measure>', ''),
      /not well-formed XML: <\/part> on line \d+ closes <measure>/,
    ],
    [
      'musicxml',
      'billion-laughs.musicxml',
      billionLaughs(),
      /declares its own entities \(a DOCTYPE with an internal subset, on line 2\); entity declarations are not read/,
    ],
    ['musicxml', 'xxe.musicxml', externalEntity(), /declares its own entities \(a DOCTYPE with an internal subset/],
    [
      'musicxml',
      'empty-score.musicxml',
      '<?xml version="1.0"?><score-partwise version="4.0"><part-list/></score-partwise>',
      /no notes/,
    ],
    ['mp3', 'garbage.mp3', Buffer.alloc(4096, 0x55), /Not a readable MP3|not MP3|No audio/],
    ['mp3', 'wav-as.mp3', wav(0.5), /not MP3/],
    ['mp3', 'empty.mp3', Buffer.alloc(0), /Not a readable MP3|not MP3|No audio/],
    ['wav', 'header-only.wav', wav(0), /No audio/],
    ['wav', 'mp3-as.wav', mp3, /not WAV/],
    ['midi', 'not-midi.mid', 'hello', /no MThd header/],
    ['midi', 'truncated.mid', midi.subarray(0, 30), /does not parse|no notes/],
    ['midi', 'no-notes.mid', Buffer.from('4d546864000000060000000101e04d54726b0000000400ff2f00', 'hex'), /no notes/],
  ] as const)('%s: %s fails with a reason', async (kind, name, bytes, reason) => {
    const r = await runTechnicalChecks(kind, write(name, bytes));
    expect(r.passed).toBe(false);
    expect(r.summary).toMatch(reason);
  });

  it('reads a DOCTYPE without an internal subset as before (a public identifier is no entity)', async () => {
    const withPublic = plainScore(1, 4).replace(
      '?>',
      '?>\n<!DOCTYPE score-partwise PUBLIC "-//Recordare//DTD MusicXML 4.0 Partwise//EN" "http://www.musicxml.org/dtds/partwise.dtd">',
    );
    const r = await runTechnicalChecks('musicxml', write('public-doctype.musicxml', withPublic));
    expect(r.summary).toMatch(/^MusicXML loads in Verovio/);
    expect(r.passed).toBe(true);
  });

  it('reports a missing file as a failure, never throwing', async () => {
    const r = await runTechnicalChecks('musicxml', path.join(dir, 'absent.musicxml'));
    expect(r.passed).toBe(false);
    expect(r.summary).toMatch(/stopped with an error: ENOENT/);
  });
});
