// /favicon.ico, which browsers and feed readers ask for on their own (src/lib/site/favicon.ts).
import type { APIRoute } from 'astro';
import { faviconIco } from '../lib/site/favicon.ts';

export const GET: APIRoute = () => new Response(faviconIco());
