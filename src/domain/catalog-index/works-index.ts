/**
 * The catalog search index of one build (GET /api/v1/works), built once by the build and loaded
 * by the server as typed arrays. It answers exactly what the linear scan in `works-query.ts`
 * answers (same words, same prefix rule, same order, same totals), without touching every work:
 *
 * - Works are numbered by listing order (composer sort name, title, slug, folded), so a work's id
 *   is its position in the unfiltered listing and every posting list is already in listing order.
 * - One inverted index per searchable field (`query` searches all of them; `genre`, `composer`,
 *   `instrument`, `style` one each): the field's distinct folded words, sorted, and per word the
 *   ascending ids of the works whose field has that word. The words are those of the very field
 *   text the linear scan matches (`indexWork`), so the composer's initials forms are in it.
 * - A query word matches the words it starts: one contiguous range of the sorted words. A query
 *   is the intersection, over its words, of the union of the postings in each word's range.
 *   Unions and intersections are bitsets of ceil(works / 32) integers; a page is found by counting
 *   bits, and `total` is exact.
 * - Dense prefixes: a prefix whose range holds many postings ("a", "s", "synth") has its union
 *   stored as a ready bitset, so no single query word costs more than a quarter of the catalog's
 *   works in posting reads, however short it is.
 *
 * Cost of one query: per query word, one binary search plus min(its postings, works / 4) reads,
 * plus works / 32 integer operations per word for the bitsets; a query word that starts another
 * query word is dropped first (it matches whatever the longer one matches).
 */
import type { WorkRecord, WorkSummary } from '../../schemas/work.ts';
import { indexWork, type IndexedWork, type WorksFilter } from '../works-query.ts';
import { words } from '../text.ts';
import { encodeIndex, type DecodedIndex } from './binary.ts';
import { bitCount } from '../resolve/text-match.ts';
import { SlugTable, decodeSlugTable } from './slug-table.ts';
import { QUERY_MAX_WORDS } from '../../schemas/queries.ts';

export const WORKS_INDEX_FORMAT = 2;

/** Searchable fields: the filter parameter and the IndexedWork field it searches. */
export const SEARCH_FIELDS = [
  ['query', 'all'],
  ['genre', 'genre'],
  ['composer', 'composer'],
  ['instrument', 'instrument'],
  ['style', 'style'],
] as const satisfies ReadonlyArray<readonly [keyof WorksFilter, keyof IndexedWork]>;

export type SearchParameter = (typeof SEARCH_FIELDS)[number][0];

export interface FieldIndex {
  /** Distinct folded words of the field across the catalog, sorted (JavaScript string order). */
  words: string[];
  /** postings[offsets[w] .. offsets[w + 1]) are the ids of the works having word w, ascending. */
  offsets: Uint32Array;
  postings: Int32Array;
  /** Prefixes whose union is stored as a bitset, sorted; bitset k is dense[k * bitsetWords ..). */
  densePrefixes: string[];
  dense: Uint32Array;
}

export interface WorksIndex {
  count: number;
  /** Slugs by id (listing order), and lookup by slug. */
  slugs: SlugTable;
  /**
   * Where each work's summary (a listing item) is in the summaries file (`index/summaries.json`,
   * the summaries' JSON texts one after another): bytes offsets[id] .. offsets[id + 1]. The texts
   * stay on disk; a page reads its own.
   */
  summaryOffsets: Uint32Array;
  fields: Record<SearchParameter, FieldIndex>;
  /** Dense prefix lookups, built on load (a few hundred entries). */
  denseAt: Record<SearchParameter, Map<string, number>>;
}

// ---------- build ----------

/** What the build knows about each work: its record and its summary. */
export interface IndexInput {
  record: WorkRecord;
  summary: WorkSummary;
}

/** Listing order: the linear scan's sort key, compared as JavaScript strings. */
function byListingOrder<T extends { sortKey: string }>(list: T[]): T[] {
  return list.sort((a, b) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0));
}

