// GET /api/v1/works/{slug}: the full work record in the envelope (the front server maps the bare path here).
import type { APIRoute, GetStaticPaths } from 'astro';
import { envelope, json, site, type SiteWork } from '../../../../../lib/site-data.ts';

export const getStaticPaths = (() => site().works.map((work) => ({ params: { slug: work.record.slug }, props: { work } }))) satisfies GetStaticPaths;

export const GET: APIRoute = ({ props }) => json(envelope((props as { work: SiteWork }).work.record));
