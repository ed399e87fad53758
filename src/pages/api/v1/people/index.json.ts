// GET /api/v1/people: every person of the catalog, briefly, with the link to the full record.
import type { APIRoute } from 'astro';
import { json, recordEnvelope } from '../../../../lib/site-data.ts';
import { people } from '../../../../lib/site/people.ts';
import { personSummary } from '../../../../domain/people.ts';

export const GET: APIRoute = () => json(recordEnvelope({ items: people().list.map((p) => personSummary(p.record)) }));
