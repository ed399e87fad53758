/**
 * Intake limits and their wording in one place, so the server, the OpenAPI document, the
 * discovery documents (/api/v1, llms.txt) and the docs state the same numbers.
 */

/** Default allowance per client address and endpoint; ARCHIVE_*_RATE_LIMIT override it at run time. */
export const DEFAULT_RATE_LIMIT = { limit: 20, windowSeconds: 60 } as const;
export const RATE_LIMIT_VARIABLES = {
  contributions: 'ARCHIVE_CONTRIBUTION_RATE_LIMIT',
  correctionReports: 'ARCHIVE_CORRECTION_RATE_LIMIT',
} as const;

/** Largest accepted bodies, in bytes. */
export const CONTRIBUTION_BODY_LIMIT = 256 * 1024;
export const CORRECTION_BODY_LIMIT = 64 * 1024;

export const kib = (bytes: number) => `${bytes / 1024} KiB`;

/** The rate-limit policy in one paragraph (API index conventions, llms.txt, OpenAPI). */
export const RATE_LIMIT_POLICY =
  `Public submissions (POST /api/v1/music/contributions and POST /api/v1/correction-reports) are rate-limited per client address: ` +
  `by default ${DEFAULT_RATE_LIMIT.limit} requests per ${DEFAULT_RATE_LIMIT.windowSeconds} seconds for each endpoint, as a bucket that allows a burst of that size ` +
  `and refills steadily (operators set ${RATE_LIMIT_VARIABLES.contributions} and ${RATE_LIMIT_VARIABLES.correctionReports}, "<requests>/<seconds>"). ` +
  'Every answer of those endpoints carries RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset (seconds until the allowance is full) and RateLimit-Policy; ' +
  'over the limit the answer is 429 with Retry-After (seconds): wait that long, then retry. Invalid requests count too. Reads are not rate-limited.';

/** Body limits in one sentence. */
export const BODY_LIMIT_POLICY = `Request bodies: at most ${kib(CONTRIBUTION_BODY_LIMIT)} for a contribution and ${kib(CORRECTION_BODY_LIMIT)} for a correction report (413 beyond).`;
