/**
 * The catalog of problem types. Each `type` URL (`{base}/problems/<name>`) is a page built from
 * this list, so a caller who follows it reads what the problem means and how to fix it.
 */
export interface ProblemType {
  name: string;
  title: string;
  status: number;
  description: string;
}

export const PROBLEM_TYPES = [
  { name: 'not-found', title: 'Not found', status: 404, description: 'No resource exists at this path: the slug, tracking code or id is unknown. Check the spelling, or list the collection (for works: GET /api/v1/works).' },
  { name: 'invalid-query', title: 'Invalid query parameter', status: 400, description: 'A query parameter is outside its allowed range or has the wrong type. `errors[].parameter` names each one; the OpenAPI document lists the allowed values.' },
  { name: 'invalid-body', title: 'Invalid request body', status: 400, description: 'The JSON body violates the request model. `errors[]` lists every violation at once, each with a JSON Pointer to the field and what is wrong with it.' },
  { name: 'malformed-json', title: 'Malformed JSON', status: 400, description: 'The request body is not parseable JSON.' },
  { name: 'method-not-allowed', title: 'Method not allowed', status: 405, description: 'This path exists but does not accept the method used. The `Allow` header and the `allow` member list the methods it accepts.' },
  { name: 'unsupported-media-type', title: 'Unsupported media type', status: 415, description: 'Send JSON bodies as application/json, text/json or application/*+json.' },
  { name: 'payload-too-large', title: 'Payload too large', status: 413, description: 'The request body is larger than the documented limit for this endpoint.' },
  { name: 'range-not-satisfiable', title: 'Range not satisfiable', status: 416, description: 'The requested byte range lies outside the file. `Content-Range: bytes */<size>` gives the size; ask for a range inside it.' },
  { name: 'rate-limited', title: 'Too many requests', status: 429, description: 'You sent more requests than the rate limit allows. Wait for the number of seconds in `Retry-After` before trying again.' },
  { name: 'internal-error', title: 'Internal error', status: 500, description: 'The server failed unexpectedly. Nothing you sent was half-written; retry later, and report the problem if it persists.' },
] as const satisfies readonly ProblemType[];

export type ProblemName = (typeof PROBLEM_TYPES)[number]['name'];

export function problemType(name: ProblemName): ProblemType {
  const found = PROBLEM_TYPES.find((p) => p.name === name);
  if (!found) throw new Error(`unknown problem type ${name}`);
  return found;
}
