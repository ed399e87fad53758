/**
 * Rendered audio from a score (docs/audio.md, "Rendered from the score"): Verovio's MIDI of the
 * score played by FluidSynth with a General MIDI SoundFont, mastered by the archive's own code
 * (src/domain/audio/master.ts: -14 LUFS integrated, true peak under -1 dBTP, measured by the
 * archive's meter) and encoded by ffmpeg to a 16-bit FLAC master and a 192 kbit/s MP3 with a
 * LAME header that declares the encoder's delay and padding (48 kHz stereo); 30 s and 60 s cuts
 * that end on a bar line; for a loopable arrangement a sample-exact loop, rendered three times
 * in a row and cut to its middle period so its end flows into its start.
 *
 * Runs in an engraving worker (src/lib/site/engrave-worker.ts, op "audio") with that worker's
 * Verovio; FluidSynth and ffmpeg run as child processes of the worker, each under the task's time
 * budget (`budgetOf`, the one place the render reads its budget). The output depends only on the
 * score's bytes and what `audioKey` (src/lib/site/render-cache.ts) holds.
 */
import { execFile, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  closeSync,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  realpathSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { VerovioToolkit } from 'verovio/esm';
import { barLinesOf, CUT_SECONDS, longestSilentRun, planCut, type BarLine } from '../../domain/audio/cuts.ts';
import { master, MASTER_TARGET, meter, toPcm16 } from '../../domain/audio/master.ts';
import type { LoudnessFigures } from '../../domain/audio/loudness.ts';
import { measureAudio, type AudioMeasurement } from '../../domain/audio/measure.ts';
import { cutAt, lastTick, parseSmf, repeated, secondsAt, writeSmf } from '../../domain/audio/smf.ts';
import { VEROVIO_OPTIONS } from './verovio-options.ts';

/** Bump when this module changes what it writes for the same input (every audio entry then misses). */
export const AUDIO_CODE_VERSION = 1;

export const SAMPLE_RATE = 48_000;
export const MP3_KBPS = 192;
/** FluidSynth's master gain: low enough that a full quartet stays under 0 dBFS in float before mastering. */
const SYNTH_GAIN = 0.4;
/** The master keeps at most this long after the MIDI's last event (release and reverb). */
const MAX_TAIL_SECONDS = 1.75;
/** Under this (dBFS, after mastering) the tail counts as silence and is cut. */
const TAIL_SILENCE_DBFS = -70;
/** The last few milliseconds of a cut are ramped to zero so it does not click (not a fade: 10 ms). */
const DECLICK_SECONDS = 0.01;

/** The options that decide the bytes besides the tools and the score (part of the cache key). */
export const AUDIO_OPTIONS = {
  sampleRate: SAMPLE_RATE,
  channels: 2,
  synthGain: SYNTH_GAIN,
  synth: ['synth.dynamic-sample-loading=1'],
  target: MASTER_TARGET,
  flac: { bits: 16, compression: 8 },
  mp3: { kbps: MP3_KBPS },
  cuts: CUT_SECONDS,
  maxTailSeconds: MAX_TAIL_SECONDS,
};

/** The programs the archive renders with (found once per process, on the caller's side). */
export interface AudioTools {
  fluidsynth: string;
  ffmpeg: string;
  soundFont: string;
}

/** What a rendering names about its renderer and SoundFont (provenance, and the cache key). */
export interface AudioEnvironment {
  tools: AudioTools;
  renderer: { name: 'FluidSynth'; version: string; license: string; url: string };
  encoder: { name: 'FFmpeg'; version: string; license: string };
  soundFont: { name: string; file: string; sha256: string; license: string; source: string };
}

export const DEFAULT_SOUNDFONT = '/usr/share/sounds/sf2/FluidR3_GM.sf2';

/** The SoundFonts the archive knows how to name (others are named by their file). */
const KNOWN_SOUNDFONTS: Record<string, { name: string; license: string; source: string }> = {
  'FluidR3_GM.sf2': {
    name: 'Fluid (R3) General MIDI SoundFont',
    license: 'MIT',
    source: "Debian package fluid-soundfont-gm (Frank Wen's Fluid R3 GM)",
  },
  'MuseScore_General.sf3': {
    name: 'MuseScore General SoundFont',
    license: 'MIT',
    source: 'Debian package musescore-general-soundfont',
  },
};

const firstLine = (s: string) => s.trim().split('\n')[0]?.trim() ?? '';

/** Memo of SoundFont digests by path, size and modification time (148 MB is hashed once per process). */
const soundFontDigests = new Map<string, string>();

function soundFontSha256(file: string): string {
  const st = statSync(file);
  const memo = `${file}\0${st.size}\0${st.mtimeMs}`;
  let sha = soundFontDigests.get(memo);
  if (!sha) {
    sha = createHash('sha256').update(readFileSync(file)).digest('hex');
    soundFontDigests.set(memo, sha);
  }
  return sha;
}

/**
 * The renderer's environment, or why audio is not offered: FluidSynth, ffmpeg (with its LAME
 * and FLAC encoders) and the SoundFont must be there. Called on the build's (or CLI's) thread
 * once; the answer travels with each task.
 */
export function audioEnvironment(tools: Partial<AudioTools> = {}): { env: AudioEnvironment } | { reason: string } {
  // Once per process and tools (a warm build process builds many applies): three version checks
  // and the SoundFont's digest (memoized by its size and time) would otherwise cost every apply.
  // A missing tool is looked for again every time (it may be installed meanwhile).
  const memo = JSON.stringify(tools);
  const known = environments.get(memo);
  if (known && existsSync(known.tools.soundFont) && soundFontSha256(known.tools.soundFont) === known.soundFont.sha256)
    return { env: known };
  const found = findEnvironment(tools);
  if ('env' in found) environments.set(memo, found.env);
  return found;
}

const environments = new Map<string, AudioEnvironment>();

function findEnvironment(tools: Partial<AudioTools>): { env: AudioEnvironment } | { reason: string } {
  const t: AudioTools = {
    fluidsynth: tools.fluidsynth ?? 'fluidsynth',
    ffmpeg: tools.ffmpeg ?? 'ffmpeg',
    soundFont: tools.soundFont ?? DEFAULT_SOUNDFONT,
  };
  const fs = spawnSync(t.fluidsynth, ['--version'], { encoding: 'utf8' });
  if (fs.status !== 0)
    return {
      reason: `FluidSynth is not installed on the machine that built this site (Debian package fluidsynth; docs/audio.md, "Installing the renderer"), so no audio is rendered from the scores.`,
    };
  const ff = spawnSync(t.ffmpeg, ['-hide_banner', '-encoders'], { encoding: 'utf8', maxBuffer: 8 * 1024 * 1024 });
  if (ff.status !== 0 || !/libmp3lame/.test(ff.stdout) || !/\bflac\b/.test(ff.stdout))
    return {
      reason: `ffmpeg with its MP3 (LAME) and FLAC encoders is not installed on the machine that built this site (Debian package ffmpeg; docs/audio.md), so no audio is rendered from the scores.`,
    };
  if (!existsSync(t.soundFont))
    return {
      reason: `The General MIDI SoundFont ${t.soundFont} is missing (Debian package fluid-soundfont-gm; docs/audio.md), so no audio is rendered from the scores.`,
    };
  const version = /FluidSynth runtime version ([\d.]+)/.exec(fs.stdout)?.[1] ?? firstLine(fs.stdout);
  const ffVersion = spawnSync(t.ffmpeg, ['-hide_banner', '-version'], { encoding: 'utf8' });
  const known = KNOWN_SOUNDFONTS[path.basename(t.soundFont)] ??
    KNOWN_SOUNDFONTS[path.basename(safeRealpath(t.soundFont))] ?? {
      name: path.basename(t.soundFont),
      license: 'not named by the archive (check the SoundFont)',
      source: t.soundFont,
    };
  return {
    env: {
      tools: t,
      renderer: {
        name: 'FluidSynth',
        version,
        license: 'LGPL-2.1-or-later',
        url: 'https://www.fluidsynth.org/',
      },
      encoder: {
        name: 'FFmpeg',
        version: /ffmpeg version (\S+)/.exec(ffVersion.stdout)?.[1] ?? 'unknown',
        license: 'LGPL-2.1-or-later (with LAME, LGPL-2.0-or-later, and libFLAC, BSD-3-Clause)',
      },
      soundFont: {
        name: known.name,
        file: path.basename(t.soundFont),
        sha256: soundFontSha256(t.soundFont),
        license: known.license,
        source: known.source,
      },
    },
  };
}

function safeRealpath(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return file;
  }
}

