/**
 * Content-coding negotiation for files stored in compressed forms beside their bytes (the
 * engraved score pages, src/lib/site/precompress.ts). RFC 9110 12.5.3: a coding is acceptable
 * when the request lists it (or `*`) with a q-value above 0; identity, when not named, weighs as
 * much as the least wanted coding named; no Accept-Encoding at all means identity. Among acceptable codings the highest q wins, ties in the server's order (br, then
 * gzip, then identity). When nothing offered is acceptable the answer is identity anyway, which
 * the RFC recommends over a 406.
 */
import type { Coding } from '../../src/lib/site/precompress.ts';

export type Chosen = Coding | 'identity';

/** The server's order of preference among equal q-values. */
const ORDER: readonly Chosen[] = ['br', 'gzip', 'identity'];

/** Header values seen, with their parsed weights (browsers send a handful of distinct strings). */
const parsed = new Map<string, Map<string, number>>();
const PARSED_MAX = 256;
/** Codings per header that are looked at; the rest of an absurdly long header is ignored. */
const MAX_ENTRIES = 32;

function weights(header: string): Map<string, number> {
  const hit = parsed.get(header);
  if (hit) return hit;
  const w = new Map<string, number>();
  for (const part of header.split(',', MAX_ENTRIES)) {
    const [name = '', ...params] = part.split(';');
    const coding = name.trim().toLowerCase();
    if (coding === '') continue;
    let q = 1;
    for (const p of params) {
      const m = /^\s*q\s*=\s*([0-9](?:\.[0-9]{0,3})?)\s*$/i.exec(p);
      if (m) q = Math.min(1, Number(m[1]));
    }
    // "x-gzip" is gzip (RFC 9110 8.4.1.3).
    const key = coding === 'x-gzip' ? 'gzip' : coding;
    w.set(key, Math.max(q, w.get(key) ?? 0));
  }
  if (parsed.size >= PARSED_MAX) parsed.clear();
  parsed.set(header, w);
  return w;
}

/**
 * The coding to answer with, given the request's Accept-Encoding and the codings the file has
 * (identity always).
 */
export function chooseEncoding(header: string | undefined, available: readonly Coding[]): Chosen {
  if (header === undefined || available.length === 0) return 'identity';
  const w = weights(header);
  const star = w.get('*');
  const qOf = (c: Chosen): number => {
    const q = w.get(c);
    if (q !== undefined) return q;
    if (star !== undefined) return star;
    // Identity not named: as acceptable as the least wanted coding named (as the `negotiator`
    // package does), so "gzip;q=0.1" still means gzip rather than no coding at all.
    return c === 'identity' ? Math.min(1, ...w.values()) : 0;
  };
  let best: Chosen = 'identity';
  let bestQ = -1;
  for (const c of ORDER) {
    if (c !== 'identity' && !available.includes(c)) continue;
    const q = qOf(c);
    if (q > 0 && q > bestQ) {
      best = c;
      bestQ = q;
    }
  }
  return best;
}
