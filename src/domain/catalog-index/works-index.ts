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
import { composerRankWords, constrainingWords, indexWork, type IndexedWork, type WorksFilter } from '../works-query.ts';
import { catalogQueryKey } from '../catalog-numbers.ts';
import { words } from '../text.ts';
import { encodeIndex, type DecodedIndex } from './binary.ts';
import { bitCount, lowerBound, prefixEnd, prefixRange } from '../resolve/text-match.ts';
import { SlugTable, decodeSlugTable, spliceTexts } from './slug-table.ts';
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

export const bitsetWords = (count: number) => (count + 31) >>> 5;

/** A posting count at or above which a prefix's union is stored ready (a quarter of the works, at least 64). */
export const denseThreshold = (count: number) => Math.max(64, Math.ceil(count / 4));

/** The distinct folded words one work contributes to a search field's index (the overlay stores the same). */
export function workFieldWords(work: Omit<IndexedWork, 'summary'>, field: (typeof SEARCH_FIELDS)[number][1]): string[] {
  return [...new Set(words(work[field]))];
}

function buildField(
  ordered: ReadonlyArray<Omit<IndexedWork, 'summary'>>,
  field: (typeof SEARCH_FIELDS)[number][1],
): FieldIndex {
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
  return { words: sorted, offsets, postings, ...densePrefixesOf(sorted, offsets, postings, ordered.length) };
}

/** The prefixes of `sorted` whose union reaches the dense threshold, with their bitsets (sorted by prefix). */
function densePrefixesOf(
  sorted: string[],
  offsets: Uint32Array,
  postings: Int32Array,
  n: number,
): { densePrefixes: string[]; dense: Uint32Array } {
  // Every distinct prefix of a word is a range of the sorted words; keep the heavy ones ready.
  const threshold = denseThreshold(n);
  const size = bitsetWords(n);
  const densePrefixes: string[] = [];
  const bitsets: Uint32Array[] = [];
  for (let i = 0; i < sorted.length; i++) {
    const word = sorted[i]!;
    const previous = i > 0 ? sorted[i - 1]! : '';
    // The prefixes the previous word shares were seen with it: start after their common length.
    let shared = 0;
    while (shared < word.length && shared < previous.length && word.charCodeAt(shared) === previous.charCodeAt(shared))
      shared++;
    for (let len = shared + 1; len <= word.length; len++) {
      const code = word.charCodeAt(len - 1);
      if (code >= 0xd800 && code <= 0xdbff) continue; // half a surrogate pair: no query word ends there
      const prefix = word.slice(0, len);
      // The words starting with it begin here (the previous word does not start with it).
      const lo = i;
      const hi = prefixEnd(sorted, prefix, i + 1);
      // A longer prefix's words are some of these: none of them can reach the threshold either.
      if (offsets[hi]! - offsets[lo]! < threshold) break;
      const bits = new Uint32Array(size);
      for (let p = offsets[lo]!; p < offsets[hi]!; p++) bits[postings[p]! >>> 5]! |= 1 << (postings[p]! & 31);
      densePrefixes.push(prefix);
      bitsets.push(bits);
    }
  }
  const order = densePrefixes.map((_, k) => k).sort((a, b) => (densePrefixes[a]! < densePrefixes[b]! ? -1 : 1));
  const dense = new Uint32Array(size * order.length);
  order.forEach((k, at) => dense.set(bitsets[k]!, at * size));
  return { densePrefixes: order.map((k) => densePrefixes[k]!), dense };
}

/**
 * The index of `ordered` (works already in listing order, see `orderWorks`) as index file bytes,
 * and the summaries file it points into.
 */
export function encodeWorksIndex(ordered: Array<IndexedWork & { record: WorkRecord }>): ListingFiles {
  return encodeListing(
    ordered.map(({ summary, record, ...fields }) => ({
      ...fields,
      slug: record.slug,
      summaryText: summaryText(summary),
    })),
  );
}