/** One file of a rendering. */
export interface RenderedAudioFile {
  name: string;
  /** master: the whole score; cut-30 / cut-60: the timed cuts; loop: the loop; midi: what was rendered. */
  role: 'master' | 'cut-30' | 'cut-60' | 'loop' | 'midi';
  format: 'flac' | 'mp3' | 'midi';
  sha256: string;
  byteLength: number;
  /** Sample frames of the decoded audio (null for MIDI). */
  frames: number | null;
  /** The archive's measurement of the file as decoded (the FLAC: its samples; the MP3: decoded, gapless). */
  measured: AudioMeasurement | null;
  /** MP3 only: the encoder delay and padding its LAME header declares, in samples. */
  gapless: { encoderDelay: number; padding: number } | null;
}

export interface AudioCutInfo {
  seconds: number;
  /** The bar line the music stops on (bar index counted from the first bar line) and its time. */
  bar: { index: number; seconds: number };
}

export interface AudioLoopInfo {
  /** Sample-exact loop points of the loop file: it holds frames [startFrame, endFrame) and repeats from endFrame to startFrame. */
  startFrame: number;
  endFrame: number;
  seconds: number;
  /** Longest run of silence (every channel under -60 dBFS) across ten repetitions, ms: the seam check. */
  longestSilenceMs: number;
  seamless: boolean;
}

