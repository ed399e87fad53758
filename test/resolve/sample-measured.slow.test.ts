/**
 * The sample's recordings carry the archive's own measurement, like contributed ones: every MP3
 * of the sample has `measured` (duration, EBU R128 loudness, true peak ...), written by
 * scripts/render-sample-audio.ts through the same decoder and meter review uses at accept, so
 * resolve prefers the measured duration for them instead of falling back to the declared one.
 */
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { decodeAndMeasure } from '../../api/audio/measure-audio-decode.ts';
import { loadCatalog } from '../../src/domain/catalog.ts';
import { buildWorkRecord } from '../../src/domain/records.ts';

const CONTENT = path.resolve(import.meta.dirname, '..', '..', 'content');
const loaded = loadCatalog(CONTENT);
const records = loaded.catalog.works.map((w) => buildWorkRecord(w, loaded.catalog, 'https://sample.example.test'));
const recordings = records.flatMap((w) =>
  w.arrangements.flatMap((a) => a.assets.filter((x) => x.kind === 'mp3').map((x) => ({ w, a, x }))),
);

describe('the sample recordings are measured', () => {
  it('every sample MP3 has a measurement and its arrangement a measured duration', () => {
    expect(recordings.length).toBeGreaterThan(5);
    for (const { w, a, x } of recordings) {
      expect(x.measured, `${w.slug} asset ${x.id}`).not.toBeNull();
      expect(x.measured!.durationSeconds).toBeGreaterThan(1);
      expect(typeof x.measured!.integratedLufs).toBe('number');
      expect(x.measured!.declared.durationSeconds).toBe(a.durationSeconds);
      expect(a.measuredDurationSeconds).not.toBeNull();
    }
  });

  it('the stored measurement is what the archive measures of the committed file', async () => {
    const { w, x } = recordings.find((r) => r.w.slug === 'satie-gymnopedie-1')!;
    const work = loaded.catalog.works.find((l) => l.content.slug === w.slug)!;
    const file = work.content.arrangements.flatMap((a) => a.assets).find((a) => a.id === x.id)!.file!;
    const measured = await decodeAndMeasure('mp3', path.join(CONTENT, 'works', w.slug, file));
    const { declared: _d, disagreements: _g, ...stored } = x.measured!;
    expect(JSON.parse(JSON.stringify(measured))).toEqual(stored);
  });
});
