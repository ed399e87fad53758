// GET /api/v1/music/workflow: the machine-readable find-or-prepare workflow.
import type { APIRoute } from 'astro';
import { recordEnvelope, json, site } from '../../../../../lib/site-data.ts';
import { buildWorkflow } from '../../../../../domain/discovery.ts';

export const GET: APIRoute = () => json(recordEnvelope(buildWorkflow(site().urls)));