/** A work as the listing index holds it: its folded search fields, its slug and its summary's JSON text. */
export type ListingEntry = Omit<IndexedWork, 'summary'> & { slug: string; summaryText: Buffer };

const summaryText = (summary: WorkSummary) => Buffer.from(JSON.stringify(summary), 'utf8');

/** One work's listing entry (what `orderWorks` and `encodeWorksIndex` make of it, without its record). */
export function listingEntry(input: IndexInput, instrumentNames: Map<string, string[]>): ListingEntry {
  const { summary, ...fields } = indexWork(input.record, input.summary, instrumentNames);
  return { ...fields, slug: input.record.slug, summaryText: summaryText(summary) };
}

/** `encodeWorksIndex` of listing entries (put in listing order here). */
export function encodeListing(entries: ListingEntry[]): ListingFiles {
  const ordered = byListingOrder(entries);
  const fields = {} as Record<SearchParameter, FieldIndex>;
  for (const [param, field] of SEARCH_FIELDS) fields[param] = buildField(ordered, field);
  const summaryOffsets = new Uint32Array(ordered.length + 1);
  ordered.forEach((w, i) => (summaryOffsets[i + 1] = summaryOffsets[i]! + w.summaryText.length));
  return encodeWorks(
    SlugTable.fromList(ordered.map((w) => w.slug)),
    Buffer.concat(ordered.map((w) => w.summaryText)),
    summaryOffsets,
    fields,
  );
}

/** The listing index file, the summaries file it points into, and its slugs by id. */
export interface ListingFiles {
  index: Buffer;
  summaries: Buffer;
  slugs: SlugTable;
}

/** The index file and summaries file of works in listing order (their slugs, summary texts and fields). */
function encodeWorks(
  slugs: SlugTable,
  summaries: Buffer,
  summaryOffsets: Uint32Array,
  fields: Record<SearchParameter, FieldIndex>,
): ListingFiles {
  if (summaryOffsets.length !== slugs.count + 1)
    throw new Error(`works index: ${summaryOffsets.length - 1} summaries for ${slugs.count} works`);
  const sections: Record<string, Int32Array | Uint32Array | string[] | { bytes: Uint8Array }> = {
    ...slugs.sections(),
    summaryOffsets,
  };
  for (const [param] of SEARCH_FIELDS) {
    const f = fields[param];
    sections[`${param}.words`] = f.words;
    sections[`${param}.offsets`] = f.offsets;
    sections[`${param}.postings`] = f.postings;
    sections[`${param}.densePrefixes`] = f.densePrefixes;
    sections[`${param}.dense`] = f.dense;
  }
  return {
    index: encodeIndex({ kind: 'works', version: WORKS_INDEX_FORMAT, count: slugs.count }, sections),
    summaries,
    slugs,
  };
}

/** What `mergeWorksIndex` needs of an overlay (src/domain/catalog-index/works-overlay.ts). */
export interface WorksIndexChange {
  /** Base ids of removed or changed works, ascending. */
  tombstones: readonly number[];
  /** Added or changed works by sort key: where each goes, its summary text, its words per field (sorted, distinct). */
  works: ReadonlyArray<{
    slug: string;
    insertAfter: number;
    summary: string;
    words: Record<SearchParameter, string[]>;
  }>;
}

/**
 * The index and summaries files of the base after `change`, without any record: the base's
 * postings renumbered (removed works dropped), the changed works' words merged in, the dense
 * prefixes found again. The bytes are what `encodeWorksIndex` gives for the changed catalog
 * (test/unit/works-overlay.test.ts), since both write through `encodeWorks` and the words,
 * postings and prefixes follow the same rules. Cost: O(postings + words) typed-array work.
 */
