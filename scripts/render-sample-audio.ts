/**
 * Renders the archive's sample arrangement audio from the MusicXML excerpts in `content/works`,
 * with the archive's own renderer: the same code the build renders every public score with
 * (src/lib/site/audio-render.ts in the engraving pool: Verovio's MIDI of the score, FluidSynth
 * with the Fluid (R3) General MIDI SoundFont, mastered by the archive to -14 LUFS integrated and
 * a true peak of at most -1 dBTP, 48 kHz stereo; docs/audio.md, "Rendered from the score").
 *
 *   npx node scripts/render-sample-audio.ts          # (re)write every rendering
 *   npx node scripts/render-sample-audio.ts --check  # verify the committed files are up to date
 *
 * For every entry of RENDERINGS it reads the source MusicXML of the work, keeps the requested
 * measures and writes beside the work:
 *   <base>.musicxml  the arrangement score: the source with the arrangement's title, tempo (the
 *                    style profile's tempo scale), every part on the instrument profile's General
 *                    MIDI program, and a repeated excerpt written out
 *   <base>.mid       Verovio's MIDI of that score: exactly what was rendered
 *   <base>.mp3       the rendering's 192 kbit/s MP3 (LAME header with encoder delay and padding):
 *                    its loop file for a loop (`loop`, sample-exact, the seam measured over ten
 *                    plays), else the whole score (optional)
 * and into the work file, for each MP3 asset, what the archive measures of it (`measured`, the
 * decoder and meter review uses at accept) and its technical checks (format, loudness, and for a
 * loop the measured seam: "seamless" only when the measurement found no silence over 5 ms).
 *
 * The build renders the same arrangement scores to the same files, so the committed MP3 of a
 * loop is byte for byte the build's `loop.mp3` of that score (with the same FluidSynth, ffmpeg and
 * SoundFont). Needs fluidsynth, fluid-soundfont-gm and ffmpeg (`npm test` installs them). Files
 * are only rewritten when their bytes change.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { decodeAndMeasure } from '../api/audio/measure-audio-decode.ts';
import { compareDeclared } from '../src/domain/audio/measure.ts';
import { durationSecondsOf } from '../src/domain/review/measured.ts';
import { parseFrontMatter, rewriteWorkFile, splitWorkFile } from '../src/domain/work-file.ts';
import { audioEnvironment, type AudioOutput } from '../src/lib/site/audio-render.ts';
import { EngravePool } from '../src/lib/site/engrave-pool.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const WORKS = join(ROOT, 'content', 'works');
const PROFILES = join(ROOT, 'content', 'profiles');

interface Rendering {
  /** Work folder (slug). */
  work: string;
  /** Source MusicXML file in the work folder. */
  source: string;
  /** Base name of the outputs. */
  base: string;
  /** Title written into the arrangement score. */
  title: string;
  /** [instrument profile (its General MIDI program), optional performance-style profile (its tempo scale)]. */
  profiles: [string, string?];
  /** Tempo in quarter notes per minute before the style's tempo scale. */
  qpm: number;
  /** Inclusive measure-number range to keep (default: all). */
  measures?: [number, number];
  /** In the last kept measure, keep only notes that start before this many quarter notes. */
  lastMeasureKeepQuarters?: number;
  /** How many times the excerpt is played (written out in the score). */
  repeats: number;
  /** A loop: the MP3 is the rendering's loop file (the arrangement is loopable, so the build makes one). */
  loop: boolean;
  /** Whether to write an MP3 (false: score and MIDI only). */
  mp3: boolean;
}

