/**
 * "Something like X" and "in the style of X": a brief that names a work (or a composer) instead of
 * describing it. X is found against titles, aliases, catalog numbers and composer name forms (the
 * same search as `title`/`composer`, find.ts), and each arrangement is ranked by its closeness to
 * the works found: the same work, the same composer, and the tokens its style (period, genre,
 * style, title), instrumentation and mood fields share with theirs, an own word counting twice a
 * broader or implied one (vocabulary/meaning.ts tiers). Pure; compiled once per request, then
 * `likeCloseness` is integer work per arrangement, like the other requirement fields.
 */
import type { ResolveCatalog, WordField } from './catalog.ts';
import { workAt } from './catalog.ts';
import { searchWords } from './find.ts';
import { FUNCTION_WORDS, queryWords, type Vocabulary } from './text-match.ts';

/** Closeness that passes the requirement: the same work, or the same composer and one shared aspect, or several shared aspects. */
export const LIKE_PASS = 8;
/** Closeness that earns the requirement's full points (LIKE_WEIGHT). */
export const LIKE_FULL = 30;
/**
 * Points a "like X" requirement weighs in the score (other text requirements weigh 10, the role 30):
 * the brief names the music itself, so closeness ranks candidates more than whether a role is the
 * arrangement's own or one it also suits.
 */
export const LIKE_WEIGHT = 60;
/** Closeness is capped here (it is part of the ranking key's grade). */
export const LIKE_CAP = 60;
const SAME_WORK = 24;
const SAME_COMPOSER = 6;
/** Works of X considered (a composer may have many). */
const MAX_WORKS = 20;
/** Tokens of X's fields considered, per field. */
const MAX_TOKENS = 96;

const PATTERN =
  /(?:^|[,;]\s*|\s)(?:(?:something|anything|music|a piece|a track|one)\s+)?(?:(?:that\s+)?sounds?\s+like|similar\s+to|reminiscent\s+of|inspired\s+by|in\s+the\s+(?:style|manner|vein|spirit|mould|mold)\s+of|(?:a\s+)?la|like)\s+([^,;.]+)/iu;

/** Tokens of one field of X, compiled against one vocabulary: sorted ids and their weights. */
interface RefField {
  ids: Int32Array;
  weights: Uint8Array;
}

export interface LikeQuery {
  /** X as the request wrote it. */
  text: string;
  /** The requirement field the clause was written in. */
  field: 'style' | 'instrumentation' | 'mood';
  /** Catalog orders of the works X names, ascending; and their slugs (for the reason). */
  works: Int32Array;
  slugs: string[];
  /** Composer word ids of each of those works (same composer: the same list). */
  composers: Int32Array[];
  /** Per field, X's tokens as strings with their weights (compiled per vocabulary below). */
  tokens: Record<'style' | 'instrumentation' | 'mood', Map<string, number>>;
  /** Compiled against the catalog's vocabulary (and a layered catalog's overlay's, `over`). */
  base: Record<'style' | 'instrumentation' | 'mood', RefField>;
  over: Record<'style' | 'instrumentation' | 'mood', RefField> | null;
}

/** The "like X" clause of a requirement text, and the text without it; null when there is none. */
export function likeClause(text: string): { target: string; rest: string } | null {
  const m = PATTERN.exec(text);
  if (!m) return null;
  const target = m[1]!.trim();
  if (target === '') return null;
  return { target, rest: (text.slice(0, m.index) + ' ' + text.slice(m.index + m[0].length)).trim() };
}

const FIELDS = ['style', 'instrumentation', 'mood'] as const;

/** Words of a record title that say nothing about the music ("(planned)", "sketch"). */
const NOISE = new Set([
  'planned',
  'sketch',
  'version',
  'on',
  'hold',
  'bed',
  'lead',
  'intro',
  'outro',
  'loop',
  'music',
  'piece',
  'pieces',
  'work',
  'movement',
  'early',
  'late',
]);

/** A field's tokens of arrangement `i` (global id: a layered catalog's overlay arrangements from its overlay). */
function tokensAt(catalog: ResolveCatalog, field: (typeof FIELDS)[number], i: number): string[] {
  const layer = catalog.layer;
  const c = layer && i >= layer.baseArrangements ? layer.over : catalog;
  const j = layer && i >= layer.baseArrangements ? i - layer.baseArrangements : i;
  const f: WordField = c[field];
  const out: string[] = [];
  for (let k = f.start[j]!; k < f.start[j + 1]!; k++) out.push(c.vocab.words[f.ids[k]!]!);
  return out;
}

function compileField(
  vocab: Vocabulary,
  field: WordField | null,
  tokens: Map<string, number>,
  total: number,
): RefField {
  const pairs: Array<[number, number]> = [];
  for (const [token, weight] of tokens) {
    const id = vocab.idOf(token);
    if (id === undefined) continue;
    // Tokens most of the catalog shares ("^classical") say nothing about closeness.
    if (field && total > 8 && field.postingStart[id + 1]! - field.postingStart[id]! > total / 2) continue;
    pairs.push([id, weight]);
  }
  pairs.sort((a, b) => a[0] - b[0]);
  return { ids: Int32Array.from(pairs, (p) => p[0]), weights: Uint8Array.from(pairs, (p) => p[1]) };
}

