/**
 * The render cache: one entry per engraved score, keyed by everything that determines the
 * engraving (the score's SHA-256, Verovio's version, our layout options and ENGRAVE_CODE_VERSION),
 * and one per printable PDF (keyed by the engraving and the PDF's title, author and subject), so the full build, the incremental build, the reconcile,
 * `npm run engrave` on another machine and a restored data folder all find what was engraved
 * once. Entries live in the blob store's named objects (api/blobs: a local folder or S3), which
 * the build scripts and the server hand in as a `RenderCacheBackend`; `src/` only needs the two
 * methods, so it does not import `api/`.
 *
 * An entry is one object: a JSON header line (format, key, the rendering, each file's name and
 * length, and the SHA-256 of the body) and the files' bytes back to back. It is verified against
 * its digest (and its key) before use; a damaged entry is reported as corrupt and engraved again.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { ENGRAVE_CODE_VERSION, NARROW_OPTIONS, VEROVIO_OPTIONS, type EngraveOutput } from './engrave.ts';
import { AUDIO_CODE_VERSION, AUDIO_OPTIONS, type AudioEnvironment, type AudioOutput } from './audio-render.ts';

/** The part of the blob store the cache uses (api/blobs/blob-store.ts's BlobStore has it). */
export interface RenderCacheBackend {
  getNamed(name: string): Promise<Buffer | null>;
  putNamed(name: string, bytes: Buffer): Promise<void>;
  /** A fingerprint of the stored object that changes when it is rewritten (enables the render view). */
  namedFingerprint?(name: string): Promise<string | null>;
}

const FORMAT = 'pdma-render-cache/1';
/** A header is a few KiB even for 96 pages; anything longer is not ours. */
const MAX_HEADER_BYTES = 4 * 1024 * 1024;

let verovioVersionCache: string | undefined;

/** Verovio's package version (part of every key: a new engraver draws different bytes). */
export function verovioVersion(): string {
  verovioVersionCache ??= (
    JSON.parse(readFileSync(new URL('../package.json', import.meta.resolve('verovio/esm')), 'utf8')) as {
      version: string;
    }
  ).version;
  return verovioVersionCache;
}

/**
 * The engraving's key: what decides Verovio's pages and MIDI (the score's bytes, the engraver,
 * our options and code). The same score in two works, or in a corpus folder, shares it.
 */
export function engravingKey(scoreSha256: string): string {
  const material = JSON.stringify({
    score: scoreSha256,
    verovio: verovioVersion(),
    code: ENGRAVE_CODE_VERSION,
    wide: VEROVIO_OPTIONS,
    narrow: NARROW_OPTIONS,
  });
  return createHash('sha256').update(material).digest('hex');
}

/**
 * A rendered audio's key: everything that decides its bytes (the score, Verovio that makes its
 * MIDI, FluidSynth's version, the SoundFont's digest, ffmpeg's version, our options and code, and
 * whether a loop is made).
 */
export function audioKey(scoreSha256: string, env: AudioEnvironment, loop: boolean): string {
  const material = JSON.stringify({
    score: scoreSha256,
    verovio: verovioVersion(),
    midiOptions: VEROVIO_OPTIONS,
    renderer: env.renderer.version,
    soundFont: env.soundFont.sha256,
    encoder: env.encoder.version,
    code: AUDIO_CODE_VERSION,
    options: AUDIO_OPTIONS,
    loop,
  });
  return createHash('sha256').update(material).digest('hex');
}

/** The PDF's metadata that decides its bytes besides the pages (its time is the first making's). */
export interface PdfKeyInputs {
  title: string;
  author: string;
  subject: string;
  keywords?: string;
}

/** The PDF's key: the engraving it prints and its metadata (a retitled work makes a new PDF, not a new engraving). */
export function pdfKey(engraving: string, meta: PdfKeyInputs): string {
  // The PDF entry also holds the MIDI with the same metadata (src/lib/site/midi-meta.ts): "v2".
  const material = JSON.stringify({
    engraving,
    title: meta.title,
    author: meta.author,
    subject: meta.subject,
    keywords: meta.keywords ?? null,
    entry: 'pdf+midi-v2',
  });
  return createHash('sha256').update(material).digest('hex');
}

/** Where an entry lives among the blob store's named objects. */
export type RenderCacheKind = 'engraving' | 'pdf' | 'audio';

export function renderCacheName(key: string, kind: RenderCacheKind = 'engraving'): string {
  return `render-cache/v1/${kind}/${key.slice(0, 2)}/${key}`;
}