export function mergeWorksIndex(base: WorksIndex, baseSummaries: Buffer, change: WorksIndexChange): ListingFiles {
  const n0 = base.count;
  const dead = new Uint8Array(n0);
  for (const id of change.tombstones) dead[id] = 1;
  // The new order: a base id (>= 0) or ~k for changed work k, each changed work after its base id.
  const items = new Int32Array(n0 - change.tombstones.length + change.works.length);
  const newOfBase = new Int32Array(n0).fill(-1);
  const newOfChange = new Int32Array(change.works.length);
  let n = 0;
  let k = 0;
  const placeChanged = (after: number) => {
    while (k < change.works.length && change.works[k]!.insertAfter === after) {
      newOfChange[k] = n;
      items[n++] = ~k++;
    }
  };
  placeChanged(-1);
  for (let id = 0; id < n0; id++) {
    if (!dead[id]) {
      newOfBase[id] = n;
      items[n++] = id;
    }
    placeChanged(id);
  }
  if (k !== change.works.length) throw new Error('works index merge: the changed works are not in insertion order');
  if (n !== items.length) throw new Error('works index merge: a tombstone names no base work, or one twice');
  // The summaries: the base's file in runs between the changed works, and the changed works' texts.
  const { bytes: summaries, offsets: summaryOffsets } = spliceTexts(
    baseSummaries,
    base.summaryOffsets,
    items,
    change.works.map((w) => Buffer.from(w.summary, 'utf8')),
  );
  const fields = {} as Record<SearchParameter, FieldIndex>;
  for (const [param] of SEARCH_FIELDS) {
    const b = base.fields[param];
    // The changed works having each word, in new ids (ascending: they are visited in order).
    const added = new Map<string, number[]>();
    let addedCount = 0;
    change.works.forEach((w, j) => {
      for (const word of w.words[param]) {
        let list = added.get(word);
        if (!list) added.set(word, (list = []));
        list.push(newOfChange[j]!);
        addedCount++;
      }
    });
    for (const list of added.values()) list.sort((x, y) => x - y);
    const fresh = [...added.keys()].filter((w) => !isBaseWord(b.words, w)).sort();
    // Every word's postings straight into one array (a word left with none is dropped).
    const sorted: string[] = [];
    const ends: number[] = [];
    const postings = new Int32Array(b.postings.length + addedCount);
    let at = 0;
    const push = (word: string, fromBase: number) => {
      const extra = added.get(word);
      const start = at;
      let e = 0;
      if (fromBase >= 0)
        for (let p = b.offsets[fromBase]!; p < b.offsets[fromBase + 1]!; p++) {
          const id = newOfBase[b.postings[p]!]!;
          if (id < 0) continue;
          if (extra) while (e < extra.length && extra[e]! < id) postings[at++] = extra[e++]!;
          postings[at++] = id;
        }
      if (extra) while (e < extra.length) postings[at++] = extra[e++]!;
      if (at === start) return;
      sorted.push(word);
      ends.push(at);
    };
    let i = 0;
    let f = 0;
    while (i < b.words.length || f < fresh.length) {
      if (f >= fresh.length || (i < b.words.length && b.words[i]! < fresh[f]!)) push(b.words[i]!, i++);
      else push(fresh[f++]!, -1);
    }
    const offsets = new Uint32Array(sorted.length + 1);
    offsets.set(ends, 1);
    const used = postings.subarray(0, at);
    fields[param] = { words: sorted, offsets, postings: used, ...densePrefixesOf(sorted, offsets, used, n) };
  }
  const slugs = SlugTable.splice(
    base.slugs,
    items,
    change.works.map((w) => w.slug),
  );
  return encodeWorks(slugs, summaries, summaryOffsets, fields);
}

