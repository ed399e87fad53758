/**
 * Conditional and range requests (RFC 9110 13 and 14), for every answer with a strong ETag: the
 * static files, blobs, stored files and the JSON answers.
 */

/** True when an If-None-Match header matches `etag` (weak comparison, as RFC 9110 13.1.2 asks). */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header === etag) return true; // the common case: a client sending back the tag it was given
  if (header.trim() === '*') return true;
  const bare = etag.replace(/^W\//, '');
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === bare);
}

export type RangeResult =
  { kind: 'full' } | { kind: 'partial'; start: number; end: number } | { kind: 'unsatisfiable' };

/**
 * Parse a Range header for one range of `size` bytes. Several ranges, or an If-Range that no
 * longer matches, fall back to the full representation, which RFC 9110 allows.
 */
export function parseRange(
  header: string | undefined,
  size: number,
  ifRange: string | undefined,
  etag: string,
): RangeResult {
  if (!header) return { kind: 'full' };
  if (ifRange !== undefined && ifRange.trim() !== etag) return { kind: 'full' };
  const m = /^bytes=(\d*)-(\d*)$/.exec(header.trim());
  if (!m || (m[1] === '' && m[2] === '')) return { kind: 'full' };
  let start: number;
  let end: number;
  if (m[1] === '') {
    const suffix = Number(m[2]);
    if (suffix === 0) return { kind: 'unsatisfiable' };
    start = Math.max(0, size - suffix);
    end = size - 1;
  } else {
    start = Number(m[1]);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
    if (m[2] !== '' && Number(m[2]) < start) return { kind: 'full' };
  }
  if (start >= size || size === 0) return { kind: 'unsatisfiable' };
  return { kind: 'partial', start, end };
}
