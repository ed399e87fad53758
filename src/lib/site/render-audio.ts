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

export type AudioMode = 'build' | 'cached' | 'off';
export const AUDIO_MODES: readonly AudioMode[] = ['build', 'cached', 'off'];

export interface AudioJob {
  slug: string;
  assetId: number;
  file: string;
  compressed: boolean;
  /** A score of a loopable arrangement: a loop file is made too. */
  loop: boolean;
}

/** Every public score of the catalog with its file (scores not stored here, or not public, get no audio). */
export function audioJobs(catalog: Catalog, blobPath?: (sha256: string) => string): AudioJob[] {
  const out: AudioJob[] = [];
  for (const work of catalog.works) {
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
      out.push({ slug: work.content.slug, assetId: asset.id, file, compressed: asset.kind === 'mxl', loop });
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
        const r = got.output.rendering;
        if (r.status === 'rendered') {
          writeAudioFiles(dir, job, got.output);
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