/** Works in listing order with their folded search fields: the one order both indexes use. */
export function orderWorks(
  inputs: IndexInput[],
  instrumentNames: Map<string, string[]>,
): Array<IndexedWork & { record: WorkRecord }> {
  return byListingOrder(
    inputs.map(({ record, summary }) => ({ ...indexWork(record, summary, instrumentNames), record })),
  );
}

function lowerBound(list: string[], value: string): number {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** [first, end) of the sorted words that start with `prefix`. */
export function prefixRange(list: string[], prefix: string): [number, number] {
  const first = lowerBound(list, prefix);
  let lo = first;
  let hi = list.length;
  // Words starting with the prefix are contiguous from `first`: find the first that does not.
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (list[mid]!.startsWith(prefix)) lo = mid + 1;
    else hi = mid;
  }
  return [first, lo];
}

export const bitsetWords = (count: number) => (count + 31) >>> 5;

/** A posting count at or above which a prefix's union is stored ready (a quarter of the works, at least 64). */
export const denseThreshold = (count: number) => Math.max(64, Math.ceil(count / 4));

/** The distinct folded words one work contributes to a search field's index (the overlay stores the same). */
export function workFieldWords(work: IndexedWork, field: (typeof SEARCH_FIELDS)[number][1]): string[] {
  return [...new Set(words(work[field]))];
}

function buildField(ordered: IndexedWork[], field: (typeof SEARCH_FIELDS)[number][1]): FieldIndex {
  const perWork = ordered.map((w) => workFieldWords(w, field));
  const all = new Set<string>();
  for (const list of perWork) for (const w of list) all.add(w);
  const sorted = [...all].sort();
  const id = new Map(sorted.map((w, i) => [w, i]));
  const counts = new Uint32Array(sorted.length + 1);
  for (const list of perWork) for (const w of list) counts[id.get(w)! + 1]!++;
  for (let i = 0; i < sorted.length; i++) counts[i + 1]! += counts[i]!;
  const offsets = Uint32Array.from(counts);
  const fill = Uint32Array.from(counts);
  const postings = new Int32Array(offsets[sorted.length]!);
  // Works are visited in id order, so each word's postings come out ascending.
  perWork.forEach((list, work) => {
    for (const w of list) postings[fill[id.get(w)!]!++] = work;
  });

  // Every distinct prefix of a word is a range of the sorted words; keep the heavy ones ready.
  const n = ordered.length;
  const threshold = denseThreshold(n);
  const size = bitsetWords(n);
  const densePrefixes: string[] = [];
  const bitsets: Uint32Array[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const word = sorted[i]!;
    const previous = i > 0 ? sorted[i - 1]! : '';
    for (let len = 1; len <= word.length; len++) {
      const prefix = word.slice(0, len);
      const code = prefix.charCodeAt(len - 1);
      if (code >= 0xd800 && code <= 0xdbff) continue; // half a surrogate pair: no query word ends there
      if (previous.startsWith(prefix)) continue; // seen with the previous word
      const [lo, hi] = prefixRange(sorted, prefix);
      if (offsets[hi]! - offsets[lo]! < threshold) continue;
      const bits = new Uint32Array(size);
      for (let p = offsets[lo]!; p < offsets[hi]!; p++) bits[postings[p]! >>> 5]! |= 1 << (postings[p]! & 31);
      densePrefixes.push(prefix);
      bitsets.push(bits);
    }
  }
  const order = densePrefixes.map((_, k) => k).sort((a, b) => (densePrefixes[a]! < densePrefixes[b]! ? -1 : 1));
  const dense = new Uint32Array(size * order.length);
  order.forEach((k, at) => dense.set(bitsets[k]!, at * size));
  return { words: sorted, offsets, postings, densePrefixes: order.map((k) => densePrefixes[k]!), dense };
}

/**
 * The index of `ordered` (works already in listing order, see `orderWorks`) as index file bytes,
 * and the summaries file it points into.
 */
