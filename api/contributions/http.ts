/** Rate-limit headers of the intake routes. */
import type { RateDecision } from './rate-limiter.ts';

/**
 * RateLimit headers (the widely deployed draft-ietf-httpapi-ratelimit-headers form) on every
 * answer of a limited route, so a client can pace itself before it is refused.
 */
export function rateLimitHeaders(decision: RateDecision, windowSeconds: number): Record<string, string> {
  return {
    'RateLimit-Limit': String(decision.limit),
    'RateLimit-Remaining': String(decision.remaining),
    'RateLimit-Reset': String(decision.resetSeconds),
    'RateLimit-Policy': `${decision.limit};w=${windowSeconds}`,
  };
}
