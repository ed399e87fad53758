/**
 * Build-time audio (docs/audio.md, "Rendered from the score"): every public MusicXML score of the
 * catalog (source scores, and arrangement scores stored with a work or in the blob store) gets
 * rendered audio, looked up in the render cache first (kind "audio", keyed by `audioKey`) and
 * otherwise rendered in the engraving pool (src/lib/site/engrave-pool.ts, op "audio": the same
 * workers and budgets as engraving) and stored there. The files land in `<dir>/files/` under
 * `audioFolder(slug, assetId)`, and each score's manifest entry carries what was made.
 *
 * Modes: `build` renders what the cache lacks; `cached` only places what the cache holds and
 * marks the rest `pending` (the server's builds after an apply: showing an applied change never
 * waits for audio); `off` makes nothing.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { Catalog } from '../../domain/catalog.ts';
import { audioEnvironment, type AudioEnvironment, type AudioOutput, type AudioTools } from './audio-render.ts';
import { EngraveBudgetError, EngravePool, type EngravePoolOptions } from './engrave-pool.ts';
import { audioKey, RenderCache, type RenderCacheBackend } from './render-cache.ts';
import { audioFolder, type AudioEntry } from './scores.ts';
import { scoreMidiMeta, withMidiMetadata, type MidiMeta } from './midi-meta.ts';
import { scoreMetadata } from './render-scores.ts';

export type AudioMode = 'build' | 'cached' | 'off';
export const AUDIO_MODES: readonly AudioMode[] = ['build', 'cached', 'off'];

export interface AudioJob {
  slug: string;
  assetId: number;
  file: string;
  compressed: boolean;
  /** A score of a loopable arrangement: a loop file is made too. */
  loop: boolean;
  /** The work's metadata its published MIDI carries (the same as the engraving's score.mid). */
  midiMeta?: MidiMeta;
  /**
   * The work's stored files that are not public, by SHA-256 (which asset, which access): a
   * rendering with the same bytes as one of them is not published, since a restriction holds on
   * the bytes wherever they would appear (`withheldBy`).
   */
  restricted?: Map<string, string>;
}

/** Of a work's stored assets, those not public, by their bytes' SHA-256. */
function restrictedDigests(work: Catalog['works'][number]): Map<string, string> {
  const out = new Map<string, string>();
  const assets = [...work.content.sourceAssets, ...(work.content.arrangements ?? []).flatMap((a) => a.assets)];
  for (const asset of assets) {
    if (asset.access === 'public') continue;
    const sha = asset.blob ?? (asset.file !== undefined ? work.files.get(asset.file)?.sha256 : undefined);
    if (sha) out.set(sha, `asset ${asset.id}, ${asset.access}`);
  }
  return out;
}

/**
 * Why a rendering is not published: one of its files has the bytes of a stored file of the work
 * that is not public (the sample's administrator-only MP3 of an arrangement is the renderer's own
 * output of its public score, for one). Null when nothing restricted matches.
 */
export function withheldBy(output: AudioOutput, restricted: Map<string, string> | undefined): string | null {
  if (!restricted || restricted.size === 0 || output.rendering.status !== 'rendered') return null;
  for (const f of output.rendering.files) {
    const which = restricted.get(f.sha256);
    if (which)
      return `The rendered ${f.name} has the same bytes as a stored file of this work that is not public (${which}), so the archive does not publish it.`;
  }
  return null;
}

