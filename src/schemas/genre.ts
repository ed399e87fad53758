/**
 * The genre vocabulary of a content repository (`genres.json`): every work's `genre` is one of its
 * terms, and each term names a broader term that the browse pages and the search filter group
 * by, so the genre facet does not fragment into one-work values.
 */
import { Type, type Static } from '@sinclair/typebox';

export const GenreTerm = Type.Object(
  {
    name: Type.String({
      minLength: 1,
      maxLength: 80,
      description: 'The term a work\'s `genre` uses, e.g. "Suite movement".',
    }),
    broader: Type.String({
      minLength: 1,
      maxLength: 80,
      description: 'The broader term for facets, e.g. "Chamber music".',
    }),
    scopeNote: Type.Optional(Type.String({ maxLength: 300, description: 'When to use the term.' })),
  },
  { additionalProperties: false, description: 'One genre term and its broader term.' },
);
export type GenreTerm = Static<typeof GenreTerm>;

export const GenresFile = Type.Array(GenreTerm, {
  description: 'The genres.json file: the controlled genre vocabulary.',
});
