// GET /api/v1: capabilities, conventions and discovery links.
import type { APIRoute } from 'astro';
import { recordEnvelope, json, site } from '../../../lib/site-data.ts';
import { buildApiIndex } from '../../../domain/discovery.ts';

export const GET: APIRoute = () => json(recordEnvelope(buildApiIndex(site().urls)));
