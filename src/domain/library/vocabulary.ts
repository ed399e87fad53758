/**
 * The private library's controlled values and what each one means (spec Part 2.1 leaves them
 * "not shown"; decided here and documented in docs/library.md). Schemas, validation, OpenAPI
 * descriptions and the docs all read these lists, so a value means the same thing everywhere.
 */
import { CATALOG_REVIEW_STATES, type CatalogReviewState } from '../../schemas/common.ts';
import { REVIEW_STATE_MEANINGS } from '../review-states.ts';

/** Where a track's audio or notation came from. */
export const LIBRARY_SOURCE_TYPES = [
  'human-recording',
  'ai-generated',
  'score-rendering',
  'hybrid',
  'transcription',
  'archival-recording',
  'instrument-sample',
  'other',
] as const;
export type LibrarySourceType = (typeof LIBRARY_SOURCE_TYPES)[number];

export const SOURCE_TYPE_MEANINGS: Record<LibrarySourceType, string> = {
  'human-recording': 'Performed and recorded by people (session takes, masters).',
  'ai-generated': 'Audio made by a generative model; reproducibility should name the engine, model, seed and prompt.',
  'score-rendering': 'Rendered from a score or MIDI with virtual instruments or a rendering profile.',
  hybrid: 'Generated or rendered material edited, layered or partly performed by people.',
  transcription: 'A score, MusicXML or MIDI transcribed from a source; may have no audio.',
  'archival-recording': 'An existing historical recording; its own rights layer must be documented.',
  'instrument-sample': 'Registered instrument assets (samples, patches) used to make other tracks.',
  other: 'None of the above; say what it is in the description.',
};

/**
 * Who may see a package. Import always creates `private` (spec Part 1 rule 6: import is not
 * publication); only a curator's publish makes it `public`.
 */
export const LIBRARY_VISIBILITIES = ['private', 'public'] as const;
export type LibraryVisibility = (typeof LIBRARY_VISIBILITIES)[number];

export const VISIBILITY_MEANINGS: Record<LibraryVisibility, string> = {
  private: 'Only holders of a library or curator key can read it and download its files. Every import starts here.',
  public:
    'A curator published it: its publishable files are an arrangement of a canonical work, linked from the public record.',
};

/**
 * Review states of a library track: the catalog's six (the spec's five asset states plus
 * `rights-review-required`). None implies another: `technical-pass` is not listening approval,
 * and `rights-review-required` is not permission to publish (spec Part 1 rule 7).
 */
export const LIBRARY_REVIEW_STATUSES = CATALOG_REVIEW_STATES;
export type LibraryReviewStatus = CatalogReviewState;
export const REVIEW_STATUS_MEANINGS: Record<LibraryReviewStatus, string> = REVIEW_STATE_MEANINGS;

/** Who may download a file through its protected URL. */
export const LIBRARY_DOWNLOAD_POLICIES = ['protected', 'curator-only'] as const;
export type LibraryDownloadPolicy = (typeof LIBRARY_DOWNLOAD_POLICIES)[number];

export const DOWNLOAD_POLICY_MEANINGS: Record<LibraryDownloadPolicy, string> = {
  protected: 'Any library or curator key may download it.',
  'curator-only': 'Only curator keys may download it (for example unreleased masters).',
};

/**
 * File kinds the archive recognizes. `kind` is free text in the spec, so other values are
 * accepted and kept; these are the ones that carry meaning (publishable kinds below).
 */
export const LIBRARY_FILE_KINDS: Record<string, string> = {
  master: 'Original master audio (usually WAV or FLAC).',
  wav: 'WAV source or delivery.',
  mp3: 'MP3 delivery.',
  'candidate-take': 'A candidate take not chosen (yet) as the master.',
  midi: 'Standard MIDI file.',
  musicxml: 'MusicXML score (uncompressed).',
  mxl: 'Compressed MusicXML score.',
  'score-pdf': 'Engraved score as PDF.',
  'score-image': 'Score as an image.',
  manifest: 'A production or delivery manifest (JSON, YAML, text).',
  'production-card': 'The production card of the track.',
  'qa-result': 'Output of quality checks.',
  'instrument-asset': 'A registered instrument asset (sample set, patch, profile file).',
  artwork: 'Cover or promotional artwork.',
  video: 'A video that uses the track.',
  other: 'Anything else worth keeping.',
};
