/**
 * Renders the archive's sample arrangement audio from the MusicXML excerpts in `content/works`.
 *
 *   npx node scripts/render-sample-audio.ts          # (re)write every rendering
 *   npx node scripts/render-sample-audio.ts --check  # verify the committed files are up to date
 *
 * For every entry of RENDERINGS it reads the source MusicXML of the work, keeps the requested
 * measures, and writes beside the work:
 *   <base>.musicxml  the arrangement score (source with the arrangement title and tempo)
 *   <base>.mid       a standard MIDI file, format 0, written byte by byte
 *   <base>.mp3       a mono 22,050 Hz, 32 kbps MP3 from a small additive synthesizer (optional)
 *
 * The synthesizer takes its timbre (partials, envelope, velocity range, MIDI program) from the
 * first rendering profile of the arrangement and its performance settings (tempo feel, dynamics
 * curve, reverb) from the optional second one, reading `content/profiles/<slug>.json`.
 *
 * Everything is deterministic: no clocks, no randomness, fixed float arithmetic, so the same
 * inputs give the same bytes on every run. Files are only rewritten when their bytes change.
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Mp3Encoder } from '@breezystack/lamejs';
import { decodeAndMeasure } from '../api/audio/measure-audio-decode.ts';
import { compareDeclared } from '../src/domain/audio/measure.ts';
import { durationSecondsOf } from '../src/domain/review/measured.ts';
import { parseFrontMatter, rewriteWorkFile, splitWorkFile } from '../src/domain/work-file.ts';

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
const WORKS = join(ROOT, 'content', 'works');
const PROFILES = join(ROOT, 'content', 'profiles');
const SAMPLE_RATE = 22050;
const KBPS = 32;
const TICKS_PER_QUARTER = 480;

interface Rendering {
  /** Work folder (slug). */
  work: string;
  /** Source MusicXML file in the work folder. */
  source: string;
  /** Base name of the outputs. */
  base: string;
  /** Title written into the arrangement score. */
  title: string;
  /** [instrument profile, optional performance-style profile]. */
  profiles: [string, string?];
  /** Tempo in quarter notes per minute before the style's tempo scale. */
  qpm: number;
  /** Inclusive measure-number range to keep (default: all). */
  measures?: [number, number];
  /** In the last kept measure, keep only notes that start before this many quarter notes. */
  lastMeasureKeepQuarters?: number;
  /** How many times the excerpt is played. */
  repeats: number;
  /** Seamless loop: the reverb tail wraps to the start, no fade, no final ritardando. */
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

interface SynthSettings {
  partials: number[];
  attackMs: number;
  decayMs: number;
  sustainLevel: number;
  releaseMs: number;
  legato: number;
  vibrato?: { rateHz: number; depthCents: number; delayMs: number };
}
interface EngineSettings {
  synth: SynthSettings;
  velocity: { min: number; max: number };
  midiProgram: number;
  tempoFeel: { scale: number; finalRitardando: number };
  dynamicsCurve: { shape: 'flat' | 'arch' | 'swell' | 'fade'; floor: number; peak: number };
  reverb: { mix: number; roomSize: number; damping: number };
}

const DEFAULTS: Omit<EngineSettings, 'synth' | 'velocity' | 'midiProgram'> = {
  tempoFeel: { scale: 1, finalRitardando: 0 },
  dynamicsCurve: { shape: 'flat', floor: 0.8, peak: 0.8 },
  reverb: { mix: 0.15, roomSize: 0.6, damping: 0.4 },
};

function readProfileSettings(slug: string): Record<string, unknown> {
  const file = join(PROFILES, `${slug}.json`);
  const profile = JSON.parse(readFileSync(file, 'utf8')) as { settings?: Record<string, unknown> };
  return profile.settings ?? {};
}

