// GET /llms-full.txt: workflow, rules and contract in one text for language models.
import type { APIRoute } from 'astro';
import { site } from '../lib/site-data.ts';
import { buildLlmsFullTxt } from '../domain/discovery.ts';
import { MCP_TOOL_TEXTS } from '../domain/mcp-tools.ts';

export const GET: APIRoute = () =>
  new Response(
    buildLlmsFullTxt(
      site().urls,
      MCP_TOOL_TEXTS.map((t) => ({ name: t.name, description: t.description })),
    ),
    { headers: { 'Content-Type': 'text/plain; charset=utf-8' } },
  );