export type AudioRendering =
  | {
      status: 'rendered';
      /** "Rendered from the score by FluidSynth 2.3.1 with Fluid (R3) General MIDI SoundFont; technical-pass". */
      statement: string;
      scoreSha256: string;
      midiSha256: string;
      /** The MIDI's length (its last event), seconds. */
      midiSeconds: number;
      renderer: AudioEnvironment['renderer'];
      encoder: AudioEnvironment['encoder'];
      soundFont: AudioEnvironment['soundFont'];
      sampleRate: number;
      channels: number;
      files: RenderedAudioFile[];
      cuts: AudioCutInfo[];
      loop: AudioLoopInfo | null;
    }
  | { status: 'failed'; reason: string };

export interface AudioOutput {
  rendering: AudioRendering;
  files: { name: string; bytes: Uint8Array }[];
}

export interface AudioTaskInput {
  xml: string;
  scoreSha256: string;
  env: AudioEnvironment;
  loop: boolean;
  /** The time budget of the task, ms: each child process is killed past what is left of it. */
  timeoutMs: number;
}

/** The sentence every rendered asset carries about what it is. */
export function renderedStatement(env: Pick<AudioEnvironment, 'renderer' | 'soundFont'>): string {
  return `Rendered from the score by ${env.renderer.name} ${env.renderer.version} with the ${env.soundFont.name}; technical-pass (not listening-approved until a person has listened).`;
}

/** The one place the render reads its budget: the time left of the task's, for each child process. */
function budgetOf(input: AudioTaskInput, started: number): number {
  return Math.max(1000, input.timeoutMs - (Date.now() - started));
}

function run(cmd: string, args: string[], timeoutMs: number, stdin?: Buffer): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const child = execFile(
      cmd,
      args,
      { timeout: timeoutMs, killSignal: 'SIGKILL', encoding: 'buffer', maxBuffer: 64 * 1024 * 1024 },
      (err, stdout, stderr) => {
        if (err)
          reject(new Error(`${path.basename(cmd)} failed: ${(stderr.toString('utf8') || err.message).slice(-400)}`));
        else resolve(stdout);
      },
    );
    if (stdin) child.stdin?.end(stdin);
  });
}

/**
 * FluidSynth's command line for one rendering: `mid` played with the archive's synthesizer
 * settings and gain into `raw` (32-bit float, little-endian, SAMPLE_RATE, stereo). The bench's
 * bare anchor runs the same line.
 */
export function fluidsynthArgs(soundFont: string, mid: string, raw: string): string[] {
  return [
    '-ni',
    '-q',
    ...AUDIO_OPTIONS.synth.flatMap((s) => ['-o', s]),
    '-F',
    raw,
    '-T',
    'raw',
    '-O',
    'float',
    '-E',
    'little',
    '-r',
    String(SAMPLE_RATE),
    '-g',
    String(SYNTH_GAIN),
    soundFont,
    mid,
  ];
}