const RENDERINGS: Rendering[] = [
  {
    work: 'beethoven-symphony-9-ode-to-joy',
    source: 'ode-to-joy-theme.musicxml',
    base: 'ode-to-joy-piano-intro',
    title: 'Ode to Joy: bright piano intro',
    profiles: ['warm-grand-piano', 'bright-showcase'],
    qpm: 138,
    repeats: 1,
    loop: false,
    mp3: true,
  },
  {
    work: 'beethoven-symphony-9-ode-to-joy',
    source: 'ode-to-joy-theme.musicxml',
    base: 'ode-to-joy-strings-lead',
    title: 'Ode to Joy: string ensemble lead',
    profiles: ['chamber-strings'],
    qpm: 120,
    repeats: 1,
    loop: false,
    mp3: true,
  },
  {
    work: 'beethoven-fur-elise',
    source: 'fur-elise-opening.musicxml',
    base: 'fur-elise-warm-piano',
    title: 'Für Elise: warm piano',
    profiles: ['warm-grand-piano', 'calm-underscore'],
    qpm: 72,
    repeats: 1,
    loop: false,
    mp3: true,
  },
  {
    work: 'beethoven-fur-elise',
    source: 'fur-elise-opening.musicxml',
    base: 'fur-elise-harpsichord',
    title: 'Für Elise: harpsichord',
    profiles: ['baroque-harpsichord'],
    qpm: 76,
    repeats: 1,
    loop: false,
    mp3: true,
  },
  {
    work: 'mozart-twinkle-variations-k265',
    source: 'k265-theme.musicxml',
    base: 'k265-theme-playful-piano',
    title: 'Twinkle theme: playful piano miniature',
    profiles: ['warm-grand-piano', 'bright-showcase'],
    qpm: 120,
    repeats: 2,
    loop: false,
    mp3: true,
  },
  {
    work: 'mozart-twinkle-variations-k265',
    source: 'k265-theme.musicxml',
    base: 'k265-theme-music-box',
    title: 'Twinkle theme: music box',
    profiles: ['music-box-celesta'],
    qpm: 104,
    repeats: 2,
    loop: true,
    mp3: true,
  },
  {
    work: 'mozart-eine-kleine-nachtmusik',
    source: 'k525-opening.musicxml',
    base: 'k525-opening-strings-lead',
    title: 'Allegro opening: string lead',
    profiles: ['chamber-strings', 'bright-showcase'],
    qpm: 126,
    repeats: 2,
    loop: false,
    mp3: true,
  },
  {
    work: 'mozart-eine-kleine-nachtmusik',
    source: 'k525-opening.musicxml',
    base: 'k525-opening-harpsichord-sketch',
    title: 'Allegro opening: harpsichord sketch',
    profiles: ['baroque-harpsichord'],
    qpm: 120,
    repeats: 1,
    loop: false,
    mp3: false,
  },
  {
    work: 'satie-gymnopedie-1',
    source: 'gymnopedie-1-opening.musicxml',
    base: 'gymnopedie-1-ambient-piano',
    title: 'Gymnopédie No. 1: ambient piano loop',
    profiles: ['warm-grand-piano', 'calm-underscore'],
    qpm: 80,
    measures: [1, 8],
    repeats: 1,
    loop: true,
    mp3: true,
  },
  {
    work: 'satie-gymnopedie-1',
    source: 'gymnopedie-1-opening.musicxml',
    base: 'gymnopedie-1-soft-strings',
    title: 'Gymnopédie No. 1: soft strings bed',
    profiles: ['chamber-strings', 'calm-underscore'],
    qpm: 80,
    measures: [1, 4],
    repeats: 1,
    loop: true,
    mp3: true,
  },
  {
    work: 'pachelbel-canon-in-d',
    source: 'canon-opening.musicxml',
    base: 'canon-strings-bed',
    title: 'Canon: strings bed',
    profiles: ['chamber-strings', 'calm-underscore'],
    qpm: 84,
    repeats: 1,
    loop: true,
    mp3: true,
  },
  {
    work: 'pachelbel-canon-in-d',
    source: 'canon-opening.musicxml',
    base: 'canon-harpsichord-bed',
    title: 'Canon: harpsichord bed',
    profiles: ['baroque-harpsichord', 'calm-underscore'],
    qpm: 88,
    repeats: 1,
    loop: true,
    mp3: true,
  },
  {
    work: 'pachelbel-canon-in-d',
    source: 'canon-opening.musicxml',
    base: 'canon-piano-sketch',
    title: 'Canon: piano sketch',
    profiles: ['warm-grand-piano'],
    qpm: 84,
    repeats: 1,
    loop: false,
    mp3: false,
  },
  {
    work: 'brahms-wiegenlied-op-49-no-4',
    source: 'wiegenlied-melody.musicxml',
    base: 'wiegenlied-sleep-piano',
    title: 'Wiegenlied: sleep piano',
    profiles: ['warm-grand-piano', 'calm-underscore'],
    qpm: 84,
    measures: [0, 8],
    lastMeasureKeepQuarters: 1,
    repeats: 1,
    loop: false,
    mp3: true,
  },
  {
    work: 'brahms-wiegenlied-op-49-no-4',
    source: 'wiegenlied-melody.musicxml',
    base: 'wiegenlied-flute-sketch',
    title: 'Wiegenlied: flute sketch',
    profiles: ['breathy-flute'],
    qpm: 80,
    measures: [0, 8],
    lastMeasureKeepQuarters: 1,
    repeats: 1,
    loop: false,
    mp3: false,
  },
  {
    work: 'bach-prelude-in-c-bwv-846',
    source: 'bwv846-prelude-opening.musicxml',
    base: 'bwv846-harpsichord-bed',
    title: 'Prelude in C: harpsichord bed',
    profiles: ['baroque-harpsichord', 'calm-underscore'],
    qpm: 108,
    repeats: 1,
    loop: true,
    mp3: true,
  },
  {
    work: 'bach-prelude-in-c-bwv-846',
    source: 'bwv846-prelude-opening.musicxml',
    base: 'bwv846-piano-bed',
    title: 'Prelude in C: piano bed',
    profiles: ['warm-grand-piano', 'calm-underscore'],
    qpm: 100,
    measures: [1, 4],
    repeats: 1,
    loop: true,
    mp3: true,
  },
  {
    work: 'dvorak-symphony-9-largo',
    source: 'largo-theme.musicxml',
    base: 'largo-strings-outro',
    title: 'Largo: solemn strings outro',
    profiles: ['chamber-strings', 'calm-underscore'],
    qpm: 58,
    repeats: 1,
    loop: false,
    mp3: true,
  },
  {
    work: 'dvorak-symphony-9-largo',
    source: 'largo-theme.musicxml',
    base: 'largo-piano-lead',
    title: 'Largo: piano lead',
    profiles: ['warm-grand-piano'],
    qpm: 60,
    repeats: 1,
    loop: false,
    mp3: true,
  },
];

