/**
 * The archive's own vocabulary: mood, use and texture terms in the words producers use, style
 * terms, and the broader term of every genre and period of the catalog, with the synonyms the
 * archive states itself (WordNet adds more, only through a sense that reaches one of these terms:
 * wordnet.ts). Instrumentation terms come from the content repository's instruments.json (name,
 * aliases, family). To add a term: one line here, or an entry in instruments.json / genres.json;
 * the vocabulary endpoint, resolve matching, the content lint and the contribution checks all read
 * the same lists.
 */

export interface CuratedTerm {
  term: string;
  broader?: string;
  /** Words and phrases that mean the term (one step: a synonym grade). */
  synonyms?: readonly string[];
  /** Words close to the term but not the same (two steps: the lowest grade). */
  related?: readonly string[];
  scopeNote?: string;
  /**
   * False when WordNet's senses of the word are not the musical one ("tender" is mostly about
   * pain there, "bright" about light, "innocent" about guilt): its synonyms would find music by
   * accident. The archive's own synonyms still apply.
   */
  wordnet?: boolean;
}

/** Top terms first, then narrower ones grouped under them. */
export const MOOD_TERMS: readonly CuratedTerm[] = [
  {
    term: 'calm',
    synonyms: ['restful', 'relaxing', 'soothing', 'tranquil', 'quiet', 'still', 'unhurried'],
    scopeNote: 'Settled, unhurried, without tension.',
  },
  { term: 'serene', broader: 'calm' },
  { term: 'peaceful', broader: 'calm', synonyms: ['untroubled'] },
  { term: 'hushed', broader: 'calm', synonyms: ['soft', 'whispered', 'muted', 'subdued'] },
  {
    term: 'relaxed',
    wordnet: false,
    broader: 'calm',
    synonyms: ['chilled', 'chill', 'chillout', 'laid-back', 'laidback', 'mellow', 'easygoing', 'easy-going', 'lounge'],
    scopeNote: 'Chilled and easy: the everyday word for calm music behind a vlog or a stream.',
  },
  {
    term: 'sleepy',
    broader: 'calm',
    synonyms: [
      'drowsy',
      'lulling',
      'sleep',
      'bedtime',
      'sleepytime',
      'slumber',
      'nap',
      'naptime',
      'goodnight',
      'asleep',
    ],
    scopeNote: 'For falling asleep: bedtime, naps, sleep stories.',
  },
  {
    term: 'contemplative',
    broader: 'calm',
    synonyms: ['meditative', 'pensive', 'meditation', 'mindful', 'mindfulness'],
  },
  { term: 'reflective', broader: 'calm', synonyms: ['thoughtful', 'introspective'] },
  {
    term: 'focused',
    wordnet: false,
    broader: 'calm',
    synonyms: ['concentrated', 'study', 'studying', 'concentration', 'focus', 'homework'],
    scopeNote: 'Steady, unobtrusive music to work or study to.',
  },
  { term: 'pastoral', broader: 'calm', synonyms: ['rural', 'bucolic', 'countryside'] },
  { term: 'simple', wordnet: false, broader: 'calm', synonyms: ['plain', 'unadorned', 'bare'] },
  { term: 'flowing', wordnet: false, broader: 'calm', synonyms: ['fluid', 'smooth', 'legato'] },
  {
    term: 'joyful',
    synonyms: ['happy', 'cheerful', 'glad', 'joyous', 'merry', 'jolly', 'blissful'],
    scopeNote: 'Glad and bright in spirit.',
  },
  {
    term: 'bright',
    wordnet: false,
    broader: 'joyful',
    synonyms: ['sunny', 'radiant', 'cheery', 'shiny'],
    scopeNote: 'Clear, sunny and open: the everyday word for a light, major-key sound.',
  },
  { term: 'playful', broader: 'joyful', synonyms: ['whimsical', 'fun', 'quirky', 'cheeky', 'bouncy'] },
  { term: 'festive', broader: 'joyful', synonyms: ['celebratory', 'holiday', 'celebration', 'party'] },
  {
    term: 'hopeful',
    broader: 'joyful',
    synonyms: ['optimistic', 'uplifting', 'inspiring', 'inspirational', 'motivational'],
  },
  { term: 'triumphant', broader: 'joyful', synonyms: ['victorious', 'jubilant', 'heroic'] },
  {
    term: 'fresh',
    wordnet: false,
    broader: 'joyful',
    synonyms: ['breezy', 'clean', 'morning'],
    scopeNote: 'New and clear, like a morning: openers and spring scenes.',
  },
  { term: 'light', wordnet: false, broader: 'joyful', synonyms: ['lighthearted', 'light-hearted', 'carefree'] },
  { term: 'airy', wordnet: false, broader: 'joyful' },
  { term: 'crisp', wordnet: false, broader: 'joyful' },
  { term: 'confident', broader: 'joyful', synonyms: ['assured', 'corporate'] },
  { term: 'curious', wordnet: false, broader: 'joyful', synonyms: ['inquisitive', 'quizzical'] },
  {
    term: 'energetic',
    synonyms: ['lively', 'vigorous', 'upbeat', 'driving', 'peppy', 'punchy', 'energy'],
    scopeNote: 'Driving, with forward motion.',
  },
  { term: 'brisk', broader: 'energetic', synonyms: ['quick', 'fast', 'snappy'] },
  {
    term: 'somber',
    synonyms: ['sombre', 'sad', 'mournful', 'melancholic', 'gloomy', 'sorrowful', 'grieving', 'mourning', 'tearful'],
    scopeNote: 'Dark and grave in spirit.',
  },
  { term: 'melancholy', broader: 'somber', synonyms: ['bittersweet', 'blue'] },
  {
    term: 'dark',
    wordnet: false,
    broader: 'somber',
    synonyms: ['ominous', 'brooding', 'menacing', 'moody', 'grim', 'dismal', 'dreary', 'foreboding'],
  },
  {
    term: 'eerie',
    wordnet: false,
    broader: 'dark',
    synonyms: [
      'creepy',
      'spooky',
      'haunting',
      'uncanny',
      'mysterious',
      'unsettling',
      'sinister',
      'ghostly',
      'spine-chilling',
    ],
    scopeNote: 'Strange and unsettling: horror, mystery, true crime.',
  },
  { term: 'solemn', broader: 'somber', synonyms: ['grave', 'hymn-like', 'reverent', 'dignified'] },
  { term: 'wistful', broader: 'somber', synonyms: ['yearning', 'longing'] },
  { term: 'nostalgic', wordnet: false, broader: 'somber', synonyms: ['reminiscent', 'memories', 'memory'] },
  {
    term: 'tender',
    wordnet: false,
    synonyms: ['gentle', 'loving', 'affectionate', 'intimate'],
    scopeNote: 'Gentle and affectionate.',
  },
  { term: 'warm', wordnet: false, broader: 'tender', synonyms: ['cozy', 'cosy', 'warmth', 'homely', 'heartfelt'] },
  { term: 'romantic', broader: 'tender', synonyms: ['amorous', 'passionate', 'love', 'wedding'] },
  { term: 'delicate', wordnet: false, broader: 'tender', synonyms: ['fragile'] },
  { term: 'innocent', wordnet: false, broader: 'tender', synonyms: ['childlike', 'naive', 'kids', 'children'] },
  {
    term: 'dreamy',
    wordnet: false,
    synonyms: ['ethereal', 'floating', 'hazy', 'otherworldly'],
    scopeNote: 'Hazy, suspended, far away.',
  },
  { term: 'shimmering', broader: 'dreamy', synonyms: ['glittering', 'sparkling', 'twinkling'] },
  { term: 'nocturnal', broader: 'dreamy', synonyms: ['night', 'nighttime', 'midnight'] },
  {
    term: 'dramatic',
    wordnet: false,
    synonyms: ['intense', 'epic', 'powerful', 'grand'],
    scopeNote: 'Strong contrasts and tension.',
  },
  {
    term: 'tense',
    wordnet: false,
    broader: 'dramatic',
    synonyms: ['suspenseful', 'suspense', 'tension', 'nervous', 'anxious', 'thriller'],
  },
  { term: 'elegant', synonyms: ['refined', 'polished', 'classy', 'sophisticated'], scopeNote: 'Poised and refined.' },
  { term: 'graceful', broader: 'elegant' },
  { term: 'courtly', broader: 'elegant', synonyms: ['period'] },
  { term: 'stately', wordnet: false, broader: 'elegant', synonyms: ['majestic', 'regal', 'noble'] },
  { term: 'ceremonial', broader: 'elegant', synonyms: ['formal'] },
];