/** Every public score of the catalog with its file (scores not stored here, or not public, get no audio). */
export function audioJobs(catalog: Catalog, blobPath?: (sha256: string) => string): AudioJob[] {
  const out: AudioJob[] = [];
  for (const work of catalog.works) {
    let restricted: Map<string, string> | undefined;
    const candidates = [
      ...work.content.sourceAssets.map((asset) => ({ asset, loop: false })),
      ...(work.content.arrangements ?? []).flatMap((a) => a.assets.map((asset) => ({ asset, loop: a.loopable }))),
    ];
    for (const { asset, loop } of candidates) {
      if (asset.kind !== 'musicxml' && asset.kind !== 'mxl') continue;
      if (asset.access !== 'public') continue;
      let file: string | null = null;
      if (asset.blob !== undefined) file = blobPath ? blobPath(asset.blob) : null;
      else if (asset.file !== undefined) file = work.files.get(asset.file)?.absolutePath ?? null;
      if (!file || !existsSync(file)) continue;
      out.push({
        slug: work.content.slug,
        assetId: asset.id,
        file,
        compressed: asset.kind === 'mxl',
        loop,
        midiMeta: scoreMidiMeta(scoreMetadata(work.content, asset)),
        restricted: (restricted ??= restrictedDigests(work)),
      });
    }
  }
  return out;
}

export interface AudioSummary {
  /** Scores with rendered audio in this build. */
  rendered: number;
  /** Of them, rendered by this build (the rest came from the render cache). */
  synthesized: number;
  fromCache: number;
  failed: number;
  /** Scores whose audio is not in the cache (mode `cached`). */
  pending: number;
  /** Damaged cache entries (rendered again). */
  corrupt: number;
  /** Why no audio was made, when the renderer is missing. */
  notOffered: string | null;
  /** The pending audio is to be rendered by a background full build (an apply's build; the server starts it). */
  later?: boolean;
  durationMs: number;
}

export interface AudioOptions {
  mode: AudioMode;
  cache?: RenderCacheBackend | null;
  pool?: EngravePool;
  poolOptions?: Partial<EngravePoolOptions>;
  tools?: Partial<AudioTools>;
  blobPath?: (sha256: string) => string;
  /** The environment, when the caller found it already (the engrave CLI). */
  env?: AudioEnvironment;
}

const emptySummary = (): AudioSummary => ({
  rendered: 0,
  synthesized: 0,
  fromCache: 0,
  failed: 0,
  pending: 0,
  corrupt: 0,
  notOffered: null,
  durationMs: 0,
});

/** One score's audio through the cache: a verified entry, else (mode build) rendered in the pool and stored. */
export async function audioCached(
  job: AudioJob,
  env: AudioEnvironment,
  cache: RenderCache | null,
  mode: Exclude<AudioMode, 'off'>,
  pool: () => EngravePool,
): Promise<{ output: AudioOutput | null; from: 'cache' | 'rendered' | 'pending'; corrupt: number }> {
  const scoreSha256 = createHash('sha256').update(readFileSync(job.file)).digest('hex');
  const key = audioKey(scoreSha256, env, job.loop);
  let corrupt = 0;
  if (cache) {
    const found = await cache.getAudio(key);
    if (found.state === 'hit') return { output: found.output, from: 'cache', corrupt };
    if (found.state === 'corrupt') corrupt++;
  }
  if (mode === 'cached') return { output: null, from: 'pending', corrupt };
  let output: AudioOutput;
  try {
    output = await pool().audio({ file: job.file, compressed: job.compressed }, { env, scoreSha256, loop: job.loop });
  } catch (err) {
    const reason =
      err instanceof EngraveBudgetError
        ? err.message.replace(/^Engraving/, 'Rendering the audio')
        : `The renderer stopped with an error: ${(err as Error).message}`;
    return { output: { rendering: { status: 'failed', reason }, files: [] }, from: 'rendered', corrupt };
  }
  if (cache && output.rendering.status === 'rendered') await cache.putAudio(key, output).catch(() => undefined);
  return { output, from: 'rendered', corrupt };
}

/**
 * A rendering as this work publishes it: its score.mid carries the work's title and composer
 * (text events at its start, which make no sound: FluidSynth renders the same samples with or
 * without them), so it is the same file as the engraving's score.mid and the record's
 * `midiSha256` names the file served. The render cache keeps the plain MIDI (an entry is shared
 * by every work that stores the score).
 */
