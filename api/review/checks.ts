/**
 * Technical checks of a contributor's file during review (docs/review-infra.md): MusicXML must load in
 * Verovio (pages, measures), MP3/WAV must decode to audio with a duration (music-metadata) and are
 * then decoded in full and measured (duration, EBU R128 loudness, true peak, loudness range,
 * sections, quiet stretches, narration-bed level: api/audio/measure-audio.ts), MIDI must parse and hold
 * notes (@tonejs/midi). Never throws: every failure is a result with
 * `passed: false` and a one-line reason, which goes on the review and into the asset's record.
 */
import { readFile, stat } from 'node:fs/promises';
import type { AssetKind } from '../../src/schemas/common.ts';
import type { RunTechnicalChecks, TechnicalCheckResult } from './types.ts';
import { measureAudioFile } from '../audio/measure-audio.ts';
import { EngraveBudgetError, sharedEngravePool } from '../../src/lib/site/engrave-pool.ts';

/** MusicXML larger than this is not handed to Verovio (it would hold the event loop for long). */
const MAX_MUSICXML_BYTES = 20 * 1024 * 1024;

export const runTechnicalChecks: RunTechnicalChecks = async (kind, file) => {
  try {
    switch (kind) {
      case 'musicxml':
        return await checkMusicXml(file);
      case 'mxl': {
        // The score inside the zip goes through exactly the MusicXML checks (unzipped in the worker).
        const result = await checkInPool('mxl', { file, compressed: true });
        return { ...result, kind: 'mxl', summary: result.summary.replace(/^MusicXML/, 'Compressed MusicXML') };
      }
      case 'mp3':
      case 'wav':
        return await checkAudio(kind, file);
      case 'midi':
        return await checkMidi(file);
      default:
        return {
          kind,
          passed: true,
          summary: `No technical check for ${kind} files`,
          measurements: { checked: false },
        };
    }
  } catch (err) {
    return fail(kind, `The ${kind} check stopped with an error: ${(err as Error).message}`);
  }
};

function fail(kind: AssetKind, summary: string, measurements: Record<string, unknown> = {}): TechnicalCheckResult {
  return { kind, passed: false, summary, measurements };
}

// ---------------------------------------------------------------------------------------------
// MusicXML

/**
 * Verovio runs in the engraving pool's worker threads (src/lib/site/engrave-pool.ts), never on
 * the server's thread, within the pool's time and memory budget per score.
 */
function overBudget(kind: AssetKind, err: EngraveBudgetError, measurements: Record<string, unknown>) {
  return fail(kind, err.message, {
    ...measurements,
    // The same problem the pool's refusal means, with the limit it hit, for the review and its reader.
    problem: {
      type: '/problems/engraving-over-budget',
      title: 'The score is over the engraving budget',
      status: 422,
      detail: err.message,
      limit: err.limit,
      budget: err.budget,
      setting: err.setting,
    },
  });
}

async function checkMusicXml(file: string): Promise<TechnicalCheckResult> {
  const { size } = await stat(file);
  if (size > MAX_MUSICXML_BYTES)
    return fail('musicxml', `The MusicXML file is larger than ${MAX_MUSICXML_BYTES} bytes`, { bytes: size });
  return checkInPool('musicxml', { file, compressed: false });
}

/**
 * Every step on the score's text runs in an engraving worker: reading (and unzipping), the text
 * checks (src/domain/musicxml-scan.ts: root, end tag, well-formed markup, counts) and Verovio's
 * load. On a 96-page quartet the unzip and the scan alone took about 1.4 s, which on the server's
 * thread held every other request for that long.
 */
async function checkInPool(kind: 'musicxml' | 'mxl', source: { file: string; compressed: boolean }) {
  let outcome;
  try {
    outcome = await sharedEngravePool().check(source);
  } catch (err) {
    if (err instanceof EngraveBudgetError) return overBudget('musicxml', err, {});
    throw err;
  }
  if (outcome.readError !== null) return fail(kind, outcome.readError);
  const scan = outcome.scan;
  if (!scan.ok) return fail('musicxml', scan.reason, scan.measurements);
  const { measures, parts, notes } = scan;
  const { loaded, errors, pages } = outcome.load!;
  const measurements = { pages, measures, parts, notes };
  // Verovio reads damaged files leniently; its error log tells when it had to give up on parts.
  if (!loaded || errors.length > 0) {
    return fail(
      'musicxml',
      `Verovio could not load this MusicXML file${errors.length > 0 ? `: ${errors.slice(0, 2).join('; ')}` : ''}`,
      measurements,
    );
  }
  if (pages < 1) return fail('musicxml', 'Verovio found no page to engrave', measurements);
  return {
    kind: 'musicxml',
    passed: true,
    summary: `MusicXML loads in Verovio: ${plural(pages, 'page')}, ${plural(measures, 'measure')}`,
    measurements,
  } satisfies TechnicalCheckResult;
}

