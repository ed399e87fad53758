/**
 * One limiter in front of every credential check: the desk's and the API's sign-in, keys in
 * `Authorization: Bearer` and `X-Archive-Import-Key` on every protected route (library, curator,
 * review, metrics). It is consulted before any presented secret is compared, so while an address
 * is limited even the right key is refused: a guesser learns nothing from the answers and cannot
 * go faster than the limit through any door.
 *
 * Two buckets (token buckets, api/contributions/rate-limiter.ts):
 * - per client address (an IPv6 /64 counts as one): failed checks only, so a client using a
 *   valid key is never slowed by it; ARCHIVE_CREDENTIAL_FAILURE_LIMIT (default 10 per 60 s);
 * - per key label: every request a key authenticates, so a leaked key used from many addresses
 *   is still bounded; ARCHIVE_KEY_RATE_LIMIT (default 6,000 per 60 s).
 * Memory is bounded by the limiter's own client cap.
 */
import type { CredentialLimits } from '../config.ts';
import { RateLimiter, clientKey, type RateDecision } from '../contributions/rate-limiter.ts';

export interface CredentialRefusal {
  detail: string;
  retryAfterSeconds: number;
}

export class CredentialLimiter {
  private readonly failures: RateLimiter;
  private readonly labels: RateLimiter;

  constructor(limits: CredentialLimits, now?: () => number) {
    this.failures = new RateLimiter(limits.failuresPerAddress, now ? { now } : {});
    this.labels = new RateLimiter(limits.requestsPerKeyLabel, now ? { now } : {});
  }

  /** Before comparing anything: a refusal when this address has used up its failed checks. */
  beforeCheck(ip: string): CredentialRefusal | null {
    const decision = this.failures.peek(clientKey(ip));
    if (decision.allowed) return null;
    const s = this.failures.setting;
    return {
      detail: `Too many failed credential checks from this address (at most ${s.limit} per ${s.windowSeconds} s); no key is checked until the wait is over.`,
      retryAfterSeconds: decision.retryAfterSeconds,
    };
  }

  /** A presented secret matched no key (or not one this door accepts). */
  failed(ip: string): void {
    this.failures.take(clientKey(ip));
  }

  /** A key authenticated a request: counted against its label; a refusal when the label is over its limit. */
  admit(label: string): CredentialRefusal | null {
    const decision: RateDecision = this.labels.take(label);
    if (decision.allowed) return null;
    const s = this.labels.setting;
    return {
      detail: `The key "${label}" has made more than ${s.limit} requests in ${s.windowSeconds} s; retry after ${decision.retryAfterSeconds} s.`,
      retryAfterSeconds: decision.retryAfterSeconds,
    };
  }
}
