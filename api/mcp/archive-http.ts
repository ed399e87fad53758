/**
 * The one way MCP tools reach the archive: its public HTTP API. Over stdio the port is real HTTP
 * to ARCHIVE_BASE_URL; at /mcp it is Fastify's `inject` on the same server with the caller's
 * address kept, so validation, idempotency and per-client rate limits are exactly those of HTTP.
 */
import type { FastifyInstance } from 'fastify';

export interface HttpAnswer {
  status: number;
  /** Lower-case header names. */
  headers: Record<string, string>;
  text: string;
}

export interface ArchiveHttp {
  /** `headers`: extra request headers (the answer tool's response token travels in one, never in the path). */
  request(method: 'GET' | 'POST', path: string, body?: unknown, headers?: Record<string, string>): Promise<HttpAnswer>;
}

/** Real HTTP to a running archive (stdio server, typed client). */
export function remoteArchive(baseUrl: string, fetchImpl: typeof fetch = fetch): ArchiveHttp {
  const root = baseUrl.replace(/\/+$/, '');
  return {
    async request(method, path, body, extra = {}) {
      let res: Response;
      try {
        res = await fetchImpl(`${root}${path}`, {
          method,
          headers: {
            ...extra,
            accept: 'application/json, application/problem+json, text/markdown;q=0.9',
            ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
          },
          ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
        });
      } catch (error) {
        const cause = (error as Error & { cause?: { code?: string } }).cause?.code ?? (error as Error).message;
        throw new Error(
          `${method} ${root}${path} failed (${cause}); is the archive running there? Set ARCHIVE_BASE_URL.`,
        );
      }
      const headers: Record<string, string> = {};
      res.headers.forEach((value, name) => (headers[name.toLowerCase()] = value));
      return { status: res.status, headers, text: await res.text() };
    },
  };
}

/** The same server, in process, answering as if `remoteAddress` had called it. */
export function inProcessArchive(app: FastifyInstance, remoteAddress: string): ArchiveHttp {
  return {
    async request(method, path, body, extra = {}) {
      const res = await app.inject({
        method,
        url: path,
        remoteAddress,
        headers: { ...extra, ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
        ...(body !== undefined ? { payload: JSON.stringify(body) } : {}),
      });
      const headers: Record<string, string> = {};
      for (const [name, value] of Object.entries(res.headers))
        if (value !== undefined) headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value);
      return { status: res.statusCode, headers, text: res.body };
    },
  };
}