/** The named objects of the cache all live under this first segment (backup copies them). */
export const RENDER_CACHE_PREFIX = 'render-cache';

const ENTRY_NAME = /^render-cache\/v1\/(engraving|pdf|audio)\/([0-9a-f]{2})\/([0-9a-f]{64})$/;

/**
 * Whether `bytes` is a whole, undamaged entry for the named object `name` (its digest, length,
 * format and the key its name carries). A copy of the cache (backup, restore) checks each entry
 * with this before it keeps it.
 */
export function isIntactEntry(name: string, bytes: Buffer): boolean {
  const m = ENTRY_NAME.exec(name);
  if (!m || m[3]!.slice(0, 2) !== m[2]) return false;
  return decodeEntry(m[3]!, bytes) !== null;
}

interface Header {
  format: string;
  key: string;
  rendering: EngraveOutput['rendering'];
  files: { name: string; length: number }[];
  bodySha256: string;
}

export function encodeEntry(key: string, output: EngraveOutput): Buffer {
  const body = Buffer.concat(output.files.map((f) => f.bytes));
  const header: Header = {
    format: FORMAT,
    key,
    rendering: output.rendering,
    files: output.files.map((f) => ({ name: f.name, length: f.bytes.byteLength })),
    bodySha256: createHash('sha256').update(body).digest('hex'),
  };
  return Buffer.concat([Buffer.from(`${JSON.stringify(header)}\n`, 'utf8'), body]);
}

/** Decode and verify an entry; null when it is damaged (wrong digest, length, key or format). */
export function decodeEntry(key: string, bytes: Buffer): EngraveOutput | null {
  const newline = bytes.indexOf(0x0a);
  if (newline < 0 || newline > MAX_HEADER_BYTES) return null;
  let header: Header;
  try {
    header = JSON.parse(bytes.subarray(0, newline).toString('utf8')) as Header;
  } catch {
    return null;
  }
  if (header?.format !== FORMAT || header.key !== key || !Array.isArray(header.files)) return null;
  const body = bytes.subarray(newline + 1);
  if (createHash('sha256').update(body).digest('hex') !== header.bodySha256) return null;
  const files: EngraveOutput['files'] = [];
  let offset = 0;
  for (const f of header.files) {
    if (typeof f?.name !== 'string' || !/^[a-z0-9.-]+$/.test(f.name) || !Number.isInteger(f.length)) return null;
    if (f.length < 0 || offset + f.length > body.length) return null;
    files.push({ name: f.name, bytes: body.subarray(offset, offset + f.length) });
    offset += f.length;
  }
  if (offset !== body.length) return null;
  const status = header.rendering?.status;
  if (status !== 'rendered' && status !== 'failed') return null;
  return { rendering: header.rendering, files };
}

export type CacheLookup = { state: 'hit'; output: EngraveOutput } | { state: 'miss' } | { state: 'corrupt' };

/** The render cache over a backend; a read error counts as a miss (the score is engraved). */
export class RenderCache {
  readonly backend: RenderCacheBackend;
  constructor(backend: RenderCacheBackend) {
    this.backend = backend;
  }

  async get(key: string, kind: RenderCacheKind = 'engraving'): Promise<CacheLookup> {
    let bytes: Buffer | null;
    try {
      bytes = await this.backend.getNamed(renderCacheName(key, kind));
    } catch {
      return { state: 'miss' };
    }
    if (bytes === null) return { state: 'miss' };
    const output = decodeEntry(key, bytes);
    return output ? { state: 'hit', output } : { state: 'corrupt' };
  }

  async has(key: string, kind: RenderCacheKind = 'engraving'): Promise<boolean> {
    return (await this.get(key, kind)).state === 'hit';
  }

  async put(key: string, output: EngraveOutput, kind: RenderCacheKind = 'engraving'): Promise<void> {
    await this.backend.putNamed(renderCacheName(key, kind), encodeEntry(key, output));
  }

  /** A score's rendered audio (src/lib/site/render-audio.ts): the same entry format, its own kind. */
  async getAudio(
    key: string,
  ): Promise<{ state: 'hit'; output: AudioOutput } | { state: 'miss' } | { state: 'corrupt' }> {
    const found = await this.get(key, 'audio');
    return found.state === 'hit' ? { state: 'hit', output: found.output as unknown as AudioOutput } : found;
  }

  async putAudio(key: string, output: AudioOutput): Promise<void> {
    await this.put(key, output as unknown as EngraveOutput, 'audio');
  }
}
