/** RFC 9457 problem details, with `type` URLs that resolve to pages documenting each problem. */
import type { FastifyReply, FastifyRequest } from 'fastify';
import { problemType, type ProblemName } from '../../src/domain/problems.ts';
import type { ProblemFieldError } from '../../src/schemas/envelope.ts';

export interface ProblemExtras {
  errors?: ProblemFieldError[];
  status?: number;
  headers?: Record<string, string>;
  [member: string]: unknown;
}

export function problemBody(
  baseUrl: string,
  name: ProblemName,
  instance: string,
  detail: string,
  extras: ProblemExtras = {},
) {
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
export function sendProblem(
  reply: FastifyReply,
  request: FastifyRequest,
  baseUrl: string,
  name: ProblemName,
  detail: string,
  extras: ProblemExtras = {},
) {
  const body = problemBody(baseUrl, name, request.url.split('?')[0] ?? '/', detail, extras);
  for (const [k, v] of Object.entries(extras.headers ?? {})) reply.header(k, v);
  return reply.code(body.status).header('Cache-Control', 'no-store').type('application/problem+json').send(body);
}

/**
 * The one error idiom of the services: they throw a ProblemError (a problem name from the catalog
 * in src/domain/problems.ts, a detail and extra members) and the one error handler in app.ts
 * answers it as a problem detail. Routes never build error answers from service results.
 */
export class ProblemError extends Error {
  readonly problem: ProblemName;
  readonly extras: ProblemExtras;
  constructor(problem: ProblemName, detail: string, extras: ProblemExtras = {}) {
    super(detail);
    this.name = 'ProblemError';
    this.problem = problem;
    this.extras = extras;
  }
}
