/** Discovery documents: the API index (`/api/v1`) and the find-or-prepare workflow. */
import { Type, type Static } from '@sinclair/typebox';
import { AbsoluteUrl, CATALOG_REVIEW_STATES, MUSIC_ROLES, StringEnum } from './common.ts';
import { strict } from './options.ts';

export const Capability = Type.Object(
  {
    operationId: Type.String({ description: 'Operation id in the OpenAPI document.' }),
    method: Type.String({ description: 'HTTP method.' }),
    path: Type.String({ description: 'Path template.' }),
    summary: Type.String({ description: 'What it does.' }),
  },
  { ...strict, description: 'One served operation.' },
);

export const ApiIndex = Type.Object(
  {
    name: Type.String({ description: 'Service name.' }),
    description: Type.String({ description: 'What the service is for.' }),
    openapiVersion: Type.String({ description: 'OpenAPI version of the description.' }),
    descriptionVersion: Type.String({ description: 'Version of the API description (info.version).' }),
    capabilities: Type.Array(Capability, { description: 'Every served operation.' }),
    conventions: Type.Object(
      {
        envelope: Type.String(),
        timestamps: Type.String(),
        language: Type.String(),
        identifiers: Type.String(),
        links: Type.String(),
        errors: Type.String(),
        caching: Type.String(),
        rateLimits: Type.String(),
        authentication: Type.String(),
        pagination: Type.String(),
        versioning: Type.String({
          description: 'What may change within v1, and how an operation is deprecated (notice period, headers).',
        }),
      },
      { ...strict, description: 'Conventions every response follows.' },
    ),
    links: Type.Object(
      {
        self: AbsoluteUrl('This index.'),
        openapi: AbsoluteUrl('OpenAPI document.'),
        workflow: AbsoluteUrl('Find-or-prepare workflow.'),
        llms: AbsoluteUrl('Guidance for language models.'),
        llmsFull: AbsoluteUrl('Workflow, rules and contract in one text for language models.'),
        changelog: AbsoluteUrl('Changelog and deprecation policy (Markdown).'),
        mcp: AbsoluteUrl('Model Context Protocol endpoint (Streamable HTTP, POST).'),
        works: AbsoluteUrl('Catalog.'),
        instruments: AbsoluteUrl('Instruments.'),
        profiles: AbsoluteUrl('Profiles.'),
        vocabulary: AbsoluteUrl(
          'Mood, style/genre and instrumentation terms resolve matches requirement words against.',
        ),
        site: AbsoluteUrl('Human-readable site.'),
      },
      { ...strict, description: 'Discovery links.' },
    ),
  },
  { ...strict, description: 'The API index.' },
);
export type ApiIndex = Static<typeof ApiIndex>;

export const Workflow = Type.Object(
  {
    name: Type.String(),
    summary: Type.String(),
    steps: Type.Array(
      Type.Object(
        {
          step: Type.Integer({ minimum: 1 }),
          title: Type.String(),
          description: Type.String(),
          method: Type.String(),
          href: Type.String({
            format: 'uri-template',
            description: 'Absolute URL, or an RFC 6570 template such as .../works/{slug}.',
          }),
          available: Type.Boolean({ description: 'False while this deployment does not serve the step yet.' }),
        },
        { ...strict },
      ),
      { description: 'Find first, reuse when ready, otherwise contribute for human review.' },
    ),
    channelContract: Type.Object(
      {
        description: Type.String(),
        roles: Type.Array(Type.Object({ role: StringEnum(MUSIC_ROLES), meaning: Type.String() }, { ...strict })),
        channelSchema: Type.Unknown({ description: 'JSON Schema of ChannelContext.' }),
        requirementsSchema: Type.Unknown({ description: 'JSON Schema of MusicRequirements.' }),
      },
      { ...strict, description: 'What a caller declares about its channel.' },
    ),
    rightsChecklist: Type.Array(
      Type.Object({ id: Type.String(), check: Type.String(), why: Type.String() }, { ...strict }),
      {
        description: 'What to verify before publishing anything.',
      },
    ),
    reviewStates: Type.Array(
      Type.Object(
        { state: StringEnum(CATALOG_REVIEW_STATES), label: Type.String(), meaning: Type.String() },
        { ...strict },
      ),
      { description: 'Review states and what each does and does not mean.' },
    ),
    boundaries: Type.Array(Type.String(), { description: 'Rules no state implies away.' }),
    resolveExample: Type.Object(
      {
        description: Type.String({ description: 'What the example shows.' }),
        method: Type.String({ description: 'HTTP method.' }),
        href: Type.String({ format: 'uri', description: 'Where to send it (absolute).' }),
        request: Type.Unknown({ description: 'A MusicResolveInput body.' }),
        response: Type.Unknown({ description: 'The answer, abbreviated.' }),
        readingTheAnswer: Type.Array(Type.String(), { description: 'How to act on each verdict.' }),
      },
      { ...strict, description: 'A worked example of POST /api/v1/music/resolve.' },
    ),
    cooperationRequest: Type.Object(
      { text: Type.String(), keepWithEveryClaim: Type.Array(Type.String()) },
      { ...strict, description: 'What the archive asks of callers.' },
    ),
  },
  { ...strict, description: 'The find-or-prepare workflow.' },
);
export type Workflow = Static<typeof Workflow>;
