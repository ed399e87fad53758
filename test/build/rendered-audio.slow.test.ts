/**
 * Rendered audio through the build CLI (docs/audio.md, "Rendered from the score"): the sample's
 * scores (the global build, `--audio build`) and two real OpenScore scores, a song and a quartet
 * movement (their own build, `--render-cache <folder>`), each get mastered audio that ffmpeg's
 * ebur128 measures at -14 LUFS (within 1 LU) with a true peak at most -1 dBTP, 48 kHz stereo,
 * its length within 2 s of the MIDI's; cuts are exactly 30 s / 60 s and end on a bar line; every
 * loop (Satie's included) played ten times in a row has no silence over 5 ms; the provenance
 * page's digests are those of the served files; a second build renders nothing (the cache).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PROJECT_ROOT } from '../helpers/app.ts';
import { buildWithCli } from '../helpers/build-folders.ts';
import { ffmpeg } from '../helpers/ffmpeg.ts';
import { findScore, LIEDER, makeCorpusContent, QUARTETS } from '../helpers/corpus-content.ts';
import type { RenderedAudio } from '../../src/schemas/audio.ts';
import type { AudioSummary } from '../../src/lib/site/render-audio.ts';

const root = mkdtempSync(path.join(os.tmpdir(), 'pdma-rendered-audio-'));
const content = path.join(root, 'content');
const cache = path.join(root, 'cache');

afterAll(() => rmSync(root, { recursive: true, force: true }));

async function build(name: string): Promise<{ dir: string; audio: AudioSummary }> {
  const dir = path.join(root, name);
  const info = await buildWithCli(content, dir, 'https://audio.example.test', [
    '--generated-at',
    '2026-01-02T03:04:05.000Z',
    '--render-cache',
    cache,
    '--audio',
    'build',
    // The quartet's audio (7 minutes, with its cuts) on a loaded shared machine: this test is not about the budget.
    '--engrave-timeout-ms',
    '1800000',
  ]);
  return { dir, audio: info.audio as AudioSummary };
}

interface Rendered {
  build: string;
  slug: string;
  assetId: number;
  audio: RenderedAudio;
}

/** Every score with rendered audio in a build, from its JSON records. */
function renderedIn(buildDir: string, slugs: string[]): Rendered[] {
  const out: Rendered[] = [];
  for (const slug of slugs) {
    const record = JSON.parse(
      readFileSync(path.join(buildDir, 'client', 'api', 'v1', 'works', slug, 'index.json'), 'utf8'),
    ) as {
      data: {
        sourceAssets: { id: number; renderedAudio?: RenderedAudio }[];
        arrangements: { assets: { id: number; renderedAudio?: RenderedAudio }[] }[];
      };
    };
    const assets = [...record.data.sourceAssets, ...record.data.arrangements.flatMap((a) => a.assets)];
    for (const a of assets)
      if (a.renderedAudio) out.push({ build: buildDir, slug, assetId: a.id, audio: a.renderedAudio });
  }
  return out;
}

/** ffmpeg's ebur128 over a file, in one decode: the summary and the log (its input stream line says rate and channels). */
function measured(file: string): { oracle: { integratedLufs: number; truePeakDbtp: number }; log: string } {
  const log = ffmpeg(['-nostats', '-i', file, '-af', 'ebur128=peak=true', '-f', 'null', '-']);
  const summary = log.slice(log.lastIndexOf('Summary:'));
  const num = (re: RegExp) => Number(re.exec(summary)?.[1] ?? NaN);
  return { oracle: { integratedLufs: num(/I:\s+(-?[\d.]+) LUFS/), truePeakDbtp: num(/Peak:\s+(-?[\d.]+) dBFS/) }, log };
}

const served = (r: Rendered, name: string) =>
  path.join(r.build, 'client', 'works', r.slug, 'audio', String(r.assetId), name);
const sha256 = (file: string) => createHash('sha256').update(readFileSync(file)).digest('hex');

