/**
 * `npm run engrave -- --shard i/n [--content DIR | <corpus folder>]`: fill the render cache ahead
 * of a build, on as many machines (or processes) as there are, with no coordinator but the cache.
 *
 * Each score belongs to exactly one shard, by its SHA-256 (the first 8 hex digits modulo n), so n
 * processes started with 1/n .. n/n split any catalog the same way without talking to each other;
 * a score is done when its verified entry exists (it is skipped), so a run can be repeated or
 * resumed after a crash. With --content, the catalog's public stored scores are engraved with
 * their PDFs (the metadata a build gives them); with a corpus folder, every score file in it
 * (`.musicxml`, `.xml`, `.mxl`: src/domain/score-files.ts, in any encoding) is engraved (pages and
 * MIDI; a build adds each work's PDF from the cached pages).
 *
 * Each score's rendered audio (src/lib/site/render-audio.ts) is made in the same run, in the same
 * pool, and stored in the same cache (`--audio off` or ARCHIVE_AUDIO_RENDER=off skips it): with
 * --content, the arrangement scores kept as downloads too, and a loop for each loopable
 * arrangement's score. A build then renders none of it.
 *
 * The cache is the configured blob store (ARCHIVE_BLOB_STORE: local folder or S3), or
 * `--render-cache DIR|none`. Prints one JSON line: the shard's scores, which it engraved, which
 * were already cached, failures, and the time.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { formatLintMessage, loadCatalog } from '../src/domain/catalog.ts';
import { EngravePool } from '../src/lib/site/engrave-pool.ts';
import { RenderCache } from '../src/lib/site/render-cache.ts';
import { engraveCached, scoreIdentity, scoreJobs, type ScoreIdentity } from '../src/lib/site/render-scores.ts';
import { audioToolsFrom, ENGRAVE_FLAGS, engraveOptionsFrom, renderCacheFrom } from '../build/command.ts';
import { audioCached, audioJobs, type AudioJob } from '../src/lib/site/render-audio.ts';
import { audioEnvironment } from '../src/lib/site/audio-render.ts';
import { createHash } from 'node:crypto';
import { scoreFilesUnder } from './lib/score-walk.ts';
import { scoreKindOfName } from '../src/domain/score-files.ts';

export interface Shard {
  index: number;
  count: number;
}

/** "i/n" with 1 <= i <= n <= 10,000. */
export function parseShard(value: string): Shard {
  const m = /^(\d{1,5})\/(\d{1,5})$/.exec(value.trim());
  const index = m ? Number(m[1]) : NaN;
  const count = m ? Number(m[2]) : NaN;
  if (!m || count < 1 || count > 10_000 || index < 1 || index > count)
    throw new Error(`--shard must be i/n with 1 <= i <= n <= 10000, such as 1/2 (got "${value}")`);
  return { index, count };
}

/** The shard (1..n) a score belongs to, by its digest. */
export function shardOf(sha256: string, count: number): number {
  return (parseInt(sha256.slice(0, 8), 16) % count) + 1;
}

interface Score {
  file: string;
  compressed: boolean;
  identity: ScoreIdentity;
}

async function scoresOf(options: { content?: string; corpus?: string }, createdAtUtc: string): Promise<Score[]> {
  if (options.content) {
    const loaded = loadCatalog(options.content);
    if (loaded.messages.length > 0) throw new Error(loaded.messages.map(formatLintMessage).join('\n'));
    return scoreJobs(loaded.catalog)
      .filter((j) => j.file !== null)
      .map((j) => ({
        file: j.file!,
        compressed: j.compressed,
        identity: scoreIdentity(readFileSync(j.file!), j, createdAtUtc),
      }));
  }
  // Every score file the importer and the build take (.musicxml, .xml, .mxl), any depth (bounded).
  const { files } = await scoreFilesUnder(options.corpus!);
  return files.map((rel) => {
    const file = path.join(options.corpus!, rel);
    return {
      file,
      compressed: scoreKindOfName(file) === 'mxl',
      identity: scoreIdentity(readFileSync(file), null, createdAtUtc),
    };
  });
}

export interface EngraveRunSummary {
  shard: string;
  /** Distinct scores of this shard. */
  scores: number;
  /** Digests (SHA-256 of the score files) this run engraved. */
  engraved: string[];
  /** Scores whose entries were already in the cache. */
  cached: number;
  failed: { file: string; reason: string }[];
  /** Rendered audio of the shard's scores: digests rendered by this run, already cached, failed; or why none is made. */
  audio: {
    rendered: string[];
    cached: number;
    failed: { file: string; reason: string }[];
    notOffered: string | null;
  } | null;
  durationMs: number;
}

