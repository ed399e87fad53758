/**
 * The one ordering of candidates, and a bounded best-K selection for catalog-wide scans.
 * Order (each key only breaks ties of the ones before it):
 *   1. ready before not ready;
 *   2. fits the channel role (intended or also suits) before not;
 *   3. fits the requested style, instrumentation, mood and duration before not: the right music
 *      lacking a file or an approval is closer to ready than the wrong music;
 *   4. higher score;
 *   4b. better match grade (vocabulary/meaning.ts: exact > word form > synonym > broader or
 *       narrower term > two steps, summed over the words matched);
 *   5. lower editorial rank within its work (rank 1 is the editors' first choice);
 *   6. work slug, by code point (slugs are lower-case ASCII);
 *   7. arrangement id.
 * Keys 1 to 4b are packed into one integer by `judge` (evaluate.ts), so a scan compares numbers.
 * Slug and id are unique together, so the order is total and the answer deterministic.
 */
import type { Columns } from './catalog.ts';
import { GRADE_BITS, GRADE_CAP, KEY_MUSIC_FIT, KEY_READY, KEY_ROLE_FIT } from './evaluate.ts';

export interface Scored {
  /** Arrangement index in the catalog. */
  index: number;
  /** Packed ranking key: ready, role fit, music fit, score (higher is better). */
  key: number;
}

/** The packed key of an evaluation (its fit points, `fitScore`, when it has them) or of plain key parts. */
export function packKey(k: {
  ready: boolean;
  roleFit: boolean;
  musicFit: boolean;
  score: number;
  fitScore?: number;
  grade?: number;
}): number {
  return (
    (k.ready ? KEY_READY : 0) |
    (k.roleFit ? KEY_ROLE_FIT : 0) |
    (k.musicFit ? KEY_MUSIC_FIT : 0) |
    ((k.fitScore ?? k.score) << GRADE_BITS) |
    Math.min(k.grade ?? 0, GRADE_CAP)
  );
}

/** Negative when arrangement x (with key xKey) ranks before y. */
export function compareRanked(
  cols: Pick<Columns, 'rank' | 'slugOrder' | 'id'>,
  xKey: number,
  x: number,
  yKey: number,
  y: number,
): number {
  if (xKey !== yKey) return yKey - xKey;
  const rank = cols.rank[x]! - cols.rank[y]!;
  if (rank !== 0) return rank;
  const slug = cols.slugOrder[x]! - cols.slugOrder[y]!;
  if (slug !== 0) return slug;
  return cols.id[x]! - cols.id[y]!;
}

/** Keeps the best `k` items offered, in order; O(n) for a scan when most items lose to the k-th. */
export class TopK {
  private readonly items: Scored[] = [];
  private readonly k: number;
  private readonly cols: Pick<Columns, 'rank' | 'slugOrder' | 'id'>;

  constructor(k: number, cols: Pick<Columns, 'rank' | 'slugOrder' | 'id'>) {
    this.k = k;
    this.cols = cols;
  }

  /** Offer an item; nothing is allocated when it would not be kept. */
  offer(key: number, index: number): void {
    const items = this.items;
    if (items.length === this.k) {
      const last = items[items.length - 1]!;
      if (compareRanked(this.cols, key, index, last.key, last.index) >= 0) return;
    }
    let lo = 0;
    let hi = items.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      const m = items[mid]!;
      if (compareRanked(this.cols, m.key, m.index, key, index) <= 0) lo = mid + 1;
      else hi = mid;
    }
    items.splice(lo, 0, { index, key });
    if (items.length > this.k) items.pop();
  }

  /** Whether an item with this key and index would be kept (always, before `k` are). */
  mayEnter(key: number, index: number): boolean {
    const items = this.items;
    if (items.length < this.k) return true;
    const last = items[items.length - 1]!;
    return compareRanked(this.cols, key, index, last.key, last.index) < 0;
  }

  /** The key an item must at least have to enter, once `k` items are kept; -1 before. */
  worstKey(): number {
    return this.items.length === this.k ? this.items[this.k - 1]!.key : -1;
  }

  result(): Scored[] {
    return [...this.items];
  }
}
