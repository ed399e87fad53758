/**
 * The resolve half of an index overlay, data only: per added or changed work, what the resolve
 * catalog holds about it (`ResolveWorkRow`: column values and widened words, from the same
 * `resolveRowBuilder` the whole-catalog build uses), computed against the base's meaning
 * vocabulary. A layer writes them (`resolve-overlay.json`, every work its listing overlay holds)
 * and the server lays them over the plain base's loaded catalog (`layerResolveCatalog`,
 * src/domain/resolve/catalog-layer.ts); `mergeResolveCatalog` (src/domain/resolve/catalog-merge.ts)
 * merges them into the changed catalog's resolve catalog where a plain folder is made from a
 * layer. See docs/decisions/0049-resolve-overlay-one-numbering.md.
 *
 * Rows are checked equal to what a fresh build of the changed catalog holds for the work while
 * the catalog-wide meaning vocabulary is unchanged. That vocabulary is built from the catalog's
 * genres and periods (resolve.idx stores its terms), so a change bringing a genre or period the
 * base does not have is reported (`vocabularyChanges`): the rows themselves do not depend on
 * those terms today (a genre or period term has no broader term, and widening adds only broader
 * terms' words), but the stored terms would differ from a fresh build's, so the writer compacts.
 */
import type { WorkRecord } from '../../schemas/work.ts';
import type { InstrumentRecord } from '../../schemas/profile.ts';
import type { ProfileHead } from './profiles.ts';
import { resolveRowBuilder, type ArrangementRow, type ResolveWorkRow } from '../resolve/catalog.ts';
import { Meaning, buildVocabulary } from '../vocabulary/meaning.ts';
import { OVERLAY_LIMITS, OverlayError, isObject, overlayFileObject } from './works-overlay.ts';

export const RESOLVE_OVERLAY_FORMAT = 1;

export interface ResolveOverlay {
  /** Rows of the added or changed works, by sort key. */
  works: ResolveWorkRow[];
}

/**
 * A layer's resolve catalog as written (index-files.ts `layerOverlayFiles`): the rows of every
 * work its listing overlay holds, laid over the plain base's resolve.idx when read, and the
 * counts its catalog.json states.
 */
export interface LaidResolve {
  overlay: ResolveOverlay;
  workCount: number;
  arrangementCount: number;
}

export interface ResolveChange {
  /** The base's meaning vocabulary (resolve.idx holds its terms). */
  meaning: Meaning;
  profiles: ProfileHead[];
  instruments: InstrumentRecord[];
  /** Records of the works added or changed (and of those the previous overlay holds, still current). */
  changed: WorkRecord[];
}

/**
 * The rows of `changed`, and the meaning terms a fresh build of the changed catalog would have
 * that the base lacks ("style:nocturne"): when there are any, the rows are not what a fresh build
 * holds. A change that removes the last work of a genre or period is not seen here (the base
 * does not count works per genre): its stale term stays until the next compaction.
 */
export function buildResolveOverlay(change: ResolveChange): { overlay: ResolveOverlay; vocabularyChanges: string[] } {
  const rowOf = resolveRowBuilder(new Map(change.profiles.map((p) => [p.slug, p])), change.instruments, change.meaning);
  const works = change.changed.map(rowOf).sort((a, b) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0));
  // The terms the changed works alone would bring (without synonyms: only the terms' names matter here).
  const have = new Set(change.meaning.terms.map((t) => `${t.facet}:${t.term}`));
  const wanted = buildVocabulary(
    {
      instruments: change.instruments,
      genres: [...new Set(change.changed.map((r) => r.genre))].sort().map((name) => ({ name })),
      periods: [...new Set(change.changed.map((r) => r.period))].sort(),
    },
    null,
  );
  const vocabularyChanges = [...new Set(wanted.map((t) => `${t.facet}:${t.term}`))].filter((k) => !have.has(k));
  return { overlay: { works }, vocabularyChanges };
}

// ---------- file ----------

/** Column values' ranges (the typed arrays resolve.idx stores them in). */
const COLUMN_RANGES: ReadonlyArray<
  [Exclude<keyof ArrangementRow, 'style' | 'instrumentation' | 'mood'>, number, number]