/** Style terms beyond genres and periods: how an arrangement sounds as a whole. */
export const STYLE_TERMS: readonly CuratedTerm[] = [
  { term: 'classical music', wordnet: false, scopeNote: 'Art music of the common-practice era and around it.' },
  { term: 'keyboard music', broader: 'classical music' },
  { term: 'chamber music', broader: 'classical music' },
  { term: 'orchestral music', broader: 'classical music' },
  { term: 'vocal music', broader: 'classical music' },
  { term: 'solo instrumental music', broader: 'classical music' },
  { term: 'popular music', wordnet: false },
  { term: 'solo piano', synonyms: ['piano solo'] },
  { term: 'string ensemble', synonyms: ['string orchestra', 'string quartet', 'string section'] },
  { term: 'chamber', broader: 'chamber music', synonyms: ['small ensemble'] },
  { term: 'orchestral', broader: 'orchestral music', synonyms: ['symphonic', 'cinematic', 'orchestra'] },
  { term: 'lullaby', synonyms: ['cradle song', 'berceuse'] },
  { term: 'minimal', wordnet: false, synonyms: ['minimalist', 'sparse'] },
  { term: 'ambient', wordnet: false, synonyms: ['atmospheric', 'background', 'underscore', 'backdrop'] },
  { term: 'music box', wordnet: false },
  { term: 'hymn', wordnet: false, broader: 'vocal music', synonyms: ['chorale', 'hymn-like'] },
];

