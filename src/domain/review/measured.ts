/**
 * Declared against measured, at accept (pure; docs/audio.md): for each verified MP3/WAV file the values
 * the contribution declared (the arrangement's m:ss duration, or for a performance the duration of
 * the arrangement it performs; the file's claimed loudness), the disagreements with what the archive
 * measured, and one review warning per disagreement. The asset then lands with `measured`
 * (measurement, declared values and disagreements side by side), so the record says it too.
 */
import type { AssetMeasurement, DeclaredAudio } from '../../schemas/audio.ts';
import type { MusicContributionInput } from '../../schemas/contribution.ts';
import type { VerificationEntry } from '../../schemas/review.ts';
import { compareDeclared } from '../audio/measure.ts';

const AUDIO = new Set(['mp3', 'wav']);

/** "m:ss" (or "h:mm:ss") to seconds; null when it is not such a text. */
export function durationSecondsOf(text: string | null | undefined): number | null {
  const m = /^(?:([0-9]{1,2}):)?([0-9]{1,3}):([0-5][0-9])$/.exec(text?.trim() ?? '');
  if (!m) return null;
  return Number(m[1] ?? 0) * 3600 + Number(m[2]) * 60 + Number(m[3]);
}

/**
 * What the contribution declared for its asset `index`. `performedSeconds` is the duration of the
 * arrangement a performance targets (read from main by the caller), or null.
 */
export function declaredAudio(
  s: MusicContributionInput,
  index: number,
  performedSeconds: number | null,
): DeclaredAudio {
  const asset = s.assets[index]!;
  const duration =
    s.operation === 'arrangement'
      ? durationSecondsOf(s.arrangement?.duration)
      : s.operation === 'performance'
        ? performedSeconds
        : null;
  return { durationSeconds: duration, integratedLufs: asset.loudnessLufs ?? null };
}

/** The verification entries with declared values and disagreements filled in, and the review warnings. */
export function annotateMeasurements(
  entries: VerificationEntry[],
  s: MusicContributionInput,
  performedSeconds: number | null,
): { entries: VerificationEntry[]; warnings: string[] } {
  const warnings: string[] = [];
  const out = entries.map((e) => {
    const audio = e.checks?.audio;
    const asset = s.assets[e.index];
    if (!asset || !AUDIO.has(asset.kind) || !audio) return e;
    const declared = declaredAudio(s, e.index, performedSeconds);
    const disagreements = compareDeclared(declared, audio);
    for (const d of disagreements) warnings.push(`Asset ${e.index} (${asset.kind}, "${asset.title}"): ${d.detail}`);
    return { ...e, declared, disagreements };
  });
  return { entries: out, warnings };
}

/** The `measured` block an accepted audio asset lands with, or null when it was not measured. */
export function assetMeasurement(e: VerificationEntry | undefined): AssetMeasurement | null {
  const audio = e?.checks?.audio;
  if (!e || !audio) return null;
  return {
    ...audio,
    declared: e.declared ?? { durationSeconds: null, integratedLufs: null },
    disagreements: e.disagreements ?? [],
  };
}
