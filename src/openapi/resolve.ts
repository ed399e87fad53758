/** OpenAPI operations of the resolve feature; document.ts lists them with the rest. */
import type { TSchema } from '@sinclair/typebox';
import { Envelope } from '../schemas/envelope.ts';
import {
  MissingItem,
  MusicResolveInput,
  ResolveAsset,
  ResolveCandidate,
  ResolveReason,
  ResolveResult,
} from '../schemas/resolve.ts';
import { problem, ref, type OperationSpec } from './spec.ts';

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
    'Nothing is changed; answers are `Cache-Control: no-store`.',
  requestBody: {
    description:
      'MusicResolveInput: the channel, its requirements, and optionally the work (slug, or title and/or composer).',
    required: true,
    contentTypes: ['application/json', 'text/json', 'application/*+json'],
    schema: ref('MusicResolveInput'),
  },
  responses: {
    '200': {
      description: 'The verdict with ranked, explained candidates (and for `prepare`, what is missing).',
      contentType: 'application/json',
      schema: Envelope(ref('ResolveResult') as unknown as TSchema, 'Resolve answer in the envelope.'),
      headers: {
        'Cache-Control': {
          description: 'Always `no-store`: the answer depends on the request body.',
          schema: { type: 'string' },
        },
      },
    },
    '400': problem(
      'The body is not JSON, or violates MusicResolveInput; `errors[]` lists every violation with a JSON Pointer.',
    ),
    '413': problem('The body is larger than 1 MiB.'),
    '415': problem('The body is not sent as application/json, text/json or application/*+json.'),
  },
};

export const RESOLVE_OPERATIONS: OperationSpec[] = [resolveMusic];

export const RESOLVE_COMPONENTS: Record<string, TSchema> = {
  MusicResolveInput,
  ResolveResult,
  ResolveCandidate,
  ResolveReason,
  ResolveAsset,
  MissingItem,
};

export const RESOLVE_TAGS: { name: string; description: string }[] = [
  {
    name: 'resolve',
    description: 'Find a ready canonical candidate for a channel, or learn exactly what to contribute.',
  },
];
