/** Query parameters of the dynamic reads; the server validates them and OpenAPI lists them from here. */
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from './common.ts';
import { PageQuery } from './envelope.ts';
import { PROFILE_KINDS, PROFILE_STATUSES } from './profile.ts';
import { CONTRIBUTION_OPERATIONS } from './contribution.ts';

export const WORKS_DEFAULT_PAGE_SIZE = 20;
export const WORKS_MAX_PAGE_SIZE = 100;
export const QUERY_MAX_LENGTH = 200;
/**
 * Constraining words a works listing may carry over all its filters (a 200-character value holds
 * some 60 words, and each word costs up to a quarter of the catalog in index reads, so the number
 * of words is what bounds a request). More is a 400 invalid-query.
 */
export const QUERY_MAX_WORDS = 16;

const text = (description: string) => Type.Optional(Type.String({ maxLength: QUERY_MAX_LENGTH, description }));

export const WorksQuery = Type.Object(
  {
    query: text(
      'Words to find in title, original title, aliases, composer (any name form), lyricist, catalog numbers, genre, period, key, instruments and styles; "oe", "ae", "ue" find "ö", "ä", "ü" ("erlkoenig" finds "Erlkönig"). Works whose composer the words name ("Wolf": Hugo Wolf) come first. A query that is one catalog number ("Op. 18", "BWV 1007") finds the works with that whole number (Op. 18 and Op. 18 No. 1, not Op. 180).',
    ),
    genre: text('Genre words, e.g. "suite".'),
    composer: text('Composer in any name form ("Bach, J.S.", "J. S. Bach", "dvorak").'),
    instrument: text('Instrument slug, name or alias ("cello", "violoncello").'),
    style: text('Arrangement style or mood words.'),
    ...PageQuery(WORKS_DEFAULT_PAGE_SIZE, WORKS_MAX_PAGE_SIZE),
  },
  // An unknown parameter is a 400 naming it, not silently ignored: a misspelt filter
  // (?composers=bach) would otherwise answer the whole catalog as if it had matched.
  { description: 'Catalog search parameters.', additionalProperties: false },
);
export type WorksQuery = Static<typeof WorksQuery>;

/**
 * The search page's parameters (/search/): the catalog search's, plus `q`, the name people and
 * other search engines use for the words (`query` wins when both are given).
 */
export const SearchPageQuery = Type.Object(
  {
    ...WorksQuery.properties,
    q: text('The words to find, as `query` (the parameter name search engines and people use).'),
  },
  { description: 'Search page parameters.', additionalProperties: false },
);
export type SearchPageQuery = Static<typeof SearchPageQuery>;

export const ProfilesQuery = Type.Object(
  {
    query: text('Words in slug, title, summary or instrument slugs.'),
    kind: Type.Optional(StringEnum(PROFILE_KINDS, { description: 'Profile kind.' })),
    status: Type.Optional(StringEnum(PROFILE_STATUSES, { description: 'Profile status.' })),
    renderReady: Type.Optional(
      Type.Boolean({ description: 'Only profiles that are (true) or are not (false) render-ready.' }),
    ),
  },
  { description: 'Profile search parameters.', additionalProperties: false },
);
export type ProfilesQuery = Static<typeof ProfilesQuery>;

/** GET /api/v1/music/contributions/template: which work and which operation the template is for. */
export const TemplateQuery = Type.Object(
  {
    workSlug: Type.Optional(
      Type.String({
        maxLength: 160,
        pattern: '^[a-z0-9]+(?:-[a-z0-9]+)*$',
        description:
          'The work the contribution targets (e.g. the workSlug of a resolve missing[] item); default: an example work. Not used by new-work and rendering-profile.',
      }),
    ),
    operation: Type.Optional(
      StringEnum(CONTRIBUTION_OPERATIONS, {
        default: 'arrangement',
        description:
          'The contribution operation (e.g. the operation of a resolve missing[] item); default arrangement.',
      }),
    ),
    arrangementId: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 2147483647,
        format: 'int32',
        description:
          'For arrangement and performance: the existing arrangement the files are added to (target.arrangementId).',
      }),
    ),
  },
  { description: 'Contribution template parameters.', additionalProperties: false },
);
export type TemplateQuery = Static<typeof TemplateQuery>;
