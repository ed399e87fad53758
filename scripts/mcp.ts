/**
 * `npm run mcp`: the archive's MCP server over stdio, for MCP hosts that start a local process.
 * Its tools call a running archive over HTTP at ARCHIVE_BASE_URL (default http://localhost:4321),
 * so they answer exactly what the HTTP API answers. Logs go to stderr; stdout is the protocol.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { remoteArchive } from '../api/mcp/archive-http.ts';
import { createMcpServer } from '../api/mcp/server.ts';

const baseUrl = process.env.ARCHIVE_BASE_URL?.trim() || 'http://localhost:4321';
try {
  new URL(baseUrl);
} catch {
  process.stderr.write(`ARCHIVE_BASE_URL must be an absolute http(s) URL (got "${baseUrl}")\n`);
  process.exit(2);
}
const server = createMcpServer(remoteArchive(baseUrl));
await server.connect(new StdioServerTransport());
process.stderr.write(`archive MCP server on stdio, calling ${baseUrl}\n`);
