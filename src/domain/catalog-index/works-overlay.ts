/**
 * Changes to one build's works index without re-indexing the catalog: the base index files stay
 * as the build wrote them, and a small overlay beside them holds what changed since
 * (docs/decisions/0048-listing-overlay-over-a-plain-base.md):
 *
 * - per added or changed work: its slug, listing sort key, summary JSON text, the folded words of
 *   each search field (the same `indexWork` and `workFieldWords` the base was built with), and
 *   `insertAfter`, the last base id whose sort key is below its own (-1: before every base work);
 * - tombstones: the base ids of works removed or changed since the base.
 *
 * A query over both (`searchLayered`) is the base's bitset AND NOT the tombstones, plus the overlay
 * works matching the query (tested directly on their few words), merged into listing order by
 * `insertAfter` and then sort key; `total` is exact. It answers exactly what a freshly built index
 * of the changed catalog answers (test/unit/works-overlay.test.ts). Pure: the writer (the apply
 * path, off the request thread) builds and encodes the overlay, the server decodes it and lays it
 * over the base it loaded.
 */
import { composerRankWords, indexWork } from '../works-query.ts';
import type { WorksFilter } from '../works-query.ts';
import { bitCount } from '../resolve/text-match.ts';
import {
  SEARCH_FIELDS,
  bitsetWords,
  composerRankBits,
  filterWords,
  matchingBits,
  termRange,
  workFieldWords,
  type FilterTerm,
  type IndexInput,
  type SearchParameter,
  type WorksIndex,
} from './works-index.ts';

export const WORKS_OVERLAY_FORMAT = 1;

/**
 * What a decoded overlay may hold. The overlay is written by the apply path, but a file on disk
 * is read as untrusted: every list is checked against these before it is walked. Past `works`,
 * the writer refuses to grow the overlay (the base must be compacted first).
 */
export const OVERLAY_LIMITS = {
  bytes: 64 * 1024 * 1024,
  works: 20_000,
  wordsPerField: 8_192,
  wordLength: 1_024,
  slugLength: 160,
  sortKeyLength: 4_096,
  summaryLength: 256 * 1024,
  digestLength: 128,
} as const;

/** One added or changed work. */
export interface OverlayWork {
  slug: string;
  /** The listing sort key (`indexWork`'s: composer sort name, title, slug, folded). */
  sortKey: string;
  /** The last base id whose sort key is below `sortKey`; -1 when it sorts before every base work. */
  insertAfter: number;
  /** The listing item, exactly `JSON.stringify(workSummary(record))`. */
  summary: string;
  /** Per search parameter, the work's distinct folded words, sorted (JavaScript string order). */
  words: Record<SearchParameter, string[]>;
}

export interface WorksOverlay {
  /** The base this overlay lies over: its number of works and a digest the writer chose (of works.idx). */
  base: { count: number; digest: string };
  /** Base ids of removed or changed works, ascending. */
  tombstones: number[];
  /** Added or changed works, by sort key. */
  works: OverlayWork[];
}

export class OverlayError extends Error {}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

// ---------- write ----------

export interface OverlayChange {
  /** The base's listing order (its works.idx, or a resolve catalog numbering works alike). */
  base: Pick<WorksIndex, 'count' | 'slugs'>;
  /** Identifies the base (e.g. the sha256 of its works.idx); a previous overlay must name the same one. */
  baseDigest: string;
  /**
   * The listing sort key of base work `id` (`indexWork`'s, from its record). Called about
   * log2(works) times per changed work: the base index does not store sort keys, so the writer
   * reads them from the base's records.
   */
  baseSortKey: (id: number) => string;
  /** Instrument aliases, as the base index was built with (`orderWorks`' second argument). */
  instrumentNames: Map<string, string[]>;
  /** The overlay already over this base: the new one holds its changes plus these. */
  previous?: WorksOverlay;
  /** Works added or changed by this change, with their summaries. */
  changed: IndexInput[];
  /** Slugs of works removed by this change (a rename removes the old slug and adds the new). */
  removed: string[];
}

/** The last base id whose sort key is below `sortKey`, or -1. */
function insertAfter(count: number, baseSortKey: (id: number) => string, sortKey: string): number {
  let lo = 0;
  let hi = count;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (baseSortKey(mid) < sortKey) lo = mid + 1;
    else hi = mid;
  }
  return lo - 1;
}

