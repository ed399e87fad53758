/**
 * A score's rendering as the build's manifest holds it (src/lib/site/scores.ts `AudioEntry`):
 * master, 30 s / 60 s cuts when longer, and optionally a loop, each file with a digest of one
 * repeated hex digit ("a" the master FLAC, "b" the master MP3, "3"/"6" the cuts' FLACs, "c" their
 * MP3s, "d"/"e" the loop's FLAC and MP3). For tests of what records, resolve and the desk make of
 * rendered audio; the renderer itself is tested in test/build/rendered-audio.slow.test.ts.
 */
import type { AudioEntry } from '../../src/lib/site/scores.ts';
import type { AudioMeasurement } from '../../src/schemas/audio.ts';

export function measured(seconds: number): AudioMeasurement {
  return {
    durationSeconds: seconds,
    sampleRate: 48000,
    channels: 2,
    integratedLufs: -14,
    truePeakDbtp: -1.6,
    samplePeakDbfs: -1.8,
    loudnessRangeLu: 5,
    maxShortTermLufs: -11,
    sections: [],
    quietStretches: [],
    narrationBed: {
      narrationLufs: -23,
      belowNarrationLu: 20,
      gainDb: -32,
      bedIntegratedLufs: -46,
      bedMaxShortTermLufs: -43,
      rule: 'rule',
    },
    method: 'test',
  };
}

export const hex = (c: string) => c.repeat(64);

/** A rendering's manifest entry as the build writes it: master, cuts, optionally a loop. */
export function renderedEntry(seconds: number, options: { loop?: { seamless: boolean; ms: number } } = {}): AudioEntry {
  const file = (role: 'master' | 'cut-30' | 'cut-60' | 'loop', format: 'flac' | 'mp3', s: number, d: string) => ({
    name: `${role}.${format}`,
    role,
    format,
    sha256: hex(d),
    byteLength: 1000,
    frames: Math.round(s * 48000),
    measured: measured(s),
    gapless: format === 'mp3' ? { encoderDelay: 1105, padding: 500 } : null,
  });
  const cuts = [30, 60].filter((c) => seconds > c);
  return {
    status: 'rendered',
    statement: 'ignored',
    scoreSha256: hex('1'),
    midiSha256: hex('2'),
    midiSeconds: seconds - 1,
    renderer: {
      name: 'FluidSynth',
      version: '2.3.1',
      license: 'LGPL-2.1-or-later',
      url: 'https://www.fluidsynth.org/',
    },
    encoder: { name: 'FFmpeg', version: '5.1', license: 'LGPL' },
    soundFont: {
      name: 'Fluid (R3) General MIDI SoundFont',
      file: 'FluidR3_GM.sf2',
      sha256: hex('3'),
      license: 'MIT',
      source: 'Debian',
    },
    sampleRate: 48000,
    channels: 2,
    files: [
      {
        name: 'score.mid',
        role: 'midi',
        format: 'midi',
        sha256: hex('4'),
        byteLength: 10,
        frames: null,
        measured: null,
        gapless: null,
      },
      file('master', 'flac', seconds, 'a'),
      file('master', 'mp3', seconds, 'b'),
      ...cuts.flatMap((c) => [
        file(c === 30 ? 'cut-30' : 'cut-60', 'flac', c, String(c / 10)),
        file(c === 30 ? 'cut-30' : 'cut-60', 'mp3', c, 'c'),
      ]),
      ...(options.loop ? [file('loop', 'flac', seconds, 'd'), file('loop', 'mp3', seconds, 'e')] : []),
    ],
    cuts: cuts.map((c) => ({ seconds: c, bar: { index: 10, seconds: c - 1 } })),
    loop: options.loop
      ? {
          startFrame: 0,
          endFrame: seconds * 48000,
          seconds,
          longestSilenceMs: options.loop.ms,
          seamless: options.loop.seamless,
        }
      : null,
  } as AudioEntry;
}