// ---------------------------------------------------------------- profiles

function readProfileSettings(slug: string): Record<string, unknown> {
  const file = join(PROFILES, `${slug}.json`);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { settings?: Record<string, unknown> };
  return profile.settings ?? {};
}

/** The instrument profile's General MIDI program (0-based) and the style profile's tempo scale. */
function profileSettings(profiles: [string, string?]): { program: number; tempoScale: number } {
  const inst = readProfileSettings(profiles[0]);
  const style = profiles[1] ? readProfileSettings(profiles[1]) : {};
  const program = inst.midiProgram;
  if (typeof program !== 'number') throw new Error(`profile ${profiles[0]} has no settings.midiProgram`);
  const feel = (style.tempoFeel ?? inst.tempoFeel) as { scale?: number } | undefined;
  return { program, tempoScale: feel?.scale ?? 1 };
}

// ---------------------------------------------------------------- MusicXML

const tag = (xml: string, name: string): string | null => {
  const m = new RegExp(`<${name}(?:\\s[^>]*)?>([\\s\\S]*?)</${name}>`).exec(xml);
  return m ? (m[1] ?? '') : null;
};

function measureLengthQuarters(xml: string): number {
  const beats = Number(tag(xml, 'beats'));
  const beatType = Number(tag(xml, 'beat-type'));
  return (beats * 4) / beatType;
}

const REST_TYPES: Record<number, [string, boolean]> = {
  16: ['whole', false],
  12: ['half', true],
  8: ['half', false],
  6: ['quarter', true],
  4: ['quarter', false],
  3: ['eighth', true],
  2: ['eighth', false],
  1: ['16th', false],
};

/**
 * The arrangement score: the source with the arrangement title, tempo and measure selection, a
 * repeated excerpt written out (measures renumbered), and every part on `program` (General MIDI,
 * 0-based; MusicXML counts from 1), which Verovio's MIDI carries to the synthesizer.
 */
