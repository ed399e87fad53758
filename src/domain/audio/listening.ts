/**
 * Listening approval of rendered audio (docs/audio.md, "Listening approval"), pure: which file a
 * listener's verdict names, whether a recorded verdict holds for the audio served now, and the
 * sentence every record and page says about it. A verdict is a fact in the work file (the score
 * asset's `listening`: verdict, the SHA-256 of the audio heard, the listener's key label, the
 * time); the review state is derived from it here and never stored: only a verdict "approved"
 * that names the lossless master the build serves makes the audio human-listening-approved, so
 * audio rendered again (a new renderer, SoundFont or score) is unheard again.
 */
import type { ListeningFact, RenderedAudio } from '../../schemas/audio.ts';

/** The file a listener hears on the desk and a verdict names: the whole score, lossless. */
export const HEARD_FILE = { role: 'master', format: 'flac' } as const;

/** The file of a rendering a verdict is about (null when the rendering has none). */
export function heardFile<F extends { role: string; format: string }>(files: readonly F[]): F | null {
  return files.find((f) => f.role === HEARD_FILE.role && f.format === HEARD_FILE.format) ?? null;
}

export type RenderedReviewState = RenderedAudio['reviewState'];

/** What a recorded verdict means for the audio served now (its master's SHA-256, null when there is none). */
export function listeningState(
  fact: ListeningFact | null | undefined,
  servedSha256: string | null,
): { reviewState: RenderedReviewState; listening: RenderedAudio['listening'] } {
  if (!fact) return { reviewState: 'technical-pass', listening: null };
  const current = servedSha256 !== null && fact.audioSha256.toLowerCase() === servedSha256.toLowerCase();
  return {
    reviewState: current && fact.verdict === 'approved' ? 'human-listening-approved' : 'technical-pass',
    listening: {
      verdict: fact.verdict,
      audioSha256: fact.audioSha256.toLowerCase(),
      listener: fact.listener,
      atUtc: fact.atUtc,
      current,
    },
  };
}

const day = (utc: string) => utc.slice(0, 10);

/**
 * What a rendered asset says it is: the renderer and SoundFont, then its review state in words
 * that never overstate ("technical-pass" unless a listener approved exactly this audio).
 */
export function renderedStatementOf(
  renderer: { name: string; version: string },
  soundFont: { name: string },
  listening: RenderedAudio['listening'],
): string {
  const made = `Rendered from the score by ${renderer.name} ${renderer.version} with the ${soundFont.name}`;
  if (!listening) return `${made}; technical-pass (not listening-approved until a person has listened).`;
  const heard = `master.flac, SHA-256 ${listening.audioSha256.slice(0, 12)}…`;
  if (!listening.current)
    return `${made}; technical-pass (not listening-approved: ${listening.listener}'s verdict of ${day(listening.atUtc)} was given on an earlier rendering, ${heard}; nobody has listened to this one).`;
  if (listening.verdict === 'approved')
    return `${made}; human-listening-approved: ${listening.listener} listened to this audio (${heard}) and approved it on ${day(listening.atUtc)}.`;
  return `${made}; technical-pass, declined by ${listening.listener} after listening on ${day(listening.atUtc)} (${heard}): not listening-approved.`;
}

/** The short label the work page's badge and the desk show. */
export function listeningLabel(audio: Pick<RenderedAudio, 'reviewState' | 'listening'>): string {
  if (audio.reviewState === 'human-listening-approved' && audio.listening)
    return `Human listening approved (${audio.listening.listener}, ${day(audio.listening.atUtc)})`;
  if (audio.listening?.current && audio.listening.verdict === 'declined')
    return `Declined after listening (${audio.listening.listener}, ${day(audio.listening.atUtc)})`;
  return 'Technical pass (not listening-approved)';
}