/** The overlay of `base` after `change` (and the changes its previous overlay holds). */
export function buildWorksOverlay(change: OverlayChange): WorksOverlay {
  const { base, previous } = change;
  if (previous && (previous.base.count !== base.count || previous.base.digest !== change.baseDigest))
    throw new OverlayError('the previous overlay lies over another base');
  const changedSlugs = new Set<string>();
  for (const { record } of change.changed) {
    if (changedSlugs.has(record.slug)) throw new OverlayError(`work ${record.slug} is changed twice in one change`);
    changedSlugs.add(record.slug);
  }
  const removedSlugs = new Set<string>();
  for (const slug of change.removed) {
    if (removedSlugs.has(slug)) throw new OverlayError(`work ${slug} is removed twice in one change`);
    if (changedSlugs.has(slug)) throw new OverlayError(`work ${slug} is both changed and removed`);
    removedSlugs.add(slug);
  }
  const entries = new Map((previous?.works ?? []).map((w) => [w.slug, w]));
  const tombstones = new Set(previous?.tombstones ?? []);
  for (const slug of removedSlugs) {
    const inOverlay = entries.delete(slug);
    const id = base.slugs.indexOf(slug);
    if (id >= 0 && !tombstones.has(id)) tombstones.add(id);
    else if (!inOverlay) throw new OverlayError(`work ${slug} is removed but not in the catalog`);
  }
  for (const { record, summary } of change.changed) {
    const id = base.slugs.indexOf(record.slug);
    if (id >= 0) tombstones.add(id);
    const indexed = indexWork(record, summary, change.instrumentNames);
    const words = {} as Record<SearchParameter, string[]>;
    for (const [param, field] of SEARCH_FIELDS) words[param] = workFieldWords(indexed, field).sort();
    entries.set(record.slug, {
      slug: record.slug,
      sortKey: indexed.sortKey,
      insertAfter: insertAfter(base.count, change.baseSortKey, indexed.sortKey),
      summary: JSON.stringify(summary),
      words,
    });
  }
  if (entries.size > OVERLAY_LIMITS.works)
    throw new OverlayError(
      `the overlay would hold ${entries.size} works, at most ${OVERLAY_LIMITS.works}: compact the base first`,
    );
  return {
    base: { count: base.count, digest: change.baseDigest },
    tombstones: [...tombstones].sort((a, b) => a - b),
    works: [...entries.values()].sort((a, b) => compare(a.sortKey, b.sortKey)),
  };
}

// ---------- file ----------

/** The overlay file's bytes (`index/overlay.json`). */
export function encodeWorksOverlay(overlay: WorksOverlay): Buffer {
  return Buffer.from(`${JSON.stringify({ kind: 'works-overlay', version: WORKS_OVERLAY_FORMAT, ...overlay })}\n`);
}

function fail(field: string, detail: string): never {
  throw new OverlayError(`overlay: ${field} ${detail}`);
}

export function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/**
 * The top-level object of an overlay file (`kind` "works-overlay" or "resolve-overlay"): its size
 * bounded, its JSON parsed, its kind and version checked; `fail` names the file in its error.
 */
export function overlayFileObject(
  bytes: Buffer,
  kind: string,
  version: number,
  fail: (field: string, detail: string) => never,
): Record<string, unknown> {
  if (bytes.length > OVERLAY_LIMITS.bytes) fail('file', `is larger than ${OVERLAY_LIMITS.bytes} bytes`);
  let parsed: unknown;
  try {
    parsed = JSON.parse(bytes.toString('utf8'));
  } catch {
    fail('file', 'is not JSON');
  }
  if (!isObject(parsed)) fail('file', 'is not an object');
  if (parsed.kind !== kind || parsed.version !== version)
    fail('file', `is not a ${kind.replace('-', ' ')} version ${version}`);
  return parsed;
}

function boundedString(v: unknown, field: string, max: number): string {
  if (typeof v !== 'string') fail(field, 'is not a string');
  if (v.length > max) fail(field, `is longer than ${max} characters`);
  return v;
}

function boundedArray(v: unknown, field: string, max: number): unknown[] {
  if (!Array.isArray(v)) fail(field, 'is not a list');
  if (v.length > max) fail(field, `holds more than ${max} entries`);
  return v;
}

