// /favicon.svg, the icon every page links (src/lib/site/favicon.ts).
import type { APIRoute } from 'astro';
import { FAVICON_SVG } from '../lib/site/favicon.ts';

export const GET: APIRoute = () => new Response(FAVICON_SVG);
