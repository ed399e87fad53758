/**
 * A local HTTPS server for tests that fetch contributor files (docs/review-infra.md).
 *
 *   const server = await startHttpsServer({
 *     '/score.musicxml': { body: readFileSync(file), contentType: 'application/vnd.recordare.musicxml+xml' },
 *     '/moved': { redirect: 'https://localhost:1234/score.musicxml' },   // 302 by default
 *     '/slow': { stall: true },                                          // headers, then nothing
 *   });
 *   await fetchContributorFile(`${server.url}/score.musicxml`, blobs, { ..., ca: server.ca, allowHosts: [`localhost:${server.port}`] });
 *   await server.close();
 *
 * - `url` is `https://localhost:<port>` (no trailing slash); `port` and `requests` (paths asked
 *   for, in order) are exposed too. Routes may be added later with `server.routes[path] = ...`.
 * - The certificate is self-signed for `localhost` and `127.0.0.1`, generated once per process
 *   with openssl into a temp dir. Trust it only by passing `ca` to the client under test.
 * - The server listens on 127.0.0.1 only. Unknown paths answer 404.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { IncomingMessage, ServerResponse } from 'node:http';

export type HttpsRoute =
  | {
      body: string | Buffer;
      contentType?: string;
      status?: number;
      /** Send no Content-Length (chunked). */ chunked?: boolean;
      /** Announce this Content-Length instead of the real one. */ contentLength?: number;
    }
  | { redirect: string; status?: number }
  | { stall: true }
  | { handler: (req: IncomingMessage, res: ServerResponse) => void };

export interface HttpsTestServer {
  url: string;
  port: number;
  /** PEM of the self-signed certificate: pass it as `ca` to trust this server. */
  ca: string;
  routes: Record<string, HttpsRoute>;
  requests: string[];
  close(): Promise<void>;
}

let cached: { key: string; cert: string } | null = null;

/** A self-signed key pair for localhost / 127.0.0.1 (generated once per test process). */
export function selfSignedCertificate(): { key: string; cert: string } {
  if (cached) return cached;
  const dir = mkdtempSync(path.join(os.tmpdir(), 'pdma-cert-'));
  try {
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=DNS:localhost,IP:127.0.0.1',
        '-days',
        '1',
        '-keyout',
        'k.pem',
        '-out',
        'c.pem',
      ],
      { cwd: dir, stdio: 'ignore' },
    );
    cached = {
      key: readFileSync(path.join(dir, 'k.pem'), 'utf8'),
      cert: readFileSync(path.join(dir, 'c.pem'), 'utf8'),
    };
    return cached;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export async function startHttpsServer(routes: Record<string, HttpsRoute> = {}): Promise<HttpsTestServer> {
  const { key, cert } = selfSignedCertificate();
  const requests: string[] = [];
  const table: Record<string, HttpsRoute> = { ...routes };
  const server = https.createServer({ key, cert }, (req, res) => {
    const p = (req.url ?? '/').split('?')[0]!;
    requests.push(p);
    const route = table[p];
    if (!route) {
      res.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
      return;
    }
    if ('handler' in route) return route.handler(req, res);
    if ('stall' in route) {
      // Headers go out, the body never comes: the client's timeout has to end it.
      res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
      res.write('x');
      return;
    }
    if ('redirect' in route) {
      res.writeHead(route.status ?? 302, { Location: route.redirect }).end();
      return;
    }
    const body = typeof route.body === 'string' ? Buffer.from(route.body) : route.body;
    const headers: Record<string, string | number> = {
      'Content-Type': route.contentType ?? 'application/octet-stream',
    };
    if (!route.chunked) headers['Content-Length'] = route.contentLength ?? body.length;
    res.writeHead(route.status ?? 200, headers);
    res.end(body);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `https://localhost:${port}`,
    port,
    ca: cert,
    routes: table,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Contributor files (path -> bytes) over HTTPS, each typed by its extension as a file host would. */
export function contributorFileServer(files: Record<string, Buffer>): Promise<HttpsTestServer> {
  const typeOf = (p: string) =>
    p.endsWith('.mp3')
      ? 'audio/mpeg'
      : p.endsWith('.mxl')
        ? 'application/vnd.recordare.musicxml'
        : 'application/vnd.recordare.musicxml+xml';
  return startHttpsServer(
    Object.fromEntries(Object.entries(files).map(([p, body]) => [p, { body, contentType: typeOf(p) }])),
  );
}

/**
 * The archive's fetch options for a test whose contributor files come from `server`: its
 * self-signed certificate trusted, only its host and port allowed.
 */
export function fetchOptionsTrusting(server: HttpsTestServer, timeoutMs = 20_000) {
  return {
    ca: server.ca,
    allowHosts: [`localhost:${server.port}`, `127.0.0.1:${server.port}`],
    timeoutMs,
    maxBytes: 10 * 1024 * 1024,
  };
}