function integerIn(v: unknown, field: string, min: number, max: number): number {
  if (typeof v !== 'number' || !Number.isInteger(v) || v < min || v > max)
    fail(field, `is not an integer from ${min} to ${max}`);
  return v;
}

/**
 * The overlay in `bytes`, its shape checked with every list bounded (`OVERLAY_LIMITS`); whether it
 * fits a base is checked by `layerWorks`.
 */
export function decodeWorksOverlay(bytes: Buffer): WorksOverlay {
  const parsed = overlayFileObject(bytes, 'works-overlay', WORKS_OVERLAY_FORMAT, fail);
  if (!isObject(parsed.base)) fail('base', 'is not an object');
  const count = integerIn(parsed.base.count, 'base.count', 0, 2 ** 31 - 1);
  const digest = boundedString(parsed.base.digest, 'base.digest', OVERLAY_LIMITS.digestLength);
  const rawTombstones = boundedArray(parsed.tombstones, 'tombstones', count);
  const tombstones: number[] = [];
  for (let k = 0; k < rawTombstones.length; k++) {
    const id = integerIn(rawTombstones[k], `tombstones[${k}]`, 0, count - 1);
    if (k > 0 && id <= tombstones[k - 1]!) fail(`tombstones[${k}]`, 'is not above the one before it');
    tombstones.push(id);
  }
  const rawWorks = boundedArray(parsed.works, 'works', OVERLAY_LIMITS.works);
  const works: OverlayWork[] = [];
  const slugs = new Set<string>();
  for (let k = 0; k < rawWorks.length; k++) {
    const w = rawWorks[k];
    const at = `works[${k}]`;
    if (!isObject(w)) fail(at, 'is not an object');
    const slug = boundedString(w.slug, `${at}.slug`, OVERLAY_LIMITS.slugLength);
    if (slug === '' || slugs.has(slug)) fail(`${at}.slug`, 'is empty or repeated');
    slugs.add(slug);
    const sortKey = boundedString(w.sortKey, `${at}.sortKey`, OVERLAY_LIMITS.sortKeyLength);
    if (!sortKey.endsWith(`\u0000${slug}`)) fail(`${at}.sortKey`, 'does not end with the slug');
    if (k > 0 && sortKey <= works[k - 1]!.sortKey) fail(`${at}.sortKey`, 'is not above the one before it');
    const after = integerIn(w.insertAfter, `${at}.insertAfter`, -1, count - 1);
    if (k > 0 && after < works[k - 1]!.insertAfter) fail(`${at}.insertAfter`, 'is below the one before it');
    const summary = boundedString(w.summary, `${at}.summary`, OVERLAY_LIMITS.summaryLength);
    let item: unknown;
    try {
      item = JSON.parse(summary);
    } catch {
      fail(`${at}.summary`, 'is not JSON');
    }
    if (!isObject(item) || item.slug !== slug) fail(`${at}.summary`, "is not the work's summary");
    if (!isObject(w.words)) fail(`${at}.words`, 'is not an object');
    const words = {} as Record<SearchParameter, string[]>;
    for (const [param] of SEARCH_FIELDS) {
      const list = boundedArray(w.words[param], `${at}.words.${param}`, OVERLAY_LIMITS.wordsPerField);
      const out: string[] = [];
      for (let i = 0; i < list.length; i++) {
        const word = boundedString(list[i], `${at}.words.${param}[${i}]`, OVERLAY_LIMITS.wordLength);
        if (word === '' || (i > 0 && word <= out[i - 1]!))
          fail(`${at}.words.${param}[${i}]`, 'is empty or not above the word before it');
        out.push(word);
      }
      words[param] = out;
    }
    works.push({ slug, sortKey, insertAfter: after, summary, words });
  }
  return { base: { count, digest }, tombstones, works };
}

// ---------- read ----------

/** The catalog as the server answers it: a base index and the overlay over it. */
export interface LayeredWorks {
  base: WorksIndex;
  overlay: WorksOverlay;
  /** Base ids not tombstoned, as a bitset of ceil(base works / 32) integers. */
  live: Uint32Array;
  /** Works in the changed catalog. */
  count: number;
  overlayBySlug: Map<string, number>;
  /** The overlay works' summaries as the bytes a listing joins. */
  summaryTexts: Buffer[];
  /** Per search parameter, the overlay works' words inverted (built on load), so a query word is one range. */
  overlayFields: Record<SearchParameter, OverlayField>;
}

