/**
 * POST /mcp: the MCP Streamable HTTP transport, stateless (a fresh server and transport per
 * request, JSON answers rather than SSE streams). Tools call this same Fastify instance through
 * `inject` with the caller's address, so rate limits count per client as on the HTTP API.
 * GET and DELETE /mcp answer 405 (no server-initiated streams, no sessions to end).
 */
import type { FastifyInstance } from 'fastify';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { inProcessArchive } from './archive-http.ts';
import { createMcpServer } from './server.ts';

export const MCP_PATH = '/mcp';

export function registerMcpRoutes(app: FastifyInstance): void {
  app.post(MCP_PATH, async (request, reply) => {
    const server = createMcpServer(inProcessArchive(app, request.ip));
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.hijack();
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });
}
