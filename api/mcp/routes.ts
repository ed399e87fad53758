/**
 * POST /mcp: the MCP Streamable HTTP transport, stateless (a fresh server and transport per
 * request, JSON answers rather than SSE streams). Tools call this same Fastify instance through
 * `inject` with the caller's address, so rate limits count per client as on the HTTP API.
 * GET and DELETE /mcp answer 405 (no server-initiated streams, no sessions to end).
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ProblemError } from '../http/problem.ts';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { inProcessArchive } from './archive-http.ts';
import { createMcpServer } from './server.ts';

export const MCP_PATH = '/mcp';

/**
 * Whether a request's Origin may use /mcp. The MCP transport asks servers to refuse an untrusted
 * Origin (a page on another site must not drive an agent's tools through a reader's browser):
 * no Origin (an MCP host, a CLI) is allowed; so are the service's own origin (PUBLIC_BASE_URL, or
 * the origin the request was addressed to) and the configured allow-list.
 */
export function originAllowed(request: FastifyRequest, publicBaseUrl: string, allowed: readonly string[]): boolean {
  const origin = request.headers.origin;
  if (origin === undefined) return true;
  if (allowed.includes('*')) return true;
  if (origin === 'null') return false;
  let parsed: string;
  try {
    parsed = new URL(origin).origin;
  } catch {
    return false;
  }
  if (parsed === new URL(publicBaseUrl).origin) return true;
  if (parsed === `${request.protocol}://${request.host}`) return true;
  return allowed.includes(parsed);
}

export function registerMcpRoutes(
  app: FastifyInstance,
  settings: { publicBaseUrl: string; allowedOrigins: readonly string[] } = {
    publicBaseUrl: 'http://localhost:4321',
    allowedOrigins: [],
  },
): void {
  app.post(MCP_PATH, async (request, reply) => {
    if (!originAllowed(request, settings.publicBaseUrl, settings.allowedOrigins))
      throw new ProblemError(
        'origin-not-allowed',
        `Origin ${String(request.headers.origin).slice(0, 200)} may not use ${MCP_PATH}: only the service's own origin and ARCHIVE_MCP_ALLOWED_ORIGINS are allowed (MCP hosts send no Origin).`,
      );
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
