/** RFC 9457 problem details, with `type` URLs that resolve to pages documenting each problem. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { problemType, type ProblemName } from '../../src/domain/problems.ts';

export interface ProblemFieldError {
  pointer?: string;
  parameter?: string;
  detail: string;
}

export interface ProblemExtras {
  errors?: ProblemFieldError[];
  status?: number;
  headers?: Record<string, string>;
  [member: string]: unknown;
}

export function problemBody(baseUrl: string, name: ProblemName, instance: string, detail: string, extras: ProblemExtras = {}) {
  const t = problemType(name);
  const { headers: _headers, status, ...members } = extras;
  return {
    type: `${baseUrl}/problems/${t.name}`,
    title: t.title,
    status: status ?? t.status,
    detail,
    instance,
    ...members,
  };
}

/** Send a problem; never cached, path only in `instance` (query strings can hold secrets). */
export function sendProblem(reply: FastifyReply, request: FastifyRequest, baseUrl: string, name: ProblemName, detail: string, extras: ProblemExtras = {}) {
  const body = problemBody(baseUrl, name, request.url.split('?')[0] ?? '/', detail, extras);
  for (const [k, v] of Object.entries(extras.headers ?? {})) reply.header(k, v);
  return reply.code(body.status).header('Cache-Control', 'no-store').type('application/problem+json').send(body);
}
