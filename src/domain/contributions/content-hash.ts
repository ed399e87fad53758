/**
 * A digest of a request's meaning, not its bytes: object keys are sorted at every level, so the
 * same content sent with a different key order or spacing is "identical content" for
 * idempotency, while any changed value, added field or reordered array is not.
 */
import { createHash } from 'node:crypto';

/** JSON with object keys sorted at every level; arrays keep their order. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => (v === undefined ? 'null' : canonicalJson(v))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** SHA-256 (hex) of the canonical JSON of `value`. */
export function contentSha256(value: unknown): string {
  return createHash('sha256').update(canonicalJson(value)).digest('hex');
}

/** SHA-256 (hex) of an idempotency key: a safe file name whatever characters the key has. */
export function keySha256(key: string): string {
  return createHash('sha256').update(key, 'utf8').digest('hex');
}
