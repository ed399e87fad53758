/**
 * People (composers, lyricists, arrangers, editors) as records of their own: `people/<slug>.json`
 * in the content repository holds a person's names and the facts that decide rights (birth and
 * death, a bound for when all their works were published), each with evidence. Works name people
 * by slug; a person's facts are never copied into a work file, so one correction reaches every
 * work that names them. `PersonRecord` is what the build publishes at `/api/v1/people/{slug}`.
 */
import { Type, type Static } from '@sinclair/typebox';
import { AbsoluteUrl, FactEvidence, Nullable, Slug, StringEnum } from './common.ts';
import { LifeDate, WikidataId } from './work.ts';
import { model, strict, titled } from './options.ts';

/** The roles a work names a person in. */
export const PERSON_ROLES = ['composer', 'lyricist'] as const;
export type PersonRole = (typeof PERSON_ROLES)[number];

export const WorksPublishedBy = Type.Object(
  {
    year: Type.Integer({
      minimum: 1000,
      maximum: 2999,
      description: 'Every work of the person (as composer) was published by this year.',
    }),
    evidence: Type.Array(FactEvidence, {
      minItems: 1,
      maxItems: 10,
      description: "The page that shows it, e.g. a collected edition's title page with the year it was complete.",
    }),
  },
  titled(
    'WorksPublishedBy',
    'A bound for every work of a composer ("every work published by 1897": the year a collected edition was complete): one fact that decides the US status of the whole catalog of the person.',
  ),
);

/** `people/<slug>.json`. */
export const PersonContent = Type.Object(
  {
    slug: Slug('Stable identifier; equals the file name.'),
    name: Type.String({ minLength: 1, maxLength: 160, description: 'Display name, e.g. "Joseph von Eichendorff".' }),
    sortName: Type.String({
      minLength: 1,
      maxLength: 160,
      description: 'Name for sorting, e.g. "Eichendorff, Joseph von".',
    }),
    aliases: Type.Array(Type.String({ minLength: 1, maxLength: 160 }), {
      maxItems: 30,
      default: [],
      description: 'Other spellings and name forms ("J. v. Eichendorff").',
    }),
    born: LifeDate('Birth date (YYYY-MM-DD, YYYY, or "unknown" when no source gives it).'),
    died: LifeDate(
      'Death date (YYYY-MM-DD, YYYY, or "unknown"); it decides the rights of every work that names the person.',
    ),
    wikidataId: Type.Optional(Nullable(WikidataId('Wikidata item of the person, e.g. "Q6101".'))),
    worksPublishedBy: Type.Optional(Nullable(WorksPublishedBy)),
    evidence: Type.Array(FactEvidence, {
      maxItems: 20,
      default: [],
      description:
        'Pages that support the facts; a known birth or death date needs at least one (the lint refuses it without).',
    }),
  },
  model(
    'PersonContent',
    'A person of the catalog (people/<slug>.json): names and the facts that decide rights, with evidence.',
  ),
);
export type PersonContent = Static<typeof PersonContent>;

export const PersonRecord = Type.Object(
  {
    slug: PersonContent.properties.slug,
    name: PersonContent.properties.name,
    sortName: PersonContent.properties.sortName,
    aliases: Type.Array(Type.String(), { description: 'Other spellings and name forms.' }),
    born: PersonContent.properties.born,
    died: PersonContent.properties.died,
    lifeDates: Type.String({ description: 'Life years as "1788–1857" ("?" where unknown).' }),
    wikidataId: Nullable(Type.String(), { description: 'Wikidata item, e.g. "Q6101"; null when not recorded.' }),
    worksPublishedBy: Nullable(WorksPublishedBy, {
      description: 'A bound for when every work of the person was published; null when not recorded.',
    }),
    evidence: Type.Array(FactEvidence, { description: 'The evidence of the facts, with who accepted them and when.' }),
    roles: Type.Array(StringEnum(PERSON_ROLES), { description: 'The roles the catalog names the person in.' }),
    works: Type.Array(
      Type.Object(
        {
          slug: Slug('Work slug.'),
          title: Type.String(),
          role: StringEnum(PERSON_ROLES, { description: 'What the work names the person as.' }),
          links: Type.Object(
            { self: AbsoluteUrl('The work record.'), html: AbsoluteUrl('The work page.') },
            { ...strict },
          ),
        },
        { ...strict },
      ),
      { description: 'Every work that names the person, by title.' },
    ),
    links: Type.Object(
      {
        self: AbsoluteUrl('This record.'),
        html: AbsoluteUrl('The person page.'),
        wikidata: Nullable(AbsoluteUrl('The Wikidata entry.'), { description: 'The Wikidata entry, when recorded.' }),
        corrections: AbsoluteUrl(
          'Where to report a correction: a report names one of the works (workSlug), targetType "composer" or "lyricist", and the field (born, died, wikidataId).',
        ),
      },
      { ...strict },
    ),
  },
  model('PersonRecord', 'A person of the catalog with their facts, evidence and the works that name them.'),
);
export type PersonRecord = Static<typeof PersonRecord>;

export const PersonSummary = Type.Object(
  {
    slug: PersonContent.properties.slug,
    name: PersonContent.properties.name,
    sortName: PersonContent.properties.sortName,
    lifeDates: PersonRecord.properties.lifeDates,
    roles: PersonRecord.properties.roles,
    workCount: Type.Integer({ minimum: 0, description: 'How many works name the person.' }),
    links: Type.Object(
      { self: AbsoluteUrl('The person record.'), html: AbsoluteUrl('The person page.') },
      { ...strict },
    ),
  },
  model('PersonSummary', 'One person in the people listing.'),
);

export const PersonList = Type.Object(
  { items: Type.Array(PersonSummary, { description: 'Every person of the catalog, by family name.' }) },
  titled('PersonList', 'The people of the catalog.'),
);
export type PersonList = Static<typeof PersonList>;
export type PersonSummary = Static<typeof PersonSummary>;
