/**
 * The MCP server over an ArchiveHttp port: tools (api/mcp/tools.ts) and work records as
 * resources (`archive://works/{slug}`, read as JSON and Markdown). Built on the SDK's low-level
 * Server so the tools' JSON Schemas (from TypeBox) are published as they are, not through Zod.
 * A new Server is made per connection (stdio) or per request (stateless Streamable HTTP).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { SERVICE_NAME } from '../../src/domain/discovery.ts';
import type { ArchiveHttp } from './archive-http.ts';
import { TOOLS, ToolArgumentError, ToolRefusal } from './tools.ts';

export const MCP_SERVER_NAME = 'io.github.public-domain-music-archive/archive';
export const MCP_SERVER_VERSION = '1.0.0';
/** JSON-RPC code for "resource not found" (MCP specification, resources). */
const RESOURCE_NOT_FOUND = -32002;
const WORK_URI = /^archive:\/\/works\/([a-z0-9]+(?:-[a-z0-9]+)*)$/;
const RESOURCE_PAGE_SIZE = 100;

export const MCP_INSTRUCTIONS =
  'Find-or-prepare: call resolve_music with your channel first and reuse a candidate only when the verdict is "reuse"; otherwise get_contribution_template, ' +
  'replace every placeholder with verified facts, submit_contribution once per idempotencyKey, and follow the tracking code with get_submission_status. ' +
  'technical-pass is not listening approval; rights-review-required is not permission. Keep the work slug and asset id with every claim. ' +
  'A refused call is a tool error carrying the RFC 9457 problem detail (fix the named fields; on 429 wait Retry-After seconds).';

export function toolList(): Tool[] {
  return TOOLS.map((t) => ({
    name: t.name,
    title: t.title,
    description: t.description,
    inputSchema: t.inputSchema as Tool['inputSchema'],
    outputSchema: t.outputSchema as Tool['outputSchema'],
    annotations: {
      title: t.title,
      readOnlyHint: t.readOnly,
      destructiveHint: false,
      idempotentHint: t.idempotent,
      openWorldHint: false,
    },
  }));
}

function refusalResult(error: ToolRefusal): CallToolResult {
  const retry = error.retryAfterSeconds !== null ? ` Retry after ${error.retryAfterSeconds} s.` : '';
  return {
    isError: true,
    content: [
      { type: 'text', text: `Refused (HTTP ${error.status}): ${error.message}${retry}` },
      { type: 'text', text: JSON.stringify(error.problem) },
    ],
    _meta: {
      httpStatus: error.status,
      ...(error.retryAfterSeconds !== null ? { retryAfterSeconds: error.retryAfterSeconds } : {}),
    },
  };
}

export function createMcpServer(http: ArchiveHttp): Server {
  const server = new Server(
    { name: MCP_SERVER_NAME, title: SERVICE_NAME, version: MCP_SERVER_VERSION },
    { capabilities: { tools: {}, resources: {} }, instructions: MCP_INSTRUCTIONS },
  );

  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: toolList() }));

  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = TOOLS.find((t) => t.name === request.params.name);
    if (!tool)
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool "${request.params.name}"; tools: ${TOOLS.map((t) => t.name).join(', ')}.`,
      );
    try {
      const answer = await tool.run(request.params.arguments ?? {}, http);
      // The data once, in structuredContent; the text is a short summary (repeating the data
      // there doubled every answer an agent reads).
      return { structuredContent: answer.structured, content: [{ type: 'text', text: answer.summary }] };
    } catch (error) {
      if (error instanceof ToolRefusal) return refusalResult(error);
      if (error instanceof ToolArgumentError)
        return { isError: true, content: [{ type: 'text', text: `Invalid arguments: ${error.message}` }] };
      // The archive could not be reached (stdio pointed at a stopped server, network failure).
      return {
        isError: true,
        content: [{ type: 'text', text: `The archive could not be reached: ${(error as Error).message}` }],
      };
    }
  });

  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      {
        uriTemplate: 'archive://works/{slug}',
        name: 'work',
        title: 'Canonical work record',
        description:
          'One work record, read as two contents: the JSON record (application/json) and the same record as Markdown (text/markdown).',
        mimeType: 'application/json',
      },
    ],
  }));

  server.setRequestHandler(ListResourcesRequestSchema, async (request) => {
    const page = Math.max(1, Number.parseInt(request.params?.cursor ?? '1', 10) || 1);
    const answer = await http.request('GET', `/api/v1/works?page=${page}&pageSize=${RESOURCE_PAGE_SIZE}`);
    if (answer.status !== 200)
      throw new McpError(ErrorCode.InvalidParams, `Listing works failed with HTTP ${answer.status}.`);
    const data = (
      JSON.parse(answer.text) as {
        data: { items: { slug: string; title: string; composer?: { name?: string } }[]; totalPages: number };
      }
    ).data;
    return {
      resources: data.items.map((w) => ({
        uri: `archive://works/${w.slug}`,
        name: w.slug,
        title: w.title,
        mimeType: 'application/json',
      })),
      ...(page < data.totalPages ? { nextCursor: String(page + 1) } : {}),
    };
  });

  server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
    const uri = request.params.uri;
    const slug = WORK_URI.exec(uri)?.[1];
    if (!slug)
      throw new McpError(
        RESOURCE_NOT_FOUND,
        `Unknown resource "${uri.slice(0, 200)}"; work records are archive://works/{slug}.`,
        { uri },
      );
    const path = `/api/v1/works/${slug}`;
    const [record, markdown] = await Promise.all([http.request('GET', path), http.request('GET', `${path}/index.md`)]);
    if (record.status !== 200 || markdown.status !== 200) {
      const failed = record.status !== 200 ? record : markdown;
      let problem: unknown = failed.text;
      try {
        problem = JSON.parse(failed.text);
      } catch {
        /* keep the text */
      }
      throw new McpError(RESOURCE_NOT_FOUND, `No work record at ${uri} (HTTP ${failed.status}).`, { uri, problem });
    }
    return {
      contents: [
        { uri, mimeType: 'application/json', text: record.text },
        { uri, mimeType: 'text/markdown', text: markdown.text },
      ],
    };
  });

  return server;
}
