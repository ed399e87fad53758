// GET /api/v1/profiles/{slug}/definition: the preserved JSON definition, byte-for-byte.
import type { APIRoute, GetStaticPaths } from 'astro';
import { site, profileRecordInScope, type SiteProfile } from '../../../../../../lib/site-data.ts';

export const getStaticPaths = (() =>
  site()
    .profiles.filter((profile) => profileRecordInScope(profile.record.slug))
    .map((profile) => ({ params: { slug: profile.record.slug }, props: { profile } }))) satisfies GetStaticPaths;

export const GET: APIRoute = ({ props }) =>
  new Response(new Uint8Array((props as { profile: SiteProfile }).profile.loaded.raw), {
    headers: { 'Content-Type': 'application/json' },
  });