/** FluidSynth's fast file render of `midi` as stereo float channels at SAMPLE_RATE. */
export async function synthesize(
  midi: Uint8Array,
  env: AudioEnvironment,
  dir: string,
  name: string,
  timeoutMs: number,
): Promise<Float32Array[]> {
  const mid = path.join(dir, `${name}.mid`);
  const raw = path.join(dir, `${name}.raw`);
  writeFileSync(mid, midi);
  await run(env.tools.fluidsynth, fluidsynthArgs(env.tools.soundFont, mid, raw), timeoutMs);
  // Read in pieces straight into the two channels: no copy of the whole interleaved file in memory.
  const n = Math.floor(statSync(raw).size / 8);
  const left = new Float32Array(n);
  const right = new Float32Array(n);
  const piece = Buffer.alloc(1 << 22);
  const floats = new Float32Array(piece.buffer, piece.byteOffset, piece.byteLength / 4);
  const fd = openSync(raw, 'r');
  try {
    let frame = 0;
    while (frame < n) {
      const want = Math.min(piece.byteLength, (n - frame) * 8);
      let got = 0;
      while (got < want) {
        const read = readSync(fd, piece, got, want - got, frame * 8 + got);
        if (read === 0) break;
        got += read;
      }
      const frames = Math.floor(got / 8);
      if (frames === 0) break;
      for (let i = 0; i < frames; i++) {
        left[frame + i] = floats[2 * i]!;
        right[frame + i] = floats[2 * i + 1]!;
      }
      frame += frames;
    }
  } finally {
    closeSync(fd);
    rmSync(raw, { force: true });
  }
  return [left, right];
}

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

/** FLAC and MP3 of mastered channels, through ffmpeg (bit-exact flags: no version strings in the files). */
async function encode(
  channels: Float32Array[],
  env: AudioEnvironment,
  dir: string,
  name: string,
  timeoutMs: number,
): Promise<{ flac: Uint8Array; mp3: Uint8Array }> {
  const pcm = toPcm16(channels);
  const input = [
    '-hide_banner',
    '-nostdin',
    '-loglevel',
    'error',
    '-f',
    's16le',
    '-ar',
    String(SAMPLE_RATE),
    '-ac',
    '2',
    '-i',
    'pipe:0',
  ];
  const exact = ['-fflags', '+bitexact', '-flags:a', '+bitexact', '-map_metadata', '-1'];
  const flacFile = path.join(dir, `${name}.flac`);
  const mp3File = path.join(dir, `${name}.mp3`);
  await run(
    env.tools.ffmpeg,
    [...input, ...exact, '-c:a', 'flac', '-compression_level', String(AUDIO_OPTIONS.flac.compression), '-y', flacFile],
    timeoutMs,
    pcm,
  );
  // CBR at MP3_KBPS; ffmpeg's MP3 muxer writes the Xing/LAME header with the encoder delay and padding.
  await run(
    env.tools.ffmpeg,
    [
      ...input,
      ...exact,
      '-c:a',
      'libmp3lame',
      '-b:a',
      `${MP3_KBPS}k`,
      '-write_xing',
      '1',
      '-id3v2_version',
      '0',
      '-y',
      mp3File,
    ],
    timeoutMs,
    pcm,
  );
  const out = { flac: new Uint8Array(readFileSync(flacFile)), mp3: new Uint8Array(readFileSync(mp3File)) };
  rmSync(flacFile, { force: true });
  rmSync(mp3File, { force: true });
  return out;
}

/** The LAME header's encoder delay and padding (12 bits each, after the "LAME"/"Lavc" tag's fixed fields). */
export function lameGapless(mp3: Uint8Array): { encoderDelay: number; padding: number } | null {
  const text = Buffer.from(mp3.subarray(0, Math.min(mp3.length, 4096))).toString('latin1');
  const xing = Math.max(text.indexOf('Xing'), text.indexOf('Info'));
  if (xing < 0) return null;
  // The LAME extension follows the Xing header (flags, frames, bytes, TOC, quality): at +120 from "Xing".
  const lame = xing + 120;
  const tag = text.slice(lame, lame + 4);
  if (tag !== 'LAME' && tag !== 'Lavc' && tag !== 'Lavf') return null;
  const at = lame + 21;
  const b0 = mp3[at]!;
  const b1 = mp3[at + 1]!;
  const b2 = mp3[at + 2]!;
  return { encoderDelay: (b0 << 4) | (b1 >> 4), padding: ((b1 & 0x0f) << 8) | b2 };
}

async function decodeMp3(mp3: Uint8Array): Promise<Float32Array[]> {
  const { MPEGDecoder } = await import('mpg123-decoder');
  const decoder = new MPEGDecoder();
  await decoder.ready;
  try {
    const out = decoder.decode(mp3);
    return out.channelData.map((c) => c.slice(0, out.samplesDecoded));
  } finally {
    decoder.free();
  }
}