/**
 * The first page of a MusicXML score engraved as SVG (the desk's score preview), in the
 * engraving pool like the checks. Throws when Verovio cannot load the file or the score is over budget.
 */
export async function scorePreviewSvg(xml: string): Promise<{ svg: string; pages: number }> {
  return sharedEngravePool().preview(xml);
}

// ---------------------------------------------------------------------------------------------
// Audio

async function checkAudio(kind: 'mp3' | 'wav', file: string): Promise<TechnicalCheckResult> {
  const { parseFile } = await import('music-metadata');
  let format;
  try {
    // duration: true scans the whole MP3 when it has no Xing/VBRI header, so the duration is real.
    ({ format } = await parseFile(file, { duration: true, skipCovers: true }));
  } catch (err) {
    return fail(kind, `Not a readable ${kind.toUpperCase()} file: ${(err as Error).message}`);
  }
  const measurements = {
    container: format.container ?? null,
    codec: format.codec ?? null,
    durationSeconds: format.duration ?? null,
    bitrate: format.bitrate ? Math.round(format.bitrate) : null,
    sampleRate: format.sampleRate ?? null,
    channels: format.numberOfChannels ?? null,
    bitsPerSample: format.bitsPerSample ?? null,
  };
  const container = (format.container ?? '').toUpperCase();
  const matches =
    kind === 'wav'
      ? container.includes('WAVE')
      : container.includes('MPEG') && /layer 3/i.test(format.codec ?? 'layer 3');
  if (!matches)
    return fail(
      kind,
      `The file is not ${kind.toUpperCase()} (found ${format.container ?? 'an unknown format'}${format.codec ? `, ${format.codec}` : ''})`,
      measurements,
    );
  if (!format.duration || !Number.isFinite(format.duration) || format.duration <= 0) {
    return fail(kind, `No audio found in this ${kind.toUpperCase()} file (no duration)`, measurements);
  }
  if (format.numberOfSamples === 0 || !format.sampleRate)
    return fail(kind, `No audio frames in this ${kind.toUpperCase()} file`, measurements);
  // The whole file decoded and measured: what resolve and the records show as measured.
  let audio;
  try {
    audio = await measureAudioFile(kind, file);
  } catch (err) {
    return {
      ...fail(
        kind,
        `The ${kind.toUpperCase()} file could not be decoded in full for measurement: ${(err as Error).message}`,
        measurements,
      ),
      audio: null,
    };
  }
  const parts = [
    `${format.duration.toFixed(1)} s`,
    measurements.bitrate ? `${Math.round(measurements.bitrate / 1000)} kbit/s` : null,
    `${format.sampleRate} Hz`,
    format.numberOfChannels ? plural(format.numberOfChannels, 'channel') : null,
  ].filter(Boolean);
  // The summary stays the container's facts; the measurement is `audio` (and the asset's `measured`).
  return { kind, passed: true, summary: `${kind.toUpperCase()} decodes: ${parts.join(', ')}`, measurements, audio };
}

// ---------------------------------------------------------------------------------------------
// MIDI

async function checkMidi(file: string): Promise<TechnicalCheckResult> {
  // The package is CommonJS built by UMD: Node exposes its exports only as the default export.
  const mod = (await import('@tonejs/midi')) as unknown as {
    Midi?: typeof import('@tonejs/midi').Midi;
    default?: { Midi: typeof import('@tonejs/midi').Midi };
  };
  const Midi = mod.Midi ?? mod.default!.Midi;
  const bytes = await readFile(file);
  if (bytes.subarray(0, 4).toString('latin1') !== 'MThd')
    return fail('midi', 'Not a Standard MIDI File (no MThd header)');
  let midi;
  try {
    midi = new Midi(bytes);
  } catch (err) {
    return fail('midi', `The MIDI file does not parse: ${(err as Error).message}`);
  }
  const notes = midi.tracks.reduce((n, t) => n + t.notes.length, 0);
  const measurements = {
    tracks: midi.tracks.length,
    tracksWithNotes: midi.tracks.filter((t) => t.notes.length > 0).length,
    notes,
    durationSeconds: Math.round(midi.duration * 1000) / 1000,
    ppq: midi.header.ppq,
  };
  if (notes === 0) return fail('midi', 'The MIDI file has no notes', measurements);
  return {
    kind: 'midi',
    passed: true,
    summary: `MIDI parses: ${plural(measurements.tracksWithNotes, 'track')} with notes, ${plural(notes, 'note')}, ${midi.duration.toFixed(1)} s`,
    measurements,
  };
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}
