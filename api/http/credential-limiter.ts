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
 * Memory is bounded by the limiter's own client cap; with ARCHIVE_REDIS_URL the buckets live in
 * Redis, so a limit reached through one process or machine holds on every other.
 */
import type { CredentialLimits } from '../config.ts';
import { clientKey } from '../contributions/rate-limiter.ts';
import { MemoryStateBackend, type BucketBackend } from '../session/state-backend.ts';

export interface CredentialRefusal {
  detail: string;
  retryAfterSeconds: number;
}

export class CredentialLimiter {
  private readonly limits: CredentialLimits;
  private readonly buckets: BucketBackend;

  /** `buckets`: this process's memory by default, Redis when configured (api/session/state-backend.ts). */
  constructor(limits: CredentialLimits, options: { now?: () => number; buckets?: BucketBackend } = {}) {
    this.limits = limits;
    this.buckets = options.buckets ?? new MemoryStateBackend(options.now ? { now: options.now } : {}).buckets;
  }

  /** Before comparing anything: a refusal when this address has used up its failed checks. */
  async beforeCheck(ip: string): Promise<CredentialRefusal | null> {
    const s = this.limits.failuresPerAddress;
    const decision = await this.buckets.decide('credential-failures', s, clientKey(ip), false);
    if (decision.allowed) return null;
    return {
      detail: `Too many failed credential checks from this address (at most ${s.limit} per ${s.windowSeconds} s); no key is checked until the wait is over.`,
      retryAfterSeconds: decision.retryAfterSeconds,
    };
  }

  /** A presented secret matched no key (or not one this door accepts). */
  async failed(ip: string): Promise<void> {
    await this.buckets.decide('credential-failures', this.limits.failuresPerAddress, clientKey(ip), true);
  }

  /** A key authenticated a request: counted against its label; a refusal when the label is over its limit. */
  async admit(label: string): Promise<CredentialRefusal | null> {
    const s = this.limits.requestsPerKeyLabel;
    const decision = await this.buckets.decide('key-label', s, label, true);
    if (decision.allowed) return null;
    return {
      detail: `The key "${label}" has made more than ${s.limit} requests in ${s.windowSeconds} s; retry after ${decision.retryAfterSeconds} s.`,
      retryAfterSeconds: decision.retryAfterSeconds,
    };
  }
}
