/**
 * Honest intake: a contribution that still carries the template's placeholders
 * is refused, each placeholder named by its JSON Pointer. The template (template.ts) marks what the
 * contributor must supply in four recognizable ways; none of them is ever a real value:
 *
 *   - text starting "REPLACE:" (and slugs or keys starting "REPLACE-");
 *   - URLs on a host under ".invalid" (RFC 2606: reserved, never resolves), e.g. example.invalid;
 *   - SHA-256 digests of 64 zeros;
 *   - the timestamp 2000-01-01T00:00:00Z.
 *
 * Works on any parsed JSON (valid or not), so a request gets schema, safety and placeholder
 * errors in one answer. The walk is bounded by depth and count (the body size limit bounds it
 * too), so hostile nesting cannot make it loop.
 */
import type { FieldError } from '../validation.ts';
import { PLACEHOLDER_PREFIX, PLACEHOLDER_SHA256, PLACEHOLDER_TIMESTAMP } from './template.ts';

const MAX_DEPTH = 32;
const MAX_STRINGS = 20_000;

export const PLACEHOLDER_RULE = {
  id: 'no-template-placeholders',
  rule: `Every placeholder of the template must be replaced: text starting "${PLACEHOLDER_PREFIX}" or "REPLACE-", URLs on example.invalid (or any ".invalid" host), SHA-256 digests of 64 zeros and the timestamp ${PLACEHOLDER_TIMESTAMP} are refused, each named by its pointer. Set a field you cannot fill to null where the schema allows it.`,
} as const;

function escapePointer(segment: string): string {
  return segment.replace(/~/g, '~0').replace(/\//g, '~1');
}

/** Why `text` is a placeholder, or null when it is not one. */
export function placeholderReason(text: string): string | null {
  const t = text.trim();
  if (t.startsWith(PLACEHOLDER_PREFIX) || t.startsWith('REPLACE-'))
    return `is a template placeholder ("${t.slice(0, 60)}"); replace it with the real value`;
  if (/^https?:\/\//i.test(t)) {
    try {
      const host = new URL(t).hostname.toLowerCase();
      if (host === 'invalid' || host.endsWith('.invalid'))
        return `is a placeholder URL (host ${host} never resolves); give the real HTTPS URL`;
    } catch {
      // not a URL: the schema reports it
    }
  }
  if (t.toLowerCase() === PLACEHOLDER_SHA256)
    return 'is the placeholder digest (64 zeros); give the SHA-256 of the real file';
  if (t.startsWith(PLACEHOLDER_TIMESTAMP.slice(0, 19)))
    return `is the placeholder timestamp ${PLACEHOLDER_TIMESTAMP}; give when it really happened (UTC)`;
  return null;
}

/** Every placeholder left in a contribution body, with its pointer. */
export function checkPlaceholders(body: unknown): FieldError[] {
  const out: FieldError[] = [];
  let seen = 0;
  const walk = (value: unknown, pointer: string, depth: number): void => {
    if (depth > MAX_DEPTH || seen > MAX_STRINGS) return;
    if (typeof value === 'string') {
      seen++;
      const reason = placeholderReason(value);
      if (reason) out.push({ pointer, detail: reason });
    } else if (Array.isArray(value)) {
      for (const [i, v] of value.entries()) walk(v, `${pointer}/${i}`, depth + 1);
    } else if (value !== null && typeof value === 'object') {
      for (const [k, v] of Object.entries(value)) walk(v, `${pointer}/${escapePointer(k)}`, depth + 1);
    }
  };
  walk(body, '', 0);
  return out;
}