let sample: Rendered[];
/** The sample's renderings that are published (one is withheld: see the first test). */
let published: Rendered[];
let corpus: Rendered[];
let first: Awaited<ReturnType<typeof build>>;
let slugs: string[];

beforeAll(async () => {
  const sampleDir = inject('sampleBuildDir');
  const sampleSlugs = readdirSync(path.join(PROJECT_ROOT, 'content', 'works')).sort();
  sample = renderedIn(sampleDir, sampleSlugs);
  published = sample.filter((r) => r.audio.status === 'rendered');
  // A song (16 s) and a quartet movement (7 min: its 30 s and 60 s cuts), without the sample's works.
  slugs = makeCorpusContent(content, [findScore(LIEDER, 'lc6050301.mxl'), findScore(QUARTETS, 'sq7070781.mxl')], {
    sampleWorks: false,
  });
  first = await build('first');
  corpus = renderedIn(first.dir, slugs);
}, 900_000);

describe('rendered audio', () => {
  it('renders every public score of the sample and of the real scores', () => {
    // The sample: nine source scores and seventeen arrangement scores, every one rendered; the
    // rendering of three is not published: each work's restricted MP3 (asset 21, administrator-only
    // or signed-in) has the rendering's bytes, and a restriction holds on the bytes (withheldBy).
    expect(sample.length).toBe(26);
    const withheld = sample.filter((r) => r.audio.status !== 'rendered');
    expect(withheld.map((r) => `${r.slug}/${r.assetId}`)).toEqual([
      'bach-prelude-in-c-bwv-846/22',
      'beethoven-fur-elise/22',
      'dvorak-symphony-9-largo/22',
    ]);
    for (const r of withheld) {
      expect(r.audio.status).toBe('not-offered');
      expect(r.audio.reason).toMatch(
        /^The rendered [\w.-]+ has the same bytes as a stored file of this work that is not public \(asset 21, (admin-only|signed-in)\)/,
      );
    }
    expect(corpus.length).toBe(2);
    for (const r of [...published, ...corpus]) {
      expect(r.audio.status, `${r.slug}/${r.assetId}: ${r.audio.reason}`).toBe('rendered');
      expect(r.audio.statement).toMatch(
        /^Rendered from the score by FluidSynth [\d.]+ with the Fluid \(R3\) General MIDI SoundFont; technical-pass/,
      );
      expect(r.audio.reviewState).toBe('technical-pass');
    }
    expect(first.audio).toMatchObject({ rendered: 2, synthesized: 2, fromCache: 0, failed: 0, pending: 0 });
  });

  it('masters every file to -14 LUFS and a true peak of at most -1 dBTP, 48 kHz stereo, as ffmpeg measures them', () => {
    for (const r of [...published, ...corpus]) {
      const master = r.audio.files.find((f) => f.role === 'master' && f.format === 'flac')!;
      expect(
        Math.abs(master.durationSeconds - r.audio.midiSeconds!),
        `${r.slug}/${r.assetId} length`,
      ).toBeLessThanOrEqual(2);
      for (const f of r.audio.files) {
        const file = served(r, f.name);
        const { oracle, log } = measured(file);
        expect(log, f.name).toMatch(/Audio: \w+, 48000 Hz, stereo/);
        const where = `${r.slug}/${r.assetId}/${f.name}`;
        expect(Math.abs(oracle.integratedLufs - -14), `${where} ${oracle.integratedLufs} LUFS`).toBeLessThanOrEqual(1);
        expect(oracle.truePeakDbtp, `${where} true peak`).toBeLessThanOrEqual(-1);
        // The archive's own measurement agrees with ffmpeg's.
        expect(Math.abs(f.integratedLufs! - oracle.integratedLufs), where).toBeLessThanOrEqual(0.5);
        if (f.format === 'mp3') expect(f.gapless, where).not.toBeNull();
      }
    }
    // About 80 files, each decoded once by ffmpeg (a few minutes on the loaded 2-core machine).
  }, 900_000);

  it('cuts a long score to exactly 30 s and 60 s, ending on a bar line', () => {
    const quartet = corpus.find((r) => r.slug === slugs[1])!;
    expect(quartet.audio.cuts.map((c) => c.seconds)).toEqual([30, 60]);
    for (const c of quartet.audio.cuts) {
      expect(c.barSeconds).toBeLessThan(c.seconds);
      expect(c.barSeconds).toBeGreaterThan(c.seconds - 10);
      for (const format of ['flac', 'mp3'] as const) {
        const f = quartet.audio.files.find((x) => x.role === `cut-${c.seconds}` && x.format === format)!;
        expect(f.durationSeconds).toBe(c.seconds);
      }
    }
  });

  it('loops without a gap: ten repetitions of each lossless loop have no silence over 5 ms (Satie included)', () => {
    const loops = published.filter((r) => r.audio.loop);
    expect(loops.map((r) => `${r.slug}/${r.assetId}`)).toContain('satie-gymnopedie-1/12');
    for (const r of loops) {
      expect(r.audio.loop!.seamless).toBe(true);
      const list = path.join(root, `loop-${r.slug}-${r.assetId}.txt`);
      writeFileSync(list, Array.from({ length: 10 }, () => `file '${served(r, 'loop.flac')}'`).join('\n'));
      const log = ffmpeg([
        '-f',
        'concat',
        '-safe',
        '0',
        '-i',
        list,
        '-af',
        'silencedetect=noise=-60dB:d=0.005',
        '-f',
        'null',
        '-',
      ]);
      expect(log, `${r.slug}/${r.assetId}`).not.toMatch(/silence_start/);
    }
  });

  it('publishes a provenance page whose digests are those of the served files', () => {
    for (const r of [sample.find((x) => x.slug === 'satie-gymnopedie-1' && x.assetId === 12)!, ...corpus]) {
      const html = readFileSync(served(r, 'index.html'), 'utf8');
      expect(html).toContain('FluidSynth');
      expect(html).toContain('LGPL-2.1-or-later');
      expect(html).toContain('Fluid (R3) General MIDI SoundFont');
      expect(html).toMatch(/license MIT/);
      expect(html).toContain(r.audio.soundFont!.sha256);
      // score -> MIDI -> audio.
      expect(html).toContain(`data-midi-sha256>${sha256(served(r, 'score.mid'))}<`);
      expect(r.audio.midiSha256).toBe(sha256(served(r, 'score.mid')));
      for (const f of r.audio.files) {
        expect(sha256(served(r, f.name)), f.name).toBe(f.sha256);
        expect(html).toContain(`<code data-sha256>${f.sha256}</code>`);
      }
      // The record and the work page link it.
      expect(r.audio.links.provenance).toBe(
        `${r.build === first.dir ? 'https://audio.example.test' : inject('testBaseUrl')}/works/${r.slug}/audio/${r.assetId}/`,
      );
      const page = readFileSync(path.join(r.build, 'client', 'works', r.slug, 'index.html'), 'utf8');
      expect(page).toContain(`href="/works/${r.slug}/audio/${r.assetId}/" data-provenance-link`);
    }
    // A source score's MIDI is the engraving's own.
    for (const r of corpus) {
      const engraved = path.join(r.build, 'client', 'works', r.slug, 'score', String(r.assetId), 'score.mid');
      expect(sha256(engraved)).toBe(r.audio.midiSha256);
    }
  });

  it('renders nothing in a second build: every score comes from the render cache', async () => {
    const second = await build('second');
    expect(second.audio).toMatchObject({ rendered: 2, synthesized: 0, fromCache: 2, failed: 0 });
    for (const r of renderedIn(second.dir, slugs))
      for (const f of r.audio.files) expect(sha256(served(r, f.name))).toBe(f.sha256);
  }, 600_000);
});
