/**
 * Shared building blocks for every schema in the archive. Each schema here is plain JSON Schema
 * 2020-12 (built with TypeBox), so the same object drives ajv validation, the OpenAPI document,
 * the schema endpoints, the content lint and the TypeScript types.
 */
import { Type, type TSchema, type Static, type SchemaOptions, type TUnsafe } from '@sinclair/typebox';
import { titled } from './options.ts';

/** A string limited to `values`; rendered as a JSON Schema `enum` so errors list the choices. */
export function StringEnum<const T extends readonly string[]>(
  values: T,
  options: SchemaOptions = {},
): TUnsafe<T[number]> {
  return Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });
}

/**
 * `T or null`, expressed as `type: [T, "null"]` rather than `anyOf`, so a violation yields one
 * readable error instead of one per branch.
 */
export function Nullable<S extends TSchema>(schema: S, options: SchemaOptions = {}): TUnsafe<Static<S> | null> {
  const inner = { ...schema } as Record<string, unknown>;
  if (typeof inner.type === 'string') {
    const copy: Record<string, unknown> = { ...inner, type: [inner.type, 'null'], ...options };
    if (Array.isArray(copy.enum)) copy.enum = [...(copy.enum as unknown[]), null];
    return Type.Unsafe<Static<S> | null>(copy);
  }
  return Type.Unsafe<Static<S> | null>({ anyOf: [schema, { type: 'null' }], ...options });
}

/** A UTC timestamp in RFC 3339 form that ends in `Z`. */
export const UtcTimestamp = (description: string) => Type.String({ format: 'date-time', pattern: 'Z$', description });

/** An absolute HTTPS URL (evidence, source pages, contributor downloads). */
export const HttpsUrl = (description: string, maxLength = 1000) =>
  Type.String({ format: 'uri', pattern: '^https://', maxLength, description });

/** An absolute URL produced by this service from PUBLIC_BASE_URL. */
export const AbsoluteUrl = (description: string) => Type.String({ format: 'uri', description });

/** Lower-case kebab identifiers used for slugs of works, profiles and instruments. */
export const SLUG_PATTERN = '^[a-z0-9]+(?:-[a-z0-9]+)*$';
export const Slug = (description: string) =>
  Type.String({ pattern: SLUG_PATTERN, minLength: 1, maxLength: 160, description });

/** A SHA-256 digest: exactly 64 hexadecimal characters. */
export const Sha256 = (description: string) =>
  Type.String({ pattern: '^[0-9a-fA-F]{64}$', minLength: 64, maxLength: 64, description });

/** Intended music roles a channel can declare (spec Part 2, ChannelContext.intendedRole). */
export const MUSIC_ROLES = [
  'music-bed',
  'music-lead',
  'music-ambient',
  'music-sleep-lead',
  'intro',
  'outro',
  'short-form',
] as const;
export type MusicRole = (typeof MUSIC_ROLES)[number];

/** Review states of a contributed asset (spec Part 3). */
export const ASSET_REVIEW_STATES = [
  'pending',
  'technical-pass',
  'manual-review-pending',
  'human-reviewed',
  'human-listening-approved',
] as const;

/**
 * Review states used in the canonical catalog: the five asset states plus
 * `rights-review-required`, which blocks reuse until rights are cleared. None implies another.
 */
export const CATALOG_REVIEW_STATES = [...ASSET_REVIEW_STATES, 'rights-review-required'] as const;
export type CatalogReviewState = (typeof CATALOG_REVIEW_STATES)[number];

/** Who may follow an asset link: anyone, a signed-in user, or (temporarily) administrators only. */
export const ACCESS_LEVELS = ['public', 'signed-in', 'admin-only'] as const;
export type AccessLevel = (typeof ACCESS_LEVELS)[number];

/** Asset kinds (spec Part 2, ContributionAsset.kind). */
export const ASSET_KINDS = [
  'score-image',
  'score-pdf',
  'musicxml',
  'mxl',
  'midi',
  'mp3',
  'wav',
  'video',
  'artwork',
  'manifest',
  'source-page',
] as const;
export type AssetKind = (typeof ASSET_KINDS)[number];

/** The three independently declared rights layers (spec Part 2, RightsDeclaration). */
export const COMPOSITION_STATUSES = ['public-domain', 'permission-documented', 'not-applicable', 'unknown'] as const;
export const EDITION_STATUSES = [
  'public-domain',
  'licensed',
  'original-contribution',
  'not-applicable',
  'unknown',
] as const;
export const RECORDING_STATUSES = [
  'public-domain',
  'licensed',
  'original-generated-recording',
  'original-human-recording',
  'not-applicable',
  'unknown',
] as const;

export const CONTRIBUTOR_KINDS = ['Human', 'AiAssisted', 'AutomatedAgent'] as const;

/** The API version label carried in every envelope. */
export const API_VERSION = 'v1';

/**
 * One section of an arrangement with its times, as declared by a contributor or set by an editor
 * in review: what resolve and callers use to cut, loop or place music. Times in seconds
 * from the start of the recording; `end` after `start`.
 */
export const ArrangementSection = Type.Object(
  {
    label: Type.String({
      minLength: 1,
      maxLength: 80,
      description: 'What the section is, e.g. "intro", "theme", "quiet bridge", "ending".',
    }),
    startSeconds: Type.Number({ minimum: 0, maximum: 14400, description: 'Start, seconds from the beginning.' }),
    endSeconds: Type.Number({
      minimum: 0,
      maximum: 14400,
      description: 'End, seconds from the beginning (after the start).',
    }),
  },
  titled('ArrangementSection', 'A section of the arrangement with its start and end times (declared, not measured).'),
);
export type ArrangementSection = Static<typeof ArrangementSection>;

/** The fields of a person record a piece of evidence can support (src/schemas/person.ts). */
export const PERSON_FACT_FIELDS = ['name', 'born', 'died', 'wikidataId', 'worksPublishedBy'] as const;
export type PersonFactField = (typeof PERSON_FACT_FIELDS)[number];

/**
 * Evidence for a recorded fact: a page an editor can follow and what it shows, and who accepted
 * the fact (the admin key's label) and when, when it came through review. A fact without evidence
 * is refused by the content lint.
 */
export const FactEvidence = Type.Object(
  {
    url: HttpsUrl(
      "A page an editor can follow that states the fact: a Wikidata entry, an encyclopedia article, a collected edition's title page, the scan a score was transcribed from.",
    ),
    note: Type.String({
      minLength: 1,
      maxLength: 500,
      description: 'What the page shows, in words, e.g. "Wikidata: died 26 November 1857".',
    }),
    facts: Type.Optional(
      Type.Array(StringEnum(PERSON_FACT_FIELDS), {
        maxItems: PERSON_FACT_FIELDS.length,
        uniqueItems: true,
        description: "A person's evidence: which of the record's facts it supports; absent: every fact of the record.",
      }),
    ),
    acceptedBy: Type.Optional(
      Nullable(Type.String({ maxLength: 100 }), {
        description:
          'Label of the admin key that accepted the fact in review (who is accountable); null when not recorded.',
      }),
    ),
    acceptedAtUtc: Type.Optional(
      Nullable(UtcTimestamp('When the fact was accepted (UTC).'), {
        description: 'When the fact was accepted in review (UTC); null when not recorded.',
      }),
    ),
    via: Type.Optional(
      Nullable(Type.String({ maxLength: 40 }), {
        description: 'The tracking code of the correction report or contribution that recorded it.',
      }),
    ),
  },
  titled('FactEvidence', 'Where a recorded fact comes from, and who accepted it and when.'),
);