/** Cut the tail after the MIDI's end where it has gone quiet, at most MAX_TAIL_SECONDS after it. */
function trimTail(channels: Float32Array[], midiSeconds: number): Float32Array[] {
  const n = channels[0]!.length;
  const from = Math.min(n, Math.round(midiSeconds * SAMPLE_RATE));
  const cap = Math.min(n, Math.round((midiSeconds + MAX_TAIL_SECONDS) * SAMPLE_RATE));
  const threshold = Math.pow(10, TAIL_SILENCE_DBFS / 20);
  let end = from;
  for (let i = from; i < cap; i++) if (channels.some((c) => Math.abs(c[i]!) >= threshold)) end = i + 1;
  // A short ramp on what is left above the silence line at the cap (the release goes on under it).
  const out = channels.map((c) => c.slice(0, Math.max(end, 1)));
  declick(out);
  return out;
}

function declick(channels: Float32Array[]): void {
  const n = channels[0]!.length;
  const ramp = Math.min(n, Math.round(DECLICK_SECONDS * SAMPLE_RATE));
  for (const c of channels) for (let i = 0; i < ramp; i++) c[n - 1 - i]! *= i / ramp;
}

/** Exactly `frames` frames: cut, or completed with digital silence after the ring-out. */
function exactly(channels: Float32Array[], frames: number): Float32Array[] {
  return channels.map((c) => {
    const out = new Float32Array(frames);
    out.set(c.subarray(0, Math.min(frames, c.length)));
    return out;
  });
}

/** The score's MIDI and bar lines from the worker's Verovio (the engraving's options: the same MIDI as its score.mid). */
export function midiAndBars(
  tk: VerovioToolkit,
  xml: string,
): { midi: Uint8Array; bars: BarLine[]; endQuarters: number } | { error: string } {
  tk.setOptions(VEROVIO_OPTIONS);
  tk.getLog();
  if (!xml.includes('<score-partwise') && !xml.includes('<score-timewise'))
    return { error: 'The file is not MusicXML (no score-partwise or score-timewise element).' };
  if (!/<note[\s>]/.test(xml)) return { error: 'The file has no notes to render.' };
  if (!tk.loadData(xml)) return { error: 'Verovio could not read this MusicXML file.' };
  const b64 = tk.renderToMIDI();
  const midi = b64 ? new Uint8Array(Buffer.from(b64, 'base64')) : new Uint8Array();
  if (Buffer.from(midi.subarray(0, 4)).toString('latin1') !== 'MThd')
    return { error: 'Verovio made no MIDI file of this score.' };
  const timemap = tk.renderToTimemap({ includeMeasures: true }) as unknown as {
    tstamp?: number;
    qstamp?: number;
    measureOn?: string;
  }[];
  let endQuarters = 0;
  for (const e of timemap) if (typeof e.qstamp === 'number' && e.qstamp > endQuarters) endQuarters = e.qstamp;
  return { midi, bars: barLinesOf(timemap), endQuarters };
}