function compileAll(
  catalog: ResolveCatalog,
  tokens: LikeQuery['tokens'],
): Record<'style' | 'instrumentation' | 'mood', RefField> {
  return {
    style: compileField(catalog.vocab, catalog.style, tokens.style, catalog.arrangementCount),
    instrumentation: compileField(
      catalog.vocab,
      catalog.instrumentation,
      tokens.instrumentation,
      catalog.arrangementCount,
    ),
    mood: compileField(catalog.vocab, catalog.mood, tokens.mood, catalog.arrangementCount),
  };
}

/** Resolve X against the catalog; null when no work matches it (the clause is then read as words). */
export function compileLike(catalog: ResolveCatalog, target: string, field: LikeQuery['field']): LikeQuery | null {
  const cleaned = target.replace(/['’]s\b/giu, '');
  const q = queryWords(cleaned);
  if (q.length === 0) return null;
  let orders = searchWords(catalog, q, []);
  if (orders.length === 0) orders = searchWords(catalog, [], q);
  if (orders.length === 0) return null;
  const works = Int32Array.from(orders.subarray(0, MAX_WORKS));
  const tokens: LikeQuery['tokens'] = { style: new Map(), instrumentation: new Map(), mood: new Map() };
  const composers: Int32Array[] = [];
  for (const order of works) {
    const cf = catalog.layer && order >= catalog.layer.baseWorks ? catalog.layer.over : catalog;
    const w = catalog.layer && order >= catalog.layer.baseWorks ? order - catalog.layer.baseWorks : order;
    composers.push(cf.composer.ids.slice(cf.composer.start[w]!, cf.composer.start[w + 1]!));
    const work = workAt(catalog, order);
    for (let i = work.firstArrangement; i < work.firstArrangement + work.arrangementCount; i++)
      for (const f of FIELDS)
        for (const t of tokensAt(catalog, f, i)) {
          if (tokens[f].size >= MAX_TOKENS) break;
          if (t.startsWith('^^') || NOISE.has(t) || FUNCTION_WORDS.has(t) || /^[0-9]+$/.test(t)) continue;
          // Only what the vocabulary knows: periods, genres, styles, instruments, moods (not title words).
          const bare = t.replace(/^[=~^]+/, '');
          if (!(bare.includes(' ') ? catalog.meaning.isPhrase(bare) : catalog.meaning.knowsWord(bare))) continue;
          const weight = /^[=~^]/.test(t) ? 1 : 2;
          tokens[f].set(t, Math.max(tokens[f].get(t) ?? 0, weight));
        }
  }
  // Style words are in every field's tokens (the index widens instrumentation and mood with them): counted once, as style.
  for (const f of ['instrumentation', 'mood'] as const) for (const t of tokens.style.keys()) tokens[f].delete(t);
  return {
    text: target,
    field,
    works,
    slugs: Array.from(works, (o) => catalog.works.slugs.at(o)),
    composers,
    tokens,
    base: compileAll(catalog, tokens),
    over: catalog.layer ? compileAll(catalog.layer.over, tokens) : null,
  };
}

function shared(ref: RefField, ids: Int32Array, from: number, to: number): number {
  let total = 0;
  let a = 0;
  let k = from;
  while (a < ref.ids.length && k < to) {
    const x = ref.ids[a]!;
    const y = ids[k]!;
    if (x < y) a++;
    else if (y < x) k++;
    else {
      total += ref.weights[a]!;
      a++;
      k++;
    }
  }
  return total;
}

function sameList(a: Int32Array, ids: Int32Array, from: number, to: number): boolean {
  if (a.length !== to - from) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== ids[from + k]) return false;
  return true;
}

/** Closeness of arrangement `i` to X: the same work, the same composer, shared tokens per field (capped). */
export function likeCloseness(catalog: ResolveCatalog, like: LikeQuery, i: number): number {
  const order = catalog.arrangementWork[i]!;
  let close = 0;
  // Binary search: the works are ascending.
  let lo = 0;
  let hi = like.works.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (like.works[mid]! < order) lo = mid + 1;
    else hi = mid;
  }
  if (like.works[lo] === order) close += SAME_WORK;
  const layer = catalog.layer;
  const overArrangement = layer !== undefined && i >= layer.baseArrangements;
  const c = overArrangement ? layer!.over : catalog;
  const j = overArrangement ? i - layer!.baseArrangements : i;
  const w = layer && order >= layer.baseWorks ? order - layer.baseWorks : order;
  const cw = layer && order >= layer.baseWorks ? layer.over : catalog;
  const from = cw.composer.start[w]!;
  const to = cw.composer.start[w + 1]!;
  // Composer ids are the vocabulary's of the catalog the work is in; X's were read the same way.
  if (like.composers.some((list) => sameList(list, cw.composer.ids, from, to))) close += SAME_COMPOSER;
  const ref = overArrangement ? like.over! : like.base;
  for (const f of FIELDS) {
    const field = c[f];
    close += shared(ref[f], field.ids, field.start[j]!, field.start[j + 1]!);
  }
  return Math.min(close, LIKE_CAP);
}

/** The tokens of arrangement `i` it shares with X, folded, per field (for the reason). */
export function likeShared(catalog: ResolveCatalog, like: LikeQuery, i: number): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const f of FIELDS) {
    const own = new Set(tokensAt(catalog, f, i));
    const words = [...like.tokens[f].keys()]
      .filter((t) => own.has(t) && !/^[=~^]/.test(t))
      .filter((t, _, all) => !all.some((o) => o !== t && o.includes(' ') && o.split(' ').includes(t)));
    if (words.length > 0) out[f] = words.slice(0, 6);
  }
  return out;
}
