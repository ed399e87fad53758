/**
 * Response tokens (docs/decisions/0027-response-tokens-are-derived.md): the secret a submitter answers a request for information
 * with. A token is derived from the tracking code with a server secret (HMAC-SHA256), so every
 * answer to the same submission -- the first 202, an idempotent replay, a concurrent duplicate,
 * a retry that completes a claim after a crash -- carries the same token without the token ever
 * being stored: records keep only its SHA-256, and checks compare digests in constant time.
 * Knowing the tracking code is not enough: deriving needs the server secret, and a replay needs
 * the idempotencyKey and the identical content (docs/contributions.md, "Answering").
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { RESPONSE_TOKEN_PATTERN, RESPONSE_TOKEN_PREFIX } from '../../schemas/answer.ts';

const TOKEN = new RegExp(RESPONSE_TOKEN_PATTERN);
/** Domain separation: this secret derives nothing else, and a future scheme gets a new label. */
const LABEL = 'pdma response token v1\n';

/** The response token of `trackingCode` under `secret` (at least 32 bytes). */
export function deriveResponseToken(secret: Uint8Array, trackingCode: string): string {
  if (secret.length < 32) throw new Error('the response-token secret must be at least 32 bytes');
  return (
    RESPONSE_TOKEN_PREFIX +
    createHmac('sha256', secret)
      .update(LABEL + trackingCode, 'utf8')
      .digest('base64url')
  );
}

/** SHA-256 (hex) of a token: what a record stores. */
export function responseTokenSha256(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** Whether a string has the form of a response token (to refuse one sent in a URL). */
export function looksLikeResponseToken(text: string): boolean {
  return TOKEN.test(text.trim());
}

/**
 * Whether `presented` is the token whose digest is stored. Both sides are 32-byte digests
 * compared with timingSafeEqual, so the time taken says nothing about how much matched; a
 * missing digest (a record from before tokens) matches nothing.
 */
export function responseTokenMatches(presented: string | undefined, storedSha256: string | null | undefined): boolean {
  if (typeof presented !== 'string' || !storedSha256 || !/^[0-9a-f]{64}$/.test(storedSha256)) return false;
  const given = createHash('sha256').update(presented, 'utf8').digest();
  return timingSafeEqual(given, Buffer.from(storedSha256, 'hex'));
}
