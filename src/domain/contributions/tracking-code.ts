/**
 * Public tracking codes for contributions ("C-...") and correction reports ("R-..."). They are
 * crypto-random (never sequential, so a code reveals nothing about others), and use an alphabet
 * without 0/O, 1/I/L so they survive being read aloud and typed by hand.
 *
 * Four groups of four: 16 symbols from 31 carry 79 bits. Three groups (12 symbols) would carry
 * only 59.4 bits, under the 60-bit floor we hold unguessable codes to.
 */
import { randomBytes } from 'node:crypto';
import type { SubmissionKind } from '../../schemas/contribution.ts';

export const TRACKING_ALPHABET = '23456789ABCDEFGHJKMNPQRSTUVWXYZ';
export const TRACKING_GROUPS = 4;
export const TRACKING_GROUP_SIZE = 4;
export const TRACKING_PREFIXES: Record<SubmissionKind, string> = { contribution: 'C', 'correction-report': 'R' };

const SYMBOLS = TRACKING_GROUPS * TRACKING_GROUP_SIZE;
/** Bits of randomness in one code. */
export const TRACKING_CODE_BITS = SYMBOLS * Math.log2(TRACKING_ALPHABET.length);

/** Bytes at or above this value are discarded, so every symbol is equally likely (no modulo bias). */
const UNBIASED_LIMIT = 256 - (256 % TRACKING_ALPHABET.length);

/** A fresh code such as "C-7KQM-T4XH-R2PZ-9WNB". `random` is injectable for tests. */
export function generateTrackingCode(kind: SubmissionKind, random: (size: number) => Uint8Array = randomBytes): string {
  const symbols: string[] = [];
  while (symbols.length < SYMBOLS) {
    for (const byte of random(SYMBOLS * 2)) {
      if (byte >= UNBIASED_LIMIT) continue;
      symbols.push(TRACKING_ALPHABET[byte % TRACKING_ALPHABET.length]!);
      if (symbols.length === SYMBOLS) break;
    }
  }
  return format(TRACKING_PREFIXES[kind], symbols.join(''));
}

function format(prefix: string, body: string): string {
  const groups: string[] = [];
  for (let i = 0; i < body.length; i += TRACKING_GROUP_SIZE) groups.push(body.slice(i, i + TRACKING_GROUP_SIZE));
  return [prefix, ...groups].join('-');
}

/**
 * The canonical form of a code typed by a person, or null when it cannot be one of `kind`:
 * case is ignored, and hyphens and spaces may be left out or misplaced.
 */
export function normalizeTrackingCode(input: string, kind: SubmissionKind): string | null {
  if (input.length > 64) return null;
  const compact = input.toUpperCase().replace(/[\s-]+/g, '');
  const prefix = TRACKING_PREFIXES[kind];
  if (compact.length !== SYMBOLS + 1 || !compact.startsWith(prefix)) return null;
  const body = compact.slice(1);
  for (const ch of body) if (!TRACKING_ALPHABET.includes(ch)) return null;
  return format(prefix, body);
}