function arrangementScore(xml: string, r: Rendering, qpm: number, program: number): string {
  let out = xml
    .replace(
      /<movement-title>[\s\S]*?<\/movement-title>/,
      `<movement-title>${r.title.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</movement-title>`,
    )
    .replace(/<sound tempo="[^"]*"\/>/, `<sound tempo="${Math.round(qpm)}"/>`)
    .replace(/<midi-program>\d+<\/midi-program>/g, `<midi-program>${program + 1}</midi-program>`);
  if (!r.measures && r.lastMeasureKeepQuarters === undefined && r.repeats === 1) return out;
  out = out.replace(/<part id="([^"]+)">([\s\S]*?)<\/part>/g, (_all, id: string, partXml: string) => {
    const divisions = Number(tag(partXml, 'divisions'));
    const kept = [...partXml.matchAll(/\s*<measure number="(-?\d+)"[^>]*>[\s\S]*?<\/measure>/g)].filter((m) => {
      const n = Number(m[1]);
      return !r.measures || (n >= r.measures[0] && n <= r.measures[1]);
    });
    const pieces = kept.map((m) => m[0].replace(/\s*<barline location="right">[\s\S]*?<\/barline>/, ''));
    let last = pieces[pieces.length - 1] ?? '';
    if (r.lastMeasureKeepQuarters !== undefined) {
      if (/<backup>/.test(last)) throw new Error(`${r.base}: cutting a measure with several voices is not supported`);
      const keep = r.lastMeasureKeepQuarters * divisions;
      const fullDiv = measureLengthQuarters(xml) * divisions;
      let pos = 0;
      last = last.replace(/\s*<note>([\s\S]*?)<\/note>/g, (note: string, body: string) => {
        const d = Number(tag(body, 'duration'));
        const start = body.includes('<chord/>') ? pos - d : pos;
        if (!body.includes('<chord/>')) pos += d;
        return start < keep ? note : '';
      });
      const rest = fullDiv - keep;
      const [type, dot] = REST_TYPES[rest] ?? ['quarter', false];
      const voice = tag(last, 'voice') ?? '1';
      last = last.replace(
        /\s*<\/measure>$/,
        `\n      <note>\n        <rest/>\n        <duration>${rest}</duration>\n        <voice>${voice}</voice>\n        <type>${type}</type>\n${dot ? '        <dot/>\n' : ''}      </note>\n    </measure>`,
      );
    }
    pieces[pieces.length - 1] = last;
    // A repeated excerpt is written out: the measures again, numbered on (the score is what plays).
    const played: string[] = [];
    for (let k = 0; k < r.repeats; k++)
      for (const piece of pieces)
        played.push(
          k === 0
            ? piece
            : piece.replace(
                /<measure number="(-?\d+)"/,
                (_m, n: string) => `<measure number="${Number(n) + k * pieces.length}"`,
              ),
        );
    played[played.length - 1] = played[played.length - 1]!.replace(
      /\s*<\/measure>$/,
      '\n      <barline location="right"><bar-style>light-heavy</bar-style></barline>\n    </measure>',
    );
    return `<part id="${id}">${played.join('')}\n  </part>`;
  });
  return out;
}

// ---------------------------------------------------------------- main

const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex');

function sameBytes(file: string, bytes: Uint8Array): boolean {
  if (!existsSync(file)) return false;
  return Buffer.compare(readFileSync(file), Buffer.from(bytes)) === 0;
}

interface Made {
  r: Rendering;
  output: AudioOutput;
  /** The MP3 written for the asset (the loop file or the whole score), null when none. */
  mp3: string | null;
}

/** The technical checks of a sample MP3, from its rendering: format, measured loudness, and a loop's measured seam. */
function mp3Checks(made: Made): string | null {
  const rendering = made.output.rendering;
  if (rendering.status !== 'rendered' || !made.mp3) return null;
  const file = rendering.files.find((f) => f.name === made.mp3)!;
  const m = file.measured!;
  const gap = file.gapless
    ? `, LAME header: encoder delay ${file.gapless.encoderDelay}, padding ${file.gapless.padding} samples`
    : '';
  const head = `MPEG-1 Layer III, 48,000 Hz stereo, 192 kbit/s CBR${gap}; ${m.durationSeconds.toFixed(1)} s; ${m.integratedLufs} LUFS integrated, true peak ${m.truePeakDbtp} dBTP (archive meter). Rendered from the arrangement score by ${rendering.renderer.name} ${rendering.renderer.version} with the ${rendering.soundFont.name}.`;
  if (!made.r.loop || !rendering.loop) return head;
  const l = rendering.loop;
  return `${head} The rendering's loop file (frames 0 to ${l.endFrame}): ten plays of the lossless loop measured ${l.seamless ? 'seamless' : 'NOT seamless'}, longest silence ${l.longestSilenceMs} ms at the seam.`;
}

/**
 * Writes each MP3 asset's measurement (as a contributed recording gets it at accept: the same
 * decoder and meter, api/audio/measure-audio-decode.ts) and technical checks into the work file.
 * Only those nodes change (src/domain/work-file.ts). Returns how many work files were (or, with
 * `check`, would be) changed.
 */
