/**
 * Rules for an import request beyond what its JSON Schema can say: byteLength as a number within
 * the configured maximum, one file per logical path, and listening approval only with a named
 * accountable person (spec Part 1 rule 7). Also the canonical content hash that decides whether a
 * retried idempotencyKey carries the same content.
 */
import { createHash } from 'node:crypto';
import type { FieldError } from '../validation.ts';
import type { MusicLibraryFileInput, MusicLibraryImportInput } from '../../schemas/library.ts';

/** The declared length as a number; digit strings and integers mean the same thing. */
export function byteLengthOf(value: MusicLibraryFileInput['byteLength']): number {
  return typeof value === 'number' ? value : Number(value);
}

/** Every violation of the import rules, as field errors with JSON Pointers into the body. */
export function checkImportInput(input: MusicLibraryImportInput, limits: { maxFileBytes: number }): FieldError[] {
  const errors: FieldError[] = [];
  const paths = new Map<string, number>();
  input.files.forEach((file, i) => {
    const length = byteLengthOf(file.byteLength);
    if (!Number.isSafeInteger(length) || length > limits.maxFileBytes) {
      errors.push({
        pointer: `/files/${i}/byteLength`,
        detail: `must be at most ${limits.maxFileBytes} bytes, the largest file this library accepts (got ${String(file.byteLength)})`,
      });
    }
    const prev = paths.get(file.originalRelativePath);
    if (prev !== undefined) {
      errors.push({
        pointer: `/files/${i}/originalRelativePath`,
        detail: `repeats /files/${prev}/originalRelativePath; each file of a package needs its own path`,
      });
    } else paths.set(file.originalRelativePath, i);
  });
  const { track } = input;
  if (track.reviewStatus === 'human-listening-approved') {
    const q = track.quality;
    const by =
      q !== null && typeof q === 'object' && !Array.isArray(q)
        ? (q as Record<string, unknown>).listeningApprovedBy
        : undefined;
    if (typeof by !== 'string' || by.trim() === '') {
      errors.push({
        pointer: '/track/quality/listeningApprovedBy',
        detail:
          'is required when reviewStatus is human-listening-approved: only an accountable, named person may assert listening approval',
      });
    }
  }
  return errors;
}

/** JSON with object keys sorted at every level, so equal values have equal text. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/**
 * Hash of what an import asks for, for idempotency. Spellings that mean the same thing hash the
 * same: byteLength 5 and "5", upper- and lower-case digests, key order.
 */
export function importContentHash(input: MusicLibraryImportInput): string {
  const normalized = {
    track: input.track,
    files: input.files.map((f) => ({ ...f, byteLength: byteLengthOf(f.byteLength), sha256: f.sha256.toLowerCase() })),
  };
  return createHash('sha256').update(canonicalJson(normalized)).digest('hex');
}