function engineSettings(profiles: [string, string?]): EngineSettings {
  const inst = readProfileSettings(profiles[0]);
  const style = profiles[1] ? readProfileSettings(profiles[1]) : {};
  const pick = <K extends keyof EngineSettings>(key: K): EngineSettings[K] =>
    (style[key] ?? inst[key] ?? (DEFAULTS as Partial<EngineSettings>)[key]) as EngineSettings[K];
  const synth = inst.synth as SynthSettings | undefined;
  if (!synth) throw new Error(`profile ${profiles[0]} has no settings.synth`);
  return {
    synth,
    velocity: inst.velocity as EngineSettings['velocity'],
    midiProgram: inst.midiProgram as number,
    tempoFeel: pick('tempoFeel'),
    dynamicsCurve: pick('dynamicsCurve'),
    reverb: pick('reverb'),
  };
}

// ---------------------------------------------------------------- MusicXML

interface Note {
  midi: number;
  /** Start and length in quarter notes from the start of the excerpt. */
  start: number;
  length: number;
  part: number;
}
interface Excerpt {
  notes: Note[];
  lengthQuarters: number;
}

const STEP: Record<string, number> = { C: 0, D: 2, E: 4, F: 5, G: 7, A: 9, B: 11 };
const tag = (xml: string, name: string): string | null => {
  const m = new RegExp(`<${name}(?:\\s[^>]*)?>([\\s\\S]*?)</${name}>`).exec(xml);
  return m ? (m[1] ?? '') : null;
};

function measureLengthQuarters(xml: string): number {
  const beats = Number(tag(xml, 'beats'));
  const beatType = Number(tag(xml, 'beat-type'));
  return (beats * 4) / beatType;
}

function selectedMeasures(partXml: string, r: Rendering): { number: number; xml: string; implicit: boolean }[] {
  const out: { number: number; xml: string; implicit: boolean }[] = [];
  for (const m of partXml.matchAll(/<measure number="(-?\d+)"([^>]*)>([\s\S]*?)<\/measure>/g)) {
    const number = Number(m[1]);
    if (r.measures && (number < r.measures[0] || number > r.measures[1])) continue;
    out.push({ number, xml: m[3] ?? '', implicit: /implicit="yes"/.test(m[2] ?? '') });
  }
  return out;
}

function parseExcerpt(xml: string, r: Rendering): Excerpt {
  const fullMeasure = measureLengthQuarters(xml);
  const notes: Note[] = [];
  let total = 0;
  const parts = [...xml.matchAll(/<part id="[^"]+">([\s\S]*?)<\/part>/g)].map((m) => m[1] ?? '');
  parts.forEach((partXml, partIndex) => {
    const divisions = Number(tag(partXml, 'divisions'));
    const measures = selectedMeasures(partXml, r);
    let measureStart = 0;
    const open = new Map<number, Note>(); // tied notes by pitch
    measures.forEach((measure, mi) => {
      const isLast = mi === measures.length - 1;
      const keepLimit = isLast && r.lastMeasureKeepQuarters !== undefined ? r.lastMeasureKeepQuarters : Infinity;
      let pos = 0;
      let lastStart = 0;
      let maxPos = 0;
      for (const ev of measure.xml.matchAll(/<(note|backup|forward)>([\s\S]*?)<\/\1>/g)) {
        const body = ev[2] ?? '';
        const dur = Number(tag(body, 'duration')) / divisions;
        if (ev[1] === 'backup') {
          pos -= dur;
          continue;
        }
        if (ev[1] === 'forward') {
          pos += dur;
          maxPos = Math.max(maxPos, pos);
          continue;
        }
        const isChord = body.includes('<chord/>');
        const start = isChord ? lastStart : pos;
        if (!isChord) {
          lastStart = pos;
          pos += dur;
          maxPos = Math.max(maxPos, pos);
        }
        const pitch = tag(body, 'pitch');
        if (!pitch || start >= keepLimit) continue;
        const midi =
          12 * (Number(tag(pitch, 'octave')) + 1) +
          (STEP[tag(pitch, 'step') ?? 'C'] ?? 0) +
          Number(tag(pitch, 'alter') ?? 0);
        const absStart = measureStart + start;
        const tiedFrom = body.includes('<tie type="stop"/>') ? open.get(midi) : undefined;
        let note: Note;
        if (tiedFrom && Math.abs(tiedFrom.start + tiedFrom.length - absStart) < 1e-9) {
          tiedFrom.length += dur;
          note = tiedFrom;
        } else {
          note = { midi, start: absStart, length: dur, part: partIndex };
          notes.push(note);
        }
        if (body.includes('<tie type="start"/>')) open.set(midi, note);
        else open.delete(midi);
      }
      let length = measure.implicit ? maxPos : fullMeasure;
      if (keepLimit !== Infinity) length = keepLimit;
      measureStart += length;
    });
    total = Math.max(total, measureStart);
  });
  notes.sort((a, b) => a.start - b.start || a.part - b.part || a.midi - b.midi);
  return { notes, lengthQuarters: total };
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

/** The arrangement score: the source with the arrangement title, tempo and measure selection. */
function arrangementScore(xml: string, r: Rendering, qpm: number): string {
  let out = xml
    .replace(
      /<movement-title>[\s\S]*?<\/movement-title>/,
      `<movement-title>${r.title.replace(/&/g, '&amp;').replace(/</g, '&lt;')}</movement-title>`,
    )
    .replace(/<sound tempo="[^"]*"\/>/, `<sound tempo="${Math.round(qpm)}"/>`);
  if (!r.measures && r.lastMeasureKeepQuarters === undefined) return out;
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
    last = last.replace(
      /\s*<\/measure>$/,
      '\n      <barline location="right"><bar-style>light-heavy</bar-style></barline>\n    </measure>',
    );
    pieces[pieces.length - 1] = last;
    return `<part id="${id}">${pieces.join('')}\n  </part>`;
  });
  return out;
}

