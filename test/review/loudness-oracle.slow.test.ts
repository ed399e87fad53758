/**
 * The loudness oracle (docs/audio.md, "Checked against ffmpeg"): the archive's own measurement of MP3 and WAV files
 * (api/audio/measure-audio.ts over src/domain/audio/) against Debian's ffmpeg `ebur128` filter on
 * the same files. Integrated loudness must agree within 0.5 LU; loudness range within 1 LU and true
 * peak within 0.5 dB. Files: the sample catalog's MP3s (mono, 22.05 kHz) and files ffmpeg makes
 * here (stereo 44.1 kHz 16-bit WAV with level changes, 48 kHz stereo MP3, 24-bit 96 kHz WAV).
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { measureAudioFile } from '../../api/audio/measure-audio.ts';
import { ebur128, ensureFfmpeg, ffmpeg } from '../helpers/ffmpeg.ts';

const root = path.resolve(import.meta.dirname, '..', '..');
let dir = '';

const generated: { name: string; kind: 'mp3' | 'wav'; args: string[] }[] = [
  {
    // Pink noise: 8 s quiet, 12 s full, 6 s at half level (stereo, 16-bit, 44.1 kHz).
    name: 'steps.wav',
    kind: 'wav',
    args: [
      '-f',
      'lavfi',
      '-i',
      'anoisesrc=color=pink:amplitude=0.5:duration=26:sample_rate=44100:seed=7',
      '-af',
      "volume='if(lt(t,8),0.05,if(lt(t,20),1,0.5))':eval=frame",
      '-ac',
      '2',
      '-c:a',
      'pcm_s16le',
    ],
  },
  {
    // Two tones, different in each channel, as a 48 kHz stereo MP3 (LAME, 192 kbit/s).
    name: 'tones.mp3',
    kind: 'mp3',
    args: [
      '-f',
      'lavfi',
      '-i',
      "aevalsrc='0.3*sin(2*PI*440*t)+0.1*sin(2*PI*5000*t)|0.2*sin(2*PI*660*t)':s=48000:d=15",
      '-c:a',
      'libmp3lame',
      '-b:a',
      '192k',
    ],
  },
  {
    // A swelling chord as 24-bit 96 kHz WAV (2x oversampling for the true peak here).
    name: 'swell.wav',
    kind: 'wav',
    args: [
      '-f',
      'lavfi',
      '-i',
      "aevalsrc='(0.1+0.4*t/10)*(sin(2*PI*220*t)+sin(2*PI*277*t))/2|(0.1+0.4*t/10)*sin(2*PI*330*t)':s=96000:d=10",
      '-c:a',
      'pcm_s24le',
    ],
  },
];

const samples = readdirSync(path.join(root, 'content', 'works'), { recursive: true, encoding: 'utf8' })
  .filter((f) => f.endsWith('.mp3'))
  .sort()
  .slice(0, 4)
  .map((f) => path.join(root, 'content', 'works', f));

beforeAll(() => {
  ensureFfmpeg();
  dir = mkdtempSync(path.join(tmpdir(), 'loudness-oracle-'));
  for (const g of generated) ffmpeg(['-y', ...g.args, path.join(dir, g.name)]);
}, 300_000);

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('loudness against ffmpeg ebur128', () => {
  it('has sample MP3s to measure', () => {
    expect(samples.length).toBe(4);
  });

  const cases = [
    ...generated.map((g) => ({ label: g.name, kind: g.kind, file: () => path.join(dir, g.name) })),
    ...samples.map((f) => ({ label: path.basename(f), kind: 'mp3' as const, file: () => f })),
  ];

  for (const c of cases) {
    it(`${c.label}: integrated within 0.5 LU, LRA within 1 LU, true peak within 0.5 dB`, async () => {
      const ours = await measureAudioFile(c.kind, c.file());
      const theirs = ebur128(c.file());
      expect(ours.integratedLufs).not.toBeNull();
      expect(
        Math.abs(ours.integratedLufs! - theirs.integratedLufs),
        `ours ${ours.integratedLufs}, ffmpeg ${theirs.integratedLufs}`,
      ).toBeLessThanOrEqual(0.5);
      expect(
        Math.abs(ours.loudnessRangeLu! - theirs.loudnessRangeLu),
        `LRA ours ${ours.loudnessRangeLu}, ffmpeg ${theirs.loudnessRangeLu}`,
      ).toBeLessThanOrEqual(1);
      expect(
        Math.abs(ours.truePeakDbtp! - theirs.truePeakDbtp),
        `true peak ours ${ours.truePeakDbtp}, ffmpeg ${theirs.truePeakDbtp}`,
      ).toBeLessThanOrEqual(0.5);
    });
  }

  it('the level steps become sections and the quiet opening a stretch to speak over', async () => {
    const m = await measureAudioFile('wav', path.join(dir, 'steps.wav'));
    expect(m.durationSeconds).toBeCloseTo(26, 1);
    expect(m.sections.length).toBeGreaterThanOrEqual(2);
    expect(m.sections[0]!.level).toBe('quiet');
    expect(Math.abs(m.sections[0]!.endSeconds - 8)).toBeLessThan(1);
    expect(m.quietStretches[0]).toMatchObject({ startSeconds: 0 });
    expect(Math.abs(m.quietStretches[0]!.endSeconds - 8)).toBeLessThan(1);
  });
});
