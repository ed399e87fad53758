// GET /api/v1/openapi.json: the OpenAPI 3.1.1 document, from the same schemas as the validators.
import type { APIRoute } from 'astro';
import { json, site } from '../../../lib/site-data.ts';
import { buildOpenApi } from '../../../openapi/document.ts';

export const GET: APIRoute = () => json(buildOpenApi(site().baseUrl));