/** One search field of the overlay's works: distinct words sorted, and per word the overlay positions having it. */
interface OverlayField {
  words: string[];
  /** postings[offsets[w] .. offsets[w + 1]) are the overlay positions of the works having word w, ascending. */
  offsets: Uint32Array;
  postings: Uint32Array;
}

function invertOverlay(works: OverlayWork[], param: SearchParameter): OverlayField {
  const byWord = new Map<string, number[]>();
  works.forEach((w, k) => {
    for (const word of w.words[param]) {
      let list = byWord.get(word);
      if (!list) byWord.set(word, (list = []));
      list.push(k);
    }
  });
  const words = [...byWord.keys()].sort();
  const offsets = new Uint32Array(words.length + 1);
  words.forEach((w, i) => (offsets[i + 1] = offsets[i]! + byWord.get(w)!.length));
  const postings = new Uint32Array(offsets[words.length]!);
  words.forEach((w, i) => postings.set(byWord.get(w)!, offsets[i]!));
  return { words, offsets, postings };
}

/**
 * `overlay` laid over `base`, after checking that it was written for it: `baseDigest` is the
 * loaded base's identity, as the writer recorded it (`OverlayChange.baseDigest`).
 */
export function layerWorks(base: WorksIndex, baseDigest: string, overlay: WorksOverlay): LayeredWorks {
  if (overlay.base.digest !== baseDigest)
    fail(
      'base.digest',
      `is ${JSON.stringify(overlay.base.digest)}, but the base loaded is ${JSON.stringify(baseDigest)}`,
    );
  if (overlay.base.count !== base.count)
    fail('base.count', `is ${overlay.base.count}, but the base holds ${base.count} works`);
  const size = bitsetWords(base.count);
  const live = new Uint32Array(size);
  live.fill(0xffffffff);
  if (base.count % 32 !== 0) live[size - 1] = 2 ** (base.count % 32) - 1;
  for (const id of overlay.tombstones) {
    if (!Number.isInteger(id) || id < 0 || id >= base.count) fail('tombstones', `hold ${id}, not a base id`);
    live[id >>> 5]! &= ~(1 << (id & 31));
  }
  const overlayBySlug = new Map<string, number>();
  overlay.works.forEach((w, k) => {
    overlayBySlug.set(w.slug, k);
    // A changed work must hide its base version, or a listing would show it twice.
    const id = base.slugs.indexOf(w.slug);
    if (id >= 0 && (live[id >>> 5]! & (1 << (id & 31))) !== 0)
      fail(`works[${k}].slug`, `${w.slug} is a base work without a tombstone`);
  });
  return {
    base,
    overlay,
    live,
    count: base.count - overlay.tombstones.length + overlay.works.length,
    overlayBySlug,
    summaryTexts: overlay.works.map((w) => Buffer.from(w.summary, 'utf8')),
    overlayFields: Object.fromEntries(
      SEARCH_FIELDS.map(([param]) => [param, invertOverlay(overlay.works, param)]),
    ) as Record<SearchParameter, OverlayField>,
  };
}

/** A work of the layered catalog: a base id, or a position in the overlay's works. */
export type LayeredItem = { base: number } | { overlay: number };

export interface LayeredPage {
  /** The works on the page, in listing order. */
  items: LayeredItem[];
  total: number;
  totalPages: number;
}

/** Overlay positions of the works matching every term, ascending (so in listing order). */
function overlayMatches(view: LayeredWorks, terms: FilterTerm[]): number[] {
  const n = view.overlay.works.length;
  if (terms.length === 0) return Array.from({ length: n }, (_, k) => k);
  let acc: Uint32Array | null = null;
  for (const { param, word, exact } of terms) {
    const field = view.overlayFields[param];
    const [lo, hi] = termRange(field.words, word, exact);
    if (lo === hi) return [];
    const bits = new Uint32Array(bitsetWords(n));
    for (let p = field.offsets[lo]!; p < field.offsets[hi]!; p++)
      bits[field.postings[p]! >>> 5]! |= 1 << (field.postings[p]! & 31);
    if (acc === null) acc = bits;
    else for (let k = 0; k < acc.length; k++) acc[k]! &= bits[k]!;
  }
  const out: number[] = [];
  for (let k = 0; k < acc!.length; k++) {
    let word = acc![k]!;
    while (word !== 0) {
      const low = word & -word;
      out.push((k << 5) + (31 - Math.clz32(low)));
      word ^= low;
    }
  }
  return out;
}

