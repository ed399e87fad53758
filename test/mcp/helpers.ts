/** An archive on a real loopback socket with its own data folder and rate limits (MCP and client tests). */
import type { AddressInfo } from 'node:net';
import { openIntakeApp, type IntakeApp } from '../contributions/helpers.ts';

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