// ---------------------------------------------------------------- performance

interface Performed {
  midi: number;
  part: number;
  startSec: number;
  lengthSec: number;
  startTick: number;
  lengthTick: number;
  velocity: number;
}

function dynamicsAt(x: number, c: EngineSettings['dynamicsCurve']): number {
  const span = c.peak - c.floor;
  switch (c.shape) {
    case 'arch':
      return c.floor + span * Math.sin(Math.PI * x);
    case 'swell':
      return c.floor + span * x;
    case 'fade':
      return c.peak - span * x;
    default:
      return c.peak;
  }
}

function perform(ex: Excerpt, r: Rendering, s: EngineSettings): { notes: Performed[]; musicSec: number; qpm: number } {
  const qpm = r.qpm * s.tempoFeel.scale;
  const secPerQ = 60 / qpm;
  const totalQ = ex.lengthQuarters * r.repeats;
  const rit = r.loop ? 0 : s.tempoFeel.finalRitardando;
  // Time map: the last two quarters slow down by up to `rit` (linear), everything else is strict.
  const ritStart = Math.max(0, totalQ - 2);
  const timeOf = (q: number): number => {
    if (q <= ritStart || rit === 0) return q * secPerQ;
    const d = q - ritStart;
    return (ritStart + d + (rit * d * d) / 4) * secPerQ;
  };
  const notes: Performed[] = [];
  for (let k = 0; k < r.repeats; k++) {
    for (const n of ex.notes) {
      const q0 = n.start + k * ex.lengthQuarters;
      const q1 = q0 + n.length;
      const dyn = dynamicsAt(q0 / totalQ, s.dynamicsCurve);
      const velocity = Math.round(s.velocity.min + (s.velocity.max - s.velocity.min) * dyn) - (n.part > 0 ? 8 : 0);
      notes.push({
        midi: n.midi,
        part: n.part,
        startSec: timeOf(q0),
        lengthSec: (timeOf(q1) - timeOf(q0)) * s.synth.legato,
        startTick: Math.round(q0 * TICKS_PER_QUARTER),
        lengthTick: Math.max(1, Math.round(n.length * s.synth.legato * TICKS_PER_QUARTER)),
        velocity: Math.max(1, Math.min(127, velocity)),
      });
    }
  }
  return { notes, musicSec: timeOf(totalQ), qpm };
}

