// GET /api/v1/works/{slug}/index.md: the compact Markdown record.
import type { APIRoute, GetStaticPaths } from 'astro';
import { site, workInScope, type SiteWork } from '../../../../../lib/site-data.ts';
import { renderWorkMarkdown } from '../../../../../domain/records.ts';

export const getStaticPaths = (() => site().works.filter((work) => workInScope(work.record.slug)).map((work) => ({ params: { slug: work.record.slug }, props: { work } }))) satisfies GetStaticPaths;

export const GET: APIRoute = ({ props }) =>
  new Response(renderWorkMarkdown((props as { work: SiteWork }).work.record, site().generatedAtUtc), {
    headers: { 'Content-Type': 'text/markdown; charset=utf-8' },
  });