/** The scores whose audio a run renders: the catalog's public scores (source and arrangement), or a corpus folder's files. */
async function audioScores(options: { content?: string; corpus?: string }): Promise<AudioJob[]> {
  if (options.content) return audioJobs(loadCatalog(options.content).catalog);
  // The same score files the engraving takes (src/domain/score-files.ts).
  const { files } = await scoreFilesUnder(options.corpus!);
  return files.map((rel, i) => {
    const file = path.join(options.corpus!, rel);
    return { slug: 'corpus', assetId: i + 1, file, compressed: scoreKindOfName(file) === 'mxl', loop: false };
  });
}

export async function engraveShard(options: {
  shard: Shard;
  content?: string;
  corpus?: string;
  cache: RenderCache;
  pool: EngravePool;
  /** Render each score's audio too (default: yes). */
  audio?: boolean;
}): Promise<EngraveRunSummary> {
  const started = Date.now();
  const all = await scoresOf(options, new Date().toISOString());
  // One entry per engraving and PDF: the same file twice in a catalog is engraved once.
  const seen = new Set<string>();
  const mine = all.filter((s) => {
    const id = `${s.identity.engraving}/${s.identity.pdf ?? ''}`;
    if (shardOf(s.identity.sha256, options.shard.count) !== options.shard.index || seen.has(id)) return false;
    seen.add(id);
    return true;
  });
  const summary: EngraveRunSummary = {
    shard: `${options.shard.index}/${options.shard.count}`,
    scores: mine.length,
    engraved: [],
    cached: 0,
    failed: [],
    audio: null,
    durationMs: 0,
  };
  let next = 0;
  const lane = async () => {
    while (next < mine.length) {
      const s = mine[next++]!;
      const done =
        (await options.cache.has(s.identity.engraving)) &&
        (s.identity.pdf === null || (await options.cache.has(s.identity.pdf, 'pdf')));
      if (done) {
        summary.cached++;
        continue;
      }
      const got = await engraveCached(s, s.identity, options.cache, () => options.pool);
      if (got.from === 'engraved') summary.engraved.push(s.identity.sha256);
      if (got.output.rendering.status === 'failed')
        summary.failed.push({ file: s.file, reason: got.output.rendering.reason });
    }
  };
  await Promise.all(Array.from({ length: Math.min(options.pool.options.size, mine.length) }, lane));
  if (options.audio !== false) {
    const found = audioEnvironment(audioToolsFrom(process.env));
    const audio: NonNullable<EngraveRunSummary['audio']> = { rendered: [], cached: 0, failed: [], notOffered: null };
    summary.audio = audio;
    if ('reason' in found) audio.notOffered = found.reason;
    else {
      const seenAudio = new Set<string>();
      const jobs = (await audioScores(options)).filter((j) => {
        const sha = createHash('sha256').update(readFileSync(j.file)).digest('hex');
        const id = `${sha}/${j.loop}`;
        if (shardOf(sha, options.shard.count) !== options.shard.index || seenAudio.has(id)) return false;
        seenAudio.add(id);
        return true;
      });
      let at = 0;
      const audioLane = async () => {
        while (at < jobs.length) {
          const job = jobs[at++]!;
          const got = await audioCached(job, found.env, options.cache, 'build', () => options.pool);
          if (got.from === 'cache') audio.cached++;
          else if (got.output?.rendering.status === 'rendered')
            audio.rendered.push(createHash('sha256').update(readFileSync(job.file)).digest('hex'));
          else if (got.output?.rendering.status === 'failed')
            audio.failed.push({ file: job.file, reason: got.output.rendering.reason });
        }
      };
      await Promise.all(Array.from({ length: Math.min(options.pool.options.size, jobs.length) }, audioLane));
    }
  }
  summary.durationMs = Date.now() - started;
  return summary;
}

async function main(): Promise<void> {
  const { values, positionals } = parseArgs({
    allowPositionals: true,
    options: {
      shard: { type: 'string', default: '1/1' },
      content: { type: 'string' },
      'render-cache': { type: 'string', default: 'config' },
      ...ENGRAVE_FLAGS,
      audio: { type: 'string', default: process.env.ARCHIVE_AUDIO_RENDER === 'off' ? 'off' : 'build' },
    },
  });
  let shard: Shard;
  let backend;
  let poolOptions;
  try {
    shard = parseShard(values.shard);
    if ((values.content ? 1 : 0) + positionals.length !== 1)
      throw new Error('name one catalog (--content DIR) or one corpus folder');
    backend = renderCacheFrom(values['render-cache'], process.env).cache;
    if (!backend) throw new Error('--render-cache none leaves nothing to fill');
    poolOptions = engraveOptionsFrom(values, process.env);
  } catch (err) {
    console.error(`engrave: ${(err as Error).message}`);
    process.exit(2);
  }
  const pool = new EngravePool(poolOptions);
  try {
    const summary = await engraveShard({
      shard,
      content: values.content ? path.resolve(values.content) : undefined,
      corpus: positionals[0] ? path.resolve(positionals[0]) : undefined,
      cache: new RenderCache(backend),
      pool,
      audio: values.audio !== 'off',
    });
    console.log(JSON.stringify(summary));
  } finally {
    await pool.close();
  }
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.filename)) {
  await main();
}
