// GET /api/v1/people/{slug}: a person's facts, evidence and the works that name them.
import type { APIRoute, GetStaticPaths } from 'astro';
import { json, recordEnvelope } from '../../../../../lib/site-data.ts';
import { listingInScope, personScopeKey } from '../../../../../lib/site/facets.ts';
import { people, sitePerson } from '../../../../../lib/site/people.ts';

export const getStaticPaths = (() =>
  people()
    .list.filter((p) => listingInScope(personScopeKey(p.loaded.content.slug)))
    .map((p) => ({
      params: { slug: p.loaded.content.slug },
      props: { slug: p.loaded.content.slug },
    }))) satisfies GetStaticPaths;

export const GET: APIRoute = ({ props }) => json(recordEnvelope(sitePerson((props as { slug: string }).slug).record));