/** Render, master and encode one score (in a worker: the caller holds Verovio). */
export async function renderAudio(tk: VerovioToolkit, input: AudioTaskInput): Promise<AudioOutput> {
  const started = Date.now();
  const failed = (reason: string): AudioOutput => ({ rendering: { status: 'failed', reason }, files: [] });
  const got = midiAndBars(tk, input.xml);
  if ('error' in got) return failed(got.error);
  const { env } = input;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pdma-audio-'));
  try {
    const smf = parseSmf(got.midi);
    const end = lastTick(smf);
    const midiSeconds = secondsAt(smf, end);
    if (!(midiSeconds > 0)) return failed('The score has no length to render.');
    const files: AudioOutput['files'] = [{ name: 'score.mid', bytes: got.midi }];
    const infos: RenderedAudioFile[] = [
      {
        name: 'score.mid',
        role: 'midi',
        format: 'midi',
        sha256: sha(got.midi),
        byteLength: got.midi.byteLength,
        frames: null,
        measured: null,
        gapless: null,
      },
    ];
    // The lossless file's measurement is the mastering's last one (its samples, before the 16-bit quantization).
    const deliver = async (
      mastered: { channels: Float32Array[]; figures: LoudnessFigures },
      base: string,
      role: RenderedAudioFile['role'],
    ) => {
      const { channels } = mastered;
      const { flac, mp3 } = await encode(channels, env, dir, base, budgetOf(input, started));
      const lossless = measureAudio(mastered.figures);
      const decoded = await decodeMp3(mp3);
      const lossy = measureAudio(meter(decoded, SAMPLE_RATE));
      files.push({ name: `${base}.flac`, bytes: flac }, { name: `${base}.mp3`, bytes: mp3 });
      infos.push(
        {
          name: `${base}.flac`,
          role,
          format: 'flac',
          sha256: sha(flac),
          byteLength: flac.byteLength,
          frames: channels[0]!.length,
          measured: lossless,
          gapless: null,
        },
        {
          name: `${base}.mp3`,
          role,
          format: 'mp3',
          sha256: sha(mp3),
          byteLength: mp3.byteLength,
          frames: decoded[0]?.length ?? 0,
          measured: lossy,
          gapless: lameGapless(mp3),
        },
      );
    };

    // The whole score.
    const full = await synthesize(got.midi, env, dir, 'master', budgetOf(input, started));
    await deliver(master(trimTail(full, midiSeconds), SAMPLE_RATE), 'master', 'master');

    // The timed cuts: the score cut at a bar line, rendered so the last bar rings out, exactly N s long.
    const cuts: AudioCutInfo[] = [];
    for (const seconds of CUT_SECONDS) {
      const plan = planCut(got.bars, midiSeconds, seconds);
      if (!plan) continue;
      const tick = Math.round(plan.bar.quarters * smf.division);
      const rendered = await synthesize(
        writeSmf(cutAt(smf, tick)),
        env,
        dir,
        `cut-${seconds}`,
        budgetOf(input, started),
      );
      const cut = exactly(rendered, seconds * SAMPLE_RATE);
      declick(cut);
      await deliver(master(cut, SAMPLE_RATE), `cut-${seconds}`, seconds === 30 ? 'cut-30' : 'cut-60');
      cuts.push({ seconds, bar: { index: plan.bar.index, seconds: plan.bar.seconds } });
    }

    // The loop: three periods in a row, the middle one kept (its start carries the previous period's ring).
    let loop: AudioLoopInfo | null = null;
    if (input.loop) {
      const period = Math.max(Math.round(got.endQuarters * smf.division), end + 1);
      const periodSeconds = secondsAt(smf, period);
      const frames = Math.round(periodSeconds * SAMPLE_RATE);
      const three = await synthesize(writeSmf(repeated(smf, period, 3)), env, dir, 'loop', budgetOf(input, started));
      const startFrame = Math.round(secondsAt(repeated(smf, period, 3), period) * SAMPLE_RATE);
      const middle = three.map((c) => {
        const out = new Float32Array(frames);
        out.set(c.subarray(startFrame, Math.min(c.length, startFrame + frames)));
        return out;
      });
      // Mastered as three copies in a row so the limiter's state is the same at the end as at the start.
      const tiled = middle.map((c) => {
        const out = new Float32Array(frames * 3);
        for (let k = 0; k < 3; k++) out.set(c, k * frames);
        return out;
      });
      const loopChannels = master(tiled, SAMPLE_RATE).channels.map((c) => c.slice(frames, 2 * frames));
      await deliver({ channels: loopChannels, figures: meter(loopChannels, SAMPLE_RATE) }, 'loop', 'loop');
      const ten = loopChannels.map((c) => {
        const out = new Float32Array(frames * 10);
        for (let k = 0; k < 10; k++) out.set(c, k * frames);
        return out;
      });
      const longest = longestSilentRun(ten, Math.pow(10, -60 / 20));
      const longestSilenceMs = Math.round((longest / SAMPLE_RATE) * 10000) / 10;
      loop = {
        startFrame: 0,
        endFrame: frames,
        seconds: Math.round((frames / SAMPLE_RATE) * 1000) / 1000,
        longestSilenceMs,
        seamless: longestSilenceMs <= 5,
      };
    }
    return {
      rendering: {
        status: 'rendered',
        statement: renderedStatement(env),
        scoreSha256: input.scoreSha256,
        midiSha256: sha(got.midi),
        midiSeconds: Math.round(midiSeconds * 1000) / 1000,
        renderer: env.renderer,
        encoder: env.encoder,
        soundFont: env.soundFont,
        sampleRate: SAMPLE_RATE,
        channels: 2,
        files: infos,
        cuts,
        loop,
      },
      files,
    };
  } catch (err) {
    return failed(`The renderer stopped with an error: ${(err as Error).message}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