export function publishedAudio(output: AudioOutput, meta: MidiMeta | undefined): AudioOutput {
  const r = output.rendering;
  const plain = output.files.find((f) => f.name === 'score.mid');
  if (!meta || r.status !== 'rendered' || !plain) return output;
  const bytes = withMidiMetadata(plain.bytes, meta);
  const sha256 = createHash('sha256').update(bytes).digest('hex');
  return {
    rendering: {
      ...r,
      midiSha256: sha256,
      files: r.files.map((f) => (f.name === 'score.mid' ? { ...f, sha256, byteLength: bytes.byteLength } : f)),
    },
    files: output.files.map((f) => (f.name === 'score.mid' ? { name: f.name, bytes } : f)),
  };
}

/** Write a rendering's files into `<dir>/files/<audio folder>/`. */
export function writeAudioFiles(dir: string, job: Pick<AudioJob, 'slug' | 'assetId'>, output: AudioOutput): void {
  const outDir = path.join(dir, 'files', audioFolder(job.slug, job.assetId));
  mkdirSync(outDir, { recursive: true });
  for (const f of output.files) writeFileSync(path.join(outDir, f.name), f.bytes);
}

/**
 * Render (or take from the cache) the audio of every public score of `catalog` into `dir`;
 * answers each score's manifest entry (`${slug}/${assetId}`) and the counts.
 */
export async function renderAudios(
  catalog: Catalog,
  dir: string,
  options: AudioOptions,
): Promise<{ entries: Map<string, AudioEntry>; summary: AudioSummary }> {
  const started = Date.now();
  const summary = emptySummary();
  const entries = new Map<string, AudioEntry>();
  if (options.mode === 'off') return { entries, summary };
  const jobs = audioJobs(catalog, options.blobPath);
  if (jobs.length === 0) return { entries, summary };
  const found = options.env ? { env: options.env } : audioEnvironment(options.tools);
  if ('reason' in found) {
    summary.notOffered = found.reason;
    for (const j of jobs) entries.set(`${j.slug}/${j.assetId}`, { status: 'not-offered', reason: found.reason });
    summary.durationMs = Date.now() - started;
    return { entries, summary };
  }
  const env = found.env;
  const mode = options.mode;
  const cache = options.cache ? new RenderCache(options.cache) : null;
  let ownPool: EngravePool | null = null;
  const pool = () => options.pool ?? (ownPool ??= new EngravePool(options.poolOptions));
  const width = Math.max(1, options.pool?.options.size ?? options.poolOptions?.size ?? 1);
  let next = 0;
  const lane = async () => {
    while (next < jobs.length) {
      const job = jobs[next++]!;
      const key = `${job.slug}/${job.assetId}`;
      try {
        const got = await audioCached(job, env, cache, mode, pool);
        summary.corrupt += got.corrupt;
        if (got.from === 'pending' || !got.output) {
          summary.pending++;
          entries.set(key, {
            status: 'pending',
            reason:
              'The audio of this score has not been rendered yet; it is made in the background and published with a later build.',
          });
          continue;
        }
        const output = publishedAudio(got.output, job.midiMeta);
        const r = output.rendering;
        const withheld = withheldBy(output, job.restricted);
        if (withheld !== null) {
          entries.set(key, { status: 'not-offered', reason: withheld });
          continue;
        }
        if (r.status === 'rendered') {
          writeAudioFiles(dir, job, output);
          summary.rendered++;
          if (got.from === 'cache') summary.fromCache++;
          else summary.synthesized++;
        } else summary.failed++;
        entries.set(key, r);
      } catch (err) {
        summary.failed++;
        entries.set(key, { status: 'failed', reason: `The renderer stopped with an error: ${(err as Error).message}` });
      }
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(width, jobs.length) }, lane));
  } finally {
    await (ownPool as EngravePool | null)?.close();
  }
  // In the catalog's order, whatever order they finished in.
  const ordered = new Map<string, AudioEntry>();
  for (const j of jobs) {
    const key = `${j.slug}/${j.assetId}`;
    if (entries.has(key)) ordered.set(key, entries.get(key)!);
  }
  summary.durationMs = Date.now() - started;
  return { entries: ordered, summary };
}
