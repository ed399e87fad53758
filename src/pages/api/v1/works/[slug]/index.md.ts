// GET /api/v1/works/{slug}/index.md: the compact Markdown record.
import type { APIRoute, GetStaticPaths } from 'astro';
import { site, siteWork, workPaths } from '../../../../../lib/site-data.ts';
import { renderWorkMarkdown } from '../../../../../domain/records.ts';

export const getStaticPaths = (() => workPaths()) satisfies GetStaticPaths;

export const GET: APIRoute = ({ props }) =>
  new Response(renderWorkMarkdown(siteWork((props as { slug: string }).slug).record, site().generatedAtUtc), {
    headers: { 'Content-Type': 'text/markdown; charset=utf-8' },
  });
