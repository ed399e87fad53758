// GET /llms.txt: the llmstxt.org index for language models (links with notes).
import type { APIRoute } from 'astro';
import { site } from '../lib/site-data.ts';
import { buildLlmsTxt } from '../domain/discovery.ts';
import { people } from '../lib/site/people.ts';

export const GET: APIRoute = () => {
  const { urls, works, workBySlug } = site();
  // A lookup, not a list of every slug (this page is rendered by every apply).
  const example = workBySlug.has('satie-gymnopedie-1')
    ? 'satie-gymnopedie-1'
    : (works[0]?.entry.slug ?? 'satie-gymnopedie-1');
  const person = workBySlug.get(example)?.entry.composer.slug ?? people().list[0]?.loaded.content.slug ?? null;
  return new Response(buildLlmsTxt(urls, example, person), {
    headers: { 'Content-Type': 'text/plain; charset=utf-8' },
  });
};