/**
 * The page `page` (from 1) of `pageSize` works matching `filter` in the layered catalog, and the
 * exact total: what `searchWorks` over a fresh index of the changed catalog answers. Cost: the
 * base query, one pass over its bitset (works / 32 integers), and the overlay's works' words.
 */
export function searchLayered(view: LayeredWorks, filter: WorksFilter, page: number, pageSize: number): LayeredPage {
  const terms = filterWords(filter);
  const works = view.overlay.works;
  // Overlay matches, already in listing order (the overlay is sorted by sort key).
  const matches = overlayMatches(view, terms);
  const baseBits = matchingBits(view.base, filter);
  let bits: Uint32Array | null = null;
  if (baseBits === 'all') bits = view.live;
  else if (baseBits !== 'none') {
    bits = baseBits;
    for (let k = 0; k < bits.length; k++) bits[k]! &= view.live[k]!;
  }
  // The works whose composer the query names come first (works-query.ts), then the rest.
  const rank = composerRankWords(filter.query);
  const parts: Array<{ bits: Uint32Array | null; matches: number[] }> = [];
  if (rank.length === 0) parts.push({ bits, matches });
  else {
    const named = new Set(
      overlayMatches(
        view,
        rank.map((word) => ({ param: 'composer' as const, word, exact: true })),
      ),
    );
    const first = composerRankBits(view.base, filter)!;
    const rest = bits === null ? null : new Uint32Array(bits.length);
    if (bits !== null)
      for (let k = 0; k < bits.length; k++) {
        rest![k] = bits[k]! & ~first[k]!;
        first[k]! &= bits[k]!;
      }
    parts.push(
      { bits: bits === null ? null : first, matches: matches.filter((m) => named.has(m)) },
      { bits: rest, matches: matches.filter((m) => !named.has(m)) },
    );
  }
  const skip = (page - 1) * pageSize;
  const items: LayeredItem[] = [];
  let position = 0;
  const take = (item: LayeredItem) => {
    if (position >= skip && items.length < pageSize) items.push(item);
    position++;
  };
  for (const part of parts) {
    let next = 0;
    const own = part.matches;
    // Overlay works that sort before base id `id` (after base id insertAfter, so before every later one).
    const takeOverlayBefore = (id: number) => {
      while (next < own.length && works[own[next]!]!.insertAfter < id) take({ overlay: own[next++]! });
    };
    if (part.bits !== null) {
      const partBits = part.bits;
      for (let k = 0; k < partBits.length; k++) {
        let word = partBits[k]!;
        if (word === 0) continue;
        const first = k << 5;
        takeOverlayBefore(first);
        const c = bitCount(word);
        // Whole words outside the page with no overlay work between their ids are counted, not walked.
        const between = next < own.length && works[own[next]!]!.insertAfter < first + 31;
        if (!between && (position + c <= skip || items.length >= pageSize)) {
          position += c;
          continue;
        }
        while (word !== 0) {
          const low = word & -word;
          const id = first + (31 - Math.clz32(low));
          takeOverlayBefore(id);
          take({ base: id });
          word ^= low;
        }
      }
    }
    takeOverlayBefore(Number.POSITIVE_INFINITY);
  }
  return { items, total: position, totalPages: Math.ceil(position / pageSize) };
}

/** The work with this slug in the layered catalog (the overlay first: it holds changed works), or null. */
export function findLayered(view: LayeredWorks, slug: string): LayeredItem | null {
  const k = view.overlayBySlug.get(slug);
  if (k !== undefined) return { overlay: k };
  const id = view.base.slugs.indexOf(slug);
  return id >= 0 && (view.live[id >>> 5]! & (1 << (id & 31))) !== 0 ? { base: id } : null;
}

/** The slug of a layered item. */
export function layeredSlug(view: LayeredWorks, item: LayeredItem): string {
  return 'base' in item ? view.base.slugs.at(item.base) : view.overlay.works[item.overlay]!.slug;
}