// ---------------------------------------------------------------- synthesis

function synthesize(perf: { notes: Performed[]; musicSec: number }, r: Rendering, s: EngineSettings): Float64Array {
  const tailSec = r.loop ? 0 : 1.6;
  const length = Math.round((perf.musicSec + tailSec) * SAMPLE_RATE);
  const dry = new Float64Array(length);
  const { partials, attackMs, decayMs, sustainLevel, releaseMs, vibrato } = s.synth;
  const attack = (attackMs / 1000) * SAMPLE_RATE;
  const decay = (decayMs / 1000) * SAMPLE_RATE;
  const release = (releaseMs / 1000) * SAMPLE_RATE;
  const norm = partials.reduce((a, b) => a + b, 0);
  for (const n of perf.notes) {
    const f0 = 440 * Math.pow(2, (n.midi - 69) / 12);
    const amp = Math.pow(n.velocity / 127, 1.6) / norm;
    const start = Math.round(n.startSec * SAMPLE_RATE);
    const hold = Math.round(n.lengthSec * SAMPLE_RATE);
    const total = hold + Math.round(release);
    let phase = 0;
    let releaseFrom = 0;
    for (let i = 0; i < total; i++) {
      let env: number;
      if (i < hold) {
        const a = i < attack ? i / attack : 1;
        env = a * (sustainLevel + (1 - sustainLevel) * Math.exp(-i / decay));
        releaseFrom = env;
      } else {
        env = releaseFrom * (1 - (i - hold) / release);
      }
      let f = f0;
      if (vibrato && (i / SAMPLE_RATE) * 1000 > vibrato.delayMs) {
        f = f0 * Math.pow(2, (vibrato.depthCents / 1200) * Math.sin((2 * Math.PI * vibrato.rateHz * i) / SAMPLE_RATE));
      }
      phase += (2 * Math.PI * f) / SAMPLE_RATE;
      let v = 0;
      for (let h = 0; h < partials.length; h++) {
        if (f0 * (h + 1) < SAMPLE_RATE / 2.2) v += partials[h]! * Math.sin(phase * (h + 1));
      }
      let idx = start + i;
      if (idx >= length) {
        if (!r.loop) break;
        idx %= length;
      }
      dry[idx] = dry[idx]! + amp * env * v;
    }
  }
  return reverb(dry, r.loop, s.reverb);
}

/** A small Schroeder reverb (four damped combs, two all-passes); in loop mode the tail wraps. */
function reverb(dry: Float64Array, loop: boolean, p: EngineSettings['reverb']): Float64Array {
  const n = dry.length;
  const combDelays = [1116, 1188, 1277, 1356].map((d) => Math.round((d * SAMPLE_RATE) / 44100));
  const allpassDelays = [556, 441].map((d) => Math.round((d * SAMPLE_RATE) / 44100));
  const feedback = 0.7 + 0.28 * p.roomSize;
  const passes = loop ? 2 : 1; // second pass lets the wrapped tail reach the loop start
  let wet = new Float64Array(n);
  for (const delay of combDelays) {
    const buf = new Float64Array(delay);
    let bi = 0;
    let lp = 0;
    for (let pass = 0; pass < passes; pass++) {
      for (let i = 0; i < n; i++) {
        const out = buf[bi]!;
        lp = out * (1 - p.damping) + lp * p.damping;
        buf[bi] = dry[i]! + lp * feedback;
        bi = (bi + 1) % delay;
        if (pass === passes - 1) wet[i] = wet[i]! + out / combDelays.length;
      }
    }
  }
  for (const delay of allpassDelays) {
    const buf = new Float64Array(delay);
    let bi = 0;
    const next = new Float64Array(n);
    for (let pass = 0; pass < passes; pass++) {
      for (let i = 0; i < n; i++) {
        const bufOut = buf[bi]!;
        const out = -wet[i]! + bufOut;
        buf[bi] = wet[i]! + bufOut * 0.5;
        bi = (bi + 1) % delay;
        if (pass === passes - 1) next[i] = out;
      }
    }
    wet = next;
  }
  const mixed = new Float64Array(n);
  for (let i = 0; i < n; i++) mixed[i] = dry[i]! * (1 - p.mix) + wet[i]! * p.mix;
  return mixed;
}

