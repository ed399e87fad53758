// GET /llms.txt: plain-text guidance for language models.
import type { APIRoute } from 'astro';
import { site } from '../lib/site-data.ts';
import { buildLlmsTxt } from '../domain/discovery.ts';

export const GET: APIRoute = () => new Response(buildLlmsTxt(site().urls), { headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
