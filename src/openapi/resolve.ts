/** OpenAPI operations of the resolve feature; document.ts lists them with the rest. */
import type { TSchema } from '@sinclair/typebox';
import { Envelope } from '../schemas/envelope.ts';
import {
  MissingItem,
  MusicResolveInput,
  ResolveAsset,
  ResolveCandidate,
  ResolveCompactCandidate,
  ResolveCompactResult,
  ResolveReason,
  ResolveResult,
} from '../schemas/resolve.ts';
import { Vocabularies, VocabularyTerm } from '../schemas/vocabulary.ts';
import { enveloped, problem, ref, type OperationSpec } from './spec.ts';

const resolveMusic: OperationSpec = {
  method: 'post',
  path: '/api/v1/music/resolve',
  operationId: 'resolveMusic',
  tags: ['resolve'],
  summary: 'Resolve music for a channel: reuse a ready canonical candidate, or learn what to prepare',
  description:
    'Declare the channel (key and intended role) and the requirements. Works are found by `workSlug` exactly; else by title and/or composer ' +
    '(case- and accent-insensitive, any name form, catalog numbers such as "BWV 846"); else the whole catalog is searched by role, style, ' +
    'instrumentation and mood. Every arrangement is checked requirement by requirement; `reasons[]` explains each. A candidate is ready only ' +
    'when all pass: its arrangement (and any audio used) is human-listening-approved, nothing used is `rights-review-required`, the composition ' +
    'is public domain in the US, EU and CA (or permission is documented), the edition and recording layers are cleared, and every requested ' +
    'format is a public asset. `technical-pass` is reported as a technical pass, never as listening approval. Verdict: `reuse` (the first ' +
    'candidate is ready), `prepare` (none is; `missing[]` names what keeps the best candidate from being ready and the contribution operation ' +
    'that would supply it), or `no-music` (`musicAllowed: false`). An unknown workSlug is a `prepare` answer (new-work), not an error. ' +
    'Ranking: ready first, then role fit, then fitting style/instrumentation/mood/duration, then score, editorial rank, work slug, arrangement id. ' +
    'No request costs time in proportion to the catalog: a catalog-wide search is branch and bound (arrangements grouped by an upper bound of ' +
    'their rank, visited best bound first, stopped once nothing left can outrank the tenth candidate, so the ten are exactly the best) and ' +
    'judges at most 2,000 arrangements per request; `search.rankingComplete: false` says that bound stopped it (the candidates are then the best ' +
    'of those judged), and `search.readyCount` is exact only when `search.readyCountComplete` is true (otherwise a lower bound). ' +
    'Style, instrumentation and mood words are matched by meaning against GET /api/v1/music/vocabulary (whole words, word forms, synonyms, broader terms); ' +
    'each reason says how every word matched and lists the words that matched nothing. `score` is the ranking key in one number and never rises down the list. ' +
    'Send `Prefer: return=minimal` (RFC 7240) for the compact answer (ResolveCompactResult, at most 8,000 bytes for ten candidates, answered with ' +
    '`Preference-Applied: return=minimal`); it links the full answer. ' +
    'Nothing is changed; answers are `Cache-Control: no-store`.',
  parameters: [
    {
      name: 'Prefer',
      in: 'header',
      description:
        '`return=minimal` for the compact answer (ResolveCompactResult); without it, the full ResolveResult.',
      schema: { type: 'string', maxLength: 200 },
    },
  ],
  requestBody: {
    description:
      'MusicResolveInput: the channel, its requirements, and optionally the work (slug, or title and/or composer).',
    required: true,
    contentTypes: ['application/json', 'text/json', 'application/*+json'],
    schema: ref('MusicResolveInput'),
  },
  responses: {
    '200': {
      description:
        'The verdict with ranked, explained candidates (and for `prepare`, what is missing): ResolveResult, or ResolveCompactResult with `Prefer: return=minimal`.',
      contentType: 'application/json',
      schema: Envelope(
        { anyOf: [ref('ResolveResult'), ref('ResolveCompactResult')] } as unknown as TSchema,
        'Resolve answer in the envelope.',
      ),
      headers: {
        'Cache-Control': {
          description: 'Always `no-store`: the answer depends on the request body.',
          schema: { type: 'string' },
        },
        'Preference-Applied': {
          description: '`return=minimal` when the compact answer was sent.',
          schema: { type: 'string' },
        },
        Vary: { description: '`Prefer`.', schema: { type: 'string' } },
      },
    },
    '400': problem(
      'The body is not JSON, or violates MusicResolveInput; `errors[]` lists every violation with a JSON Pointer.',
    ),
    '413': problem('The body is larger than 1 MiB.'),
    '415': problem('The body is not sent as application/json, text/json or application/*+json.'),
  },
};

const resolveAnswer: OperationSpec = {
  method: 'get',
  path: '/api/v1/music/resolve/answers/{id}',
  operationId: 'getResolveAnswer',
  tags: ['resolve'],
  summary: 'The full answer behind a compact resolve answer (links.full)',
  description:
    'Kept per build for a bounded number of answers; a 404 means it is no longer kept: repeat the POST without `Prefer: return=minimal`.',
  parameters: [
    {
      name: 'id',
      in: 'path',
      required: true,
      description: 'The id from links.full (32 hexadecimal characters).',
      schema: { type: 'string', pattern: '^[0-9a-f]{32}$' },
    },
  ],
  responses: {
    '200': enveloped('The full resolve answer.', 'ResolveResult', 'Resolve answer in the envelope.'),
    '400': problem('The id is not 32 hexadecimal characters.'),
    '404': problem('No such answer is kept for the build now served.'),
  },
};

const vocabulary: OperationSpec = {
  method: 'get',
  path: '/api/v1/music/vocabulary',
  operationId: 'getVocabulary',
  tags: ['resolve'],
  summary: 'The mood, style/genre and instrumentation terms resolve matches requirement words against',
  description:
    "Each term with its synonyms (the archive's own and WordNet 3.1 synonyms mapped onto it when the catalog is built), word forms and broader term. " +
    "Use these words in requirements.mood, style and instrumentation and in a contribution's arrangement; the content lint and the contribution checks warn about other words and name the nearest terms.",
  cacheable: true,
  responses: {
    '200': enveloped('The vocabularies of the build now served.', 'Vocabularies', 'The vocabularies in the envelope.'),
  },
};

export const RESOLVE_OPERATIONS: OperationSpec[] = [resolveMusic, resolveAnswer, vocabulary];

export const RESOLVE_COMPONENTS: Record<string, TSchema> = {
  MusicResolveInput,
  ResolveResult,
  ResolveCandidate,
  ResolveReason,
  ResolveAsset,
  MissingItem,
  ResolveCompactResult,
  ResolveCompactCandidate,
  Vocabularies,
  VocabularyTerm,
};

export const RESOLVE_TAGS: { name: string; description: string }[] = [
  {
    name: 'resolve',
    description: 'Find a ready canonical candidate for a channel, or learn exactly what to contribute.',
  },
];