/**
 * Periods: the parts of the catalog's period names ("Classical / early Romantic" has two), each
 * with its broader term. A period part not listed here is still a term, without a broader one.
 */
export const PERIOD_TERMS: readonly CuratedTerm[] = [
  { term: 'baroque', wordnet: false, broader: 'classical music', scopeNote: 'Period, about 1600 to 1750.' },
  { term: 'classical', broader: 'classical music', scopeNote: 'Period, about 1750 to 1820.' },
  {
    term: 'romantic',
    wordnet: false,
    broader: 'classical music',
    synonyms: ['romantic era', 'romantic period', 'romanticism'],
    scopeNote: 'Period, about 1820 to 1910.',
  },
  { term: 'early romantic', broader: 'romantic' },
  { term: 'late romantic', broader: 'romantic' },
  { term: 'modern', wordnet: false, broader: 'classical music', synonyms: ['twentieth century', '20th century'] },
  { term: 'early modern', broader: 'modern' },
  {
    term: 'impressionist',
    broader: 'classical music',
    synonyms: ['impressionism', 'impressionistic'],
    scopeNote: 'Period and style, about 1890 to 1920.',
  },
  { term: 'ragtime', wordnet: false, broader: 'popular music', scopeNote: 'Period and style, about 1895 to 1920.' },
];

/**
 * The broader term of each genre of genres.json, for matching (genres.json's own broader term is
 * its browsing facet, one level: "Symphony movement" is browsed under "Orchestral music", and is
 * matched under "symphony"). Form terms (suite, sonata, concerto, variations) sit between.
 */
