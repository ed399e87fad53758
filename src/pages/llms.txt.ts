// GET /llms.txt: the llmstxt.org index for language models (links with notes).
import type { APIRoute } from 'astro';
import { site } from '../lib/site-data.ts';
import { buildLlmsTxt } from '../domain/discovery.ts';

export const GET: APIRoute = () => {
  const { urls, works } = site();
  const slugs = works.map((w) => w.entry.slug);
  const example = slugs.includes('satie-gymnopedie-1') ? 'satie-gymnopedie-1' : (slugs[0] ?? 'satie-gymnopedie-1');
  return new Response(buildLlmsTxt(urls, example), { headers: { 'Content-Type': 'text/plain; charset=utf-8' } });
};
