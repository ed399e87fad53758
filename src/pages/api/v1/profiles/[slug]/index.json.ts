// GET /api/v1/profiles/{slug}: profile metadata, catalog usage, fingerprint and links.
import type { APIRoute, GetStaticPaths } from 'astro';
import { recordEnvelope, json, site, profileInScope, type SiteProfile } from '../../../../../lib/site-data.ts';

export const getStaticPaths = (() =>
  site()
    .profiles.filter((profile) => profileInScope(profile.record.slug))
    .map((profile) => ({ params: { slug: profile.record.slug }, props: { profile } }))) satisfies GetStaticPaths;

export const GET: APIRoute = ({ props }) => json(recordEnvelope((props as { profile: SiteProfile }).profile.record));
