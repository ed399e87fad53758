/**
 * Typed client for the Public-Domain Music Archive HTTP API: `paths` generated from the served
 * OpenAPI document (client/src/schema.ts), calls through openapi-fetch.
 *
 *   const archive = createArchiveClient('http://localhost:4321');
 *   const { data, error } = await archive.POST('/api/v1/music/resolve', { body: { channel, requirements } });
 *
 * Refusals come back as `error`: the RFC 9457 problem detail (type, status, detail, errors[]).
 */
import createClient, { type Client, type ClientOptions } from 'openapi-fetch';
import type { components, paths } from './schema.js';

export type { components, operations, paths } from './schema.js';

export type ArchiveClient = Client<paths>;
export type Problem = components['schemas']['Problem'];
export type MusicContributionInput = components['schemas']['MusicContributionInput'];
export type MusicResolveInput = components['schemas']['MusicResolveInput'];
export type ResolveResult = components['schemas']['ResolveResult'];
export type ResolveCompactResult = components['schemas']['ResolveCompactResult'];

/** Whether a resolve answer is the full one (the default) rather than the compact one (`Prefer: return=minimal`). */
export function isFullResolve(answer: ResolveResult | ResolveCompactResult): answer is ResolveResult {
  return 'search' in answer;
}

/** A client for the archive at `baseUrl` (its origin, e.g. http://localhost:4321). */
export function createArchiveClient(baseUrl: string, options: Omit<ClientOptions, 'baseUrl'> = {}): ArchiveClient {
  return createClient<paths>({ ...options, baseUrl: baseUrl.replace(/\/+$/, '') });
}