export const GENRE_TERMS: readonly CuratedTerm[] = [
  { term: 'suite', broader: 'classical music' },
  { term: 'sonata', broader: 'classical music' },
  { term: 'variations', broader: 'classical music' },
  { term: 'concerto', broader: 'orchestral music' },
  { term: 'character piece', broader: 'keyboard music' },
  { term: 'art song', broader: 'vocal music', synonyms: ['song'] },
  { term: 'bagatelle', broader: 'character piece' },
  { term: 'nocturne', broader: 'character piece' },
  { term: 'keyboard suite movement', broader: 'suite' },
  { term: 'piano piece', broader: 'keyboard music' },
  { term: 'piano sonata movement', broader: 'sonata' },
  { term: 'prelude', broader: 'keyboard music' },
  { term: 'rag', broader: 'ragtime' },
  { term: 'theme and variations', broader: 'variations' },
  { term: 'toccata and fugue', broader: 'keyboard music' },
  { term: 'canon', broader: 'chamber music' },
  { term: 'chamber piece', broader: 'chamber music' },
  { term: 'serenade', broader: 'chamber music' },
  { term: 'suite movement', broader: 'suite' },
  { term: 'guitar piece', broader: 'solo instrumental music' },
  { term: 'solo suite movement', broader: 'suite' },
  { term: 'incidental music', broader: 'orchestral music' },
  { term: 'orchestral piece', broader: 'orchestral music' },
  { term: 'orchestral suite movement', broader: 'suite' },
  { term: 'symphony', broader: 'orchestral music' },
  { term: 'symphony movement', broader: 'symphony' },
  { term: 'violin concerto', broader: 'concerto' },
  { term: 'lied', broader: 'art song' },
  { term: 'string quartet', broader: 'chamber music' },
];

/** Synonyms the archive states for instrument families (instruments.json names the families). */
export const FAMILY_SYNONYMS: Readonly<Record<string, readonly string[]>> = {
  keyboard: ['keys', 'keyboards'],
  strings: ['string', 'bowed strings'],
  woodwinds: ['woodwind', 'winds'],
  voices: ['vocal', 'vocals', 'singing', 'sung', 'singer', 'singers', 'vocalist'],
  ensemble: ['band', 'group'],
};

/**
 * Words WordNet maps onto a term through a sense that is not the musical one, kept out of the
 * vocabulary (wordnet.ts reads only senses that reach a term; these slip through such a sense).
 */
export const WORDNET_STOPLIST: ReadonlySet<string> = new Set([
  'windless',
  'settled',
  'cloudless',
  'clear',
  'fair',
  'unclouded',
  'colorless',
  'colourless',
  'drab',
  'sober',
  'sorry',
  'dingy',
  'black',
  'white',
  'pale',
  'little',
  'small',
  'low',
  'dull',
  'fine',
  'liquid',
  'merciful',
  'nominal',
  'titular',
  'perfunctory',
  'lukewarm',
  'tepid',
  'condition',
  'term',
  'key',
  'pianissimo',
  'cool',
  'physical',
  'entrepreneurial',
  'enterprising',
  'industrious',
  'real',
  'solid',
  'sincere',
  'positive',
  'sure',
  'certain',
  'conventional',
  'stiff',
  'dress',
  'buckram',
  'starchy',
  'prescribed',
  'arch',
  'wicked',
  'promiscuous',
  'sluttish',
  'wanton',
  'loose',
  'unchaste',
  'immediate',
  'prompt',
  'straightaway',
  'flying',
  'aristocratic',
  'aristocratical',
  'patrician',
  'down',
  'live',
  'resilient',
  'springy',
  'devilish',
  'mocking',
  'teasing',
  'deluxe',
  'luxe',
  'ritzy',
  'dandified',
  'dandyish',
  'foppish',
]);
