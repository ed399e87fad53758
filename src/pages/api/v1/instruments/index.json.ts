// GET /api/v1/instruments: normalized instruments with families, profiles, readiness and filter links.
import type { APIRoute } from 'astro';
import { recordEnvelope, json, site } from '../../../../lib/site-data.ts';

export const GET: APIRoute = () => {
  const instruments = site().instruments;
  const families = [...new Set(instruments.map((i) => i.family))].sort().map((family) => ({
    family,
    instruments: instruments.filter((i) => i.family === family).map((i) => i.slug),
  }));
  return json(recordEnvelope({ instruments, families }));
};
