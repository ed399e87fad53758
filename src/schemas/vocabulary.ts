/**
 * The published vocabularies (GET /api/v1/music/vocabulary): the mood, style/genre and
 * instrumentation terms resolve matches requirements against, each with its synonyms, word forms
 * and broader term. One schema for the endpoint, OpenAPI and the MCP tool descriptions.
 */
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StringEnum } from './common.ts';
import { model, strict } from './options.ts';

export const VOCABULARY_FACETS = ['mood', 'style', 'instrumentation'] as const;
export type VocabularyFacet = (typeof VOCABULARY_FACETS)[number];

export const VocabularyTerm = Type.Object(
  {
    term: Type.String({ minLength: 1, maxLength: 80, description: 'The term as the archive writes it ("calm").' }),
    broader: Nullable(Type.String({ maxLength: 80 }), {
      description:
        'The broader term ("serene" -> "calm"); a request for the broader term finds this one, and a request for this one finds the broader term (grade: broader or narrower term). Null for a top term.',
    }),
    synonyms: Type.Array(Type.String({ maxLength: 80 }), {
      description:
        "Words and phrases that mean the term: the archive's own list and WordNet 3.1 synonyms of a sense that reaches the vocabulary. A request using one finds the term (grade: synonym), and a request for the term finds a record using one.",
    }),
    related: Type.Array(Type.String({ maxLength: 80 }), {
      description:
        'Words two steps away (synonyms of synonyms, words WordNet puts next to the term): a request using one finds the term at the lowest grade.',
    }),
    wordForms: Type.Array(Type.String({ maxLength: 80 }), {
      description:
        'Inflected forms published with the term, real words only ("calmly", "pianos"); any form whose base is the term matches too (grade: word form).',
    }),
    scopeNote: Type.Optional(Type.String({ maxLength: 300, description: 'When to use the term.' })),
  },
  model('VocabularyTerm', 'One term of a vocabulary.'),
);
export type VocabularyTerm = Static<typeof VocabularyTerm>;

export const Vocabularies = Type.Object(
  {
    facets: Type.Object(
      {
        mood: Type.Array(VocabularyTerm, { description: 'Terms for requirements.mood and arrangement moods.' }),
        style: Type.Array(VocabularyTerm, {
          description: 'Terms for requirements.style: styles, genres (with their broader genre) and periods.',
        }),
        instrumentation: Type.Array(VocabularyTerm, {
          description:
            'Terms for requirements.instrumentation: instruments (aliases as synonyms, family as broader term) and families.',
        }),
      },
      { ...strict, description: 'The terms per requirement field.' },
    ),
    matching: Type.String({
      description:
        'How a requirement word matches: exact word (never inside another word), word form, synonym of a term, broader term; a word that matches nothing is listed as unmatched in the reason.',
    }),
    thesaurus: Type.String({ description: "Where synonyms beyond the archive's own list come from." }),
    facetNames: Type.Array(StringEnum(VOCABULARY_FACETS), { description: 'The facets, in order.' }),
  },
  model('Vocabularies', 'The mood, style/genre and instrumentation vocabularies resolve matches requirements against.'),
);
export type Vocabularies = Static<typeof Vocabularies>;
