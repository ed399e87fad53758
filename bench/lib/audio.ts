/**
 * Bench section `audio` (docs/audio.md, "Cost"): the archive's render of a score's MIDI with
 * FluidSynth (src/lib/site/audio-render.ts `synthesize`: the file render plus reading its samples)
 * against bare `fluidsynth -F` on the same MIDI and SoundFont with the same settings, in the same
 * run, alternated; goal >= 0.8x the anchor's seconds of audio per CPU second (this process and
 * the children it waited for; wall times are kept in the details). Then the whole pipeline
 * of one score in the engraving pool (MIDI, synthesis, mastering, cuts, FLAC and MP3, measurement):
 * seconds of audio per CPU second (this process and the children it waited for: FluidSynth,
 * ffmpeg) and peak memory (this process's, and FluidSynth's in the anchor run).
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import createVerovioModule from 'verovio/wasm';
import { VerovioToolkit } from 'verovio/esm';
import { musicXmlFromMxl } from '../../src/domain/mxl.ts';
import { lastTick, parseSmf, secondsAt } from '../../src/domain/audio/smf.ts';
import { audioEnvironment, fluidsynthArgs, SAMPLE_RATE, synthesize } from '../../src/lib/site/audio-render.ts';
import { EngravePool } from '../../src/lib/site/engrave-pool.ts';
import { VEROVIO_OPTIONS } from '../../src/lib/site/engrave.ts';
import { findScore, LIEDER, QUARTETS } from '../../test/helpers/corpus-content.ts';
import { figure, type Section } from './results.ts';

/** CPU seconds of this process and of the children it has waited for (Linux /proc/self/stat). */
function cpuSeconds(): number {
  const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ');
  const ticks = [11, 12, 13, 14].reduce((sum, i) => sum + Number(fields[i]), 0);
  return ticks / 100;
}

const round = (v: number, d = 3) => Math.round(v * 10 ** d) / 10 ** d;

