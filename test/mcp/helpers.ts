/** An archive on a real loopback socket with its own data folder and rate limits (MCP and client tests). */
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { openIntakeApp, type IntakeApp } from '../contributions/helpers.ts';
import { PROJECT_ROOT } from '../helpers/app.ts';

export interface ListeningArchive extends IntakeApp {
  /** http://127.0.0.1:<port> */
  url: string;
}

export async function listenArchive(
  limits: { contributions?: string; reports?: string } = {},
  env: Record<string, string> = {},
): Promise<ListeningArchive> {
  const t = await openIntakeApp(limits, env);
  await t.app.listen({ port: 0, host: '127.0.0.1' });
  const { port } = t.app.server.address() as AddressInfo;
  return { ...t, url: `http://127.0.0.1:${port}` };
}

export type McpTransport = 'streamable-http' | 'stdio';

/**
 * An MCP client named `name` connected to `archive`: over Streamable HTTP at its /mcp, or over
 * stdio through `npm run mcp`'s entry point pointed at it.
 */
export async function mcpClient(
  archive: ListeningArchive,
  name: string,
  kind: McpTransport = 'streamable-http',
): Promise<Client> {
  const client = new Client({ name, version: '1.0.0' });
  if (kind === 'streamable-http') {
    await client.connect(new StreamableHTTPClientTransport(new URL(`${archive.url}/mcp`)));
  } else {
    await client.connect(
      new StdioClientTransport({
        command: process.execPath,
        args: [path.join(PROJECT_ROOT, 'scripts', 'mcp.ts')],
        cwd: PROJECT_ROOT,
        env: { PATH: process.env.PATH ?? '', ARCHIVE_BASE_URL: archive.url },
        stderr: 'pipe',
      }),
    );
  }
  return client;
}

/**
 * For the calling file: an archive listening on loopback (`archive`) and an MCP client named
 * `name` on its /mcp (`client`), opened in `beforeAll` and closed in `afterAll`.
 */
export function archiveWithMcpClient(name: string): { archive: ListeningArchive; client: Client } {
  const opened = {} as { archive: ListeningArchive; client: Client };
  beforeAll(async () => {
    opened.archive = await listenArchive();
    opened.client = await mcpClient(opened.archive, name);
  });
  afterAll(async () => {
    await opened.client?.close();
    await opened.archive?.close();
  });
  return opened;
}
