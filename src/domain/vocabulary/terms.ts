/**
 * The archive's own mood and style terms, with their broader terms and the synonyms the archive
 * states itself (WordNet adds more: meaning.ts). Instrumentation terms come from the content
 * repository's instruments.json (name, aliases, family) and genre terms from genres.json or the
 * works' genres, so they grow with the catalog. To add a term: one line here (mood or style), or
 * an entry in instruments.json / genres.json; the vocabulary endpoint, resolve matching, the
 * content lint and the contribution checks all read the same list.
 */

export interface CuratedTerm {
  term: string;
  broader?: string;
  synonyms?: readonly string[];
  scopeNote?: string;
  /**
   * False when WordNet's common senses of the word are not the musical one ("tender" is mostly
   * about pain there, "bright" about light, "innocent" about guilt): its synonyms would find
   * music by accident. The archive's own synonyms still apply.
   */
  wordnet?: boolean;
}

/** Top terms first, then narrower ones grouped under them. */
export const MOOD_TERMS: readonly CuratedTerm[] = [
  {
    term: 'calm',
    synonyms: ['restful', 'relaxing', 'soothing', 'tranquil', 'quiet'],
    scopeNote: 'Settled, unhurried, without tension.',
  },
  { term: 'serene', broader: 'calm' },
  { term: 'peaceful', broader: 'calm' },
  { term: 'hushed', broader: 'calm', synonyms: ['soft', 'whispered'] },
  { term: 'sleepy', broader: 'calm', synonyms: ['drowsy', 'lulling'] },
  { term: 'contemplative', broader: 'calm', synonyms: ['meditative', 'pensive'] },
  { term: 'reflective', broader: 'calm', synonyms: ['thoughtful'] },
  { term: 'focused', wordnet: false, broader: 'calm', synonyms: ['concentrated', 'study'] },
  { term: 'pastoral', broader: 'calm', synonyms: ['rural', 'bucolic'] },
  { term: 'simple', wordnet: false, broader: 'calm', synonyms: ['plain', 'unadorned'] },
  { term: 'flowing', wordnet: false, broader: 'calm', synonyms: ['fluid', 'smooth'] },
  { term: 'joyful', synonyms: ['happy', 'cheerful', 'glad', 'joyous'], scopeNote: 'Glad and bright in spirit.' },
  { term: 'bright', wordnet: false, broader: 'joyful', synonyms: ['sunny', 'radiant'] },
  { term: 'playful', broader: 'joyful', synonyms: ['whimsical', 'fun'] },
  { term: 'festive', broader: 'joyful', synonyms: ['celebratory'] },
  { term: 'hopeful', broader: 'joyful', synonyms: ['optimistic', 'uplifting'] },
  { term: 'fresh', wordnet: false, broader: 'joyful' },
  { term: 'light', broader: 'joyful', synonyms: ['lighthearted'] },
  { term: 'airy', wordnet: false, broader: 'joyful' },
  { term: 'crisp', wordnet: false, broader: 'joyful' },
  { term: 'confident', broader: 'joyful', synonyms: ['assured'] },
  { term: 'curious', wordnet: false, broader: 'joyful', synonyms: ['inquisitive'] },
  { term: 'energetic', synonyms: ['lively', 'vigorous', 'upbeat'], scopeNote: 'Driving, with forward motion.' },
  { term: 'brisk', broader: 'energetic', synonyms: ['quick', 'fast'] },
  { term: 'somber', synonyms: ['sombre', 'sad', 'mournful', 'melancholic'], scopeNote: 'Dark and grave in spirit.' },
  { term: 'melancholy', broader: 'somber' },
  { term: 'dark', broader: 'somber', synonyms: ['ominous'] },
  { term: 'solemn', broader: 'somber', synonyms: ['grave'] },
  { term: 'wistful', broader: 'somber', synonyms: ['yearning', 'longing'] },
  { term: 'nostalgic', wordnet: false, broader: 'somber', synonyms: ['bittersweet'] },
  { term: 'tender', wordnet: false, synonyms: ['gentle', 'loving'], scopeNote: 'Gentle and affectionate.' },
  { term: 'warm', broader: 'tender', synonyms: ['cozy'] },
  { term: 'romantic', broader: 'tender', synonyms: ['amorous', 'passionate'] },
  { term: 'delicate', wordnet: false, broader: 'tender', synonyms: ['fragile'] },
  { term: 'innocent', wordnet: false, broader: 'tender', synonyms: ['childlike', 'naive'] },
  {
    term: 'dreamy',
    wordnet: false,
    synonyms: ['ethereal', 'floating', 'hazy'],
    scopeNote: 'Hazy, suspended, far away.',
  },
  { term: 'shimmering', broader: 'dreamy', synonyms: ['glittering', 'sparkling'] },
  { term: 'nocturnal', broader: 'dreamy', synonyms: ['night', 'nighttime'] },
  {
    term: 'dramatic',
    wordnet: false,
    synonyms: ['intense', 'epic', 'powerful'],
    scopeNote: 'Strong contrasts and tension.',
  },
  { term: 'elegant', synonyms: ['refined', 'polished'], scopeNote: 'Poised and refined.' },
  { term: 'graceful', broader: 'elegant' },
  { term: 'courtly', broader: 'elegant' },
  { term: 'stately', wordnet: false, broader: 'elegant', synonyms: ['majestic', 'dignified'] },
  { term: 'ceremonial', broader: 'elegant', synonyms: ['formal'] },
];

/** Style terms beyond genres and periods: how an arrangement sounds as a whole. */
export const STYLE_TERMS: readonly CuratedTerm[] = [
  { term: 'solo piano', synonyms: ['piano solo'] },
  { term: 'string ensemble', synonyms: ['string orchestra', 'string quartet'] },
  { term: 'chamber', synonyms: ['small ensemble'] },
  { term: 'orchestral', synonyms: ['symphonic', 'cinematic'] },
  { term: 'lullaby', synonyms: ['cradle song'] },
  { term: 'ragtime', synonyms: ['rag'] },
  { term: 'minimal', wordnet: false, synonyms: ['minimalist', 'sparse'] },
  { term: 'ambient', wordnet: false, synonyms: ['atmospheric', 'background'] },
  { term: 'baroque', wordnet: false, scopeNote: 'Period, about 1600 to 1750.' },
  { term: 'classical', scopeNote: 'Period, about 1750 to 1820.' },
  { term: 'romantic era', synonyms: ['romantic period'], scopeNote: 'Period, about 1820 to 1910.' },
  { term: 'impressionist', synonyms: ['impressionism', 'impressionistic'] },
];

/** Synonyms the archive states for instrument families (instruments.json names the families). */
export const FAMILY_SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  keyboard: ['keys', 'keyboards'],
  strings: ['string', 'bowed strings'],
  woodwinds: ['woodwind', 'winds'],
  voices: ['vocal', 'vocals', 'singing', 'sung'],
  ensemble: ['band', 'group'],
};