function toPcm(signal: Float64Array, loop: boolean): Int16Array {
  let peak = 0;
  for (const v of signal) peak = Math.max(peak, Math.abs(v));
  const gain = peak > 0 ? 0.89 / peak : 0; // -1 dBFS peak
  const pcm = new Int16Array(signal.length);
  const fadeIn = loop ? 0 : Math.round(0.005 * SAMPLE_RATE);
  const fadeOut = loop ? 0 : Math.round(0.4 * SAMPLE_RATE);
  for (let i = 0; i < signal.length; i++) {
    let g = gain;
    if (i < fadeIn) g *= i / fadeIn;
    const fromEnd = signal.length - 1 - i;
    if (fromEnd < fadeOut) g *= fromEnd / fadeOut;
    pcm[i] = Math.max(-32768, Math.min(32767, Math.round(signal[i]! * g * 32767)));
  }
  return pcm;
}

function encodeMp3(pcm: Int16Array): Uint8Array {
  const encoder = new Mp3Encoder(1, SAMPLE_RATE, KBPS);
  const chunks: Uint8Array[] = [];
  for (let i = 0; i < pcm.length; i += 1152) {
    const out = encoder.encodeBuffer(pcm.subarray(i, Math.min(pcm.length, i + 1152)));
    if (out.length) chunks.push(new Uint8Array(out));
  }
  const end = encoder.flush();
  if (end.length) chunks.push(new Uint8Array(end));
  return concat(chunks);
}

// ---------------------------------------------------------------- MIDI

function vlq(value: number): number[] {
  const bytes = [value & 0x7f];
  let v = value >> 7;
  while (v > 0) {
    bytes.unshift((v & 0x7f) | 0x80);
    v >>= 7;
  }
  return bytes;
}

function writeMidi(perf: { notes: Performed[]; qpm: number }, programs: number[], title: string): Uint8Array {
  const events: { tick: number; order: number; bytes: number[] }[] = [];
  const name = [...new TextEncoder().encode(title)];
  events.push({ tick: 0, order: 0, bytes: [0xff, 0x03, ...vlq(name.length), ...name] });
  const mpq = Math.round(60_000_000 / perf.qpm);
  events.push({ tick: 0, order: 0, bytes: [0xff, 0x51, 0x03, (mpq >> 16) & 0xff, (mpq >> 8) & 0xff, mpq & 0xff] });
  programs.forEach((program, channel) => events.push({ tick: 0, order: 1, bytes: [0xc0 | channel, program & 0x7f] }));
  for (const n of perf.notes) {
    events.push({ tick: n.startTick, order: 3, bytes: [0x90 | n.part, n.midi, n.velocity] });
    events.push({ tick: n.startTick + n.lengthTick, order: 2, bytes: [0x80 | n.part, n.midi, 0x40] });
  }
  events.sort((a, b) => a.tick - b.tick || a.order - b.order || (a.bytes[1] ?? 0) - (b.bytes[1] ?? 0));
  const track: number[] = [];
  let last = 0;
  for (const e of events) {
    track.push(...vlq(e.tick - last), ...e.bytes);
    last = e.tick;
  }
  track.push(0x00, 0xff, 0x2f, 0x00);
  const header = [
    0x4d,
    0x54,
    0x68,
    0x64,
    0,
    0,
    0,
    6,
    0,
    0,
    0,
    1,
    (TICKS_PER_QUARTER >> 8) & 0xff,
    TICKS_PER_QUARTER & 0xff,
  ];
  const len = track.length;
  return new Uint8Array([
    ...header,
    0x4d,
    0x54,
    0x72,
    0x6b,
    (len >>> 24) & 0xff,
    (len >> 16) & 0xff,
    (len >> 8) & 0xff,
    len & 0xff,
    ...track,
  ]);
}