export function encodeWorksIndex(ordered: Array<IndexedWork & { record: WorkRecord }>): {
  index: Buffer;
  summaries: Buffer;
} {
  const slugs = SlugTable.fromList(ordered.map((w) => w.record.slug));
  const texts = ordered.map((w) => Buffer.from(JSON.stringify(w.summary), 'utf8'));
  const summaryOffsets = new Uint32Array(texts.length + 1);
  texts.forEach((t, i) => (summaryOffsets[i + 1] = summaryOffsets[i]! + t.length));
  const sections: Record<string, Int32Array | Uint32Array | string[] | { bytes: Uint8Array }> = {
    ...slugs.sections(),
    summaryOffsets,
  };
  for (const [param, field] of SEARCH_FIELDS) {
    const f = buildField(ordered, field);
    sections[`${param}.words`] = f.words;
    sections[`${param}.offsets`] = f.offsets;
    sections[`${param}.postings`] = f.postings;
    sections[`${param}.densePrefixes`] = f.densePrefixes;
    sections[`${param}.dense`] = f.dense;
  }
  return {
    index: encodeIndex({ kind: 'works', version: WORKS_INDEX_FORMAT, count: ordered.length }, sections),
    summaries: Buffer.concat(texts),
  };
}

// ---------- load ----------

export function decodeWorksIndex(file: DecodedIndex): WorksIndex {
  if (file.meta.kind !== 'works' || file.meta.version !== WORKS_INDEX_FORMAT) {
    throw new Error(
      `works index: kind ${String(file.meta.kind)} version ${String(file.meta.version)}, expected works version ${WORKS_INDEX_FORMAT} (rebuild the site)`,
    );
  }
  const count = file.meta.count as number;
  const fields = {} as Record<SearchParameter, FieldIndex>;
  const denseAt = {} as Record<SearchParameter, Map<string, number>>;
  for (const [param] of SEARCH_FIELDS) {
    const f: FieldIndex = {
      words: file.strings(`${param}.words`),
      offsets: file.u32(`${param}.offsets`),
      postings: file.i32(`${param}.postings`),
      densePrefixes: file.strings(`${param}.densePrefixes`),
      dense: file.u32(`${param}.dense`),
    };
    fields[param] = f;
    denseAt[param] = new Map(f.densePrefixes.map((p, k) => [p, k]));
  }
  const slugs = decodeSlugTable(file);
  if (slugs.count !== count) throw new Error(`works index: ${slugs.count} slugs for ${count} works`);
  return { count, slugs, summaryOffsets: file.u32('summaryOffsets'), fields, denseAt };
}

// ---------- query ----------

/**
 * Byte ranges of the summaries file that hold the summaries of `ids` (ascending): one range per
 * run of consecutive ids, so a page of an unfiltered listing is one read.
 */
export function summaryRanges(
  index: WorksIndex,
  ids: readonly number[],
): Array<{ ids: number[]; start: number; end: number }> {
  const out: Array<{ ids: number[]; start: number; end: number }> = [];
  for (const id of ids) {
    const last = out.at(-1);
    if (last && last.ids.at(-1) === id - 1) {
      last.ids.push(id);
      last.end = index.summaryOffsets[id + 1]!;
    } else {
      out.push({ ids: [id], start: index.summaryOffsets[id]!, end: index.summaryOffsets[id + 1]! });
    }
  }
  return out;
}

/** The summaries in `bytes` (the range `range` of the summaries file), parsed. */
export function parseSummaries(
  index: WorksIndex,
  range: { ids: number[]; start: number },
  bytes: Buffer,
): WorkSummary[] {
  return summaryTexts(index, range, bytes).map((text) => JSON.parse(text.toString('utf8')) as WorkSummary);
}

/** The stored JSON texts of the summaries in `bytes` (the range `range` of the summaries file), as views of it. */
export function summaryTexts(index: WorksIndex, range: { ids: number[]; start: number }, bytes: Buffer): Buffer[] {
  return range.ids.map((id) =>
    bytes.subarray(index.summaryOffsets[id]! - range.start, index.summaryOffsets[id + 1]! - range.start),
  );
}

/**
 * The distinct words of a filter value that constrain the answer: a word that starts another
 * word of the same value is implied by it ("bach b" matches what "bach" matches).
 */
export function constrainingWords(value: string): string[] {
  const list = [...new Set(words(value))];
  return list.filter((w) => !list.some((other) => other !== w && other.startsWith(w)));
}