export function audioSection(): Section {
  return {
    name: 'audio',
    description:
      "rendered audio: the archive's FluidSynth render vs bare `fluidsynth -F` on the same MIDI and SoundFont, same run, alternated (seconds of audio per CPU second; goal >= 0.8x); the whole mastered pipeline of one score: seconds of audio per CPU second and peak memory",
    async run(ctx) {
      const found = audioEnvironment();
      if ('reason' in found) return { status: 'skipped', message: found.reason, figures: [], details: {} };
      const { env } = found;
      const dir = ctx.cleanup.tempDir('audio');
      const scores = [findScore(QUARTETS, 'sq7070781.mxl'), findScore(LIEDER, 'lc6050301.mxl')];
      const tk = new VerovioToolkit(await createVerovioModule());
      tk.setOptions(VEROVIO_OPTIONS);
      const midis = scores.map((file, i) => {
        tk.loadData(musicXmlFromMxl(readFileSync(file)));
        const midi = new Uint8Array(Buffer.from(tk.renderToMIDI(), 'base64'));
        const mid = path.join(dir, `score-${i}.mid`);
        writeFileSync(mid, midi);
        const smf = parseSmf(midi);
        return { file, mid, midi, seconds: secondsAt(smf, lastTick(smf)) };
      });
      const rounds = ctx.quick ? 1 : 3;
      let bareMs = 0;
      let oursMs = 0;
      // CPU seconds (this process and the children it waited for): the machine is shared, so wall
      // time mostly measures the other sessions; the wall times are in the details.
      let bareCpu = 0;
      let oursCpu = 0;
      let audioSeconds = 0;
      let fluidsynthPeakKb = 0;
      for (let r = 0; r < rounds; r++) {
        for (const m of midis) {
          // Anchor first, then ours, alternating over rounds and files.
          const c0 = cpuSeconds();
          const t0 = performance.now();
          const bare = spawnSync(
            '/usr/bin/time',
            [
              '-f',
              '%M',
              env.tools.fluidsynth,
              ...fluidsynthArgs(env.tools.soundFont, m.mid, path.join(dir, 'bare.raw')),
            ],
            { encoding: 'utf8' },
          );
          bareMs += performance.now() - t0;
          bareCpu += cpuSeconds() - c0;
          if (bare.status !== 0) throw new Error(`fluidsynth failed: ${bare.stderr}`);
          fluidsynthPeakKb = Math.max(fluidsynthPeakKb, Number(bare.stderr.trim().split('\n').at(-1)));
          const c1 = cpuSeconds();
          const t1 = performance.now();
          const channels = await synthesize(m.midi, env, dir, 'ours', 600_000);
          oursMs += performance.now() - t1;
          oursCpu += cpuSeconds() - c1;
          audioSeconds += channels[0]!.length / SAMPLE_RATE;
        }
      }
      ctx.log(
        `bare fluidsynth ${Math.round(bareMs)} ms, archive ${Math.round(oursMs)} ms for ${round(audioSeconds, 1)} s of audio`,
      );
      // The whole pipeline of the quartet movement (7 min: master, 30 s and 60 s cuts).
      // A long time budget: the bench measures throughput on a shared machine, not the budget.
      const pool = new EngravePool({ size: 1, timeoutMs: 3_600_000 });
      const cpu0 = cpuSeconds();
      const w0 = performance.now();
      const quartet = midis[0]!;
      const out = await pool.audio(
        { file: quartet.file, compressed: true },
        { env, scoreSha256: createHash('sha256').update(readFileSync(quartet.file)).digest('hex'), loop: false },
      );
      const pipelineWallMs = performance.now() - w0;
      const pipelineCpu = cpuSeconds() - cpu0;
      await pool.close();
      if (out.rendering.status !== 'rendered') throw new Error(`the quartet did not render: ${out.rendering.reason}`);
      const delivered = out.rendering.files
        .filter((f) => f.format === 'flac')
        .reduce((s, f) => s + (f.frames ?? 0) / SAMPLE_RATE, 0);
      const perCpu = (s: number) => round(audioSeconds / s, 2);
      return {
        status: 'ok',
        figures: [
          figure(
            'render throughput, s of audio per CPU s',
            's/CPU s',
            perCpu(oursCpu),
            perCpu(bareCpu),
            `bare fluidsynth -F ${env.renderer.version}, same MIDI, SoundFont and settings`,
            'higher',
            { ratio: 0.8, op: '>=' },
          ),
          figure(
            'mastered pipeline, s of audio per CPU s',
            's/CPU s',
            round(delivered / pipelineCpu, 2),
            null,
            'none (quartet movement: master, 30 s and 60 s cuts, FLAC + MP3, measured)',
            'higher',
          ),
          figure(
            'peak memory of the bench process',
            'MiB',
            round((process.resourceUsage().maxRSS * 1024) / 2 ** 20, 1),
            round(fluidsynthPeakKb / 1024, 1),
            'bare fluidsynth peak RSS',
            'lower',
          ),
        ],
        details: {
          scores: midis.map((m) => ({ file: path.basename(m.file), seconds: round(m.seconds, 2) })),
          rounds,
          bareMs: Math.round(bareMs),
          oursMs: Math.round(oursMs),
          bareCpuSeconds: round(bareCpu, 2),
          oursCpuSeconds: round(oursCpu, 2),
          wallRatio: round(bareMs / oursMs, 3),
          audioSeconds: round(audioSeconds, 1),
          pipeline: {
            wallMs: Math.round(pipelineWallMs),
            cpuSeconds: round(pipelineCpu, 2),
            deliveredAudioSeconds: round(delivered, 1),
          },
          fluidsynthPeakMiB: round(fluidsynthPeakKb / 1024, 1),
          renderer: env.renderer,
          soundFont: env.soundFont,
        },
      };
    },
  };
}