// ---------------------------------------------------------------- main

function concat(chunks: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(chunks.reduce((a, c) => a + c.length, 0));
  let o = 0;
  for (const c of chunks) {
    out.set(c, o);
    o += c.length;
  }
  return out;
}

function sameBytes(file: string, bytes: Uint8Array): boolean {
  if (!existsSync(file)) return false;
  return Buffer.compare(readFileSync(file), Buffer.from(bytes)) === 0;
}

/**
 * Writes what the archive measures of each MP3 into the work file (the asset's `measured`, as a
 * contributed recording gets it at accept: the same decoder and meter, api/audio/measure-audio-decode.ts),
 * so the sample's recordings carry measured duration and loudness and resolve never falls back to
 * the declared values for them. Only the asset's `measured` node changes (src/domain/work-file.ts).
 * Returns how many work files were (or, with `check`, would be) changed.
 */
async function writeMeasurements(check: boolean): Promise<number> {
  let stale = 0;
  const byWork = new Map<string, string[]>();
  for (const r of RENDERINGS) if (r.mp3) byWork.set(r.work, [...(byWork.get(r.work) ?? []), `${r.base}.mp3`]);
  for (const [work, files] of byWork) {
    const indexFile = join(WORKS, work, 'index.md');
    const text = readFileSync(indexFile, 'utf8');
    const before = parseFrontMatter(splitWorkFile(text).frontMatter);
    const after = structuredClone(before) as { arrangements: Array<Record<string, unknown>> };
    for (const arr of after.arrangements) {
      for (const asset of arr.assets as Array<Record<string, unknown>>) {
        if (asset.kind !== 'mp3' || !files.includes(String(asset.file))) continue;
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
  let stale = 0;
  for (const r of RENDERINGS) {
    const dir = join(WORKS, r.work);
    const xml = readFileSync(join(dir, r.source), 'utf8');
    const settings = engineSettings(r.profiles);
    const excerpt = parseExcerpt(xml, r);
    const perf = perform(excerpt, r, settings);
    const parts = Math.max(...excerpt.notes.map((n) => n.part)) + 1;
    const programs: number[] = new Array<number>(parts).fill(settings.midiProgram);
    const outputs: [string, Uint8Array][] = [
      [`${r.base}.musicxml`, new TextEncoder().encode(arrangementScore(xml, r, perf.qpm))],
      [`${r.base}.mid`, writeMidi(perf, programs, r.title)],
    ];
    let seconds = perf.musicSec;
    if (r.mp3) {
      const pcm = toPcm(synthesize(perf, r, settings), r.loop);
      seconds = pcm.length / SAMPLE_RATE;
      outputs.push([`${r.base}.mp3`, encodeMp3(pcm)]);
    }
    for (const [name, bytes] of outputs) {
      const file = join(dir, name);
      if (sameBytes(file, bytes)) continue;
      stale++;
      if (check) console.error(`stale: ${r.work}/${name}`);
      else writeFileSync(file, bytes);
    }
    const phraseEnds = Array.from({ length: r.repeats }, (_, k) => ((k + 1) * excerpt.lengthQuarters * 60) / perf.qpm);
    console.log(
      `${r.work}/${r.base}: ${seconds.toFixed(2)} s (${Math.round(seconds)} s), ${perf.notes.length} notes, qpm ${perf.qpm.toFixed(1)}` +
        `${r.loop ? ', loop' : ''}, repeat ends at ${phraseEnds.map((t) => t.toFixed(2)).join('/')} s` +
        (r.mp3 ? `, mp3 ${outputs[2]![1].length} bytes` : ''),
    );
  }
  stale += await writeMeasurements(check);
  if (check && stale > 0) {
    console.error(`${stale} file(s) out of date; run: npx node scripts/render-sample-audio.ts`);
    process.exit(1);
  }
  if (!check) console.log(stale === 0 ? 'all renderings up to date' : `wrote ${stale} file(s)`);
}

await main();
