/**
 * Words the pages use for machine values: access levels, music roles, rights statuses, dates.
 * Review-state labels come from src/domain/review-states.ts so that a badge never says more than
 * the record does.
 */
import type { AccessLevel, CatalogReviewState, MusicRole } from '../../schemas/common.ts';
import { REVIEW_STATE_LABELS, REVIEW_STATE_MEANINGS } from '../../domain/review-states.ts';

export const ACCESS_LABELS: Record<AccessLevel, string> = {
  public: 'Public',
  'signed-in': 'Signed-in users only',
  'admin-only': 'Administrator-only for now',
};

export const ROLE_LABELS: Record<MusicRole, string> = {
  'music-bed': 'Music bed (under speech)',
  'music-lead': 'Lead music',
  'music-ambient': 'Ambient background',
  'music-sleep-lead': 'Sleep music',
  intro: 'Intro',
  outro: 'Outro',
  'short-form': 'Short-form clip',
};

export function reviewLabel(state: CatalogReviewState): string {
  return REVIEW_STATE_LABELS[state];
}

export function reviewMeaning(state: CatalogReviewState): string {
  return REVIEW_STATE_MEANINGS[state];
}

/** Only an accountable listening approval gets the "approved" look; every other state is a caution. */
export function reviewTone(state: CatalogReviewState): 'approved' | 'caution' {
  return state === 'human-listening-approved' ? 'approved' : 'caution';
}

/** What a file is, in words ("web page", not "source-page"). */
const KIND_WORDS: Record<string, string> = {
  'score-image': 'score image',
  'score-pdf': 'PDF score',
  musicxml: 'MusicXML',
  mxl: 'compressed MusicXML',
  midi: 'MIDI',
  mp3: 'MP3',
  wav: 'WAV',
  video: 'video',
  artwork: 'artwork',
  manifest: 'manifest',
  'source-page': 'web page',
};

export function kindWords(kind: string): string {
  return KIND_WORDS[kind] ?? words(kind);
}

/** Rights statuses that need more than their words. */
const RIGHTS_STATUS_WORDS: Record<string, string> = {
  'third-party-license': 'licensed by its publisher (not public domain)',
  'catalog-page': 'catalog page (each file listed there has its own terms)',
};

/** A file's rights status in words. */
export function rightsStatusWords(status: string): string {
  return RIGHTS_STATUS_WORDS[status] ?? words(status);
}

/** "public-domain" -> "public domain". */
export function words(value: string): string {
  return value.replace(/-/g, ' ');
}

const dateFormat = new Intl.DateTimeFormat('en-US', {
  year: 'numeric',
  month: 'long',
  day: 'numeric',
  timeZone: 'UTC',
});

// Dates formatted before, by their text: the composers' page formats every composer's life dates
// (about 8,000 at 100,000 generated works) in every apply, 0.01-0.04 s of Intl formatting in CPU
// profiles of the warm build process. Bounded: cleared when full.
const formatted = new Map<string, string>();
const FORMATTED_MAX = 50_000;

/** "2026-10-05T14:00:00Z" -> "October 5, 2026"; a bare year or partial date stays as written. */
export function formatDate(value: string): string {
  if (!/^\d{4}-\d{2}-\d{2}/.test(value)) return value;
  let text = formatted.get(value);
  if (text === undefined) {
    const d = new Date(value.length === 10 ? `${value}T00:00:00Z` : value);
    text = Number.isNaN(d.getTime()) ? value : dateFormat.format(d);
    if (formatted.size >= FORMATTED_MAX) formatted.clear();
    formatted.set(value, text);
  }
  return text;
}

export function plural(n: number, one: string, many = `${one}s`): string {
  return `${n} ${n === 1 ? one : many}`;
}
