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
  {
    name: 'not-found',
    title: 'Not found',
    status: 404,
    description:
      'No resource exists at this path: the slug, tracking code or id is unknown. Check the spelling, or list the collection (for works: GET /api/v1/works).',
  },
  {
    name: 'invalid-query',
    title: 'Invalid query parameter',
    status: 400,
    description:
      'A query parameter is outside its allowed range or has the wrong type. `errors[].parameter` names each one; the OpenAPI document lists the allowed values.',
  },
  {
    name: 'invalid-body',
    title: 'Invalid request body',
    status: 400,
    description:
      'The JSON body violates the request model. `errors[]` lists every violation at once, each with a JSON Pointer to the field and what is wrong with it.',
  },
  {
    name: 'malformed-json',
    title: 'Malformed JSON',
    status: 400,
    description: 'The request body is not parseable JSON.',
  },
  {
    name: 'method-not-allowed',
    title: 'Method not allowed',
    status: 405,
    description:
      'This path exists but does not accept the method used. The `Allow` header and the `allow` member list the methods it accepts.',
  },
  {
    name: 'unsupported-media-type',
    title: 'Unsupported media type',
    status: 415,
    description: 'Send JSON bodies as application/json, text/json or application/*+json.',
  },
  {
    name: 'payload-too-large',
    title: 'Payload too large',
    status: 413,
    description: 'The request body is larger than the documented limit for this endpoint.',
  },
  {
    name: 'engraving-over-budget',
    title: 'The score is over the engraving budget',
    status: 422,
    description:
      'Engraving this score used more CPU time or memory than the budget each score gets (ARCHIVE_ENGRAVE_CPU_MS, measured on the engraving thread itself, so a busy machine does not spend it; ARCHIVE_ENGRAVE_MEMORY_MB), or made no progress past the wall-clock backstop (ARCHIVE_ENGRAVE_TIMEOUT_MS times the load per core); it was stopped so the server stays responsive. `limit` names the budget ("cpu", "memory" or "time"), `budget` its value (ms or MiB) and `setting` the variable that sets it. The file itself is kept; an operator may raise the budget.',
  },
  {
    name: 'range-not-satisfiable',
    title: 'Range not satisfiable',
    status: 416,
    description:
      'The requested byte range lies outside the file. `Content-Range: bytes */<size>` gives the size; ask for a range inside it.',
  },
  {
    name: 'rate-limited',
    title: 'Too many requests',
    status: 429,
    description:
      'You sent more requests than the rate limit allows. Wait for the number of seconds in `Retry-After` before trying again.',
  },
  {
    name: 'idempotency-conflict',
    title: 'Idempotency key reused with different content',
    status: 422,
    description:
      'This idempotencyKey was already used for a request with different content. Retrying with the same key is only safe with identical content; send changed content with a new idempotencyKey.',
  },
  {
    name: 'request-in-flight',
    title: 'Same request still in progress',
    status: 409,
    description:
      'An identical request with this idempotency key is still being processed. Retry after a moment to get its answer.',
  },
  {
    name: 'unauthorized',
    title: 'Missing or wrong key',
    status: 401,
    description:
      'This route needs a key, sent in the X-Archive-Import-Key header or as Authorization: Bearer <key>. Keys are configured by the operator (ARCHIVE_LIBRARY_KEYS, ARCHIVE_CURATOR_KEYS, ARCHIVE_ADMIN_KEYS, and ARCHIVE_METRICS_KEYS for /metrics; comma-separated); with none configured, the route refuses every request.',
  },
  {
    name: 'invalid-response-token',
    title: 'Missing or wrong response token',
    status: 401,
    description:
      "Answering a reviewer's request for information needs the response token that the 202 answer to your submission carried, sent in the Archive-Response-Token header (never in the URL). A missing or wrong token changes nothing. A contribution stored before tokens existed gets its token by repeating its POST (same idempotencyKey, identical content).",
  },
  {
    name: 'forbidden',
    title: 'Key lacks the role',
    status: 403,
    description:
      'The key is valid but its role may not perform this action (for example, publication needs a curator key).',
  },
  {
    name: 'origin-not-allowed',
    title: 'Origin not allowed',
    status: 403,
    description:
      'A browser page on another site may not call /mcp (MCP transport security). MCP hosts and command-line clients send no Origin and are allowed; an operator lists other trusted origins in ARCHIVE_MCP_ALLOWED_ORIGINS.',
  },
  {
    name: 'host-not-allowed',
    title: 'Host not allowed',
    status: 421,
    description:
      "The request was addressed to a host name this service is not known by (its Host header, or the forwarded host behind a trusted proxy). Only the public base URL's host, the loopback names and the names an operator lists in ARCHIVE_ALLOWED_HOSTS are answered; this refuses pages that point another name at the service (DNS rebinding).",
  },
  {
    name: 'key-in-url',
    title: 'Key in the URL',
    status: 400,
    description:
      'A key (or something that looks like one) was sent in the URL query. Keys must never appear in URLs; send it in the X-Archive-Import-Key or Authorization header, and rotate the exposed key.',
  },
  {
    name: 'offset-mismatch',
    title: 'Upload offset mismatch',
    status: 409,
    description:
      'The offset does not equal the bytes the server already has. Read the import record, resume from its receivedBytes, and send the rest.',
  },
  {
    name: 'conflict',
    title: 'Conflict with the current state',
    status: 409,
    description:
      "The request conflicts with the resource's current state (for example, an upload to an import that is already committed, or an illegal review transition). `detail` names the current state.",
  },
  {
    name: 'digest-mismatch',
    title: 'Length or digest mismatch',
    status: 422,
    description:
      'Files on the server do not match their declared byte length or SHA-256. Nothing was committed; `files[]` lists expected and actual values; upload those files again.',
  },
  {
    name: 'publication-refused',
    title: 'Publication refused',
    status: 422,
    description:
      'The package is not eligible for publication. `reasons[]` lists each failed condition (public-domain arrangement, attached rights evidence, technical pass).',
  },
  {
    name: 'bad-request',
    title: 'Bad request',
    status: 400,
    description:
      'The HTTP request itself could not be read: a malformed request line, broken percent-encoding in the path, a forbidden character in a header or an unknown method. Nothing was changed.',
  },
  {
    name: 'headers-too-large',
    title: 'Request header fields too large',
    status: 431,
    description: 'The request headers are larger than the server accepts. Send fewer or shorter headers.',
  },
  {
    name: 'not-ready',
    title: 'Not ready',
    status: 503,
    description:
      'The service is running but cannot serve yet: `checks` names what is not ready (the served build, the content repository or storage) and why. Retry after `Retry-After` seconds; an operator fixes what the check names.',
  },
  {
    name: 'shutting-down',
    title: 'Shutting down',
    status: 503,
    description:
      'The service is stopping (a graceful stop: requests already in progress finish, new ones are refused). Nothing was changed; retry after `Retry-After` seconds, when it (or another instance) answers again.',
  },
  {
    name: 'sign-in-required',
    title: 'Sign-in required',
    status: 401,
    description:
      'This file is available to signed-in readers only. Sign in with GitHub at the `signIn` URL (GET /api/v1/reader/sign-in in a browser), then follow the link again in the same browser: the session is an HttpOnly cookie.',
  },
  {
    name: 'signed-in-download-not-offered',
    title: 'Signed-in download is not offered',
    status: 404,
    description:
      'Signed-in download is not offered by this archive: it has no reader sign-in configured (GITHUB_OAUTH_CLIENT_ID and GITHUB_OAUTH_CLIENT_SECRET), so files for signed-in users cannot be downloaded here. Public files stay available at their public links.',
  },
  {
    name: 'administrator-only',
    title: 'Administrator-only for now',
    status: 403,
    description:
      'This file is temporarily available to administrators only (for example while its rights are under review). No reader sign-in grants it; it is not downloadable through the archive until the editors make it public or signed-in.',
  },
  {
    name: 'sign-in-failed',
    title: 'Sign-in failed',
    status: 400,
    description:
      'The GitHub sign-in could not be completed: it was cancelled, it expired (a sign-in must finish within 10 minutes, in the browser that started it), its state did not match, or GitHub refused the code. Start again at GET /api/v1/reader/sign-in.',
  },
  {
    name: 'sign-in-provider-unavailable',
    title: 'Sign-in provider unavailable',
    status: 502,
    description:
      'GitHub did not answer the archive during sign-in (no answer, an error status or an unreadable answer). Nothing was stored; try signing in again later.',
  },
  {
    name: 'internal-error',
    title: 'Internal error',
    status: 500,
    description:
      'The server failed unexpectedly. Nothing you sent was half-written; retry later, and report the problem if it persists.',
  },
] as const satisfies readonly ProblemType[];

export type ProblemName = (typeof PROBLEM_TYPES)[number]['name'];

export function problemType(name: ProblemName): ProblemType {
  const found = PROBLEM_TYPES.find((p) => p.name === name);
  if (!found) throw new Error(`unknown problem type ${name}`);
  return found;
}
