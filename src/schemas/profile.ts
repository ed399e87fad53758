/**
 * Rendering profiles and instruments. A profile file (`profiles/<slug>.json`) is preserved
 * byte-for-byte and served at `/definition`; its known fields are checked here, and `settings`
 * stays free-form for the rendering engine.
 */
import { Type, type Static } from '@sinclair/typebox';
import { AbsoluteUrl, Nullable, Sha256, Slug, StringEnum, UtcTimestamp } from './common.ts';
import { model, strict } from './options.ts';

export const PROFILE_KINDS = ['performance-style', 'instrument'] as const;
export const PROFILE_STATUSES = ['draft', 'candidate', 'approved', 'deprecated'] as const;

export const ApprovalBoundary = Type.Object(
  {
    approvedFor: Type.String({ maxLength: 500, description: 'What the approval covers.' }),
    notApprovedFor: Type.String({ maxLength: 500, description: 'What it does not cover.' }),
    approvedBy: Nullable(Type.String({ maxLength: 100 }), {
      description: 'The accountable person who approved it; null if not approved.',
    }),
    approvedAtUtc: Nullable(UtcTimestamp('When it was approved.'), {
      description: 'When it was approved (UTC); null if not approved.',
    }),
  },
  { ...strict, description: 'The approval boundary: what a human approved this profile for, and what not.' },
);

export const ProfileContent = Type.Object(
  {
    slug: Slug('Stable identifier; equals the file name without .json.'),
    version: Type.String({ pattern: '^[0-9]+\\.[0-9]+\\.[0-9]+$', description: 'Semantic version of the definition.' }),
    title: Type.String({ minLength: 1, maxLength: 160, description: 'Title.' }),
    kind: StringEnum(PROFILE_KINDS, { description: 'A performance style or an instrument profile.' }),
    status: StringEnum(PROFILE_STATUSES, {
      description: 'Lifecycle status; only `approved` counts as an approved rendering profile.',
    }),
    summary: Type.String({ maxLength: 500, description: 'What it sounds like and when to use it.' }),
    renderReady: Type.Boolean({ description: 'Whether the rendering engine can use it as is.' }),
    instruments: Type.Array(Slug('Instrument slug.'), { description: 'Instruments the profile renders.' }),
    approvalBoundary: ApprovalBoundary,
    engine: Type.Object(
      { name: Type.String({ maxLength: 100 }), version: Type.String({ maxLength: 40 }) },
      { ...strict, description: 'The rendering engine and version the definition targets.' },
    ),
    settings: Type.Record(Type.String(), Type.Unknown(), { description: 'Engine settings, free-form.' }),
  },
  model('ProfileContent', 'A profile definition file.'),
);
export type ProfileContent = Static<typeof ProfileContent>;

export const ProfileRecord = Type.Object(
  {
    slug: ProfileContent.properties.slug,
    version: ProfileContent.properties.version,
    title: ProfileContent.properties.title,
    kind: ProfileContent.properties.kind,
    status: ProfileContent.properties.status,
    summary: ProfileContent.properties.summary,
    renderReady: ProfileContent.properties.renderReady,
    instruments: ProfileContent.properties.instruments,
    approvalBoundary: ApprovalBoundary,
    engine: ProfileContent.properties.engine,
    catalogUsage: Type.Object(
      {
        arrangementCount: Type.Integer({ minimum: 0, description: 'Arrangements that use the profile.' }),
        works: Type.Array(
          Type.Object({ slug: Slug('Work slug.'), arrangementIds: Type.Array(Type.Integer()) }, { ...strict }),
          { description: 'Works whose arrangements use it.' },
        ),
      },
      { ...strict, description: 'Where the catalog uses the profile.' },
    ),
    fingerprint: Type.Object(
      {
        algorithm: Type.Literal('sha256'),
        value: Sha256('Digest of the preserved definition bytes.'),
        byteLength: Type.Integer({ minimum: 0 }),
      },
      { ...strict, description: 'Fingerprint of the preserved JSON definition.' },
    ),
    links: Type.Object(
      {
        self: AbsoluteUrl('This record.'),
        definition: AbsoluteUrl('The preserved JSON definition, byte-for-byte.'),
        collection: AbsoluteUrl('The profile listing.'),
      },
      { ...strict, description: 'Links.' },
    ),
  },
  model('ProfileRecord', 'A published profile.'),
);
export type ProfileRecord = Static<typeof ProfileRecord>;

export const INSTRUMENT_READINESS = ['ready', 'candidate', 'none'] as const;

export const InstrumentContent = Type.Object(
  {
    slug: Slug('Normalized identifier.'),
    name: Type.String({ minLength: 1, maxLength: 80, description: 'Normalized name.' }),
    family: Type.String({ minLength: 1, maxLength: 40, description: 'Family, e.g. "strings".' }),
    aliases: Type.Array(Type.String({ maxLength: 80 }), { default: [], description: 'Other names ("violoncello").' }),
  },
  { ...strict, $id: 'InstrumentContent', description: 'An entry of instruments.json.' },
);
export const InstrumentsFile = Type.Array(InstrumentContent, { description: 'The instruments.json file.' });
export type InstrumentContent = Static<typeof InstrumentContent>;

export const InstrumentRecord = Type.Object(
  {
    slug: InstrumentContent.properties.slug,
    name: InstrumentContent.properties.name,
    family: InstrumentContent.properties.family,
    aliases: Type.Array(Type.String()),
    profiles: Type.Array(
      Type.Object(
        {
          slug: Slug('Profile slug.'),
          title: Type.String(),
          status: StringEnum(PROFILE_STATUSES),
          renderReady: Type.Boolean(),
          link: AbsoluteUrl('Profile record.'),
        },
        { ...strict },
      ),
      { description: 'Registered profiles for the instrument.' },
    ),
    readiness: StringEnum(INSTRUMENT_READINESS, {
      description:
        '`ready`: an approved, render-ready profile exists; `candidate`: only unapproved ones; `none`: no profile.',
    }),
    workCount: Type.Integer({ minimum: 0, description: 'Works that use the instrument.' }),
    links: Type.Object(
      {
        works: AbsoluteUrl('Catalog filtered by this instrument.'),
        profiles: AbsoluteUrl('Profiles for this instrument.'),
      },
      { ...strict, description: 'Filter links.' },
    ),
  },
  { ...strict, $id: 'InstrumentRecord', description: 'A normalized instrument.' },
);
export type InstrumentRecord = Static<typeof InstrumentRecord>;
