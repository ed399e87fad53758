// GET /api/v1/profiles/{slug}: profile metadata, catalog usage, fingerprint and links.
import type { APIRoute, GetStaticPaths } from 'astro';
import { recordEnvelope, json, site, profileRecordInScope, type SiteProfile } from '../../../../../lib/site-data.ts';

export const getStaticPaths = (() =>
  site()
    .profiles.filter((profile) => profileRecordInScope(profile.record.slug))
    .map((profile) => ({ params: { slug: profile.record.slug }, props: { profile } }))) satisfies GetStaticPaths;

export const GET: APIRoute = ({ props }) => json(recordEnvelope((props as { profile: SiteProfile }).profile.record));