/** Works whose field has a word starting with `word`, as a bitset; null when none. */
function wordBits(index: WorksIndex, param: SearchParameter, word: string, size: number): Uint32Array | null {
  const field = index.fields[param];
  const k = index.denseAt[param].get(word);
  if (k !== undefined) return field.dense.subarray(k * size, (k + 1) * size);
  const [lo, hi] = prefixRange(field.words, word);
  if (lo === hi) return null;
  const bits = new Uint32Array(size);
  const postings = field.postings;
  for (let p = field.offsets[lo]!; p < field.offsets[hi]!; p++) {
    const id = postings[p]!;
    bits[id >>> 5]! |= 1 << (id & 31);
  }
  return bits;
}

export interface WorksPage {
  /** Ids of the works on the page, in listing order. */
  ids: number[];
  total: number;
  totalPages: number;
}

/** Constraining words a listing request may carry over all its filters (the route answers more with a 400). */
export const MAX_QUERY_WORDS = QUERY_MAX_WORDS;

/** The filter's constraining words, per parameter (blank values are no filter). */
export function filterWords(filter: WorksFilter): Array<{ param: SearchParameter; word: string }> {
  const out: Array<{ param: SearchParameter; word: string }> = [];
  for (const [param] of SEARCH_FIELDS) {
    const value = filter[param];
    if (value === undefined || value.trim() === '') continue;
    for (const word of constrainingWords(value)) out.push({ param, word });
  }
  return out;
}

/**
 * The works matching `filter`: 'all' when it constrains nothing, 'none' when nothing matches,
 * otherwise a bitset of ceil(works / 32) integers the caller owns (a copy, never a stored view).
 */
export function matchingBits(index: WorksIndex, filter: WorksFilter): Uint32Array | 'all' | 'none' {
  const size = bitsetWords(index.count);
  let acc: Uint32Array | null = null;
  // Cheapest words first (a stored dense prefix reads no postings; otherwise its posting count),
  // and stop as soon as nothing is left: the AND does not depend on the order.
  const terms = filterWords(filter).map((t) => {
    const field = index.fields[t.param];
    if (index.denseAt[t.param].has(t.word)) return { ...t, cost: 0 };
    const [lo, hi] = prefixRange(field.words, t.word);
    return { ...t, cost: lo === hi ? -1 : field.offsets[hi]! - field.offsets[lo]! };
  });
  terms.sort((a, b) => a.cost - b.cost);
  for (const { param, word, cost } of terms) {
    const bits = cost < 0 ? null : wordBits(index, param, word, size);
    if (bits === null) return 'none';
    if (acc === null) acc = Uint32Array.from(bits);
    else {
      let any = 0;
      for (let k = 0; k < size; k++) any |= acc[k]! &= bits[k]!;
      if (any === 0) return 'none';
    }
  }
  return acc ?? 'all';
}

/** The page `page` (from 1) of `pageSize` works matching `filter`, and the exact total. */
export function searchWorks(index: WorksIndex, filter: WorksFilter, page: number, pageSize: number): WorksPage {
  const n = index.count;
  const size = bitsetWords(n);
  const acc = matchingBits(index, filter);
  const skip = (page - 1) * pageSize;
  if (acc === 'none') return { ids: [], total: 0, totalPages: 0 };
  if (acc === 'all') {
    const ids: number[] = [];
    for (let id = skip; id < Math.min(n, skip + pageSize); id++) ids.push(id);
    return { ids, total: n, totalPages: Math.ceil(n / pageSize) };
  }
  let total = 0;
  const ids: number[] = [];
  for (let k = 0; k < size; k++) {
    let word = acc[k]!;
    if (word === 0) continue;
    const c = bitCount(word);
    // Whole words before the page are counted, not walked.
    if (total + c <= skip || ids.length >= pageSize) {
      total += c;
      continue;
    }
    while (word !== 0) {
      const low = word & -word;
      if (total >= skip && ids.length < pageSize) ids.push((k << 5) + (31 - Math.clz32(low)));
      total++;
      word ^= low;
    }
  }
  return { ids, total, totalPages: Math.ceil(total / pageSize) };
}
