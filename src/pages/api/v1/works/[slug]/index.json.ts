// GET /api/v1/works/{slug}: the full work record in the recordEnvelope (the front server maps the bare path here).
import type { APIRoute, GetStaticPaths } from 'astro';
import { recordEnvelope, json, siteWork, workPaths } from '../../../../../lib/site-data.ts';

export const getStaticPaths = (() => workPaths()) satisfies GetStaticPaths;

export const GET: APIRoute = ({ props }) => json(recordEnvelope(siteWork((props as { slug: string }).slug).record));
