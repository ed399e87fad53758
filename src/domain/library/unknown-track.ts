/**
 * A library track before anyone has said what it is: private, pending review, rights unknown,
 * every optional fact null. Import is not publication; the curator fills the facts in later.
 */
import type { MusicLibraryTrackInput } from '../../schemas/library.ts';

export function unknownTrack(
  names: Pick<MusicLibraryTrackInput, 'stableKey' | 'title' | 'collection' | 'license'>,
): MusicLibraryTrackInput {
  return {
    stableKey: names.stableKey,
    title: names.title,
    collection: names.collection,
    sourceType: 'other',
    rightsStatus: 'unknown',
    license: names.license,
    reviewStatus: 'pending',
    visibility: 'private',
    composer: null,
    genre: null,
    attribution: null,
    description: null,
    musicalKey: null,
    tags: null,
    intendedUses: null,
    channelKeys: null,
    rightsEvidence: null,
    reproducibility: null,
    quality: null,
    durationSeconds: null,
    bpm: null,
    sourceCreatedAtUtc: null,
  };
}
