/**
 * Finding the works a resolve request names: by `workSlug` exactly; else by title and/or
 * composer words (case- and accent-insensitive, any name form the composer has, catalog numbers
 * such as "BWV 1007" or "bwv1007"; every word must start a word of the work, and single letters
 * and numbers must equal one); else no work is named, and the caller's role and requirements
 * are matched across the whole catalog.
 */
import type { MusicResolveInput } from '../../schemas/resolve.ts';
import { orderOfSlug, workAt, type PreparedWork, type ResolveCatalog } from './catalog.ts';
import { queryWords } from './text-match.ts';

export type Found =
  | { by: 'work-slug'; slug: string; work: PreparedWork | null }
  | { by: 'title-composer'; title: string | null; composer: string | null; orders: Int32Array }
  | { by: 'catalog' };

/** Blank strings count as absent: "" names nothing. Otherwise the text is used as sent. */
function given(text: string | null | undefined): string | null {
  return text === null || text === undefined || text.trim() === '' ? null : text;
}

export function findWorks(catalog: ResolveCatalog, input: MusicResolveInput): Found {
  const slug = given(input.workSlug);
  if (slug !== null) {
    const order = orderOfSlug(catalog, slug);
    return { by: 'work-slug', slug, work: order >= 0 ? workAt(catalog, order) : null };
  }
  const title = given(input.title);
  const composer = given(input.composer);
  const titleWords = queryWords(title);
  const composerWords = queryWords(composer);
  if (titleWords.length === 0 && composerWords.length === 0) return { by: 'catalog' };
  return { by: 'title-composer', title, composer, orders: searchWords(catalog, titleWords, composerWords) };
}

/**
 * Works where every title word starts a word of the title, original title, catalog numbers or
 * composer name forms, and every composer word starts a word of the composer's name forms.
 */
export function searchWords(catalog: ResolveCatalog, titleWords: string[], composerWords: string[]): Int32Array {
  const layer = catalog.layer;
  if (!layer) return searchOwnWords(catalog, titleWords, composerWords);
  // A layered catalog (catalog-layer.ts): the base's live matches and the overlay's, in listing order.
  const base = searchOwnWords(catalog, titleWords, composerWords);
  const over = searchOwnWords(layer.over, titleWords, composerWords);
  const out = new Int32Array(base.length + over.length);
  let n = 0;
  let k = 0;
  for (let x = 0; x < base.length; x++) {
    const b = base[x]!;
    if (layer.dead[b]) continue;
    while (k < over.length && layer.insertAfter[over[k]!]! < b) out[n++] = layer.baseWorks + over[k++]!;
    out[n++] = b;
  }
  while (k < over.length) out[n++] = layer.baseWorks + over[k++]!;
  return out.subarray(0, n);
}

/** `searchWords` over the catalog's own word fields (a layered catalog's: its base's). */
function searchOwnWords(catalog: ResolveCatalog, titleWords: string[], composerWords: string[]): Int32Array {
  const terms = [
    ...titleWords.map((w) => ({ w, field: catalog.title })),
    ...composerWords.map((w) => ({ w, field: catalog.composer })),
  ].map(({ w, field }) => {
    const [lo, hi] = catalog.vocab.matchRange(w);
    return { lo, hi, field, size: field.postingStart[hi]! - field.postingStart[lo]! };
  });
  if (terms.length === 0 || terms.some((t) => t.size === 0)) return new Int32Array(0);
  // The rarest word gives the candidates (from its postings); every other word is then tested on
  // each candidate's own words, so a common word ("major", a composer's first name) costs little.
  terms.sort((a, b) => a.size - b.size);
  const first = terms[0]!;
  const s = catalog.scratch;
  if (s.generation > 2_000_000_000) {
    s.workStamp.fill(0);
    s.generation = 0;
  }
  const mark = ++s.generation;
  // Integers only (no object per match): a common word's matches cost their postings, nothing more.
  const matches = new Int32Array(first.size);
  let count = 0;
  const rest = terms.slice(1);
  candidates: for (let p = first.field.postingStart[first.lo]!; p < first.field.postingStart[first.hi]!; p++) {
    const w = first.field.postings[p]!;
    if (s.workStamp[w] === mark) continue;
    s.workStamp[w] = mark;
    for (const { lo, hi, field } of rest) {
      let found = false;
      for (let k = field.start[w]!; k < field.start[w + 1]!; k++) {
        if (field.ids[k]! >= lo && field.ids[k]! < hi) {
          found = true;
          break;
        }
      }
      if (!found) continue candidates;
    }
    matches[count++] = w;
  }
  return matches.subarray(0, count).sort();
}

/** The works of `orders` from `from`, at most `limit` of them, as views (for the few a caller shows). */
export function worksAt(catalog: ResolveCatalog, orders: Int32Array, limit: number, from = 0): PreparedWork[] {
  return Array.from(orders.subarray(from, from + limit), (order) => workAt(catalog, order));
}
