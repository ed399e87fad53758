/**
 * A score's rendered audio as its record publishes it (`AssetRecord.renderedAudio`,
 * src/schemas/audio.ts): the build's manifest entry (src/lib/site/render-audio.ts) with absolute
 * links and the measured figures of each file; the provenance page's address.
 */
import type { RenderedAudio } from '../../schemas/audio.ts';
import { audioFolder, type AudioEntry } from './scores.ts';

const MEDIA: Record<'flac' | 'mp3', string> = { flac: 'audio/flac', mp3: 'audio/mpeg' };

const enc = encodeURIComponent;

/** The provenance page of a score's audio, root-relative (the pages' links) or absolute (records). */
export function provenancePath(slug: string, assetId: number): string {
  return `/works/${enc(slug)}/audio/${assetId}/`;
}

export function renderedAudioRecord(entry: AudioEntry, baseUrl: string, slug: string, assetId: number): RenderedAudio {
  const folder = `${baseUrl}/${audioFolder(enc(slug), assetId)}`;
  const links = { provenance: `${baseUrl}${provenancePath(slug, assetId)}`, midi: null as string | null };
  const empty = {
    statement: null,
    reviewState: 'technical-pass' as const,
    scoreSha256: null,
    midiSha256: null,
    midiSeconds: null,
    renderer: null,
    soundFont: null,
    files: [],
    cuts: [],
    loop: null,
  };
  if (entry.status !== 'rendered') return { status: entry.status, reason: entry.reason, ...empty, links };
  links.midi = `${folder}/score.mid`;
  return {
    status: 'rendered',
    statement: entry.statement,
    reason: null,
    reviewState: 'technical-pass',
    scoreSha256: entry.scoreSha256,
    midiSha256: entry.midiSha256,
    midiSeconds: entry.midiSeconds,
    renderer: entry.renderer,
    soundFont: entry.soundFont,
    files: entry.files.flatMap((f) =>
      f.format === 'midi' || f.role === 'midi' || !f.measured
        ? []
        : [
            {
              name: f.name,
              role: f.role,
              format: f.format,
              mediaType: MEDIA[f.format],
              sha256: f.sha256,
              byteLength: f.byteLength,
              sampleRate: f.measured.sampleRate,
              channels: f.measured.channels,
              durationSeconds: f.measured.durationSeconds,
              integratedLufs: f.measured.integratedLufs,
              truePeakDbtp: f.measured.truePeakDbtp,
              loudnessRangeLu: f.measured.loudnessRangeLu,
              gapless: f.gapless,
              url: `${folder}/${f.name}`,
            },
          ],
    ),
    cuts: entry.cuts.map((c) => ({
      seconds: c.seconds,
      barIndex: c.bar.index,
      barSeconds: Math.round(c.bar.seconds * 1000) / 1000,
    })),
    loop: entry.loop,
    links,
  };
}