> = [
  ['roleMask', 0, 0xff],
  ['intendedBit', 0, 0xff],
  ['narrationClass', 0, 0xff],
  ['usableMask', 0, 0xffff],
  ['reviewOkMask', 0, 0xffff],
  ['rightsOkMask', 0, 0xffff],
  ['flags', 0, 0xff],
  ['edition', 0, 0xff],
  ['recording', 0, 0xff],
  ['duration', -(2 ** 31), 2 ** 31 - 1],
  ['rank', -(2 ** 31), 2 ** 31 - 1],
  ['id', -(2 ** 31), 2 ** 31 - 1],
];
const WORD_LISTS = ['style', 'instrumentation', 'mood'] as const;
/** Arrangements one work may have in an overlay. */
const MAX_ARRANGEMENTS = 1_000;

export function encodeResolveOverlay(overlay: ResolveOverlay): Buffer {
  return Buffer.from(`${JSON.stringify({ kind: 'resolve-overlay', version: RESOLVE_OVERLAY_FORMAT, ...overlay })}\n`);
}

function fail(field: string, detail: string): never {
  throw new OverlayError(`resolve overlay: ${field} ${detail}`);
}

function stringList(v: unknown, field: string): string[] {
  if (!Array.isArray(v)) fail(field, 'is not a list');
  if (v.length > OVERLAY_LIMITS.wordsPerField) fail(field, `holds more than ${OVERLAY_LIMITS.wordsPerField} entries`);
  for (let i = 0; i < v.length; i++) {
    const w = v[i];
    if (typeof w !== 'string' || w === '' || w.length > OVERLAY_LIMITS.wordLength)
      fail(`${field}[${i}]`, `is not a word of 1 to ${OVERLAY_LIMITS.wordLength} characters`);
  }
  return v as string[];
}

function integerIn(v: unknown, field: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
    fail(field, `is not an integer from ${min} to ${max}`);
  return v;
}

function text(v: unknown, field: string, max: number): string {
  if (typeof v !== 'string' || v === '' || v.length > max) fail(field, `is not a text of 1 to ${max} characters`);
  return v;
}

/** The rows in `bytes`, every list bounded (`OVERLAY_LIMITS`). */
export function decodeResolveOverlay(bytes: Buffer): ResolveOverlay {
  const parsed = overlayFileObject(bytes, 'resolve-overlay', RESOLVE_OVERLAY_FORMAT, fail);
  if (!Array.isArray(parsed.works)) fail('works', 'is not a list');
  if (parsed.works.length > OVERLAY_LIMITS.works) fail('works', `holds more than ${OVERLAY_LIMITS.works} entries`);
  const works: ResolveWorkRow[] = [];
  for (let k = 0; k < parsed.works.length; k++) {
    const w: unknown = parsed.works[k];
    const at = `works[${k}]`;
    if (!isObject(w)) fail(at, 'is not an object');
    const slug = text(w.slug, `${at}.slug`, OVERLAY_LIMITS.slugLength);
    const sortKey = text(w.sortKey, `${at}.sortKey`, OVERLAY_LIMITS.sortKeyLength);
    if (!sortKey.endsWith(`\u0000${slug}`)) fail(`${at}.sortKey`, 'does not end with the slug');
    if (k > 0 && sortKey <= works[k - 1]!.sortKey) fail(`${at}.sortKey`, 'is not above the one before it');
    const flags = integerIn(w.flags, `${at}.flags`, 0, 0xff);
    const title = stringList(w.title, `${at}.title`);
    const composer = stringList(w.composer, `${at}.composer`);
    if (!Array.isArray(w.arrangements)) fail(`${at}.arrangements`, 'is not a list');
    if (w.arrangements.length > MAX_ARRANGEMENTS)
      fail(`${at}.arrangements`, `holds more than ${MAX_ARRANGEMENTS} entries`);
    const arrangements: ArrangementRow[] = [];
    for (let i = 0; i < w.arrangements.length; i++) {
      const a: unknown = w.arrangements[i];
      const where = `${at}.arrangements[${i}]`;
      if (!isObject(a)) fail(where, 'is not an object');
      const row = {} as Record<string, number | string[]>;
      for (const [name, min, max] of COLUMN_RANGES) row[name] = integerIn(a[name], `${where}.${name}`, min, max);
      for (const name of WORD_LISTS) row[name] = stringList(a[name], `${where}.${name}`);
      arrangements.push(row as unknown as ArrangementRow);
    }
    works.push({ slug, sortKey, flags, title, composer, arrangements });
  }
  return { works };
}