/** Whether `word` is one of the sorted `words`. */
function isBaseWord(words: string[], word: string): boolean {
  const at = lowerBound(words, word);
  return at < words.length && words[at] === word;
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

export { constrainingWords };

/** The range of sorted words a term matches: those it starts, or (exact) the one equal to it. */
export function termRange(list: string[], word: string, exact = false): [number, number] {
  const [lo, hi] = prefixRange(list, word);
  if (!exact) return [lo, hi];
  return lo < hi && list[lo] === word ? [lo, lo + 1] : [lo, lo];
}

/** Works whose field has a word starting with `word` (or equal to it: `exact`), as a bitset; null when none. */
function wordBits(
  index: WorksIndex,
  param: SearchParameter,
  word: string,
  size: number,
  exact = false,
): Uint32Array | null {
  const field = index.fields[param];
  const k = exact ? undefined : index.denseAt[param].get(word);
  if (k !== undefined) return field.dense.subarray(k * size, (k + 1) * size);
  const [lo, hi] = termRange(field.words, word, exact);
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

/** One word a filter constrains by: a prefix of a field's words, or (exact) a whole word. */
export interface FilterTerm {
  param: SearchParameter;
  word: string;
  exact?: boolean;
}

/**
 * The filter's constraining words, per parameter (blank values are no filter). A query that is one
 * catalog number is one exact term, its key (src/domain/catalog-numbers.ts).
 */
export function filterWords(filter: WorksFilter): FilterTerm[] {
  const out: FilterTerm[] = [];
  for (const [param] of SEARCH_FIELDS) {
    const value = filter[param];
    if (value === undefined || value.trim() === '') continue;
    const key = param === 'query' ? catalogQueryKey(value) : null;
    if (key !== null) out.push({ param, word: key, exact: true });
    else for (const word of constrainingWords(value)) out.push({ param, word });
  }
  return out;
}

/**
 * The works whose composer every word of the query names as a whole word (they are listed
 * first: works-query.ts), as a bitset the caller owns; null when the query ranks nothing.
 */
export function composerRankBits(index: WorksIndex, filter: WorksFilter): Uint32Array | null {
  const rank = composerRankWords(filter.query);
  if (rank.length === 0) return null;
  const size = bitsetWords(index.count);
  let acc: Uint32Array | null = null;
  for (const word of rank) {
    const bits = wordBits(index, 'composer', word, size, true);
    if (bits === null) return new Uint32Array(size);
    if (acc === null) acc = Uint32Array.from(bits);
    else for (let k = 0; k < size; k++) acc[k]! &= bits[k]!;
  }
  return acc;
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
    if (!t.exact && index.denseAt[t.param].has(t.word)) return { ...t, cost: 0 };
    const [lo, hi] = termRange(field.words, t.word, t.exact);
    return { ...t, cost: lo === hi ? -1 : field.offsets[hi]! - field.offsets[lo]! };
  });
  terms.sort((a, b) => a.cost - b.cost);
  for (const { param, word, cost, exact } of terms) {
    const bits = cost < 0 ? null : wordBits(index, param, word, size, exact);
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

/**
 * The matching works split into the two parts listed one after the other: those whose composer the
 * query names (composerRankBits) and the rest; one part alone when the query ranks nothing.
 */
export function rankedParts(index: WorksIndex, filter: WorksFilter, acc: Uint32Array): Uint32Array[] {
  const first = composerRankBits(index, filter);
  if (first === null) return [acc];
  const rest = new Uint32Array(acc.length);
  for (let k = 0; k < acc.length; k++) {
    rest[k] = acc[k]! & ~first[k]!;
    first[k]! &= acc[k]!;
  }
  return [first, rest];
}

/** The page `page` (from 1) of `pageSize` works matching `filter`, and the exact total. */
export function searchWorks(index: WorksIndex, filter: WorksFilter, page: number, pageSize: number): WorksPage {
  const n = index.count;
  const size = bitsetWords(n);
  const matched = matchingBits(index, filter);
  const skip = (page - 1) * pageSize;
  if (matched === 'none') return { ids: [], total: 0, totalPages: 0 };
  if (matched === 'all') {
    const ids: number[] = [];
    for (let id = skip; id < Math.min(n, skip + pageSize); id++) ids.push(id);
    return { ids, total: n, totalPages: Math.ceil(n / pageSize) };
  }
  let total = 0;
  const ids: number[] = [];
  for (const acc of rankedParts(index, filter, matched))
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
