/**
 * POST /mcp: the MCP Streamable HTTP transport, stateless (a fresh server and transport per
 * request, JSON answers rather than SSE streams, Connection: close). Tools call this same Fastify instance through
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
 * no Origin (an MCP host, a CLI) is allowed; so are the service's own origin (PUBLIC_BASE_URL)
 * and the configured allow-list (ARCHIVE_MCP_ALLOWED_ORIGINS). The origin the request was
 * addressed to is not: under DNS rebinding a page at http://attacker.test reaches this server
 * with Host: attacker.test, so an Origin equal to the Host proves nothing (the Host allow-list,
 * api/http/hosts.ts, refuses that Host first).
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
    // One request per connection: a client that compiles tool schemas or thinks between calls
    // longer than the keep-alive timeout would otherwise send its next call on a socket the server
    // has closed ("fetch failed"). MCP calls are few and stateless, so a new connection each costs
    // little; Connection: close tells the client not to reuse this one.
    reply.raw.shouldKeepAlive = false;
    reply.raw.setHeader('Connection', 'close');
    reply.raw.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(request.raw, reply.raw, request.body);
  });
}
