/**
 * `npm run mcp`: the archive's MCP server over stdio, for MCP hosts that start a local process.
 * Its tools call a running archive over HTTP at ARCHIVE_BASE_URL (default http://localhost:4321),
 * so they answer exactly what the HTTP API answers. Logs go to stderr; stdout is the protocol.
 */
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { remoteArchive } from '../api/mcp/archive-http.ts';
import { createMcpServer } from '../api/mcp/server.ts';
import { serverAddress } from './lib/server-address.ts';

let baseUrl: string;
try {
  baseUrl = serverAddress(undefined).url;
} catch (err) {
  process.stderr.write(`${(err as Error).message}\n`);
  process.exit(2);
}
const server = createMcpServer(remoteArchive(baseUrl));
await server.connect(new StdioServerTransport());
process.stderr.write(`archive MCP server on stdio, calling ${baseUrl}\n`);
