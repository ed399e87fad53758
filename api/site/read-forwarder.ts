/**
 * A read process's way to the write process (api/site/read-processes.ts): the writer's Unix
 * socket, and the forwarder that passes on every request a reader does not answer itself.
 */
import { Agent, request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { request as httpsRequest, Agent as HttpsAgent } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { problemBody } from '../http/problem.ts';

/** The Unix socket the write process listens on for its read processes (short: sun_path holds 107 bytes). */
export function writerSocketPath(pid = process.pid): string {
  return path.join(tmpdir(), `archive-writer-${pid}.sock`);
}

/** Where a read process sends what it does not answer. */
export type WriterLink = { socketPath: string } | { url: string };

/** Headers of one hop only (RFC 9110 7.6.1), never passed on. */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'te',
  'trailer',
  'upgrade',
]);

function passOn(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || HOP_BY_HOP.has(name)) continue;
    out[name] = value;
  }
  return out;
}

/**
 * Forward a request to the write process, streaming its body and the answer. The client's
 * address travels in X-Forwarded-For (replacing anything the client sent), which the writer
 * believes on its Unix socket only (or from the machines in its ARCHIVE_TRUSTED_PROXIES).
 * A writer that cannot be reached is a 503 problem; nothing was done.
 */
export function createForwarder(link: WriterLink, baseUrl: string) {
  const socketPath = 'socketPath' in link ? link.socketPath : null;
  const url = 'url' in link ? new URL(link.url) : null;
  const secure = url?.protocol === 'https:';
  const agent = secure
    ? new HttpsAgent({ keepAlive: true, maxSockets: 64 })
    : new Agent({ keepAlive: true, maxSockets: 64 });
  return function forward(request: FastifyRequest, reply: FastifyReply): void {
    reply.hijack();
    const req = request.raw;
    const res = reply.raw;
    const headers = passOn(req.headers);
    headers['x-forwarded-for'] = request.ip;
    headers['x-forwarded-proto'] = request.protocol;
    const options = {
      method: req.method,
      path: req.url ?? '/',
      headers,
      agent,
      ...(socketPath !== null ? { socketPath } : { host: url!.hostname, port: url!.port || (secure ? 443 : 80) }),
    };
    const out = (secure ? httpsRequest : httpRequest)(options, (answer) => {
      const h = passOn(answer.headers);
      res.writeHead(answer.statusCode ?? 502, h);
      answer.pipe(res);
      answer.on('error', () => res.destroy());
    });
    out.on('error', (err: Error & { code?: string }) => {
      if (res.headersSent) {
        res.destroy();
        return;
      }
      const body = JSON.stringify(
        problemBody(
          baseUrl,
          'not-ready',
          (req.url ?? '/').split('?')[0] ?? '/',
          `This read process forwards writes to the write process, which did not answer (${err.code ?? err.message}); nothing was done. Retry in a few seconds.`,
        ),
      );
      res.writeHead(503, {
        'Content-Type': 'application/problem+json',
        'Content-Length': Buffer.byteLength(body),
        'Cache-Control': 'no-store',
        'X-Content-Type-Options': 'nosniff',
        'Retry-After': '5',
      });
      res.end(body);
    });
    res.on('close', () => {
      if (!res.writableFinished) out.destroy();
    });
    req.pipe(out);
  };
}