async function writeRecords(made: Made[], check: boolean): Promise<number> {
  let stale = 0;
  const byWork = new Map<string, Made[]>();
  for (const m of made) if (m.mp3) byWork.set(m.r.work, [...(byWork.get(m.r.work) ?? []), m]);
  for (const [work, list] of byWork) {
    const indexFile = join(WORKS, work, 'index.md');
    const text = readFileSync(indexFile, 'utf8');
    const before = parseFrontMatter(splitWorkFile(text).frontMatter);
    const after = structuredClone(before) as { arrangements: Array<Record<string, unknown>> };
    for (const arr of after.arrangements) {
      for (const asset of arr.assets as Array<Record<string, unknown>>) {
        const m = list.find((x) => asset.kind === 'mp3' && asset.file === `${x.r.base}.mp3`);
        if (!m) continue;
        const audio = await decodeAndMeasure('mp3', join(WORKS, work, String(asset.file)));
        const declared = {
          durationSeconds:
            typeof arr.durationSeconds === 'number' ? arr.durationSeconds : durationSecondsOf(String(arr.duration)),
          integratedLufs: null,
        };
        // Through JSON, as a record stores it (no negative zero, no undefined members).
        asset.measured = JSON.parse(
          JSON.stringify({ ...audio, declared, disagreements: compareDeclared(declared, audio) }),
        );
        const checks = mp3Checks(m);
        if (checks) asset.technicalChecks = checks;
      }
      for (const asset of arr.assets as Array<Record<string, unknown>>) {
        const m = list.find((x) => asset.kind === 'midi' && asset.file === `${x.r.base}.mid`);
        if (m)
          asset.technicalChecks =
            'Standard MIDI file made by Verovio from the arrangement score: what the renderer played.';
      }
    }
    const next = rewriteWorkFile(text, before, after as Record<string, unknown>);
    if (next === text) continue;
    stale++;
    if (check) console.error(`stale: ${work}/index.md (measured audio)`);
    else writeFileSync(indexFile, next);
  }
  return stale;
}

async function main(): Promise<void> {
  const check = process.argv.includes('--check');
  const found = audioEnvironment();
  if ('reason' in found) {
    console.error(found.reason);
    process.exit(2);
  }
  const env = found.env;
  const scratch = mkdtempSync(join(os.tmpdir(), 'pdma-sample-audio-'));
  const pool = new EngravePool({ size: Math.min(2, os.availableParallelism()), timeoutMs: 900_000, memoryMb: 2048 });
  let stale = 0;
  const made: Made[] = [];
  try {
    const write = (r: Rendering, name: string, bytes: Uint8Array) => {
      const file = join(WORKS, r.work, name);
      if (sameBytes(file, bytes)) return;
      stale++;
      if (check) console.error(`stale: ${r.work}/${name}`);
      else writeFileSync(file, bytes);
    };
    await Promise.all(
      [0, 1].map(async (lane) => {
        for (let k = lane; k < RENDERINGS.length; k += 2) {
          const r = RENDERINGS[k]!;
          const xml = readFileSync(join(WORKS, r.work, r.source), 'utf8');
          const { program, tempoScale } = profileSettings(r.profiles);
          const score = new TextEncoder().encode(arrangementScore(xml, r, r.qpm * tempoScale, program));
          write(r, `${r.base}.musicxml`, score);
          const file = join(scratch, `${r.base}.musicxml`);
          writeFileSync(file, score);
          const output = await pool.audio(
            { file, compressed: false },
            { env, scoreSha256: sha256(score), loop: r.loop },
          );
          if (output.rendering.status !== 'rendered') throw new Error(`${r.base}: ${output.rendering.reason}`);
          const bytes = (name: string) => output.files.find((f) => f.name === name)!.bytes;
          write(r, `${r.base}.mid`, bytes('score.mid'));
          const mp3 = r.mp3 ? (r.loop ? 'loop.mp3' : 'master.mp3') : null;
          if (mp3) write(r, `${r.base}.mp3`, bytes(mp3));
          made.push({ r, output, mp3 });
          const info = output.rendering.files.find((f) => f.name === (mp3 ?? 'master.flac'))!;
          console.log(
            `${r.work}/${r.base}: ${info.measured!.durationSeconds.toFixed(2)} s, ${info.measured!.integratedLufs} LUFS` +
              (output.rendering.loop ? `, loop seam ${output.rendering.loop.longestSilenceMs} ms` : '') +
              (mp3 ? `, ${r.base}.mp3 ${info.byteLength} bytes` : ''),
          );
        }
      }),
    );
  } finally {
    await pool.close();
    rmSync(scratch, { recursive: true, force: true });
  }
  made.sort((a, b) => RENDERINGS.indexOf(a.r) - RENDERINGS.indexOf(b.r));
  stale += await writeRecords(made, check);
  if (check && stale > 0) {
    console.error(
      `${stale} file(s) out of date; run: npx node scripts/render-sample-audio.ts (with ${env.renderer.name} ${env.renderer.version}, ffmpeg ${env.encoder.version})`,
    );
    process.exit(1);
  }
  if (!check) console.log(stale === 0 ? 'all renderings up to date' : `wrote ${stale} file(s)`);
}

await main();
