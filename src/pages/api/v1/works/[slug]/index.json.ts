// GET /api/v1/works/{slug}: the full work record in the recordEnvelope (the front server maps the bare path here).
import type { APIRoute, GetStaticPaths } from 'astro';
import { recordEnvelope, json, site, workInScope, type SiteWork } from '../../../../../lib/site-data.ts';

export const getStaticPaths = (() => site().works.filter((work) => workInScope(work.record.slug)).map((work) => ({ params: { slug: work.record.slug }, props: { work } }))) satisfies GetStaticPaths;

export const GET: APIRoute = ({ props }) => json(recordEnvelope((props as { work: SiteWork }).work.record));
